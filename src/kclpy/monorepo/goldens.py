"""Golden outputs: ``<stack>/ci-test/stdout.golden.yaml`` read, compared, rewritten.

Takes a stack's compiled output and the build mode; returns the stack's result:
``ok`` (built, nothing compared), ``unchanged``/``changed`` (``check``: equal to
the golden or not, with a unified diff), ``updated``/``unchanged`` (``update``:
the golden rewritten atomically when it differs), ``failed`` (compile errors).
"""

from __future__ import annotations

import difflib
import os
from typing import Literal

from kclpy.monorepo.report import StackOutput, StackResult, output_digest
from kclpy.source import write_atomically

Mode = Literal["build", "check", "update"]


def settle(output: StackOutput, golden_path: str, mode: Mode, with_diff: bool) -> StackResult:
    """The result of one stack's output under ``mode``."""
    seconds = round(output.seconds, 4)
    if not output.ok:
        return StackResult(output.name, "failed", seconds, diagnostics=output.errors)
    digest = output_digest(output.text)
    if mode == "build":
        return StackResult(output.name, "ok", seconds, digest)
    try:
        return _compare(output, golden_path, mode, with_diff, seconds, digest)
    except (OSError, UnicodeError) as error:
        message = f"error: golden file {golden_path}: {error}\n"
        return StackResult(output.name, "failed", seconds, digest, message)


def _compare(
    output: StackOutput, golden_path: str, mode: Mode, with_diff: bool, seconds: float, digest: str
) -> StackResult:
    golden = read_golden(golden_path)
    if golden == output.text:
        return StackResult(output.name, "unchanged", seconds, digest)
    if mode == "update":
        os.makedirs(os.path.dirname(golden_path), exist_ok=True)
        write_atomically(golden_path, output.text)
        return StackResult(output.name, "updated", seconds, digest)
    diff = unified_diff(golden_path, golden or "", output.text) if with_diff else ""
    note = "" if golden is not None else f"no golden file {golden_path}\n"
    return StackResult(output.name, "changed", seconds, digest, note, diff)


def read_golden(path: str) -> str | None:
    try:
        with open(path, encoding="utf-8", newline="") as handle:
            return handle.read()
    except FileNotFoundError:
        return None


def unified_diff(path: str, before: str, after: str) -> str:
    lines = difflib.unified_diff(
        before.splitlines(keepends=True),
        after.splitlines(keepends=True),
        fromfile=f"{path} (golden)",
        tofile=f"{path} (built)",
    )
    text = "".join(line if line.endswith("\n") else line + "\n" for line in lines)
    return text
