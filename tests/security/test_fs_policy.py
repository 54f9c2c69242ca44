"""The file-system policy (kclpy.vm.fs_policy) through the real ``kcl`` command.

Each test builds a module root in a temp folder with real symlinks pointing out of
it and runs ``python -m kclpy run`` there: every builtin that touches a file must
refuse the escape with a located E3M38 naming the path and the root, as the
reference does for ``file.read``; ``--allow-fs-read/--allow-fs-write`` widen the
roots and ``--no-fs`` closes them. A swap of a folder for a symlink between the
check and the open is caught by the descriptor walk.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

import kclpy
from kclpy.vm.fs_policy import WRITE, Access, FsPolicy

Kcl = Callable[..., subprocess.CompletedProcess[str]]  # the fixture of conftest.py


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    """``root/`` (with kcl.mod, a file, a link to a file and a folder outside) and
    ``outside/`` (a secret file)."""
    root = tmp_path / "root"
    outside = tmp_path / "outside"
    root.mkdir()
    outside.mkdir()
    (root / "kcl.mod").write_text("")
    (root / "inside.txt").write_text("inside")
    (outside / "secret.txt").write_text("secret")
    (root / "link.txt").symlink_to(outside / "secret.txt")
    (root / "away").symlink_to(outside)
    return tmp_path


ESCAPES = {
    "read": 'a = file.read("link.txt")',
    "read through a folder link": 'a = file.read("away/secret.txt")',
    "size": 'a = file.size("link.txt")',
    "abs": 'a = file.abs("away")',
    "write": 'file.write("link.txt", "x")',
    "append": 'file.append("away/new.txt", "x")',
    "mkdir": 'file.mkdir("away/new")',
    "delete": 'file.delete("away/secret.txt")',
    "cp from": 'file.cp("link.txt", "copy.txt")',
    "cp to": 'file.cp("inside.txt", "away/copy.txt")',
    "mv": 'file.mv("away/secret.txt", "moved.txt")',
    "json dump": 'json.dump_to_file({a = 1}, "away/out.json")',
    "yaml dump": 'yaml.dump_to_file({a = 1}, "away/out.yaml")',
    "yaml dump all": 'yaml.dump_all_to_file([{a = 1}], "link.txt")',
    "filesha256": 'a = crypto.filesha256("link.txt")',
    "absolute": 'a = file.read("{outside}/secret.txt")',
    "dot dot": 'a = file.read("../outside/secret.txt")',
}


@pytest.mark.parametrize("case", sorted(ESCAPES))
def test_escapes_are_refused(kcl: Kcl, tree: Path, case: str) -> None:
    root = tree / "root"
    statement = ESCAPES[case].replace("{outside}", str(tree / "outside"))
    result = kcl(root, f"import file\nimport json\nimport yaml\nimport crypto\n{statement}\n")
    assert result.returncode == 1, result.stdout + result.stderr
    assert "error[E3M38]: EvaluationError" in result.stderr
    assert f"escapes module root '{root}'" in result.stderr
    assert "main.k:5:" in result.stderr
    assert "Traceback" not in result.stderr
    # nothing outside was changed or created
    assert sorted(os.listdir(tree / "outside")) == ["secret.txt"]
    assert (tree / "outside" / "secret.txt").read_text() == "secret"


def test_inside_the_root_still_works(kcl: Kcl, tree: Path) -> None:
    root = tree / "root"
    program = """import file
import json
file.mkdir("out/deep")
file.write("out/deep/a.txt", "one")
file.append("out/deep/a.txt", "+two")
json.dump_to_file({a = 1}, "out/b.json")
file.cp("out", "copy")
file.mv("copy/b.json", "copy/c.json")
file.delete("copy/deep/a.txt")
a = file.read("out/deep/a.txt")
names = [n.removeprefix(file.modpath()) for n in file.glob("**/*")]
"""
    result = kcl(root, program)
    assert result.returncode == 0, result.stderr
    assert "a: one+two" in result.stdout
    # the link names are listed (as by the reference), nothing behind the folder link
    assert "- /link.txt" in result.stdout and "- /away\n" in result.stdout
    assert "secret" not in result.stdout
    assert (root / "copy" / "c.json").read_text() == '{"a": 1}'
    assert not any(name.startswith(".kclpy-") for name in os.listdir(root / "out"))


def test_allow_read_and_write_widen_the_roots(kcl: Kcl, tree: Path) -> None:
    root = tree / "root"
    outside = tree / "outside"
    read = f'import file\na = file.read("{outside}/secret.txt")\n'
    assert kcl(root, read, "--allow-fs-read", str(outside)).stdout == "a: secret\n"
    write = f'import json\njson.dump_to_file({{a = 1}}, "{outside}/o.json")\nb = 1\n'
    refused = kcl(root, write, "--allow-fs-read", str(outside))
    assert refused.returncode == 1
    assert f"o.json' escapes module root '{root}'" in refused.stderr  # read-only there
    other = tree / "other"
    other.mkdir()
    elsewhere = write.replace(str(outside), str(other))
    refused = kcl(root, elsewhere, "--allow-fs-write", str(outside))
    assert f"escapes the allowed roots '{root}', '{outside}'" in refused.stderr
    allowed = kcl(root, write, "--allow-fs-write", str(outside))
    assert allowed.returncode == 0, allowed.stderr
    assert (outside / "o.json").read_text() == '{"a": 1}'


def test_no_fs_closes_files_and_environment(kcl: Kcl, tree: Path) -> None:
    root = tree / "root"
    for statement in ('a = file.read("inside.txt")', 'a = file.read_env("HOME")'):
        result = kcl(root, f"import file\n{statement}\n", "--no-fs")
        assert result.returncode == 1
        assert "file system access is disabled (--no-fs)" in result.stderr
        assert "main.k:2:" in result.stderr
    assert kcl(root, 'import file\na = file.read("inside.txt")\n').stdout == "a: inside\n"


def test_a_folder_swapped_for_a_symlink_after_the_check_is_not_followed(tree: Path) -> None:
    root = tree / "root"
    (root / "sub").mkdir()
    (root / "sub" / "secret.txt").write_text("fine")
    access = Access(FsPolicy(), str(root), str(root / "main.k"))
    real = access.resolve("sub/secret.txt")
    # the attacker swaps the checked folder for a link out of the root
    os.rename(root / "sub", root / "old-sub")
    (root / "sub").symlink_to(tree / "outside")
    with pytest.raises(OSError):
        access.open(real, os.O_RDONLY)
    with pytest.raises(OSError):
        access.write_text(access.resolve("inside.txt", WRITE).replace("inside", "sub/x"), "x")
    assert sorted(os.listdir(tree / "outside")) == ["secret.txt"]


def test_a_file_swapped_for_a_symlink_is_not_followed(tree: Path) -> None:
    root = tree / "root"
    access = Access(FsPolicy(), str(root), str(root / "main.k"))
    real = access.resolve("inside.txt")
    os.remove(root / "inside.txt")
    (root / "inside.txt").symlink_to(tree / "outside" / "secret.txt")
    with pytest.raises(OSError):
        access.read_bytes(real)


def test_api_options(tree: Path) -> None:
    root = tree / "root"
    main = str(root / "main.k")
    read = f'import file\na = file.read("{tree}/outside/secret.txt")\n'
    assert not kclpy.run(read, filename=main).ok
    assert (
        kclpy.run(read, filename=main, allow_fs_read=[str(tree / "outside")]).text == "a: secret\n"
    )
    closed = kclpy.run('import file\na = file.read("inside.txt")\n', filename=main, no_fs=True)
    assert "disabled (--no-fs)" in closed.diagnostics[0].message
