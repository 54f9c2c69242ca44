"""The parts of a diagnostic: its severity, its labelled spans and a note that proposes
what to do.

Below both :mod:`kclpy.diag.diagnostic` (the record) and :mod:`kclpy.diag.render`
(its text), so that the record can render itself and the renderer never imports the
record.
"""

from __future__ import annotations

from kclpy.enumeration import IntEnumeration
from kclpy.source import Span


class Severity(IntEnumeration):
    ERROR = 1
    WARNING = 2
    INFO = 3


class Label:
    """A span with an optional message; the primary label carries the main message."""

    __slots__ = ("message", "span")

    def __init__(self, span: Span | None, message: str = "") -> None:
        self.span = span
        self.message = message

    def __repr__(self) -> str:
        return f"Label({self.span!r}, {self.message!r})"


class Suggestion(str):
    """A note that proposes what to do (``suggestion:`` where plain notes say ``note:``)."""

    __slots__ = ()
