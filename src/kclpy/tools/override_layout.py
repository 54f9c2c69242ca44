"""Where the lists and configs an override writes go on one line and where they get
one item per line, as the reference's printer decides it.

The reference prints the whole file again from its syntax tree. A list or config
stays on one line when its items and the greatest line printed so far ("last") are
all the same line; otherwise it gets one item per line. The nodes an override puts in
carry the line numbers of the spec's value text (its first line is 1), a new entry or
statement line 1, and a replaced value the line of what it replaces. So ``[1, 2]``
given for an entry on line 7 comes out one item per line, and in a file whose code is
all on line 1 it stays on one line.

:func:`last_line_before` gives "last" at a place in a file, :func:`decide` the
layout of each list and config of a new subtree (printed in source order from a
"last"), and :func:`relayout` rewrites the subtree's source text so that it has that
layout (the formatter, which keeps one-line and multi-line lists as it finds them,
then does the rest).
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Sequence

from kclpy.syntax import ast
from kclpy.syntax.walk import walk

__all__ = ["decide", "items_of", "last_line_before", "line_of", "relayout"]

_GAP = re.compile(r"[\s,]*")


def line_of(node: ast.Node) -> int:
    """The 1-based line where a node starts, in its own file."""
    return bisect.bisect_right(node.span.file.line_starts, node.span.start)


def last_line_before(module: ast.Module, offset: int) -> int:
    """The greatest line on which a node or a comment of ``module`` starts before
    ``offset``: the printer's "last" when it reaches that place."""
    starts = module.file.line_starts
    best = 0
    for node in walk(module):
        if node is not module and node.span.start < offset:
            best = max(best, bisect.bisect_right(starts, node.span.start))
    for comment in module.comments:
        if comment.span.start < offset:
            best = max(best, bisect.bisect_right(starts, comment.span.start))
    return best


def items_of(node: ast.Node) -> Sequence[ast.Node] | None:
    """The items of a list or the entries of a config; None for other nodes."""
    if isinstance(node, ast.ListExpr):
        return node.items
    if isinstance(node, ast.ConfigExpr):
        return node.entries
    return None


def decide(
    roots: Sequence[ast.Node], last: int, top: ast.Node | None = None, top_line: int = 0
) -> tuple[dict[int, bool], int]:
    """Whether each list and config under ``roots`` (by node id) gets one item per
    line, printing them in order after ``last``; ``top`` is printed at ``top_line``.
    Also returns "last" after them."""
    decisions: dict[int, bool] = {}

    def reference_line(node: ast.Node) -> int:
        return top_line if node is top and top_line else line_of(node)

    for root in roots:
        for node in walk(root):
            last = max(last, reference_line(node))
            items = items_of(node)
            if items:
                lines = {reference_line(item) for item in items}
                decisions[node.id] = len(lines | {last}) > 1
    return decisions, last


def relayout(text: str, roots: Sequence[ast.Node], decisions: dict[int, bool]) -> str:
    """``text`` (the source of ``roots``) with each decided list and config on one line
    or one item per line; one with anything but spaces and commas between its items
    (a comment) is left as it is."""
    edits: list[tuple[int, int, str]] = []
    for root in roots:
        for node in walk(root):
            items = items_of(node)
            if not items or node.id not in decisions:
                continue
            if any(isinstance(i, ast.ListIfItem | ast.ConfigIfEntry) for i in items):
                continue
            gaps = _gaps(text, node, items)
            if gaps is None:
                continue
            multi = decisions[node.id]
            for index, (start, end) in enumerate(gaps):
                inner = 0 < index < len(gaps) - 1
                edits.append((start, end, "\n" if multi else (", " if inner else "")))
    for start, end, new in sorted(edits, reverse=True):
        text = text[:start] + new + text[end:]
    return text


def _gaps(text: str, node: ast.Node, items: Sequence[ast.Node]) -> list[tuple[int, int]] | None:
    """The stretches between the brackets and the items of a list or config: after
    the opening bracket, between items, before the closing one (None when one holds
    anything but spaces and commas)."""
    open_at, close_at = node.span.start, node.span.end - 1
    if text[open_at : open_at + 1] not in ("[", "{") or text[close_at : close_at + 1] not in (
        "]",
        "}",
    ):
        return None
    bounds = [open_at + 1]
    for item in items:
        bounds.extend((item.span.start, item.span.end))
    bounds.append(close_at)
    gaps = list(zip(bounds[::2], bounds[1::2], strict=True))
    for start, end in gaps:
        if start > end or _GAP.fullmatch(text, start, end) is None:
            return None
    return gaps
