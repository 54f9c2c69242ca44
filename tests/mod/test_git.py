"""Git dependencies from real repositories made in the test (file:// URLs)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from .conftest import kcl, make_package

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")


def git(folder: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@example.com", *args],
        cwd=folder, capture_output=True, text=True, check=True,
    )  # fmt: skip
    return done.stdout.strip()


@pytest.fixture
def repository(tmp_path: Path) -> tuple[str, dict[str, str]]:
    """A repository ``mathlib`` with tags v0.1.0, v0.2.0 and a branch ``next``."""
    folder = make_package(tmp_path / "mathlib", "mathlib", "0.1.0", "version = 'one'\n")
    git(folder, "init", "-q", "-b", "main")
    git(folder, "add", ".")
    git(folder, "commit", "-q", "-m", "one")
    git(folder, "tag", "v0.1.0")
    first = git(folder, "rev-parse", "HEAD")
    (folder / "main.k").write_text("version = 'two'\n")
    git(folder, "commit", "-q", "-am", "two")
    git(folder, "tag", "v0.2.0")
    git(folder, "checkout", "-q", "-b", "next")
    (folder / "main.k").write_text("version = 'next'\n")
    git(folder, "commit", "-q", "-am", "next")
    git(folder, "checkout", "-q", "main")
    return f"file://{folder}", {"first": first}


@pytest.mark.parametrize(
    ("how", "expected"),
    [(["--tag", "v0.1.0"], "one"), (["--tag", "v0.2.0"], "two"), (["--branch", "next"], "next")],
)
def test_add_git_dependency_and_run(
    repository: tuple[str, dict[str, str]],
    tmp_path: Path,
    home: Path,
    how: list[str],
    expected: str,
) -> None:
    url, _ = repository
    app = make_package(tmp_path / "app", "app", "0.0.1", "import mathlib\nv = mathlib.version\n")
    added = kcl("mod", "add", "--git", url, *how, cwd=app)
    assert added.returncode == 0, added.stderr
    assert (
        f'mathlib = {{ git = "{url}", {how[0][2:]} = "{how[1]}" }}' in (app / "kcl.mod").read_text()
    )
    lock = (app / "kcl.mod.lock").read_text()
    assert f'url = "{url}"' in lock and "sum = " in lock
    ran = kcl("run", cwd=app)
    assert ran.returncode == 0, ran.stderr
    assert ran.stdout == f"v: {expected}\n"


def test_git_commit_and_unknown_ref(
    repository: tuple[str, dict[str, str]], tmp_path: Path, home: Path
) -> None:
    url, commits = repository
    dependency = f'mathlib = {{ git = "{url}", commit = "{commits["first"]}" }}\n'
    app = make_package(
        tmp_path / "app", "app", "0.0.1", "import mathlib\nv = mathlib.version\n", dependency
    )
    ran = kcl("run", cwd=app)
    assert ran.returncode == 0, ran.stderr
    assert ran.stdout == "v: one\n"
    bad = make_package(
        tmp_path / "bad", "bad", "0.0.1", "a = 1\n", f'mathlib = {{ git = "{url}", tag = "v9" }}\n'
    )
    failed = kcl("run", cwd=bad)
    assert failed.returncode != 0
    assert (
        "E9108" in failed.stderr and "mathlib" in failed.stderr and "Traceback" not in failed.stderr
    )
    assert not [p for p in home.iterdir() if p.name.startswith("mathlib_v9")]


def test_run_a_git_url(repository: tuple[str, dict[str, str]], tmp_path: Path, home: Path) -> None:
    url, _ = repository
    ran = kcl("run", url, "--tag", "v0.2.0", cwd=tmp_path)
    assert ran.returncode == 0, ran.stderr
    assert ran.stdout == "version: two\n"


def test_an_option_is_never_passed_to_git(tmp_path: Path, home: Path) -> None:
    app = make_package(
        tmp_path / "app", "app", "0.0.1", "a = 1\n",
        'evil = { git = "--upload-pack=touch /tmp/pwned", tag = "v1" }\n',
    )  # fmt: skip
    ran = kcl("run", cwd=app)
    assert ran.returncode != 0 and "E9108" in ran.stderr and "Traceback" not in ran.stderr
