"""The Diagnostic record: a code, a severity, a message, labelled spans and notes.

A note that proposes what to do is a :class:`Suggestion` (a ``str`` everywhere but in
the human rendering, which prints it ``suggestion: ...`` as the reference does); it,
:class:`Label` and :class:`Severity` live in :mod:`kclpy.diag.parts`. The record
renders itself through :mod:`kclpy.diag.render`, imported on first use: a run that
prints no diagnostic never imports the renderer (tests/test_import_set.py).
"""

from __future__ import annotations

from kclpy.diag.codes import Code
from kclpy.diag.parts import Label, Severity, Suggestion
from kclpy.source import Span

__all__ = ["Diagnostic", "DiagnosticError", "Label", "Severity", "Suggestion", "make_error"]


class Diagnostic:
    """One problem found in a program (or a warning about it)."""

    __slots__ = ("code", "labels", "message", "notes", "severity", "stack")

    def __init__(
        self,
        code: Code,
        message: str,
        labels: list[Label] | None = None,
        notes: list[str] | None = None,
        severity: Severity | None = None,
        stack: list[Label] | None = None,
    ) -> None:
        self.code = code
        self.message = message
        self.labels = labels or []
        self.notes = notes or []
        self.severity = severity or (Severity.WARNING if code.is_warning else Severity.ERROR)
        self.stack = stack or []

    @property
    def span(self) -> Span | None:
        """The primary span (the first label's), if any."""
        return self.labels[0].span if self.labels else None

    @property
    def is_error(self) -> bool:
        return self.severity == Severity.ERROR

    def location(self) -> str:
        """``path:line:col`` of the primary span, or "" when there is none."""
        span = self.span
        if span is None:
            return ""
        line, col = span.begin_pos
        return f"{span.file.path}:{line}:{col}"

    def render(self, style: str = "human", colour: bool = False) -> str:
        """The diagnostic as ``kcl`` prints it: ``human`` (rustc style: a header, the
        ``--> file:line:col`` line, the source line and a caret under the span, notes),
        ``short`` (one line) or ``json``; ``colour`` adds ANSI colours."""
        from kclpy.diag.render import render

        return render(self, style, colour)

    def __str__(self) -> str:
        """One line: ``path:line:col: error[E2G22]: TypeError: message``."""
        from kclpy.diag.render import render_short

        return render_short(self)

    def __repr__(self) -> str:
        return f"<{self.code.id} {self.code.kind} {self.location()} {self.message!r}>"


def make_error(code: Code, message: str, span: Span | None, *notes: str) -> Diagnostic:
    """An error with one primary label carrying ``message``."""
    return Diagnostic(code, message, [Label(span, message)], list(notes))


class DiagnosticError(Exception):
    """Raised by a driver to stop with diagnostics (stages return them instead)."""

    def __init__(self, diagnostics: list[Diagnostic]) -> None:
        super().__init__("; ".join(d.message for d in diagnostics))
        self.diagnostics = diagnostics
