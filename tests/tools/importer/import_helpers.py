"""Shared helpers of the ``kcl import`` tests: the cases folder, the installed
``kcl`` as a subprocess, generated files written to a folder, runs through kclpy
and the reference, and the kcl-lang/modules mirror (read only, when present)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from kclpy.api import RunResult, run_files
from kclpy.tools.importer.convert import ImportOptions, import_path, write_outputs

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # tests/: reference.py
from reference import RefResult, reference_available, run_reference

CASES = Path(__file__).parent / "cases"
GOLDENS = Path(__file__).parent / "goldens"
# a git directory of kcl-lang/modules: $KCL_MODULES_GIT_DIR, else the mirror kept
# beside the checkout (../.mirror/kcl-lang+modules/repo)
MODULES_MIRROR = Path(
    os.environ.get("KCL_MODULES_GIT_DIR")
    or Path(__file__).resolve().parents[3].parent / ".mirror" / "kcl-lang+modules" / "repo"
)

needs_reference = pytest.mark.skipif(not reference_available(), reason="kcl_lib not installed")


def kcl(*args: str, cwd: Path, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    """Run the installed ``kcl`` (this interpreter's kclpy) in ``cwd``."""
    environment = {**os.environ, "NO_COLOR": "1"}
    return subprocess.run(
        [sys.executable, "-m", "kclpy", *args],
        cwd=cwd,
        input=stdin,
        capture_output=True,
        text=True,
        timeout=300,
        env=environment,
    )


def generate(case: str, folder: Path, mode: str = "auto") -> list[str]:
    """Import ``cases/<case>`` into ``folder`` (a KCL module); the files written."""
    (folder / "kcl.mod").write_text('[package]\nname = "generated"\n')
    written = write_outputs(import_path(str(CASES / case), ImportOptions(mode)), str(folder))
    add_object_meta(folder)
    return written


def add_object_meta(folder: Path) -> None:
    """Put a stand-in for the k8s module's ObjectMeta at the root of the module
    ``folder`` (CRD models import ``k8s.apimachinery.pkg.apis.meta.v1``)."""
    target = folder / "k8s" / "apimachinery" / "pkg" / "apis" / "meta" / "v1"
    target.mkdir(parents=True, exist_ok=True)
    (target / "object_meta.k").write_text((CASES / "object_meta.k").read_text())


def run_both(folder: Path, code: str) -> tuple[RunResult, RefResult | None]:
    """Run ``code`` as ``folder/main.k`` with kclpy and (when installed) the reference."""
    (folder / "main.k").write_text(code)
    ours = run_files([str(folder / "main.k")], work_dir=str(folder))
    theirs = run_reference(files=["main.k"], cwd=folder) if reference_available() else None
    return ours, theirs


def mirror_file(path: str) -> bytes | None:
    """A file of the kcl-lang/modules mirror at HEAD, or None without the mirror."""
    if not MODULES_MIRROR.exists():
        return None
    shown = subprocess.run(
        ["git", f"--git-dir={MODULES_MIRROR}", "show", f"HEAD:{path}"],
        capture_output=True,
        timeout=60,
    )
    return shown.stdout if shown.returncode == 0 else None


__all__ = [
    "CASES",
    "GOLDENS",
    "RefResult",
    "add_object_meta",
    "generate",
    "kcl",
    "mirror_file",
    "needs_reference",
    "run_both",
    "run_reference",
]
