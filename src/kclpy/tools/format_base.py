"""The state and the comment placement shared by the ``kcl fmt`` printer
(:mod:`kclpy.tools.format_printer`): where lines start, which comments are still
to print, and the rules that put them back by position.

The comments before an item are printed above it, the one on an item's last
source line after it, those after a block's last item (deeper than the block's
header) at the end of the block; a comment the printer passes without a place for
it comes out above the next item, so none is lost and their order never changes.
"""

from __future__ import annotations

import bisect
from collections.abc import Sequence

from kclpy.source import Span
from kclpy.syntax import ast
from kclpy.syntax.lexer import raw_tokens

INDENT = "    "


class PrinterBase:
    """Positions and comments of one module; comments are consumed in source order."""

    # ------------------------------------------------------------------ state

    def __init__(self, module: ast.Module) -> None:
        self.module_node = module
        self.text = module.file.text
        self.comments = sorted(module.comments, key=lambda c: c.span.start)
        self.next = 0  # the first comment not printed yet
        self.line_starts = module.file.line_starts
        self.limit = len(self.text)  # no trailing comment from here on (a lambda's `}`)
        self.following = len(self.text) + 1  # where the statement after this one begins

    # ------------------------------------------------------------------ positions

    def line_of(self, offset: int) -> int:
        return bisect.bisect_right(self.line_starts, offset) - 1

    def src(self, node: ast.Node) -> str:
        return self.text[node.span.start : node.span.end]

    def span_text(self, span: Span) -> str:
        return self.text[span.start : span.end]

    def blank_between(self, start: int, end: int) -> bool:
        """Whether the source has an empty line between offsets start and end."""
        first = self.line_of(start) + 1
        last = self.line_of(end)
        for line in range(first, last):
            begin = self.line_starts[line]
            stop = (
                self.line_starts[line + 1] if line + 1 < len(self.line_starts) else len(self.text)
            )
            if not self.text[begin:stop].strip():
                return True
        return False

    def column(self, offset: int) -> int:
        return offset - self.line_starts[self.line_of(offset)]

    def written_name(self, start: int, end: int, name: str) -> str:
        """A name as the source spells it (``$if`` for ``if``): the first name token
        between ``start`` and ``end`` that is ``name``."""
        for token in raw_tokens(self.text, start, end):
            if token.type == "NAME" and token.value.lstrip("$") == name:
                return str(token.value)
        return name  # pragma: no cover - the parser read the name there

    def keyword_before(self, word: str, start: int, pos: int) -> int:
        """The offset of the last name token ``word`` between ``start`` and ``pos``."""
        for token in reversed(raw_tokens(self.text, start, pos)):
            if token.type == "NAME" and token.value == word:
                return int(token.lexpos)
        return pos  # pragma: no cover - the parser saw the keyword

    # ------------------------------------------------------------------ comments

    def leading(self, pos: int, indent: int) -> list[str]:
        """The unprinted comments before ``pos``, as full lines."""
        lines: list[str] = []
        while self.next < len(self.comments) and self.comments[self.next].span.start < pos:
            comment = self.comments[self.next]
            if lines and self.blank_between(
                self.comments[self.next - 1].span.end, comment.span.start
            ):
                lines.append("")
            lines.append(INDENT * indent + comment.text)
            self.next += 1
        return lines

    def trailing(self, end: int, limit: int | None = None) -> str:
        """The comment on the source line where ``end`` is, if it is the next one
        (and starts before ``limit``: where the next item on that line begins)."""
        if self.next < len(self.comments):
            comment = self.comments[self.next]
            start = comment.span.start
            if start >= self.limit or (limit is not None and start >= limit):
                return ""
            if start >= end - 1 and self.line_of(start) == self.line_of(max(end - 1, 0)):
                self.next += 1
                return " " + comment.text
        return ""

    def trailing_on_line(self, offset: int, limit: int | None = None) -> str:
        """The comment on the line of ``offset`` (a block header's line), if it
        starts before ``limit`` (the block's first item)."""
        if self.next < len(self.comments):
            comment = self.comments[self.next]
            start = comment.span.start
            if start >= self.limit or (limit is not None and start >= limit):
                return ""
            if start >= offset and self.line_of(start) == self.line_of(offset):
                self.next += 1
                return " " + comment.text
        return ""

    def dangling(self, limit: int, column: int, indent: int, after: int = -1) -> list[str]:
        """Comments after a block's last item (which ends at ``after``), before
        ``limit``, indented deeper than ``column``: they stay in the block."""
        lines: list[str] = []
        while self.next < len(self.comments):
            comment = self.comments[self.next]
            start = comment.span.start
            line_start = self.line_starts[self.line_of(start)]
            if start >= limit or start - line_start <= column:
                break
            previous = self.comments[self.next - 1].span.end if lines else after
            if previous >= 0 and self.blank_between(previous, start):
                lines.append("")
            lines.append(INDENT * indent + comment.text)
            self.next += 1
        return lines

    def attach_trailing(self, lines: list[str], end: int) -> list[str]:
        if lines:
            lines[-1] += self.trailing(end)
        return lines

    def comment_before(self, end: int) -> bool:
        """Whether an unprinted comment starts before ``end``."""
        return self.next < len(self.comments) and self.comments[self.next].span.start < end

    def loose_comment(self, members: Sequence[ast.Node], end: int) -> bool:
        """Whether a comment before ``end`` lies outside every member (between them)."""
        index = self.next
        while index < len(self.comments) and self.comments[index].span.start < end:
            start = self.comments[index].span.start
            if not any(m.span.start <= start < m.span.end for m in members):
                return True
            index += 1
        return False

    @staticmethod
    def first_start(items: Sequence[ast.Node]) -> int | None:
        return items[0].span.start if items else None

    def block(self, stmts: Sequence[ast.Stmt], indent: int, top: bool = False) -> list[str]:
        """Statements, one after another (a lambda's body); see ``Printer``."""
        raise NotImplementedError  # pragma: no cover - Printer defines it
