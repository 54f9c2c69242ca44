"""Fixtures for the Kusion backend tests: a fake-runtime harness and an in-process CLI."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from kclpy.kusion.engine import Options
from kclpy.kusion.operations import Context
from kclpy.kusion.runtimes.base import Runtimes
from kclpy.kusion.state.sqlite import SqliteStateBackend

from .support import FAKE, FakeRuntime, Harness


@pytest.fixture
def harness(tmp_path: Path) -> Iterator[Harness]:
    runtime = FakeRuntime()
    state_path = tmp_path / ".kusion" / "state.db"
    backend = SqliteStateBackend(state_path)
    context = Context(backend, Runtimes({FAKE: lambda: runtime}), "demo")
    yield Harness(runtime, context, state_path, [])
    backend.close()


@pytest.fixture
def options() -> Options:
    return Options(max_concurrent=4, watch=False)


@pytest.fixture
def cli(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Callable[..., tuple[int, str, str]]:
    """Run ``kcl kusion ARGS`` in ``tmp_path``; return (exit code, stdout, stderr)."""
    from kclpy.kusion.__main__ import run

    def invoke(*args: str, workdir: Path | None = None) -> tuple[int, str, str]:
        capsys.readouterr()
        code = run([*args, "--workdir", str(workdir or tmp_path)])
        captured = capsys.readouterr()
        return code, captured.out, captured.err

    return invoke
