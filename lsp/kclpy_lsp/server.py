"""The kclpy language server (pygls 2): diagnostics, formatting, hover, definition.

* Diagnostics on open, change and save: every syntax and type error of the program
  the document belongs to (its folder's package, with the unsaved text) plus the lint
  warnings of ``kcl lint``, for that document.
* Formatting: ``kcl fmt``'s result as the smallest line edits (no whole-document
  replacement that would move the editor's view); nothing for text with syntax errors.
* Hover: the kind, name, type and documentation of the symbol under the cursor.
* Definition and references: where that symbol is defined and used.
* Rename: the definition and every use.
* Code actions: quick fixes for unused and repeated imports (``kcl lint --fix``).
* Document symbols: the top-level names, schemas with their attributes.
* Completion: after ``x.``, the members of ``x`` (a module's names, a schema's
  attributes); inside ``Schema {``, its attributes; elsewhere the package's names and
  the builtin functions.

Positions: kclpy counts code points from 1; LSP counts UTF-16 units (or what the
client negotiated, via pygls's position codec) from 0.
"""

from __future__ import annotations

import difflib
import os
import re
from typing import Any
from urllib.parse import unquote, urlparse

from lsprotocol import types
from pygls.lsp.server import LanguageServer
from pygls.workspace import TextDocument

from kclpy import __version__
from kclpy.diag import Diagnostic
from kclpy.loader import Loader
from kclpy.sema import check_program
from kclpy.sema.builtins import BUILTIN_FUNCTIONS, SYSTEM_MODULES
from kclpy.sema.model import Model
from kclpy.sema.symbols import SymbolKind
from kclpy.sema.types import ModuleType
from kclpy.source import Span
from kclpy.tools.format import FormatError, format_code
from kclpy.tools.lint import LintConfigError, LintReport, lint

server = LanguageServer("kclpy-lsp", __version__)

# the latest document version's lint report (errors, findings and the checked
# program): diagnostics, hover, completion and quick fixes share one check
_ANALYSES: dict[tuple[str, int | None], LintReport] = {}


def document_path(document: TextDocument) -> str:
    """The file system path of a ``file:`` document (its URI otherwise)."""
    if document.path:
        return str(document.path)
    parsed = urlparse(document.uri)
    return unquote(parsed.path) if parsed.scheme == "file" else document.uri


def to_range(document: TextDocument, span: Span | None) -> types.Range:
    """An LSP range for a span of this document (the start of the file without one)."""
    if span is None:
        return types.Range(types.Position(0, 0), types.Position(0, 0))
    start = _position(span.file.text, span.start)
    end = _position(span.file.text, span.end)
    return document.position_codec.range_to_client_units(document.lines, types.Range(start, end))


def _position(text: str, offset: int) -> types.Position:
    line = text.count("\n", 0, offset)
    start = text.rfind("\n", 0, offset) + 1
    return types.Position(line, offset - start)  # code points; converted by the codec


def to_lsp_diagnostic(document: TextDocument, diagnostic: Diagnostic) -> types.Diagnostic:
    severity = (
        types.DiagnosticSeverity.Error if diagnostic.is_error else types.DiagnosticSeverity.Warning
    )
    message = diagnostic.message
    for note in diagnostic.notes:
        message += f"\n{note}"
    return types.Diagnostic(
        range=to_range(document, diagnostic.span),
        message=message,
        severity=severity,
        code=diagnostic.code.id,
        source="kclpy",
    )


def analysis(document: TextDocument) -> LintReport:
    """``kcl lint`` of the document's program with its unsaved text (cached per
    version); raises LintConfigError for a bad ``[lint]`` section."""
    key = (document.uri, document.version)
    report = _ANALYSES.get(key)
    if report is None:
        path = document_path(document)
        report = lint([path], sources={path: document.source})
        _ANALYSES.clear()
        _ANALYSES[key] = report
    return report


def diagnostics_for(document: TextDocument) -> list[types.Diagnostic]:
    path = document_path(document)
    try:
        report = analysis(document)
    except LintConfigError as error:
        first = types.Range(types.Position(0, 0), types.Position(0, 0))
        return [types.Diagnostic(range=first, message=str(error), source="kclpy")]
    mine = os.path.abspath(path)
    found = []
    for diagnostic in report.diagnostics:
        span = diagnostic.span
        if span is not None and os.path.abspath(span.file.path) != mine:
            continue
        found.append(to_lsp_diagnostic(document, diagnostic))
    return found


def publish(ls: LanguageServer, uri: str) -> None:
    document = ls.workspace.get_text_document(uri)
    ls.text_document_publish_diagnostics(
        types.PublishDiagnosticsParams(
            uri=document.uri, version=document.version, diagnostics=diagnostics_for(document)
        )
    )


@server.feature(types.TEXT_DOCUMENT_DID_OPEN)
def did_open(ls: LanguageServer, params: types.DidOpenTextDocumentParams) -> None:
    publish(ls, params.text_document.uri)


@server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
def did_change(ls: LanguageServer, params: types.DidChangeTextDocumentParams) -> None:
    publish(ls, params.text_document.uri)


@server.feature(types.TEXT_DOCUMENT_DID_SAVE)
def did_save(ls: LanguageServer, params: types.DidSaveTextDocumentParams) -> None:
    publish(ls, params.text_document.uri)


@server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
def did_close(ls: LanguageServer, params: types.DidCloseTextDocumentParams) -> None:
    ls.text_document_publish_diagnostics(
        types.PublishDiagnosticsParams(uri=params.text_document.uri, diagnostics=[])
    )


@server.feature(types.TEXT_DOCUMENT_FORMATTING)
def formatting(
    ls: LanguageServer, params: types.DocumentFormattingParams
) -> list[types.TextEdit] | None:
    document = ls.workspace.get_text_document(params.text_document.uri)
    try:
        formatted = format_code(document.source, filename=document_path(document))
    except FormatError:
        return None
    return line_edits(document.source, formatted)


def line_edits(before: str, after: str) -> list[types.TextEdit]:
    """The smallest whole-line edits turning ``before`` into ``after``."""
    old = before.splitlines(keepends=True)
    new = after.splitlines(keepends=True)
    edits = []
    matcher = difflib.SequenceMatcher(a=old, b=new, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            continue
        start = types.Position(i1, 0)
        end = types.Position(i2, 0)
        edits.append(types.TextEdit(types.Range(start, end), "".join(new[j1:j2])))
    return edits


def model_for(document: TextDocument) -> Model:
    """The checked program of the document (the lint run's, or a check of its own
    when lint could not run it)."""
    try:
        models = analysis(document).models
    except LintConfigError:
        models = []
    if models:
        return models[0]
    path = document_path(document)
    loader = Loader(os.path.dirname(path), {}, {path: document.source})
    return check_program(loader.load([path]))


def _symbol(document: TextDocument, position: types.Position) -> Any:
    codec_position = document.position_codec.position_from_client_units(document.lines, position)
    model = model_for(document)
    return model.symbol_at(
        document_path(document), (codec_position.line + 1, codec_position.character + 1)
    )


@server.feature(types.TEXT_DOCUMENT_HOVER)
def hover(ls: LanguageServer, params: types.HoverParams) -> types.Hover | None:
    document = ls.workspace.get_text_document(params.text_document.uri)
    symbol = _symbol(document, params.position)
    if symbol is None:
        return None
    text = f"```kcl\n({symbol.kind}) {symbol.name}: {symbol.type.ty_str()}\n```"
    doc = model_for(document).doc(symbol)
    if doc:
        text += f"\n\n{doc}"
    return types.Hover(types.MarkupContent(types.MarkupKind.Markdown, text))


@server.feature(types.TEXT_DOCUMENT_DEFINITION)
def definition(ls: LanguageServer, params: types.DefinitionParams) -> types.Location | None:
    document = ls.workspace.get_text_document(params.text_document.uri)
    symbol = _symbol(document, params.position)
    if symbol is None or symbol.span is None:
        return None
    return _location(ls, document, symbol.span)


@server.feature(types.TEXT_DOCUMENT_REFERENCES)
def references(ls: LanguageServer, params: types.ReferenceParams) -> list[types.Location]:
    document = ls.workspace.get_text_document(params.text_document.uri)
    symbol = _symbol(document, params.position)
    if symbol is None:
        return []
    model = model_for(document)
    spans = model.references(symbol, include_definition=params.context.include_declaration)
    return [_location(ls, document, span) for span in spans]


def _location(ls: LanguageServer, document: TextDocument, span: Span) -> types.Location:
    """A span as an LSP location (in this document or another file)."""
    if os.path.abspath(span.file.path) == os.path.abspath(document_path(document)):
        return types.Location(document.uri, to_range(document, span))
    target = ls.workspace.get_text_document(f"file://{os.path.abspath(span.file.path)}")
    return types.Location(target.uri, to_range(target, span))


@server.feature(types.TEXT_DOCUMENT_RENAME)
def rename(ls: LanguageServer, params: types.RenameParams) -> types.WorkspaceEdit | None:
    """Rename a symbol at its definition and every recorded use (not builtins)."""
    document = ls.workspace.get_text_document(params.text_document.uri)
    symbol = _symbol(document, params.position)
    if symbol is None or symbol.span is None or symbol.kind == SymbolKind.BUILTIN:
        return None
    if not re.fullmatch(r"[A-Za-z_][\w]*", params.new_name):
        return None
    changes: dict[str, list[types.TextEdit]] = {}
    model = model_for(document)
    for span in model.references(symbol, include_definition=True):
        location = _location(ls, document, span)
        text = span.file.text[span.start : span.end]
        if text.endswith(symbol.name):  # a use inside a selection ``a.b``: the last part
            start = span.end - len(symbol.name)
            location = _location(ls, document, Span(span.file, start, span.end))
        edits = changes.setdefault(location.uri, [])
        if all(edit.range != location.range for edit in edits):
            edits.append(types.TextEdit(location.range, params.new_name))
    return types.WorkspaceEdit(changes=changes)


@server.feature(types.TEXT_DOCUMENT_DOCUMENT_SYMBOL)
def document_symbols(
    ls: LanguageServer, params: types.DocumentSymbolParams
) -> list[types.DocumentSymbol]:
    """The top-level names of the document, schemas with their attributes."""
    document = ls.workspace.get_text_document(params.text_document.uri)
    model = model_for(document)
    mine = os.path.abspath(document_path(document))
    found = []
    for symbol in model.package_symbols().values():
        span = symbol.span
        if span is None or os.path.abspath(span.file.path) != mine:
            continue
        children = []
        if symbol.kind == SymbolKind.SCHEMA:
            for member in model.members(symbol.type).values():
                if member.span is not None and os.path.abspath(member.span.file.path) == mine:
                    member_range = to_range(document, member.span)
                    children.append(
                        types.DocumentSymbol(
                            member.name, types.SymbolKind.Field, member_range, member_range
                        )
                    )
        kind = (
            types.SymbolKind.Class
            if symbol.kind == SymbolKind.SCHEMA
            else types.SymbolKind.Variable
        )
        where = to_range(document, span)
        found.append(
            types.DocumentSymbol(
                symbol.name, kind, where, where, detail=symbol.type.ty_str(), children=children
            )
        )
    return found


@server.feature(
    types.TEXT_DOCUMENT_CODE_ACTION,
    types.CodeActionOptions(code_action_kinds=[types.CodeActionKind.QuickFix]),
)
def code_actions(ls: LanguageServer, params: types.CodeActionParams) -> list[types.CodeAction]:
    """Quick fixes for the lint findings in the range that ``kcl lint --fix`` can
    repair (unused and repeated imports), with the same edits."""
    document = ls.workspace.get_text_document(params.text_document.uri)
    path = document_path(document)
    try:
        report = analysis(document)
    except LintConfigError:
        return []
    wanted = params.range
    actions = []
    for diagnostic, edit in report.fixes:
        span = diagnostic.span
        if span is None or os.path.abspath(edit.path) != os.path.abspath(path):
            continue
        where = to_range(document, span)
        if where.end.line < wanted.start.line or where.start.line > wanted.end.line:
            continue
        change = types.TextEdit(
            to_range(document, Span(span.file, edit.start, edit.end)), edit.text
        )
        actions.append(
            types.CodeAction(
                title=f"Remove: {diagnostic.message}",
                kind=types.CodeActionKind.QuickFix,
                diagnostics=[to_lsp_diagnostic(document, diagnostic)],
                edit=types.WorkspaceEdit(changes={document.uri: [change]}),
            )
        )
    return actions


def main() -> int:
    """Serve over stdio until the client exits."""
    server.start_io()
    return 0


# --------------------------------------------------------------------------- completion

_CHAIN = re.compile(r"([A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*)\.([\w$]*)$")
_SCHEMA_OPEN = re.compile(r"([A-Za-z_$][\w$.]*)\s*(?:\([^()]*\))?\s*$")


@server.feature(types.TEXT_DOCUMENT_COMPLETION, types.CompletionOptions(trigger_characters=["."]))
def completion(ls: LanguageServer, params: types.CompletionParams) -> types.CompletionList:
    document = ls.workspace.get_text_document(params.text_document.uri)
    position = document.position_codec.position_from_client_units(document.lines, params.position)
    line = document.lines[position.line] if position.line < len(document.lines) else ""
    prefix = line[: position.character]
    model = model_for(document)
    chain = _CHAIN.search(prefix)
    if chain is not None:
        items = _member_items(model, chain.group(1).split("."))
    else:
        offset = sum(len(text) for text in document.lines[: position.line]) + position.character
        schema = _enclosing_schema(document.source, offset)
        info = model.schema(schema) if schema else None
        items = _attribute_items(model, info) if info is not None else _name_items(model)
    return types.CompletionList(is_incomplete=False, items=items)


def _member_items(model: Model, names: list[str]) -> list[types.CompletionItem]:
    """The members of ``a.b`` (a module's names, a schema's attributes)."""
    symbol = model.package_symbols().get(names[0])
    if symbol is None:
        return []
    kind = symbol.type
    for name in names[1:]:
        members = _members_of(model, kind)
        found = members.get(name)
        if found is None:
            return []
        kind = found.type
    return [_item(member) for member in _members_of(model, kind).values()]


def _members_of(model: Model, kind: Any) -> dict[str, Any]:
    if isinstance(kind, ModuleType) and kind.pkgpath in SYSTEM_MODULES:
        return {
            name: _Builtin(name, member) for name, member in SYSTEM_MODULES[kind.pkgpath].items()
        }
    if isinstance(kind, ModuleType):
        return {
            name: member
            for name, member in model.package_symbols(kind.pkgpath).items()
            if not name.startswith("_")
        }
    return model.members(kind)


class _Builtin:
    """A system-module function, shaped like a symbol for completion items."""

    def __init__(self, name: str, type: Any) -> None:
        self.name = name
        self.type = type
        self.kind = SymbolKind.BUILTIN


def _attribute_items(model: Model, info: Any) -> list[types.CompletionItem]:
    return [_item(member, field=True) for member in model.members(info).values()]


def _name_items(model: Model) -> list[types.CompletionItem]:
    items = [_item(symbol) for symbol in model.package_symbols().values()]
    items += [
        types.CompletionItem(label=name, kind=types.CompletionItemKind.Function)
        for name in sorted(BUILTIN_FUNCTIONS)
    ]
    return items


def _item(symbol: Any, field: bool = False) -> types.CompletionItem:
    kinds = {
        SymbolKind.SCHEMA: types.CompletionItemKind.Class,
        SymbolKind.RULE: types.CompletionItemKind.Class,
        SymbolKind.MODULE: types.CompletionItemKind.Module,
        SymbolKind.ATTRIBUTE: types.CompletionItemKind.Field,
    }
    kind = types.CompletionItemKind.Field if field else kinds.get(symbol.kind)
    return types.CompletionItem(
        label=symbol.name,
        kind=kind or types.CompletionItemKind.Variable,
        detail=symbol.type.ty_str(),
    )


def _enclosing_schema(text: str, offset: int) -> str | None:
    """The schema name before the innermost ``{`` still open at ``offset``
    (``Person {`` or ``Person(1) {``), if any."""
    depth = 0
    index = offset - 1
    while index >= 0:
        char = text[index]
        if char == "}":
            depth += 1
        elif char == "{":
            if depth == 0:
                head = _SCHEMA_OPEN.search(text[max(0, index - 200) : index])
                return head.group(1) if head is not None else None
            depth -= 1
        index -= 1
    return None
