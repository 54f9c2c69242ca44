"""The server object, its protocol rules, and the state every feature shares.

Owns ``server`` (the pygls ``LanguageServer`` the feature modules register on,
served over stdio by ``transport``), ``documents`` (the open buffers) and
``workspace`` (the analysis model), and the protocol rules pygls leaves to us: a
request before ``initialize`` gets -32002, a request after ``shutdown`` -32600, a
request whose params do not fit its method -32602 (never silence), as does one
whose position (or range start) lies past the end of its document (a character
past the end of a line is the line's end, as the protocol says); an internal
failure is answered with a short message (no traceback), ``exit`` without
``shutdown`` ends the process with status 1. Also the conversions every feature
needs: kclpy diagnostics and spans to LSP diagnostics and locations.
"""

from __future__ import annotations

import asyncio
import contextlib
import sys
from typing import Any, BinaryIO

from lsprotocol import types
from pygls.exceptions import JsonRpcInvalidParams
from pygls.lsp.server import LanguageServer
from pygls.protocol import LanguageServerProtocol
from pygls.protocol.language_server import lsp_method

from kclpy import __version__
from kclpy.diag import Diagnostic
from kclpy.sema.types import FuncType
from kclpy.source import Span
from kclpy.syntax import ast
from kclpy_lsp.diagnostics import unique
from kclpy_lsp.documents import Document, Documents, path_of, uri_of
from kclpy_lsp.transport import INVALID_REQUEST, Connection
from kclpy_lsp.workspace import Analysis, Workspace

SERVER_NOT_INITIALIZED = -32002
INVALID_PARAMS = -32602


class _Invalid:
    """A request whose params could not be read: answered with -32602."""

    jsonrpc = "2.0"

    def __init__(self, message: dict[str, Any]) -> None:
        self.id = message.get("id")
        self.method = message.get("method", "")


class KclProtocol(LanguageServerProtocol):
    """pygls's protocol with the rules above; the buffers are ours (``documents``)."""

    initialized = False

    def structure_message(self, data: dict[str, Any]) -> Any:
        try:
            return super().structure_message(data)
        except JsonRpcInvalidParams:
            if "id" in data and "method" in data:
                return _Invalid(data)
            raise

    def handle_message(self, message: Any) -> None:
        method = getattr(message, "method", None)
        request = method is not None and getattr(message, "id", None) is not None
        if isinstance(message, _Invalid):
            self._reply_error(message.id, INVALID_PARAMS, f"invalid params for {method}")
            return
        if not self.initialized and method not in (types.INITIALIZE, types.EXIT, None):
            if request:
                self._reply_error(message.id, SERVER_NOT_INITIALIZED, "server not initialized")
            return
        if self._shutdown and method != types.EXIT:
            if request:
                self._reply_error(message.id, INVALID_REQUEST, "the server is shutting down")
            return
        if request and (problem := position_problem(getattr(message, "params", None))):
            self._reply_error(message.id, INVALID_PARAMS, f"invalid params for {method}: {problem}")
            return
        if method == types.INITIALIZE:
            self.initialized = True
        super().handle_message(message)

    def _reply_error(self, msg_id: Any, code: int, message: str) -> None:
        self._send_response(msg_id, None, types.ResponseError(code=code, message=message))

    def _send_response(
        self, msg_id: Any, result: Any = None, error: types.ResponseError | None = None
    ) -> None:
        if error is not None and isinstance(error.data, dict) and "traceback" in error.data:
            error = types.ResponseError(code=error.code, message=f"internal error: {error.message}")
        super()._send_response(msg_id, result, error)

    # the buffers live in ``documents`` (LSP line rules); pygls's copy is not kept
    @lsp_method(types.TEXT_DOCUMENT_DID_OPEN)
    def lsp_text_document__did_open(self, params: types.DidOpenTextDocumentParams) -> Any:
        if (handler := self.fm.features.get(types.TEXT_DOCUMENT_DID_OPEN)) is not None:
            yield handler, (params,), None

    @lsp_method(types.TEXT_DOCUMENT_DID_CHANGE)
    def lsp_text_document__did_change(self, params: types.DidChangeTextDocumentParams) -> Any:
        if (handler := self.fm.features.get(types.TEXT_DOCUMENT_DID_CHANGE)) is not None:
            yield handler, (params,), None

    @lsp_method(types.TEXT_DOCUMENT_DID_CLOSE)
    def lsp_text_document__did_close(self, params: types.DidCloseTextDocumentParams) -> Any:
        if (handler := self.fm.features.get(types.TEXT_DOCUMENT_DID_CLOSE)) is not None:
            yield handler, (params,), None


class KclServer(LanguageServer):
    """pygls's server, served by ``transport`` (bounded frames, a sure end)."""

    connection: Connection | None = None

    def start_io(self, stdin: BinaryIO | None = None, stdout: BinaryIO | None = None) -> None:
        self.connection = Connection(
            self.protocol, stdin or sys.stdin.buffer, stdout or sys.stdout.buffer
        )
        try:
            self.connection.run()
        finally:
            self.shutdown()  # type: ignore[no-untyped-call]  # pygls: the thread pool


def position_problem(params: Any) -> str | None:
    """Why the positions or ranges of a request's params do not lie in its document
    (None when they do, or when the document cannot be read: then the feature
    answers nothing). A range must start in the document; its end may lie past the
    document's (clients name "to the end" so), and not before its start."""
    text_document = getattr(params, "text_document", None)
    uri = getattr(text_document, "uri", None)
    if not isinstance(uri, str):
        return None
    positions: list[types.Position] = []
    for name in ("position", "positions", "range", "ranges"):
        value = getattr(params, name, None)
        for item in value if isinstance(value, list) else [value]:
            if isinstance(item, types.Position):
                positions.append(item)
            elif isinstance(item, types.Range):
                if (item.start.line, item.start.character) > (item.end.line, item.end.character):
                    return f"range {_shown(item.start)}-{_shown(item.end)} ends before it starts"
                positions.append(item.start)
    if not positions:
        return None
    document = documents.get(uri)
    if document is None:
        return None
    for position in positions:
        if not document.lines.holds(position):
            lines = document.lines.count
            return f"position {_shown(position)} is past the end of the document ({lines} lines)"
    return None


def _shown(position: types.Position) -> str:
    return f"{position.line}:{position.character}"


def note(message: str) -> None:
    """A line for the client's log (``window/logMessage``), from any thread."""
    if server.connection is not None:
        server.connection.note(message)


server = KclServer(
    "kclpy-lsp",
    __version__,
    protocol_cls=KclProtocol,
    text_document_sync_kind=types.TextDocumentSyncKind.Incremental,
)
documents = Documents()


_loop: list[asyncio.AbstractEventLoop] = []  # the server's event loop, once running


def bind_loop() -> None:
    """Remember the running event loop (the analysis thread publishes through it)."""
    _loop[:] = [asyncio.get_running_loop()]


def _publish(path: str, diagnostics: list[Diagnostic], version: int | None) -> None:
    """Called by the analysis thread: hand the publication to the event loop."""
    if not _loop or _loop[0].is_closed():
        return
    with contextlib.suppress(RuntimeError):  # the loop closed meanwhile: exiting
        _loop[0].call_soon_threadsafe(_send_diagnostics, path, diagnostics, version)


def _send_diagnostics(path: str, diagnostics: list[Diagnostic], version: int | None) -> None:
    document = documents.open_by_path(path)
    uri = document.uri if document is not None else uri_of(path)
    target = document or documents.by_path(path)
    found = [to_lsp_diagnostic(target, d) for d in diagnostics] if target is not None else []
    analysis = workspace.latest(path)
    if analysis is not None and analysis.config_error and document is not None:
        first = types.Range(types.Position(0, 0), types.Position(0, 0))
        found.append(types.Diagnostic(first, analysis.config_error, source="kclpy"))
    server.text_document_publish_diagnostics(
        types.PublishDiagnosticsParams(uri=uri, version=version, diagnostics=unique(found))
    )


workspace = Workspace(documents, _publish, note)


# --------------------------------------------------------------------------- conversions


def to_range(document: Document, span: Span | None) -> types.Range:
    """The LSP range of a span of this document (the start of the file without one)."""
    if span is None:
        return types.Range(types.Position(0, 0), types.Position(0, 0))
    return document.lines.range(span.start, span.end)


def to_lsp_diagnostic(document: Document, diagnostic: Diagnostic) -> types.Diagnostic:
    severity = (
        types.DiagnosticSeverity.Error if diagnostic.is_error else types.DiagnosticSeverity.Warning
    )
    message = diagnostic.message
    for note in diagnostic.notes:
        message += f"\n{note}"
    tags = [types.DiagnosticTag.Unnecessary] if diagnostic.code.id == "W0411" else None
    return types.Diagnostic(
        range=to_range(document, diagnostic.span),
        message=message,
        severity=severity,
        code=diagnostic.code.id,
        source="kclpy",
        tags=tags,
    )


def location(span: Span) -> types.Location | None:
    """A span as an LSP location, in an open document or a file on disk."""
    document = documents.by_path(span.file.path)
    if document is None:
        return None
    return types.Location(document.uri, to_range(document, span))


def document_of(uri: str) -> Document | None:
    """The document a request names (None for a missing, binary or folder path)."""
    return documents.get(uri)


async def fresh_analysis(document: Document) -> Analysis | None:
    """The analysis that saw this document's current text (waits for it)."""
    return await workspace.fresh(document.path)


async def analysed(uri: str, exact: bool = False) -> tuple[Document, Analysis] | None:
    """The document a request names and its fresh analysis (None when the file cannot
    be read or nothing analyses it; with ``exact``, also when the analysis saw another
    text, for answers that need the model's offsets to match the document)."""
    document = document_of(uri)
    if document is None:
        return None
    analysis = await fresh_analysis(document)
    if analysis is None or (exact and analysis.texts.get(document.path) != document.text):
        return None
    return document, analysis


def module_of(analysis: Analysis, path: str) -> ast.Module | None:
    """The syntax tree an analysis holds for a file (of a file two packages hold,
    its home package's: ``Program.home_of``)."""
    found = analysis.program.home_of(path)
    return found[1] if found is not None else None


def parameter_labels(function: FuncType) -> list[str]:
    """``name: type`` per parameter (``name?`` when it has a default, ``...`` last for
    a variadic function), as signature help and hover show them."""
    labels = [f"{p.name}{'?' if p.has_default else ''}: {p.type.ty_str()}" for p in function.params]
    if function.variadic:
        labels.append("...")
    return labels


def model_position(document: Document, position: types.Position) -> tuple[int, int]:
    """kclpy's 1-based (line, column) in code points for an LSP position.

    kclpy counts lines at ``\\n`` only; the offset is converted through its own
    line table so a ``\\r`` or U+2028 inside a line cannot shift it."""
    offset = document.lines.offset(position)
    text = document.text
    line = text.count("\n", 0, offset) + 1
    start = text.rfind("\n", 0, offset) + 1
    return line, offset - start + 1


__all__ = ["documents", "path_of", "server", "workspace"]
