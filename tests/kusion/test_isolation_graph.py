"""Workspaces in one folder share nothing; `kcl kusion graph` shows the resource graph."""

from __future__ import annotations

import json
from pathlib import Path

from .faults_support import PREFIX, chain, lines, run, terraform_reality
from .support import requires_terraform


@requires_terraform
def test_two_workspaces_in_one_folder_never_share_a_resource(tmp_path: Path) -> None:
    spec = str(chain(tmp_path, ["a"]))
    for workspace in ("dev", "prod"):
        code, out, err = run(tmp_path, "apply", "--spec", spec, "--yes", "--workspace", workspace)
        assert code == 0 and "1 created" in out, out + err
    assert lines(tmp_path / "created.log") == ["a", "a"]  # one real resource per workspace
    assert terraform_reality(tmp_path) == ["a", "a"]

    code, out, err = run(tmp_path, "destroy", "--yes", "--workspace", "prod")
    assert code == 0, out + err
    assert lines(tmp_path / "destroyed.log") == ["a"]
    assert terraform_reality(tmp_path) == ["a"]  # dev's resource is untouched
    code, out, err = run(tmp_path, "preview", "--spec", spec, "-o", "json", "--workspace", "dev")
    assert json.loads(out)["changeSteps"][PREFIX + "a"]["action"] == "UnChanged", out + err
    assert run(tmp_path, "destroy", "--yes", "--workspace", "dev")[0] == 0
    assert terraform_reality(tmp_path) == []


def write_spec(path: Path) -> Path:
    documents = {
        "resources": [
            {"id": "base", "type": "Local", "attributes": {"path": "base.txt", "content": "b"}},
            {
                "id": "app",
                "type": "Local",
                "dependsOn": ["base"],
                "attributes": {"path": "app.txt", "content": "$kusion_path.base.content"},
            },
            {
                "id": "web",
                "type": "Local",
                "attributes": {"path": "web.txt", "content": "$kusion_path.app.content"},
            },
        ]
    }
    path.write_text(json.dumps(documents), encoding="utf-8")
    return path


def test_graph_of_the_spec_and_of_the_state(tmp_path: Path) -> None:
    spec = str(write_spec(tmp_path / "spec.json"))
    code, out, err = run(tmp_path, "graph", "--spec", spec)
    assert code == 0, out + err
    graph = json.loads(out)
    assert graph["source"] == "spec"
    assert graph["resources"]["base"]["dependents"] == ["app"]
    assert graph["resources"]["app"]["dependencies"] == ["base"]
    assert graph["resources"]["web"]["dependencies"] == ["app"]

    code, out, err = run(tmp_path, "graph", "--spec", spec, "-o", "dot")
    assert code == 0 and out.startswith("digraph ") and '"base" -> "app";' in out, out + err

    code, out, err = run(tmp_path, "graph")
    assert json.loads(out)["resources"] == {}, out + err  # nothing applied yet
    assert run(tmp_path, "apply", "--spec", spec, "--yes")[0] == 0
    code, out, err = run(tmp_path, "graph")
    graph = json.loads(out)
    assert graph["source"] == "state" and graph["revision"] == 1
    assert graph["resources"]["web"]["dependencies"] == ["app"]
