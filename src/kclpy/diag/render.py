"""Diagnostics to text: the reference's rustc-like style, plus ``short`` and ``json``.

The functions take anything shaped like a diagnostic (:class:`Reported`): the record
(:class:`kclpy.diag.diagnostic.Diagnostic`) renders itself through them.

Colour is used only when asked for; :func:`use_colour` decides it from the stream
and the ``NO_COLOR`` / ``FORCE_COLOR`` conventions. A snippet shows a bounded window
of its source line (:mod:`kclpy.diag.excerpt`), however long the line is, and a message
(which may quote a value or a token of any size) at most :data:`MAX_MESSAGE` characters in
the ``human`` and ``short`` styles; ``json`` keeps every message whole for programs.
"""

from __future__ import annotations

import os
from collections.abc import Sequence

from kclpy.diag.codes import Code
from kclpy.diag.excerpt import excerpt
from kclpy.diag.parts import Label, Severity, Suggestion

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import IO, Protocol

    class Reported(Protocol):
        """What a renderer reads of a diagnostic (:class:`kclpy.diag.diagnostic.Diagnostic`)."""

        @property
        def code(self) -> Code: ...

        @property
        def message(self) -> str: ...

        @property
        def severity(self) -> Severity: ...

        @property
        def labels(self) -> list[Label]: ...

        @property
        def notes(self) -> list[str]: ...

        @property
        def stack(self) -> list[Label]: ...

        def location(self) -> str:
            """``path:line:col`` of the primary span, or "" when there is none."""
            ...


MAX_MESSAGE = 4_000
"""Characters of a message the text styles show; the middle of a longer one is cut."""

_BLUE = "\x1b[1;38;5;12m"
_RED = "\x1b[1;38;5;9m"
_YELLOW = "\x1b[1;38;5;11m"
_RESET = "\x1b[0m"


def use_colour(stream: IO[str]) -> bool:
    """Colour on a terminal, unless NO_COLOR is set; FORCE_COLOR forces it."""
    if os.environ.get("NO_COLOR"):
        return False
    if os.environ.get("FORCE_COLOR"):
        return True
    isatty = getattr(stream, "isatty", None)
    return bool(isatty and isatty())


def render(diagnostic: Reported, style: str = "human", colour: bool = False) -> str:
    """One diagnostic as text in ``human`` (rustc-like), ``short`` or ``json`` style."""
    if style == "short":
        return render_short(diagnostic)
    if style == "json":
        import json

        return json.dumps(to_json(diagnostic), ensure_ascii=False)
    return render_human(diagnostic, colour)


def render_all(diagnostics: Sequence[Reported], style: str = "human", colour: bool = False) -> str:
    """Several diagnostics, separated as the reference separates them."""
    if style == "json":
        import json

        return json.dumps([to_json(d) for d in diagnostics], ensure_ascii=False, indent=2) + "\n"
    sep = "\n" if style == "short" else "\n\n"
    return sep.join(render(d, style, colour) for d in diagnostics) + "\n"


def _bounded(message: str) -> str:
    """``message``, its middle cut when it is longer than :data:`MAX_MESSAGE`."""
    if len(message) <= MAX_MESSAGE:
        return message
    keep = MAX_MESSAGE // 2
    return f"{message[:keep]} ... ({len(message) - 2 * keep} characters) ... {message[-keep:]}"


def _header(diagnostic: Reported) -> str:
    word = "warning" if diagnostic.severity == Severity.WARNING else "error"
    return f"{word}[{diagnostic.code.id}]: {diagnostic.code.kind}"


def render_short(diagnostic: Reported) -> str:
    location = diagnostic.location()
    prefix = f"{location}: " if location else ""
    return f"{prefix}{_header(diagnostic)}: {_bounded(diagnostic.message)}"


def _paint(text: str, colour: str, enabled: bool) -> str:
    return f"{colour}{text}{_RESET}" if enabled and text else text


def _label_block(label: Label, colour: bool, mark: str) -> list[str]:
    span = label.span
    lines: list[str] = []
    if span is None:
        if label.message:
            lines.append(_bounded(label.message))
        return lines
    line, col = span.begin_pos
    text = span.file.line_text(line)
    gutter = " " * len(str(line))
    lines.append(f"{gutter}{_paint('-->', _BLUE, colour)} {span.file.path}:{line}:{col}")
    lines.append(_paint(f"{gutter} |", _BLUE, colour))
    end_line, end_col = span.end_pos
    shown = excerpt(text, col - 1, end_col - 1 if end_line == line else len(text))
    lines.append(f"{_paint(f'{line} |', _BLUE, colour)} {shown.text}")
    carets = _paint(" " * shown.pad + "^" * min(max(1, shown.width), 80), mark, colour)
    message = f" {_paint(_bounded(label.message), mark, colour)}" if label.message else ""
    lines.append(f"{_paint(f'{gutter} |', _BLUE, colour)} {carets}{message}")
    lines.append(_paint(f"{gutter} |", _BLUE, colour))
    return lines


def render_human(diagnostic: Reported, colour: bool = False) -> str:
    mark = _YELLOW if diagnostic.severity == Severity.WARNING else _RED
    out = [_header(diagnostic)]
    labels = diagnostic.labels or [Label(None, diagnostic.message)]
    for index, label in enumerate(labels):
        if index:
            out.append("")
        out.extend(_label_block(label, colour, mark))
    for frame in diagnostic.stack:
        out.extend(_label_block(frame, colour, _BLUE))
    for note in diagnostic.notes:
        word = "suggestion" if isinstance(note, Suggestion) else "note"
        out.append(f"{word}: {_bounded(note)}")
    return "\n".join(out)


def to_json(diagnostic: Reported) -> dict[str, object]:
    def label(item: Label) -> dict[str, object]:
        span = item.span
        if span is None:
            return {"message": item.message}
        line, col = span.begin_pos
        end_line, end_col = span.end_pos
        return {
            "file": span.file.path,
            "line": line,
            "column": col,
            "end_line": end_line,
            "end_column": end_col,
            "message": item.message,
        }

    return {
        "code": diagnostic.code.id,
        "kind": diagnostic.code.kind,
        "severity": diagnostic.severity.name.lower(),
        "message": diagnostic.message,
        "labels": [label(item) for item in diagnostic.labels],
        "notes": list(diagnostic.notes),
        "stack": [label(item) for item in diagnostic.stack],
    }
