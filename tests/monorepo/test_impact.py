"""Impact analysis: the exact stacks a change reaches, from a real git history."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from kclpy.api import compile_stack
from kclpy.monorepo import BuildError, BuildOptions, build
from kclpy.monorepo.engine import select
from kclpy.monorepo.stacks import discover
from tests.monorepo.repo import git, init_git, write_repo


def _affected(
    root: Path, since: str | None = "HEAD", changed: list[str] | None = None
) -> list[str]:
    options = BuildOptions(paths=[str(root)], root=str(root), since=since, changed=changed)
    stacks, narrowed = select(options)
    assert narrowed
    return [stack.name for stack in stacks]


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    write_repo(tmp_path)
    discover([str(tmp_path)])  # resolving the stacks' packages writes their kcl.mod.lock
    init_git(tmp_path)
    return tmp_path


def test_no_change_reaches_nothing(repo: Path) -> None:
    assert _affected(repo) == []


def test_a_model_used_by_one_stack(repo: Path) -> None:
    (repo / "models/extra/extra.k").write_text("schema Extra:\n    name: str\n")
    assert _affected(repo) == ["stacks/b"]


def test_a_model_used_by_all_importers_directly_and_transitively(repo: Path) -> None:
    base = repo / "models/base/base.k"
    base.write_text(base.read_text() + "\nschema More:\n    x: int = 1\n")
    # a imports base; b imports extra, which imports base (and base directly too)
    assert _affected(repo) == ["stacks/a", "stacks/b"]


def test_an_unused_package_reaches_nothing(repo: Path) -> None:
    (repo / "models/unused/unused.k").write_text("value = 2\n")
    assert _affected(repo) == []


def test_committed_changes_since_a_revision(repo: Path) -> None:
    (repo / "stacks/c/app.k").write_text('env = option("env")\nx = 1\n')
    git(repo, "commit", "-qam", "change c")
    assert _affected(repo, "HEAD~1") == ["stacks/c"]
    assert _affected(repo, "HEAD") == []


def test_a_new_file_in_a_package_and_a_deleted_one(repo: Path) -> None:
    (repo / "models/extra/more.k").write_text("helper = 1\n")  # untracked
    assert _affected(repo) == ["stacks/b"]
    (repo / "models/extra/more.k").unlink()
    (repo / "models/extra/extra.k").unlink()
    assert _affected(repo) == ["stacks/b"]


def test_settings_mod_and_stack_files(repo: Path) -> None:
    assert _affected(repo, None, [str(repo / "stacks/c/kcl.yaml")]) == ["stacks/c"]
    assert _affected(repo, None, [str(repo / "models/kcl.mod")]) == ["stacks/a", "stacks/b"]
    assert _affected(repo, None, [str(repo / "stacks/d/ci-test/stdout.golden.yaml")]) == [
        "stacks/d"
    ]
    assert _affected(repo, None, [str(repo / "README.md")]) == []


def test_since_builds_only_the_affected_stacks(repo: Path) -> None:
    build(BuildOptions(paths=[str(repo)], root=str(repo), mode="update", jobs=0), compile_stack)
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "goldens")
    (repo / "models/extra/extra.k").write_text(
        "import models.base\n\nschema Extra(base.Meta):\n    size: int = 3\n"
    )
    options = BuildOptions(
        paths=[str(repo)], root=str(repo), mode="check", since="HEAD", jobs=0, diff=True
    )
    report = build(options, compile_stack)
    assert [(r.stack, r.status) for r in report.results] == [("stacks/b", "changed")]
    assert "+  size: 3" in report.results[0].diff


def test_affected_through_the_command(repo: Path) -> None:
    (repo / "models/base/base.k").write_text("schema Meta:\n    name: str\n    owner: str = 'x'\n")
    done = subprocess.run(
        [sys.executable, "-m", "kclpy", "build", "--affected", "--since", "HEAD"],
        cwd=repo,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["stacks/a", "stacks/b"]


def test_not_a_git_repository_or_an_unknown_revision(
    repo: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    with pytest.raises(BuildError, match=r"unknown revision|bad revision|ambiguous"):
        _affected(repo, "no-such-rev")
    elsewhere = write_repo(tmp_path_factory.mktemp("plain"))
    with pytest.raises(BuildError, match="git rev-parse failed"):
        select(BuildOptions(paths=[str(elsewhere)], since="HEAD"))
