"""Shared by the security tests: running a program through the real ``kcl`` command."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

Kcl = Callable[..., subprocess.CompletedProcess[str]]


def run_kcl(folder: Path, program: str, *options: str) -> subprocess.CompletedProcess[str]:
    """Write ``program`` as ``folder/main.k`` and run ``python -m kclpy run main.k``."""
    (folder / "main.k").write_text(program)
    return subprocess.run(
        [sys.executable, "-m", "kclpy", "run", "main.k", *options],
        cwd=folder,
        capture_output=True,
        text=True,
        timeout=300,
    )


@pytest.fixture
def kcl() -> Kcl:
    return run_kcl
