"""Formatting (``textDocument/formatting`` and ``rangeFormatting``): ``kcl fmt``'s text
as edits of the buffer.

The formatted text is compared with the buffer line by line (``textdiff``, in
time linear in the size). A document with at most ``FEW_EDITS`` changed lines
gets one small edit per changed run (one per line where lines are replaced line
for line), so the editor keeps the cursor and folds in place; beyond that (a file
formatted for the first time, a generated file) it gets one edit from the first
changed line to the last: building, sending and applying a hundred thousand
edits took longer than formatting. Range formatting answers the small edits that
touch the selected lines. A syntax error answers None (nothing to format). The
cycle collector is paused while it formats (its automatic passes over a big file's
trees were a third of the time, and stopped the analysis thread too).
"""

from __future__ import annotations

from lsprotocol import types

from kclpy.syntax.parser import paused_cycle_collector
from kclpy.tools.format import FormatError, format_code
from kclpy_lsp.app import document_of, server
from kclpy_lsp.textdiff import Change, edits_of, joined_edit, line_changes

FEW_EDITS = 2000  # changed lines a document formatting answers line by line at most


@server.feature(types.TEXT_DOCUMENT_FORMATTING)
def formatting(params: types.DocumentFormattingParams) -> list[types.TextEdit] | None:
    """``kcl fmt``'s result as edits (None after a syntax error)."""
    found = _changes(params.text_document.uri)
    if found is None:
        return None
    text, changes = found
    if sum(max(len(lines), stop - first) for first, stop, lines in changes) <= FEW_EDITS:
        return edits_of(changes)
    return joined_edit(changes, text)


@server.feature(types.TEXT_DOCUMENT_RANGE_FORMATTING)
def range_formatting(
    params: types.DocumentRangeFormattingParams,
) -> list[types.TextEdit] | None:
    """The whole-line edits of ``kcl fmt`` that touch the selected lines."""
    found = _changes(params.text_document.uri)
    if found is None:
        return None
    first, last = params.range.start.line, params.range.end.line
    return [
        edit
        for edit in edits_of(found[1])
        if edit.range.start.line <= last
        and max(edit.range.end.line - 1, edit.range.start.line) >= first
    ]


def _changes(uri: str) -> tuple[str, list[Change]] | None:
    """A document's text and ``kcl fmt``'s changes to it (None: unreadable, or a
    syntax error)."""
    document = document_of(uri)
    if document is None:
        return None
    text = document.text
    with paused_cycle_collector():  # (its trees hold few cycles: collections cost a third)
        try:
            formatted = format_code(text, filename=document.path)
        except (FormatError, RecursionError):
            return None
        return text, line_changes(text, formatted)
