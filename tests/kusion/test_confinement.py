"""What kcl kusion writes stays where it belongs, readable only by its owner.

- ``Local`` resources write and delete only inside the working directory
  (symlinks resolved), unless ``--allow-local-path DIR`` allows a folder; a
  path recorded in state is not removed outside by destroy either;
- the state database, the journal and Terraform's working folders are
  created 0600 / 0700, and existing ones with wider modes are tightened.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable
from pathlib import Path

import pytest
import yaml

from kclpy.kusion.journal import PUT, Journal
from kclpy.kusion.model import Resource

from .faults_support import run
from .support import requires_terraform

Cli = Callable[..., tuple[int, str, str]]


def mode(path: Path) -> int:
    return stat.S_IMODE(os.stat(path).st_mode)


def local_spec(workdir: Path, path: str, content: str = "hello") -> Path:
    resource = {"id": "file", "type": "Local", "attributes": {"path": path, "content": content}}
    spec = workdir / "spec.yaml"
    spec.write_text(yaml.safe_dump({"resources": [resource]}), encoding="utf-8")
    return spec


@pytest.mark.parametrize("kind", ["dotdot", "absolute", "symlinked-folder", "symlinked-file"])
def test_local_paths_outside_the_working_directory_are_refused(
    cli: Cli, tmp_path: Path, kind: str
) -> None:
    workdir = tmp_path / "project"
    outside = tmp_path / "outside"
    workdir.mkdir()
    outside.mkdir()
    victim = outside / "victim.txt"
    victim.write_text("keep me", encoding="utf-8")
    path = {
        "dotdot": "../outside/victim.txt",
        "absolute": str(victim),
        "symlinked-folder": "link/victim.txt",
        "symlinked-file": "victim-link.txt",
    }[kind]
    (workdir / "link").symlink_to(outside)
    (workdir / "victim-link.txt").symlink_to(victim)
    spec = local_spec(workdir, path, "overwritten")
    for command in (["preview", "--spec", str(spec)], ["apply", "--spec", str(spec), "--yes"]):
        code, out, err = cli(*command, workdir=workdir)
        assert code == 1, out + err
        assert "outside the working directory" in err and "--allow-local-path" in err
    assert victim.read_text(encoding="utf-8") == "keep me"


def test_an_allowed_folder_may_be_written_and_destroy_never_removes_outside(
    cli: Cli, tmp_path: Path
) -> None:
    workdir = tmp_path / "project"
    outside = tmp_path / "outside"
    workdir.mkdir()
    outside.mkdir()
    spec = local_spec(workdir, "../outside/made.txt")
    code, out, err = cli(
        "apply", "--spec", str(spec), "--yes", "--allow-local-path", str(outside), workdir=workdir
    )
    assert code == 0, out + err
    made = outside / "made.txt"
    assert made.read_text(encoding="utf-8") == "hello"
    code, out, err = cli("destroy", "--yes", workdir=workdir)  # no longer allowed
    assert code == 1 and "outside the working directory" in err, out + err
    assert made.exists()
    code, out, err = cli("destroy", "--yes", "--allow-local-path", str(outside), workdir=workdir)
    assert code == 0, out + err
    assert not made.exists()


def test_a_local_file_inside_is_written_atomically(cli: Cli, tmp_path: Path) -> None:
    spec = local_spec(tmp_path, "sub/dir/file.txt", "first")
    assert cli("apply", "--spec", str(spec), "--yes")[0] == 0
    target = tmp_path / "sub" / "dir" / "file.txt"
    os.chmod(target, 0o640)
    spec = local_spec(tmp_path, "sub/dir/file.txt", "second")
    assert cli("apply", "--spec", str(spec), "--yes")[0] == 0
    assert target.read_text(encoding="utf-8") == "second" and mode(target) == 0o640
    assert sorted(path.name for path in target.parent.iterdir()) == ["file.txt"]


def test_state_and_journal_are_private(cli: Cli, tmp_path: Path) -> None:
    spec = local_spec(tmp_path, "file.txt")
    code, out, err = cli("apply", "--spec", str(spec), "--yes")
    assert code == 0, out + err
    kusion = tmp_path / ".kusion"
    assert mode(kusion) == 0o700
    for path in kusion.iterdir():
        if path.name.startswith("state.db"):
            assert mode(path) == 0o600, path
    journal = Journal(kusion / "journal", "demo", "default")
    journal.add(PUT, "x", Resource("x", "Local", {"password": "p"}))
    assert mode(journal.path) == 0o600 and mode(journal.path.parent) == 0o700
    assert mode(kusion / "journal") == 0o700


def test_wider_modes_left_by_an_older_version_are_tightened(cli: Cli, tmp_path: Path) -> None:
    kusion = tmp_path / ".kusion"
    kusion.mkdir(mode=0o755)
    os.chmod(kusion, 0o755)
    (kusion / "state.db").touch()
    os.chmod(kusion / "state.db", 0o644)
    journal = kusion / "journal" / "demo"
    journal.mkdir(parents=True)
    os.chmod(journal, 0o755)
    code, out, err = cli("state", "show", "--project", "demo")
    assert code == 0, out + err
    assert mode(kusion) == 0o700 and mode(kusion / "state.db") == 0o600
    assert "note: tightened the permissions of" in err and "from 0644 to 0600" in err
    Journal(kusion / "journal", "demo", "default").add(PUT, "x", Resource("x", "Local"))
    assert mode(journal) == 0o700


def test_a_symlink_in_place_of_the_state_is_refused(cli: Cli, tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere.db"
    elsewhere.touch()
    os.chmod(elsewhere, 0o644)
    (tmp_path / ".kusion").mkdir(mode=0o700)
    (tmp_path / ".kusion" / "state.db").symlink_to(elsewhere)
    code, out, err = cli("state", "show")
    assert code != 0 and "Traceback" not in out + err
    assert mode(elsewhere) == 0o644  # not chmod-ed through the link


@requires_terraform
def test_terraform_workspaces_are_private(tmp_path: Path) -> None:
    resource = {
        "id": "hashicorp:terraform:terraform_data:box",
        "type": "Terraform",
        "attributes": {"input": {"password": "in-the-tfstate"}},
    }
    spec = tmp_path / "spec.yaml"
    spec.write_text(yaml.safe_dump({"resources": [resource]}), encoding="utf-8")
    code, out, err = run(tmp_path, "apply", "--spec", str(spec), "--yes")
    assert code == 0, out + err
    base = tmp_path / ".kusion" / "terraform"
    workspaces = [path for path in base.rglob("*") if (path / "main.tf.json").exists()]
    assert len(workspaces) == 1
    for folder in [base, *base.rglob("*")]:
        if folder.is_dir() and not folder.is_symlink():
            assert mode(folder) & 0o077 == 0, folder
    for name in ("main.tf.json", "terraform.tfstate"):
        assert mode(workspaces[0] / name) == 0o600, name
