"""The kclpy language server (pygls 2): lifecycle, document sync and editing features.

Module map of ``kclpy_lsp``:

* ``documents``: buffers, LSP lines and position encodings, URIs.
* ``workspace``: the analysis model (a query database over the open buffers, programs,
  debounce, diagnostics).
* ``app``: the server object, protocol rules, shared conversions.
* ``server`` (this module): initialize/exit, didOpen/didChange/didClose/didSave,
  watched files.
* ``formatting``: formatting (document and range), ``textdiff`` its line diff.
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

import os

from lsprotocol import types

from kclpy_lsp import completion, decorations, fixes, formatting, navigation
from kclpy_lsp.app import bind_loop, documents, note, path_of, server, workspace
from kclpy_lsp.documents import read_text
from kclpy_lsp.memory import PAUSES, watch_pauses
from kclpy_lsp.scan import refused
from kclpy_lsp.transport import EXIT_GRACE

COLLECTOR_PAUSES = "kclpy/collectorPauses"  # a request of our own: the collector's pauses
FEATURES = (completion, decorations, fixes, formatting, navigation)  # registered on import


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
    workspace.nearby(document.path)  # outside the roots: the stacks naming it
    # as on disk: an analysis under way (of the scan) reads the same text; not redone
    workspace.changed(document.path, supersede=read_text(document.path) != item.text)


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


@server.feature(COLLECTOR_PAUSES)
def collector_pauses(*arguments: object) -> dict[str, float]:
    """The cycle collector's pauses so far (``kclpy_lsp.memory``; for benchmarks).
    (pygls passes a method of its own the server and the params.)"""
    return PAUSES.figures()


def main() -> int:
    """Serve over stdio until the client exits (or its process is gone): 0 after
    ``shutdown``, 1 without. The analysis gets ``EXIT_GRACE`` seconds to stop."""
    watch_pauses()
    try:
        server.start_io()
    finally:
        workspace.stop()
        workspace.join(EXIT_GRACE)
    return 0 if server.protocol._shutdown else 1
