"""Fixtures of the ``kcl server`` tests: the folder of KCL files and a server
process answering in it (module-wide; stopped with SIGTERM, which must end it
cleanly with exit code 128+15)."""

from __future__ import annotations

import signal
from collections.abc import Iterator
from pathlib import Path

import pytest
from server_helpers import FILES, Server


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("server")
    for name, text in FILES.items():
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return folder


@pytest.fixture(scope="module")
def server(workspace: Path) -> Iterator[Server]:
    running = Server(workspace)
    yield running
    stopped = running.stop()
    assert stopped.returncode == 128 + signal.SIGTERM, stopped.stderr
    assert "Traceback" not in stopped.stderr
