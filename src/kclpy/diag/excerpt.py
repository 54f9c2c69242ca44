"""The part of a source line a diagnostic shows: a bounded window around the span.

Takes one line's text and the span's code-point columns on it; returns an
:class:`Excerpt`: the text to print, the display columns before the span and the
span's display width, so that a caret line drawn from them sits under the right
characters on a terminal. A line of at most :data:`WIDTH` display columns is shown
whole; a longer one (a minified one-line JSON, a generated ``.k`` file) is cut to a
window of :data:`WIDTH` columns around the span, as rustc cuts long lines, with
``...`` on each cut side. Only :data:`REACH` code points either side of the span's
start are ever measured, so the work and the output stay bounded on any line.

Display columns: tabs stop every 4 columns, East Asian wide and fullwidth characters
take 2, combining marks and format characters 0. Control characters are shown as their
Unicode control pictures and bidirectional controls as U+FFFD, so the echoed source
cannot move the terminal's cursor or reorder the text around the caret.
"""

from __future__ import annotations

import unicodedata

from kclpy.records import Record

WIDTH = 140
"""Display columns of source a snippet shows (rustc's default when it cannot ask the
terminal)."""

REACH = 4 * WIDTH
"""Code points measured either side of the span's start."""

TAB_STOP = 4
ELLIPSIS = "..."

_BIDI_CONTROLS = frozenset(
    "\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
)


class Excerpt(Record):
    """What to print of a line, and where the span is in it (display columns)."""

    text: str
    pad: int
    width: int


class _Cell(Record):
    """One code point as shown: its text, the column it starts at and its width."""

    shown: str
    column: int
    width: int


def _char_width(char: str) -> int:
    if unicodedata.category(char) in ("Mn", "Me", "Cf"):
        return 0
    return 2 if unicodedata.east_asian_width(char) in ("W", "F") else 1


def _shown(char: str, column: int) -> tuple[str, int]:
    """The text a code point prints as at ``column``, and its display width."""
    if char == "\t":
        spaces = TAB_STOP - column % TAB_STOP
        return " " * spaces, spaces
    code = ord(char)
    if code < 0x20:
        return chr(0x2400 + code), 1
    if code == 0x7F:
        return "\u2421", 1
    if char in _BIDI_CONTROLS:
        return "\ufffd", 1
    if char.isascii():
        return char, 1
    return char, _char_width(char)


def _cells(text: str) -> list[_Cell]:
    """The cells of ``text``, columns counted from its start, plus an empty end cell."""
    cells: list[_Cell] = []
    column = 0
    for char in text:
        shown, width = _shown(char, column)
        cells.append(_Cell(shown, column, width))
        column += width
    cells.append(_Cell("", column, 0))
    return cells


def excerpt(line: str, start: int, end: int, width: int = WIDTH) -> Excerpt:
    """The window of ``line`` to show for the span ``[start, end)`` (0-based code points,
    clamped to the line; a span running past the line's end is cut at it)."""
    start = min(max(start, 0), len(line))
    end = min(max(end, start), len(line))
    first = max(0, start - REACH)
    last = min(len(line), start + REACH)
    cells = _cells(line[first:last])
    span_left = cells[start - first].column
    span_right = cells[min(end, last) - first].column
    total = cells[-1].column
    if first == 0 and last == len(line) and total <= width:
        text = "".join(cell.shown for cell in cells)
        return Excerpt(text, span_left, span_right - span_left)
    left, right = _window(span_left, span_right, total, width)
    cut_left = first > 0 or left > 0
    cut_right = last < len(line) or right < total
    if cut_left:
        left += len(ELLIPSIS)
    if cut_right:
        right -= len(ELLIPSIS)
    shown = [cell for cell in cells if cell.column >= left and cell.column + cell.width <= right]
    visible_left = shown[0].column if shown else left
    visible_right = shown[-1].column + shown[-1].width if shown else left
    lead = ELLIPSIS if cut_left else ""
    text = lead + "".join(cell.shown for cell in shown) + (ELLIPSIS if cut_right else "")
    pad = len(lead) + max(0, span_left - visible_left)
    return Excerpt(text, pad, max(0, min(span_right, visible_right) - max(span_left, visible_left)))


def _window(span_left: int, span_right: int, total: int, width: int) -> tuple[int, int]:
    """Columns ``[left, right)`` of at most ``width`` that show the span's start with
    some text before it (two fifths of the room the span leaves, as rustc pads)."""
    span = min(span_right - span_left, width // 2)
    left = max(0, span_left - (width - span) * 2 // 5)
    right = min(total, left + width)
    return max(0, right - width), right
