"""Random source lines and spans through the snippet window, ``kclpy.diag.excerpt``
(hypothesis).

Lines are built from pieces of varied display widths: ASCII words, tabs, East Asian
wide characters, combining marks, control and bidirectional characters, long runs of
one kind; the span is any range of the line (or past its end).

Property: the shown text is at most ``WIDTH`` display columns and ``2 * REACH`` code
points (plus the ellipses), however long the line; it holds no control character; a
plain line that fits is shown whole; and the character the span starts at is shown at
the caret's column.
``KCLPY_FUZZ_EXAMPLES`` raises the number of examples.
"""

from __future__ import annotations

import os
import unicodedata

from hypothesis import given, settings
from hypothesis import strategies as st

from kclpy.diag.excerpt import REACH, WIDTH, excerpt

EXAMPLES = int(os.environ.get("KCLPY_FUZZ_EXAMPLES", "300"))

PIECES = ["a", "key", " ", "\t", "键", "値", "e\u0301", "\x1b", "\u202e", "\x7f", "x" * 50]


def _columns(text: str) -> list[int]:
    """The display column each character of ``text`` starts at (the excerpt's rules)."""
    starts: list[int] = []
    column = 0
    for char in text:
        starts.append(column)
        if unicodedata.category(char) in ("Mn", "Me", "Cf"):
            continue
        column += 2 if unicodedata.east_asian_width(char) in "WF" else 1
    return [*starts, column]


lines = st.lists(st.sampled_from(PIECES), max_size=300).map("".join)
PLAIN = frozenset("akey键値x")


@settings(max_examples=EXAMPLES, deadline=None)
@given(lines, st.integers(1, 200), st.integers(0, 20_000), st.integers(0, 200))
def test_window_is_bounded_and_the_caret_is_under_the_span(
    piece: str, repeat: int, start: int, length: int
) -> None:
    line = piece * repeat
    start = min(start, len(line))
    shown = excerpt(line, start, start + length)
    columns = _columns(shown.text)
    assert len(shown.text) <= 2 * REACH + 2 * len("...")
    assert columns[-1] <= WIDTH
    assert not any(unicodedata.category(char) == "Cc" for char in shown.text)
    if set(line) <= PLAIN | {" "} and _columns(line)[-1] <= WIDTH:
        assert shown.text == line and shown.pad == _columns(line)[start]
    if start < len(line) and line[start] in PLAIN:
        at_caret = [shown.text[i] for i, column in enumerate(columns[:-1]) if column == shown.pad]
        assert line[start] in at_caret
