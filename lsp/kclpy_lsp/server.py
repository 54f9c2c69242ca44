"""The kclpy language server (pygls 2): lifecycle, document sync and editing features.

Module map of ``kclpy_lsp``:

* ``documents``: buffers, LSP lines and position encodings, URIs.
* ``workspace``: the analysis model (parse cache, programs, debounce, diagnostics).
* ``app``: the server object, protocol rules, shared conversions.
* ``server`` (this module): initialize/exit, didOpen/didChange/didClose/didSave,
  watched files, formatting (document and range).
* ``navigation``: hover (decorators included), definition, references, rename, symbols.
* ``completion``: completion and signature help; ``blocks`` reads the config
  blocks around the cursor, ``snippets`` makes attribute-line and docstring
  snippets, ``importable`` lists the schemas of packages not imported yet.
* ``fixes``: quick fixes (lint repairs, close names for misspellings).
* ``decorations``: semantic tokens and inlay hints.

Diagnostics are pushed by the workspace after each (debounced) analysis, for every
file of every affected program.
"""

from __future__ import annotations

import difflib
import os

from lsprotocol import types

from kclpy.tools.format import FormatError, format_code
from kclpy_lsp import completion, decorations, fixes, navigation
from kclpy_lsp.app import bind_loop, document_of, documents, note, path_of, server, workspace
from kclpy_lsp.scan import refused
from kclpy_lsp.transport import EXIT_GRACE

FEATURES = (completion, decorations, fixes, navigation)  # registered on import


@server.feature(types.INITIALIZE)
def initialize(params: types.InitializeParams) -> None:
    bind_loop()
    encoding = server.workspace.position_encoding
    documents.encoding = str(encoding or types.PositionEncodingKind.Utf16)
    roots = [path_of(folder.uri) for folder in params.workspace_folders or []]
    if params.root_uri:
        roots.append(path_of(params.root_uri))
    elif params.root_path:
        roots.append(os.path.abspath(params.root_path))
    workspace.roots = []
    for root in dict.fromkeys(roots):
        if (reason := refused(root)) is not None:
            note(f"not a workspace: {reason}; only open files are analysed there")
        else:
            workspace.roots.append(root)
    if params.process_id is not None and server.connection is not None:
        server.connection.watch_parent(params.process_id)


@server.feature(types.INITIALIZED)
def initialized(params: types.InitializedParams) -> None:
    """Watch ``.k`` files, ``kcl.mod`` and ``kcl.yaml`` where the client lets us
    register, and analyse the workspace's programs in the background."""
    capabilities = server.client_capabilities.workspace
    watching = capabilities.did_change_watched_files if capabilities else None
    if watching is not None and watching.dynamic_registration:
        watchers = [
            types.FileSystemWatcher(glob_pattern=p) for p in ("**/*.k", "**/kcl.mod", "**/kcl.yaml")
        ]
        options = types.DidChangeWatchedFilesRegistrationOptions(watchers=watchers)
        registration = types.Registration(
            id="kclpy-watch",
            method=types.WORKSPACE_DID_CHANGE_WATCHED_FILES,
            register_options=options,
        )
        server.client_register_capability(types.RegistrationParams([registration]))
    workspace.scan()


@server.feature(types.SHUTDOWN)
def shutdown(params: None) -> None:
    workspace.stop()


@server.feature(types.TEXT_DOCUMENT_DID_OPEN)
def did_open(params: types.DidOpenTextDocumentParams) -> None:
    item = params.text_document
    document = documents.did_open(item.uri, item.text, item.version)
    workspace.changed(document.path)


@server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
def did_change(params: types.DidChangeTextDocumentParams) -> None:
    uri = params.text_document.uri
    document = documents.did_change(uri, params.text_document.version, params.content_changes)
    if document is not None:
        workspace.changed(document.path)


@server.feature(types.TEXT_DOCUMENT_DID_SAVE)
def did_save(params: types.DidSaveTextDocumentParams) -> None:
    workspace.changed(path_of(params.text_document.uri))


@server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
def did_close(params: types.DidCloseTextDocumentParams) -> None:
    uri = params.text_document.uri
    documents.did_close(uri)
    workspace.forget(path_of(uri))
    server.text_document_publish_diagnostics(
        types.PublishDiagnosticsParams(uri=uri, diagnostics=[])
    )


@server.feature(types.WORKSPACE_DID_CHANGE_WATCHED_FILES)
def did_change_watched_files(params: types.DidChangeWatchedFilesParams) -> None:
    for change in params.changes:
        workspace.changed(path_of(change.uri))


# --------------------------------------------------------------------------- formatting


@server.feature(types.TEXT_DOCUMENT_FORMATTING)
def formatting(params: types.DocumentFormattingParams) -> list[types.TextEdit] | None:
    """``kcl fmt``'s result as the smallest whole-line edits (None after a syntax error)."""
    return _format_edits(params.text_document.uri)


@server.feature(types.TEXT_DOCUMENT_RANGE_FORMATTING)
def range_formatting(
    params: types.DocumentRangeFormattingParams,
) -> list[types.TextEdit] | None:
    """The whole-line edits of ``kcl fmt`` that touch the selected lines."""
    edits = _format_edits(params.text_document.uri)
    if edits is None:
        return None
    first, last = params.range.start.line, params.range.end.line
    return [
        edit
        for edit in edits
        if edit.range.start.line <= last
        and max(edit.range.end.line - 1, edit.range.start.line) >= first
    ]


def _format_edits(uri: str) -> list[types.TextEdit] | None:
    """``kcl fmt``'s edits for a document (None: unreadable, or a syntax error)."""
    document = document_of(uri)
    if document is None:
        return None
    try:
        formatted = format_code(document.text, filename=document.path)
    except (FormatError, RecursionError):
        return None
    return line_edits(document.text, formatted)


def line_edits(before: str, after: str) -> list[types.TextEdit]:
    """The smallest whole-line edits turning ``before`` into ``after``."""
    old = before.splitlines(keepends=True)
    new = after.splitlines(keepends=True)
    edits = []
    matcher = difflib.SequenceMatcher(a=old, b=new, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            continue
        if tag == "replace" and i2 - i1 == j2 - j1:  # line for line: one edit a line
            for line in range(i2 - i1):
                where = types.Range(types.Position(i1 + line, 0), types.Position(i1 + line + 1, 0))
                edits.append(types.TextEdit(where, new[j1 + line]))
            continue
        start = types.Position(i1, 0)
        end = types.Position(i2, 0)
        edits.append(types.TextEdit(types.Range(start, end), "".join(new[j1:j2])))
    return edits


def main() -> int:
    """Serve over stdio until the client exits (or its process is gone): 0 after
    ``shutdown``, 1 without. The analysis gets ``EXIT_GRACE`` seconds to stop."""
    try:
        server.start_io()
    finally:
        workspace.stop()
        workspace.join(EXIT_GRACE)
    return 0 if server.protocol._shutdown else 1
