"""Per-statement reparsing of an edited file: a keystroke re-parses one statement.

``split`` cuts a text into top-level chunks: a chunk starts at a line that
begins in column 0 with a name, keyword, ``$`` or ``@`` while no bracket or
triple-quoted string is open (``else``/``elif`` lines, lines after a decorator
or a backslash continuation stay with what precedes them). ``ChunkParser``
parses each chunk with ``kclpy.syntax.parse_region`` (offsets of the whole file)
and keeps the result keyed by (start offset, start line, chunk text): a chunk
that neither changed nor moved is reused as is, so typing re-parses the chunk
under the cursor and the chunks whose offsets the edit shifted.

A reused chunk's spans point at the ``SourceFile`` of the version that parsed
it; its text is the same over the chunk's region, which is all a span reads.
"""

from __future__ import annotations

import re

from kclpy.diag import Diagnostic
from kclpy.source import SourceFile, Span
from kclpy.syntax import ast, parse_region

_SCAN = re.compile(
    r'"""(?:\\.|[^\\])*?"""'
    r"|'''(?:\\.|[^\\])*?'''"
    r'|"(?:\\.|[^"\\\n])*"'
    r"|'(?:\\.|[^'\\\n])*'"
    r"|#[^\n]*"
    r"|[()\[\]{}\n]",
    re.DOTALL,
)
_STARTS = re.compile(r"[A-Za-z_$@]")
_CONTINUES = re.compile(r"(?:else|elif)\b")

Chunk = tuple[int, int, str]  # start offset, start line (0-based), text
Parsed = tuple[list[ast.Stmt], list[ast.Comment], list[Diagnostic], str]


def split(text: str) -> list[tuple[int, int]]:
    """The ``(start, end)`` offsets of the top-level chunks of a text."""
    starts = [0]
    depth = 0
    for match in _SCAN.finditer(text):
        token = match.group()
        if token in "([{":
            depth += 1
        elif token in ")]}":
            depth = max(0, depth - 1)
        elif token == "\n" and depth == 0:
            begin = match.end()
            if _STARTS.match(text, begin) and not _CONTINUES.match(text, begin):
                previous = text[starts[-1] : match.start()].rstrip().rsplit("\n", 1)[-1]
                if not previous.startswith("@") and not previous.endswith("\\"):
                    starts.append(begin)
    ends = [*starts[1:], len(text)]
    return [(start, end) for start, end in zip(starts, ends, strict=True) if end > start]


class ChunkParser:
    """Parses files chunk by chunk, reusing the chunks of the previous version."""

    def __init__(self) -> None:
        self._chunks: dict[str, dict[Chunk, Parsed]] = {}

    def parse(self, path: str, text: str) -> tuple[ast.Module, list[Diagnostic]]:
        file = SourceFile(path, text)
        previous = self._chunks.get(path, {})
        current: dict[Chunk, Parsed] = {}
        body: list[ast.Stmt] = []
        comments: list[ast.Comment] = []
        diagnostics: list[Diagnostic] = []
        line = 0
        for start, end in split(text):
            key = (start, line, text[start:end])
            parsed = previous.get(key) or current.get(key)
            if parsed is None:
                module, found = parse_region(file, start, end)
                parsed = (module.body, module.comments, found, module.doc)
            current[key] = parsed
            body.extend(parsed[0])
            comments.extend(parsed[1])
            diagnostics.extend(parsed[2])
            line += key[2].count("\n")
        self._chunks[path] = current
        doc = next(iter(current.values()))[3] if current else ""
        module = ast.Module(Span(file, 0, len(text)), file, body, comments, doc)
        return module, diagnostics

    def forget(self, path: str) -> None:
        self._chunks.pop(path, None)
