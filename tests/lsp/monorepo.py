"""A generated konfig-shaped monorepo for the language server's tests and benchmark.

``build(folder, stacks=..., settings_stacks=...)`` writes, under ``folder``:

* ``workspace/konfig/``: kcl-lang/konfig's layout: a framework package (``kcl.mod``
  named ``konfig``, depending on the registry package ``kube``), shared models under
  ``models/``, a ``render.k`` that reads ``frontend.Server.instances()``, and stacks
  ``examples/appN/{base/base.k, dev/main.k, dev/kcl.mod}`` whose ``[profile] entries``
  are ``../base/base.k``, ``main.k`` and ``${konfig:KCL_MOD}/models/render/render.k``
  (``dev`` by default; more environments share one ``base.k``);
  the stacks' ``kcl.mod.lock`` files are committed in an older layout (no checksums),
  so any resolution that writes locks rewrites them;
* ``workspace/kusion/``: KusionStack/konfig's layout: one ``kcl.mod`` at the project
  root, stacks ``appops/webN/{base/base.k, prod/main.k, prod/kcl.yaml}`` whose
  ``kcl.yaml`` names the files (``${KCL_MOD}/base/render/render.k`` among them) and
  options;
* ``cache/kube_1.0.0/``: the registry package ``kube`` already in the package cache
  (``$KCL_PKG_PATH``), so no network is needed.

``base.k`` sets the required ``mainContainer``; ``main.k`` alone does not, so a
server that analyses ``main.k`` without its stack's other entries reports a false
"attribute 'mainContainer' ... is required". Returns a ``Monorepo`` with the paths.
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass, field
from pathlib import Path

KUBE = {
    "kcl.mod": '[package]\nname = "kube"\nversion = "1.0.0"\n',
    "core/v1/container.k": (
        "schema Container:\n"
        '    """A container of a pod."""\n'
        "    name: str\n"
        "    image: str\n"
        "    ports?: [int]\n"
    ),
    "apps/v1/deployment.k": (
        "import kube.core.v1\n\n"
        "schema Deployment:\n"
        '    """A deployment."""\n'
        "    name: str\n"
        "    replicas: int = 1\n"
        "    containers: [v1.Container] = []\n"
    ),
}

FRAMEWORK = {
    "models/frontend/server.k": (
        "import models.frontend.container\n\n"
        "schema Server:\n"
        '    """An application: its main container and its replicas."""\n'
        "    name?: str\n"
        "    image?: str\n"
        "    mainContainer: container.Main\n"
        "    replicas: int = 1\n"
        "    labels: {str:str} = {}\n"
    ),
    "models/frontend/container/main.k": (
        'schema Main:\n    """The main container."""\n    name: str = "main"\n    ports?: [int]\n'
    ),
    "models/render/render.k": (
        "import models.frontend\n"
        "import kube.apps.v1 as apps\n"
        "import kube.core.v1 as core\n\n"
        "_servers = frontend.Server.instances()\n"
        "deployments = [apps.Deployment {\n"
        '    name = s.name or "app"\n'
        "    replicas = s.replicas\n"
        '    containers = [core.Container {name = s.mainContainer.name, image = s.image or ""}]\n'
        "} for s in _servers]\n"
    ),
}

BASE = (
    "import konfig.models.frontend\n"
    "import konfig.models.frontend.container\n\n"
    "appConfiguration: frontend.Server {{\n"
    '    name = "app{index}"\n'
    '    mainContainer = container.Main {{name = "app{index}", ports = [80]}}\n'
    "}}\n"
)
MAIN = (
    "import konfig.models.frontend\n\n"
    "# the stack's values win over base.k's\n"
    "appConfiguration: frontend.Server {{\n"
    '    image = "registry.local/app{index}:{env}"\n'
    "    replicas = {replicas}\n"
    "}}\n"
)
KUSION_MODELS = {
    "base/pkg/models/server.k": (
        "schema Server:\n"
        '    """A KusionStack-style application."""\n'
        "    name?: str\n"
        "    image: str\n"
        "    cluster?: str\n"
        "    mainContainer: {str:str}\n"
    ),
    "base/render/render.k": (
        "import base.pkg.models\n\n"
        "_apps = models.Server.instances()\n"
        "rendered = [a.image for a in _apps]\n"
    ),
}
KUSION_BASE = (
    "import base.pkg.models\n\n"
    "web: models.Server {{\n"
    '    name = "web{index}"\n'
    '    mainContainer = {{name = "web{index}"}}\n'
    "}}\n"
)
KUSION_MAIN = (
    "import base.pkg.models\n\n"
    "web: models.Server {{\n"
    '    image = "registry.local/web{index}:prod"\n'
    '    cluster = option("cluster")\n}}\n'
)
KCL_YAML = (
    "kcl_cli_configs:\n"
    "  file:\n"
    "    - ../base/base.k\n"
    "    - main.k\n"
    "    - ${{KCL_MOD}}/base/render/render.k\n"
    "  disable_none: true\n"
    "kcl_options:\n"
    "  - key: cluster\n"
    "    value: prod-{index}\n"
)


@dataclass
class Monorepo:
    root: Path  # the workspace folder (what the editor opens)
    cache: Path  # the package cache ($KCL_PKG_PATH)
    konfig: Path
    kusion: Path
    stacks: list[Path] = field(default_factory=list)  # every stack's main.k

    def snapshot(self) -> dict[str, tuple[int, str]]:
        """Every file under the workspace: (mtime in ns, sha256 of the content)."""
        found: dict[str, tuple[int, str]] = {}
        for folder, _subfolders, names in os.walk(self.root):
            for name in names:
                path = os.path.join(folder, name)
                with open(path, "rb") as handle:
                    digest = hashlib.sha256(handle.read()).hexdigest()
                found[path] = (os.stat(path).st_mtime_ns, digest)
        return found


def _write(folder: Path, files: dict[str, str]) -> None:
    for relative, text in files.items():
        path = folder / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


def build(
    folder: Path,
    stacks: int = 3,
    settings_stacks: int = 2,
    environments: tuple[str, ...] = ("dev",),
) -> Monorepo:
    """The monorepo under ``folder`` (see the module doc); each application of
    konfig's layout has a stack per environment (sharing its ``base.k``)."""
    repo = Monorepo(folder / "workspace", folder / "cache", Path(), Path())
    _write(repo.cache / "kube_1.0.0", KUBE)
    repo.konfig = repo.root / "konfig"
    framework = dict(FRAMEWORK)
    framework["kcl.mod"] = (
        '[package]\nname = "konfig"\nversion = "0.1.0"\n\n[dependencies]\nkube = "1.0.0"\n'
    )
    old_lock = (
        '[dependencies]\n  [dependencies.kube]\n    name = "kube"\n'
        '    full_name = "kube_0.9.0"\n    version = "0.9.0"\n'
    )
    framework["kcl.mod.lock"] = old_lock
    for index in range(stacks):
        app = f"examples/app{index}"
        framework[f"{app}/base/base.k"] = BASE.format(index=index)
        for env in environments:
            framework[f"{app}/{env}/main.k"] = MAIN.format(index=index, env=env, replicas=index + 1)
            framework[f"{app}/{env}/kcl.mod"] = (
                f'[package]\nname = "app{index}-{env}"\nversion = "0.0.1"\n\n'
                '[dependencies]\nkonfig = { path = "../../../../konfig" }\nkube = "1.0.0"\n\n'
                "[profile]\n"
                'entries = ["../base/base.k", "main.k", '
                '"${konfig:KCL_MOD}/models/render/render.k"]\n'
            )
            framework[f"{app}/{env}/kcl.mod.lock"] = old_lock
            repo.stacks.append(repo.konfig / app / env / "main.k")
        framework[f"{app}/kcl.mod"] = (  # the application's module: base.k's root
            f'[package]\nname = "app{index}"\nversion = "0.0.1"\n\n'
            '[dependencies]\nkonfig = { path = "../../../konfig" }\nkube = "1.0.0"\n'
        )
        framework[f"{app}/kcl.mod.lock"] = old_lock
    _write(repo.konfig, framework)
    repo.kusion = repo.root / "kusion"
    kusion = dict(KUSION_MODELS)
    kusion["kcl.mod"] = '[package]\nname = "kusion"\nversion = "0.1.0"\n'
    for index in range(settings_stacks):
        app = f"appops/web{index}"
        kusion[f"{app}/base/base.k"] = KUSION_BASE.format(index=index)
        kusion[f"{app}/prod/main.k"] = KUSION_MAIN.format(index=index)
        kusion[f"{app}/prod/kcl.yaml"] = KCL_YAML.format(index=index)
        kusion[f"{app}/prod/stack.yaml"] = "name: prod\n"
        repo.stacks.append(repo.kusion / app / "prod" / "main.k")
    _write(repo.kusion, kusion)
    return repo
