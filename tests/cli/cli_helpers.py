"""Run the installed ``kcl`` (``python -m kclpy`` of this interpreter) as a subprocess."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path


def kcl(
    *args: str, cwd: Path | str | None = None, stdin: str | None = None, timeout: float = 120
) -> subprocess.CompletedProcess[str]:
    """``kcl ARGS`` in ``cwd``: the completed process (text stdout and stderr)."""
    return subprocess.run(
        [sys.executable, "-m", "kclpy", *args],
        cwd=cwd,
        input=stdin if stdin is not None else "",
        capture_output=True,
        text=True,
        check=False,
        timeout=timeout,
    )


def write(folder: Path, files: dict[str, str]) -> Path:
    """Create ``files`` (relative path -> text) under ``folder``; returns ``folder``."""
    for name, text in files.items():
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return folder
