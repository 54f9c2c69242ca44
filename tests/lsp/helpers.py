"""Helpers for the language server tests: open, edit, wait for diagnostics, positions."""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable
from pathlib import Path

from lsprotocol import types
from pytest_lsp import LanguageClient

WAIT = 60.0  # seconds before a missing answer fails the test (a hang guard, not a timing check)


def write(path: Path, text: str) -> Path:
    """Write a file whole, as an editor saves it (the server's scan, under way while a
    test writes its files, never reads it half-written: its handling of such a read
    is tested on its own, ``test_units``)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(f".{path.name}.partial")
    partial.write_text(text, encoding="utf-8")
    os.replace(partial, path)
    return path


def announce(client: LanguageClient, *paths: Path) -> None:
    """Tell the server files appeared (the editor's file watcher does): the fixture
    starts the server before a test writes its files, so its scan missed them."""
    client.workspace_did_change_watched_files(
        types.DidChangeWatchedFilesParams(
            [types.FileEvent(path.as_uri(), types.FileChangeType.Created) for path in paths]
        )
    )


def open_document(client: LanguageClient, path: Path, text: str, version: int = 1) -> str:
    uri = path.as_uri()
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(
                uri=uri, language_id="kcl", version=version, text=text
            )
        )
    )
    return uri


def change(client: LanguageClient, uri: str, version: int, text: str) -> None:
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
            content_changes=[types.TextDocumentContentChangeWholeDocument(text=text)],
        )
    )


def edit(client: LanguageClient, uri: str, version: int, where: types.Range, text: str) -> None:
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
            content_changes=[types.TextDocumentContentChangePartial(range=where, text=text)],
        )
    )


async def diagnostics(
    client: LanguageClient,
    uri: str,
    accept: Callable[[list[types.Diagnostic]], bool] = lambda found: True,
) -> list[types.Diagnostic]:
    """The diagnostics of ``uri`` once some publication satisfies ``accept``."""

    async def wait() -> list[types.Diagnostic]:
        while True:
            found = client.diagnostics.get(uri)
            if found is not None and accept(found):
                return found
            await client.wait_for_notification(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)

    return await asyncio.wait_for(wait(), WAIT)


def codes(found: list[types.Diagnostic]) -> set[str]:
    return {str(d.code) for d in found}


def position(text: str, needle: str, shift: int = 0) -> types.Position:
    """The UTF-16 position of the first ``needle`` in ``text`` (plus ``shift`` characters)."""
    offset = text.index(needle) + shift
    line = text.count("\n", 0, offset)
    start = text.rfind("\n", 0, offset) + 1
    return types.Position(line, len(text[start:offset].encode("utf-16-le")) // 2)


def document(uri: str) -> types.TextDocumentIdentifier:
    return types.TextDocumentIdentifier(uri)


def apply_edits(text: str, edits: list[types.TextEdit]) -> str:
    """Apply LSP edits (UTF-16 positions, ``\\n`` lines) to a text."""

    def offset(where: types.Position) -> int:
        lines = text.split("\n")
        base = sum(len(line) + 1 for line in lines[: where.line])
        line = lines[where.line] if where.line < len(lines) else ""
        units = 0
        index = 0
        while index < len(line) and units < where.character:
            units += 2 if ord(line[index]) > 0xFFFF else 1
            index += 1
        return min(base + index, len(text))

    for item in sorted(
        edits, key=lambda e: (e.range.start.line, e.range.start.character), reverse=True
    ):
        text = text[: offset(item.range.start)] + item.new_text + text[offset(item.range.end) :]
    return text
