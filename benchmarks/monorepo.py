"""A synthetic configuration monorepo in the konfig layout, for ``kcl build`` benchmarks.

    python benchmarks/monorepo.py OUT_DIR --projects 100 [--envs dev,staging,prod]
        [--seed 7] [--model-packages 12]

Writes, deterministically for the same arguments:

* ``models/``: a KCL module (``kcl.mod`` name ``models``) of shared packages:
  ``models/base`` (metadata, labels mixin, a protocol), ``models/app`` (``App``
  with inheritance, mixins, defaults and checks), ``models/render`` (turns the
  ``App`` instances of a stack into Kubernetes-like manifests) and
  ``--model-packages`` add-on packages ``models/addons/a<i>`` (sidecars, each
  imported by a seeded subset of the projects, so a change to one reaches only
  some stacks).
* ``projects/p<NNNN>/base/base.k``: the project's common ``App`` config, and one
  stack per environment ``projects/p<NNNN>/<env>/``: ``kcl.mod`` (dependency
  ``models = { path = ... }`` and ``[profile] entries``), ``main.k`` (the
  environment's overrides), ``stack.yaml``.

``--projects 1900`` with three environments gives the seeds' scale: 5,700 stacks.
The generated KCL runs on both kclpy and the reference (``-E models=...``).
"""

from __future__ import annotations

import argparse
import json
import random
from pathlib import Path

ENVS = ("dev", "staging", "prod")

BASE_PACKAGE = '''\
"""Shared metadata for every application."""
import regex

protocol NamedProtocol:
    name: str

schema Named:
    name: str

mixin LabelsMixin for NamedProtocol:
    labels: {str:str} = {
        "app.kubernetes.io/name" = name
        "app.kubernetes.io/managed-by" = "kcl"
    }

schema Metadata:
    name: str
    namespace: str = "default"
    annotations: {str:str} = {}

    check:
        len(name) <= 63, "name too long"
        regex.match(name, r"^[a-z0-9-]+$"), "name must be a DNS label"
'''

APP_PACKAGE = '''\
"""The application model that projects configure."""
import models.base

schema Port:
    port: int
    targetPort: int = port
    protocol: "TCP" | "UDP" = "TCP"

    check:
        0 < port < 65536

schema Resources:
    cpu: str = "100m"
    memory: str = "128Mi"

schema Container:
    name: str = "main"
    image: str
    env: {str:str} = {}
    resources: Resources = Resources {}

schema Workload(base.Named):
    mixin [base.LabelsMixin]
    replicas: int = 1
    containers: [Container] = []

    check:
        replicas >= 0, "replicas must not be negative"

schema App(Workload):
    namespace: str = "apps"
    ports: [Port] = [Port {port = 80, targetPort = 8080}]
    sidecars: [Container] = []
    tier: "web" | "worker" | "batch" = "web"
    env: "dev" | "staging" | "prod" = "dev"
    replicas = 3 if env == "prod" else 1

    check:
        len(containers) > 0, "an app needs a container"
        env != "prod" or replicas >= 2, "prod apps need two replicas"
'''

RENDER_PACKAGE = '''\
"""Render App instances into Kubernetes-like manifests."""
import models.app as appmodel

deployment = lambda a: appmodel.App -> {str:} {
    {
        apiVersion = "apps/v1"
        kind = "Deployment"
        metadata = {name = a.name, namespace = a.namespace, labels = a.labels}
        spec = {
            replicas = a.replicas
            selector.matchLabels = a.labels
            template.spec.containers = [{
                name = c.name
                image = c.image
                env = [{name = k, value = v} for k, v in c.env]
                resources.limits = {cpu = c.resources.cpu, memory = c.resources.memory}
            } for c in a.containers + a.sidecars]
        }
    }
}

service = lambda a: appmodel.App -> {str:} {
    {
        apiVersion = "v1"
        kind = "Service"
        metadata = {name = a.name, namespace = a.namespace}
        spec = {
            selector = a.labels
            ports = [
                {port = p.port, targetPort = p.targetPort, protocol = p.protocol} for p in a.ports
            ]
        }
    }
}
'''

RENDER_ENTRY = '''\
"""The render entry of every stack: all App instances to manifests."""
import models.app as appmodel
import models.render

_apps = appmodel.App.instances()
manifests = [render.deployment(a) for a in _apps] + [render.service(a) for a in _apps]
'''

ADDON_PACKAGE = '''\
"""Add-on {index}: a sidecar and its defaults."""
import models.app as appmodel

schema Sidecar{index}(appmodel.Container):
    name: str = "addon-{index}"
    image: str = "registry.local/addon-{index}:{version}"
    env: {{str:str}} = {{"ADDON" = "{index}", "LEVEL" = "{level}"}}

    check:
        len(image) > 0

sidecar = lambda app: str -> appmodel.Container {{
    Sidecar{index} {{env = {{"ADDON" = "{index}", "APP" = app}}}}
}}
'''


def _project_base(rng: random.Random, name: str, apps: int, addons: list[int]) -> str:
    """A project's common config: ``apps`` App instances (about 30 lines each)."""
    lines = ['"""The project\'s applications, shared by its environments."""']
    lines += ["import models.app as appmodel"]
    lines += [f"import models.addons.a{i} as addon{i}" for i in addons]
    for index in range(apps):
        lines += ["", *_app_block(rng, f"{name}-{index}", f"app{index}", addons)]
    return "\n".join(lines) + "\n"


def _app_block(rng: random.Random, name: str, variable: str, addons: list[int]) -> list[str]:
    lines = [
        f"{variable}: appmodel.App {{",
        f'    name = "{name}"',
        f'    tier = "{rng.choice(["web", "worker", "batch"])}"',
        "    containers = [{",
        f'        image = "registry.local/{name}:1.{rng.randint(0, 40)}.{rng.randint(0, 9)}"',
        "        env = {",
    ]
    lines += [
        f'            "VAR_{k}" = "{rng.randint(0, 10**6)}"' for k in range(rng.randint(6, 16))
    ]
    lines += [
        "        }",
        f'        resources = {{cpu = "{rng.choice([100, 250, 500])}m", '
        f'memory = "{rng.choice([128, 256, 512])}Mi"}}',
        "    }]",
    ]
    if addons:
        items = ", ".join(f'addon{i}.sidecar("{name}")' for i in addons)
        lines.append(f"    sidecars = [{items}]")
    lines.append("    ports = [")
    lines += [f"        {{port = {8000 + k}}}" for k in range(rng.randint(1, 4))]
    lines += ["    ]", "}"]
    return lines


def _stack_main(rng: random.Random, env: str, apps: int) -> str:
    """An environment's overrides of each application."""
    lines = ['"""Environment overrides."""', "import models.app as appmodel"]
    for index in range(apps):
        lines += ["", f"app{index}: appmodel.App {{", f'    env = "{env}"']
        if env == "prod":
            lines.append(f"    replicas = {rng.randint(2, 6)}")
        lines.append(f'    namespace = "{env}-{rng.choice(["a", "b", "c"])}"')
        lines.append("}")
    return "\n".join(lines) + "\n"


def _stack_mod(name: str, depth: int) -> str:
    up = "/".join([".."] * depth)
    return (
        f'[package]\nname = "{name}"\nversion = "0.1.0"\n\n'
        f'[dependencies]\nmodels = {{ path = "{up}/models" }}\n\n'
        '[profile]\nentries = ["../base/base.k", "main.k", '
        '"${models:KCL_MOD}/entry/render.k"]\n'
    )


def generate(
    out: Path, projects: int, envs: tuple[str, ...], seed: int, model_packages: int
) -> dict[str, int]:
    """Write the repository; returns its counts (stacks, files, lines)."""
    rng = random.Random(seed)
    files: dict[str, str] = {
        "models/kcl.mod": '[package]\nname = "models"\nversion = "0.1.0"\n',
        "models/base/base.k": BASE_PACKAGE,
        "models/app/app.k": APP_PACKAGE,
        "models/render/render.k": RENDER_PACKAGE,
        # the stacks' render entry: a file of their main package, apart from the packages
        "models/entry/render.k": RENDER_ENTRY,
    }
    for i in range(model_packages):
        files[f"models/addons/a{i}/addon.k"] = ADDON_PACKAGE.format(
            index=i, version=f"{i % 5}.{i % 7}", level=rng.choice(["low", "high"])
        )
    stacks = 0
    for p in range(projects):
        name = f"p{p:04d}"
        count = rng.choice([0, 0, 1, 1, 2]) if model_packages else 0
        addons = sorted(rng.sample(range(model_packages), count)) if count else []
        apps = rng.randint(3, 12)
        files[f"projects/{name}/base/base.k"] = _project_base(rng, name, apps, addons)
        for env in envs:
            folder = f"projects/{name}/{env}"
            files[f"{folder}/kcl.mod"] = _stack_mod(f"{name}-{env}", 3)
            files[f"{folder}/main.k"] = _stack_main(rng, env, apps)
            files[f"{folder}/stack.yaml"] = f"name: {env}\n"
            stacks += 1
    lines = 0
    for relative, text in files.items():
        path = out / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        lines += text.count("\n")
    summary = {"stacks": stacks, "files": len(files), "lines": lines}
    (out / "monorepo.json").write_text(json.dumps(summary, indent=2) + "\n", encoding="utf-8")
    return summary


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--projects", type=int, default=100)
    parser.add_argument("--envs", default=",".join(ENVS))
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--model-packages", type=int, default=12)
    args = parser.parse_args()
    envs = tuple(e for e in args.envs.split(",") if e)
    summary = generate(args.out, args.projects, envs, args.seed, args.model_packages)
    print(json.dumps(summary))


if __name__ == "__main__":
    main()
