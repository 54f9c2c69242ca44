"""Coverage-guided fuzzing (atheris / libFuzzer) of the parser and the type checker.

Takes libFuzzer's byte strings as KCL source: each is parsed, and a program without
syntax errors is loaded from memory and type-checked. Any exception, and any
``E9999 InternalError`` diagnostic other than the documented nesting limit, is a
finding: libFuzzer stops and writes the input as ``crash-<sha1>`` in the current
folder. Seeds come from ``tests/syntax/cases`` and the ``fuzz/corpus`` folder (the
regression inputs of past findings). Usage and figures: ``fuzz/README.md``.
"""

from __future__ import annotations

import pathlib
import sys

import atheris

with atheris.instrument_imports(include=["kclpy"]):
    from kclpy.diag import Code
    from kclpy.loader import Loader
    from kclpy.sema import check_program
    from kclpy.syntax import parse_bytes

ACCEPTED_INTERNAL = ("nested too deeply",)


class Finding(Exception):
    """An internal error diagnostic: a bug in kclpy, not in the input."""


def check_bytes(data: bytes) -> None:
    """Parse and (when the syntax is clean) type-check ``data``; raise on a kclpy bug."""
    _, diagnostics = parse_bytes(data, "main.k")
    _raise_internal(diagnostics)
    if any(diagnostic.is_error for diagnostic in diagnostics):
        return
    text = data.decode("utf-8")
    program = Loader("/nonexistent-fuzz-root", {}, {"main.k": text}).load(["main.k"])
    _raise_internal(program.diagnostics)
    if program.has_errors:
        return
    _raise_internal(check_program(program).diagnostics)


def _raise_internal(diagnostics: list[object]) -> None:
    for diagnostic in diagnostics:
        if getattr(diagnostic, "code", None) is Code.INTERNAL_ERROR and not any(
            accepted in str(diagnostic) for accepted in ACCEPTED_INTERNAL
        ):
            raise Finding(str(diagnostic))


def seeds() -> list[pathlib.Path]:
    """The seed inputs: syntax cases and past findings."""
    here = pathlib.Path(__file__).resolve().parent
    found = sorted((here.parent / "tests" / "syntax" / "cases").rglob("*.k"))
    return found + sorted((here / "corpus").glob("*"))


def main() -> None:
    atheris.Setup(sys.argv, check_bytes)
    atheris.Fuzz()


if __name__ == "__main__":
    main()
