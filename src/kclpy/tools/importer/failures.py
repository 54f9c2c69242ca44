"""The errors of ``kcl import``: ``ImportFailure`` carries the diagnostics of a failed
import; ``failure_at`` builds one pointing at a key of an input (``locate`` finds a
JSON pointer's key in the text, a best effort that falls back to the start of the
file), ``failure_at_line`` one at a line and column the parser reported.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from kclpy.diag import Code, Diagnostic, make_error
from kclpy.source import SourceFile, Span


class ImportFailure(Exception):
    """An input could not be imported; ``diagnostics`` say where and why."""

    def __init__(self, diagnostics: list[Diagnostic]) -> None:
        super().__init__("; ".join(d.message for d in diagnostics))
        self.diagnostics = diagnostics


def failure_at(
    source: SourceFile | None, message: str, path: Sequence[str | int] = (), *notes: str
) -> ImportFailure:
    """An ImportFailure at the key ``path`` (a JSON pointer's parts) of ``source``."""
    span = None
    if source is not None:
        start = locate(source.text, path)
        span = Span(source, start, start + 1 if start < len(source.text) else start)
    return ImportFailure([make_error(Code.IMPORT_ERROR, message, span, *notes)])


def failure_at_offset(
    source: SourceFile, offset: int, message: str, *notes: str, code: Code = Code.IMPORT_ERROR
) -> ImportFailure:
    """An ImportFailure at the character ``offset`` of ``source``."""
    offset = max(0, min(offset, len(source.text)))
    span = Span(source, offset, min(offset + 1, len(source.text)))
    return ImportFailure([make_error(code, message, span, *notes)])


def failure_at_line(
    source: SourceFile, line: int, column: int, message: str, *notes: str
) -> ImportFailure:
    """An ImportFailure at the 1-based ``line`` and ``column`` of ``source``."""
    return failure_at_offset(source, source.offset(line, column), message, *notes)


def locate(text: str, path: Sequence[str | int]) -> int:
    """The offset of the last key of ``path`` found in ``text``, looking for each key
    after the previous one (list indexes are skipped): exact for the usual layouts
    of JSON and YAML, approximate otherwise."""
    offset = 0
    for part in path:
        if isinstance(part, int):
            continue
        key = re.escape(part)
        pattern = re.compile(rf"""(?:"{key}"|'{key}'|(?<![\w.-]){key})\s*:""")
        found = pattern.search(text, offset)
        if found is None:
            break
        offset = found.start()
    return offset
