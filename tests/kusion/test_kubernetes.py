"""The Kubernetes runtime through the official client, against the in-process API emulator.

A real cluster is used as well when ``KUBECONFIG`` is set (the last test).
"""

from __future__ import annotations

import json
import os
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from kclpy.kusion.diff import MASK
from kclpy.kusion.model import Resource
from kclpy.kusion.runtimes.kubernetes import KubernetesRuntime, is_ready, three_way_merge_patch

from .k8s_emulator import EmulatorThread

Cli = Callable[..., tuple[int, str, str]]
ROLLOUT_DELAY = 0.3


@pytest.fixture(scope="module")
def emulator() -> Iterator[EmulatorThread]:
    thread = EmulatorThread(rollout_delay=ROLLOUT_DELAY).start()
    yield thread
    thread.stop()


@pytest.fixture
def kubeconfig(emulator: EmulatorThread, tmp_path: Path) -> Path:
    return emulator.write_kubeconfig(tmp_path / "kubeconfig")


def manifests(namespace: str, replicas: int = 2, password: str = "hunter2") -> list[dict[str, Any]]:
    labels = {"app": "web"}
    return [
        {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": namespace}},
        {
            "apiVersion": "v1",
            "kind": "Secret",
            "metadata": {"name": "db", "namespace": namespace},
            "stringData": {"password": password},
        },
        {
            "apiVersion": "apps/v1",
            "kind": "Deployment",
            "metadata": {"name": "web", "namespace": namespace, "labels": {"team": "a"}},
            "spec": {
                "replicas": replicas,
                "selector": {"matchLabels": labels},
                "template": {
                    "metadata": {"labels": labels},
                    "spec": {"containers": [{"name": "web", "image": "nginx"}]},
                },
            },
        },
    ]


def as_spec(namespace: str, kubeconfig: Path, **changes: Any) -> dict[str, Any]:
    """Manifests as Kusion resources; the workloads depend on the namespace."""
    resources = []
    for manifest in manifests(namespace, **changes):
        metadata = manifest["metadata"]
        parts = [manifest["apiVersion"], manifest["kind"]]
        parts += [metadata["namespace"]] if "namespace" in metadata else []
        resource = {
            "id": ":".join([*parts, metadata["name"]]),
            "type": "Kubernetes",
            "attributes": manifest,
            "extensions": {"kubeConfig": str(kubeconfig)},
        }
        if manifest["kind"] != "Namespace":
            resource["dependsOn"] = [f"v1:Namespace:{namespace}"]
        resources.append(resource)
    return {"resources": resources}


def deployment(namespace: str, **changes: Any) -> Resource:
    manifest = manifests(namespace, **changes)[2]
    return Resource(f"apps/v1:Deployment:{namespace}:web", "Kubernetes", manifest)


def test_three_way_merge_patch() -> None:
    original = {"metadata": {"labels": {"a": "1", "b": "2"}}, "spec": {"x": 1, "old": True}}
    modified = {"metadata": {"labels": {"a": "1"}}, "spec": {"x": 2}}
    current = {
        "metadata": {"labels": {"a": "1", "b": "2", "other": "3"}, "uid": "u"},
        "spec": {"x": 1, "old": True, "defaulted": 5},
        "status": {},
    }
    assert three_way_merge_patch(original, modified, current) == {
        "metadata": {"labels": {"b": None}},
        "spec": {"x": 2, "old": None},
    }
    assert three_way_merge_patch(modified, modified, {**current, **modified}) == {}


def test_readiness_rules() -> None:
    pending = {
        "kind": "Deployment",
        "metadata": {"generation": 2},
        "spec": {"replicas": 2},
        "status": {"observedGeneration": 1, "availableReplicas": 2, "updatedReplicas": 2},
    }
    assert not is_ready(pending)[0]
    pending["status"]["observedGeneration"] = 2  # type: ignore[index]
    assert is_ready(pending) == (True, "2/2 replicas available, 2 updated")
    assert is_ready({"kind": "ConfigMap"}) == (True, "")


def test_runtime_dry_run_patch_and_watch(kubeconfig: Path) -> None:
    namespace = f"rt-{uuid.uuid4().hex[:6]}"
    runtime = KubernetesRuntime(kubeconfig=str(kubeconfig))
    namespace_resource = Resource(
        f"v1:Namespace:{namespace}", "Kubernetes", manifests(namespace)[0]
    )
    runtime.apply(None, namespace_resource, dry_run=False)
    planned = deployment(namespace)
    assert runtime.read(None, planned) is None
    dry = runtime.apply(None, planned, dry_run=True)
    assert dry.attributes["spec"]["replicas"] == 2
    assert runtime.read(None, planned) is None  # dryRun=All stored nothing

    applied = runtime.apply(None, planned, dry_run=False)
    assert applied.attributes == planned.attributes  # state records the intent
    started = time.monotonic()
    runtime.watch(applied, timeout=10)
    assert time.monotonic() - started >= ROLLOUT_DELAY * 0.8  # really waited for the rollout
    live = runtime._live(planned)
    assert live is not None and live["status"]["availableReplicas"] == 2
    assert live["metadata"]["uid"] and live["metadata"]["resourceVersion"]

    changed = deployment(namespace, replicas=3)
    del changed.attributes["metadata"]["labels"]
    runtime.apply(applied, changed, dry_run=False)
    live = runtime._live(planned)
    assert live is not None
    assert live["spec"]["replicas"] == 3 and "labels" not in live["metadata"]
    assert live["metadata"]["generation"] == 2
    runtime.delete(changed)
    runtime.delete(changed)  # already gone: not an error
    assert runtime.read(None, changed) is None
    unknown = Resource(
        "x",
        "Kubernetes",
        {"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w"}},
    )
    assert runtime.read(None, unknown) is None


def test_cli_end_to_end_with_masked_secret(cli: Cli, tmp_path: Path, kubeconfig: Path) -> None:
    namespace = f"cli-{uuid.uuid4().hex[:6]}"
    spec = tmp_path / "spec.yaml"
    spec.write_text(yaml.safe_dump(as_spec(namespace, kubeconfig)))
    code, out, err = cli("apply", "--spec", str(spec), "--yes", "--watch-timeout", "20")
    assert code == 0, out + err
    assert "Apply complete! Resources: 3 created" in out

    code, out, _ = cli("preview", "--spec", str(spec), "-o", "json")
    steps = json.loads(out)["changeSteps"]
    assert {step["action"] for step in steps.values()} == {"UnChanged"}

    spec.write_text(yaml.safe_dump(as_spec(namespace, kubeconfig, replicas=4, password="s3cret")))
    code, out, _ = cli("preview", "--spec", str(spec), "-o", "json")
    steps = json.loads(out)["changeSteps"]
    actions = {key: step["action"] for key, step in steps.items()}
    assert actions == {
        f"v1:Namespace:{namespace}": "UnChanged",
        f"v1:Secret:{namespace}:db": "Update",
        f"apps/v1:Deployment:{namespace}:web": "Update",
    }
    secret = steps[f"v1:Secret:{namespace}:db"]
    assert secret["to"]["stringData"] == {"password": MASK}
    assert "hunter2" not in out and "s3cret" not in out
    code, out, _ = cli("preview", "--spec", str(spec), "--detail")
    assert "~ spec.replicas: 2 -> 4" in out
    assert "hunter2" not in out and "s3cret" not in out

    code, out, err = cli("apply", "--spec", str(spec), "--yes")
    assert code == 0, out + err
    code, out, err = cli("destroy", "--yes")
    assert code == 0, out + err
    lines = [line for line in out.splitlines() if "Delete" in line and "succeeded" in line]
    assert lines[-1].split()[2] == f"v1:Namespace:{namespace}"  # the namespace goes last
    runtime = KubernetesRuntime(kubeconfig=str(kubeconfig))
    assert runtime.read(None, deployment(namespace)) is None


@pytest.mark.skipif(not os.environ.get("KUBECONFIG"), reason="KUBECONFIG unset: no real cluster")
def test_real_cluster_round_trip(cli: Cli, tmp_path: Path) -> None:
    namespace = f"kclpy-test-{uuid.uuid4().hex[:6]}"
    config_map = {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": "settings", "namespace": namespace},
        "data": {"a": "1"},
    }
    documents = [manifests(namespace)[0], config_map]
    spec = tmp_path / "manifests.yaml"
    spec.write_text(yaml.safe_dump_all(documents))
    try:
        code, out, err = cli("apply", "--spec", str(spec), "--yes")
        assert code == 0, out + err
        code, out, _ = cli("preview", "--spec", str(spec))
        assert "No diff found" in out
    finally:
        assert cli("destroy", "--yes")[0] == 0


def test_a_program_of_top_level_manifests_is_applied_in_order(
    cli: Cli, tmp_path: Path, kubeconfig: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    namespace = f"top-{uuid.uuid4().hex[:6]}"
    monkeypatch.setenv("KUBECONFIG", str(kubeconfig))
    program = tmp_path / "main.k"
    program.write_text(
        f'project = "{namespace}"\n'
        'ns = {apiVersion = "v1", kind = "Namespace", metadata.name = project}\n'
        "configs = [\n"
        '  {apiVersion = "v1", kind = "ConfigMap", metadata = {name = "a", namespace = project}}\n'
        '  {apiVersion = "v1", kind = "ConfigMap", metadata = {name = "b", namespace = project}}\n'
        "]\n",
        encoding="utf-8",
    )
    code, out, err = cli("apply", str(program), "--yes", "--max-concurrent", "1")
    assert code == 0, out + err
    created = [line.split()[2] for line in out.splitlines() if "succeeded" in line]
    assert created == [
        f"v1:Namespace:{namespace}",
        f"v1:ConfigMap:{namespace}:a",
        f"v1:ConfigMap:{namespace}:b",
    ]
    runtime = KubernetesRuntime(kubeconfig=str(kubeconfig))
    config_map = Resource(
        "b",
        "Kubernetes",
        {
            "apiVersion": "v1",
            "kind": "ConfigMap",
            "metadata": {"name": "b", "namespace": namespace},
        },
    )
    assert runtime.read(None, config_map) is not None
    code, out, err = cli("destroy", "--yes")
    assert code == 0, out + err
    assert runtime.read(None, config_map) is None
