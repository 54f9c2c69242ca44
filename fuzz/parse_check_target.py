"""The fuzz target of the parser and the type checker, without atheris.

``check_bytes(data)`` takes any bytes as KCL source: they are parsed, and a program
without syntax errors is loaded from memory and type-checked. Any exception, and any
``E9999 InternalError`` diagnostic other than the documented nesting limit, is a
bug in kclpy (a :class:`Finding`). Used by the atheris campaign
(``atheris_parse_check.py``) and by ``test_fuzz_regressions.py``, which replays the
inputs of past findings kept in ``fuzz/corpus``.
"""

from __future__ import annotations

from kclpy.diag import Code, Diagnostic
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


def _raise_internal(diagnostics: list[Diagnostic]) -> None:
    for diagnostic in diagnostics:
        if diagnostic.code is Code.INTERNAL_ERROR and not any(
            accepted in diagnostic.message for accepted in ACCEPTED_INTERNAL
        ):
            raise Finding(diagnostic.message)
