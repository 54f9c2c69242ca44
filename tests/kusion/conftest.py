"""Fixtures for the Kusion backend tests: a fake-runtime harness, an in-process CLI and a
real PostgreSQL server (``$KCLPY_TEST_POSTGRES`` if set, else one started here)."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from kclpy.kusion.engine import Options
from kclpy.kusion.operations import Context
from kclpy.kusion.runtimes.base import Runtimes
from kclpy.kusion.state.sqlite import SqliteStateBackend

from . import postgres_server
from .support import FAKE, FakeRuntime, Harness


@pytest.fixture(scope="session")
def postgres_url() -> Iterator[str]:
    """A PostgreSQL database URL for the whole session."""
    given = os.environ.get("KCLPY_TEST_POSTGRES")
    if given:
        yield given
        return
    reason = postgres_server.available()
    if reason:
        pytest.skip(f"no PostgreSQL server: {reason}")
    server = postgres_server.PostgresServer()
    server.start()
    yield server.url
    server.close()


@pytest.fixture
def own_postgres() -> Iterator[postgres_server.PostgresServer]:
    """A PostgreSQL server of this test alone, which the test may stop and start."""
    reason = postgres_server.available()
    if reason:
        pytest.skip(f"no PostgreSQL server: {reason}")
    server = postgres_server.PostgresServer()
    server.start()
    yield server
    server.close()


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
