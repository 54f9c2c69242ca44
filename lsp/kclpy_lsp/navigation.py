"""Navigation features over the semantic model: hover, definition, references,
rename (with prepareRename), document and workspace symbols.

Hover on a decorator (``@deprecated``, ``@info``) shows its declared signature and
doc; on a system-module function or a string method, its signature.

Every request waits for the analysis that saw the document's current text, asks
its ``Model`` for the symbol at the position, and answers in LSP terms. A
symbol's uses are gathered over every analysed program that loads its defining
file (importers in other folders included); a use written inside a longer key
(``metadata.name``) is narrowed to the symbol's own name. A schema attribute's
uses also cover its redeclarations in related schemas and the untyped uses
``attributes`` finds (``x.name`` on an ``any`` value, ``name`` keys of untyped
configs).
"""

from __future__ import annotations

import os
import re

from lsprotocol import types

from kclpy.sema.builtins import DECORATORS, STRING_METHODS, module_member_types
from kclpy.sema.model import Model
from kclpy.sema.symbols import Symbol, SymbolKind
from kclpy.sema.types import FuncType, Type
from kclpy.source import Span
from kclpy.syntax import ast, parse_source
from kclpy.syntax.tokens import KEYWORDS
from kclpy.syntax.walk import walk
from kclpy_lsp.app import (
    document_of,
    fresh_analysis,
    location,
    model_position,
    module_of,
    parameter_labels,
    server,
    workspace,
)
from kclpy_lsp.attributes import attribute_uses
from kclpy_lsp.documents import Document
from kclpy_lsp.outline import outline
from kclpy_lsp.progress import whole_workspace
from kclpy_lsp.workspace import Analysis

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_WORD_AT = re.compile(r"[A-Za-z_$][\w$]*")


async def symbol_at(document: Document, position: types.Position) -> tuple[Analysis, Symbol] | None:
    analysis = await fresh_analysis(document)
    if analysis is None:
        return None
    symbol = analysis.model.symbol_at(document.path, model_position(document, position))
    return (analysis, symbol) if symbol is not None else None


def name_span(span: Span, name: str) -> Span:
    """The part of a span that spells ``name`` (``name`` in ``metadata.name``)."""
    text = span.file.text[span.start : span.end]
    if text == name:
        return span
    if text.endswith(name) and not text[-len(name) - 1 : -len(name)].isalnum():
        return Span(span.file, span.end - len(name), span.end)
    if text.startswith(name):
        return Span(span.file, span.start, span.start + len(name))
    found = re.search(rf"\b{re.escape(name)}\b", text)
    if found is not None:
        return Span(span.file, span.start + found.start(), span.start + found.end())
    return span


def uses(analysis: Analysis, symbol: Symbol, include_definition: bool) -> list[Span]:
    """Where a symbol is used (and defined), over every program that loads it; a
    schema attribute's uses include those no type records (``attributes``)."""
    spans = list(analysis.model.references(symbol, include_definition))
    if symbol.kind == SymbolKind.ATTRIBUTE and symbol.owner is not None:
        family = attribute_uses([analysis, *workspace.all_analyses()], symbol)
        own = symbol.span
        spans.extend(
            span
            for span in family
            if span not in spans and (include_definition or own is None or span != own)
        )
        return spans
    if symbol.span is None:
        return spans
    defined_in = os.path.abspath(symbol.span.file.path)
    for other in workspace.all_analyses():
        if other is analysis or defined_in not in other.texts:
            continue
        for twin in _twins(other.model, symbol):
            more = other.model.references(twin, include_definition=False)
            spans.extend(span for span in more if span not in spans)
    return spans


def _twins(model: Model, symbol: Symbol) -> list[Symbol]:
    """The same definition in another program's model: the package names defined at
    its place (a file a program checks as two packages, ``import a.b`` of the file
    ``a/b.k`` beside ``import a``, defines each of its names once per package), else
    the symbol its file's definitions there have."""
    assert symbol.span is not None
    wanted = (os.path.abspath(symbol.span.file.path), symbol.span.start)
    found = [
        declared
        for names in model.packages_names.values()
        if (declaration := names.get(symbol.name)) is not None
        and (declared := declaration.symbol) is not None
        and declared.span is not None
        and (os.path.abspath(declared.span.file.path), declared.span.start) == wanted
    ]
    if found:
        return found
    for _start, _end, defined in model.occurrences(symbol.span.file.path):
        span = defined.span
        if span is not None and (os.path.abspath(span.file.path), span.start) == wanted:
            return [defined]
    return []


@server.feature(types.TEXT_DOCUMENT_HOVER)
async def hover(params: types.HoverParams) -> types.Hover | None:
    document = document_of(params.text_document.uri)
    if document is None:
        return None
    decorator = await _decorator_hover(document, params.position)
    if decorator is not None:
        return decorator
    found = await symbol_at(document, params.position)
    if found is None:
        return _member_hover(document, params.position)
    analysis, symbol = found
    text = f"```kcl\n({symbol.kind}) {symbol.name}: {symbol.type.ty_str()}\n```"
    if symbol.kind == SymbolKind.SCHEMA:
        text = f"```kcl\n{_schema_outline(analysis.model, symbol)}\n```"
    doc = analysis.model.doc(symbol)
    if doc:
        text += f"\n\n{doc}"
    return types.Hover(types.MarkupContent(types.MarkupKind.Markdown, text))


def _schema_outline(model: Model, symbol: Symbol) -> str:
    """``schema Name(Base):`` and every attribute (inherited ones too) as
    ``name?: type``, as kcl-language-server shows it."""
    info = model.members(symbol.type)
    base = getattr(getattr(symbol.type, "info", None), "base", None)
    head = f"schema {symbol.name}({base.name}):" if base is not None else f"schema {symbol.name}:"
    lines = [head]
    for member in info.values():
        mark = "?" if member.optional else ""
        lines.append(f"    {member.name}{mark}: {member.type.ty_str()}")
    return "\n".join(lines)


async def _decorator_hover(document: Document, position: types.Position) -> types.Hover | None:
    """Hover on ``@deprecated`` or ``@info``: the decorator's signature and doc."""
    analysis = await fresh_analysis(document)
    if analysis is None or analysis.texts.get(document.path) != document.text:
        return None
    module = module_of(analysis, document.path)
    offset = document.lines.offset(position)
    for node in walk(module) if module is not None else ():
        if not isinstance(node, ast.Decorator) or node.span is None:
            continue
        start = node.span.start
        if not start <= offset <= start + 1 + len(node.name):
            continue
        signature = DECORATORS.get(node.name)
        if not isinstance(signature, FuncType):
            return None
        labels = ", ".join(parameter_labels(signature))
        text = f"```kcl\n(decorator) {node.name}({labels}) -> {signature.ret.ty_str()}\n```"
        doc = signature.doc
        if doc:
            text += f"\n\n{doc}"
        where = document.lines.range(start, start + 1 + len(node.name))
        return types.Hover(types.MarkupContent(types.MarkupKind.Markdown, text), where)
    return None


def _member_hover(document: Document, position: types.Position) -> types.Hover | None:
    """Hover on ``math.log`` (a system module function) or ``s.upper`` (a string method)."""
    line = document.lines.line_text(position.line)
    column = document.lines.offset(position) - document.lines.starts[position.line]
    for match in _WORD_AT.finditer(line):
        if match.start() <= column <= match.end():
            break
    else:
        return None
    name = match.group()
    before = line[: match.start()]
    if not before.endswith("."):
        return None
    owner = re.search(r"([A-Za-z_][\w]*)\.$", before)
    signature: Type | None = None
    members = module_member_types(owner.group(1)) if owner is not None else None
    if owner is not None and members is not None:
        signature, where = members.get(name), owner.group(1)
    if signature is None and name in STRING_METHODS:
        signature, where = STRING_METHODS[name], "str"
    if signature is None:
        return None
    text = f"```kcl\n(function) {where}.{name}: {signature.ty_str()}\n```"
    if isinstance(signature, FuncType) and signature.doc:
        text += f"\n\n{signature.doc}"
    return types.Hover(types.MarkupContent(types.MarkupKind.Markdown, text))


@server.feature(types.TEXT_DOCUMENT_DEFINITION)
async def definition(params: types.DefinitionParams) -> types.Location | None:
    document = document_of(params.text_document.uri)
    if document is None:
        return None
    found = await symbol_at(document, params.position)
    if found is None or found[1].span is None:
        return None
    symbol = found[1]
    assert symbol.span is not None
    return location(name_span(symbol.span, symbol.name))


@server.feature(types.TEXT_DOCUMENT_REFERENCES)
async def references(params: types.ReferenceParams) -> list[types.Location]:
    document = document_of(params.text_document.uri)
    if document is None:
        return []
    await whole_workspace(params.work_done_token)  # every program that may use it
    found = await symbol_at(document, params.position)
    if found is None:
        return []
    analysis, symbol = found
    spans = uses(analysis, symbol, params.context.include_declaration)
    places = [location(name_span(span, symbol.name)) for span in spans]
    return [place for place in places if place is not None]


def valid_name(name: str) -> bool:
    return _NAME.fullmatch(name) is not None and name not in KEYWORDS


def _renameable(symbol: Symbol) -> bool:
    return symbol.span is not None and symbol.kind != SymbolKind.BUILTIN


@server.feature(types.TEXT_DOCUMENT_PREPARE_RENAME)
async def prepare_rename(
    params: types.PrepareRenameParams,
) -> types.PrepareRenamePlaceholder | None:
    document = document_of(params.text_document.uri)
    if document is None:
        return None
    found = await symbol_at(document, params.position)
    if found is None or not _renameable(found[1]):
        return None
    symbol = found[1]
    offset = document.lines.offset(params.position)
    for start, end, candidate in found[0].model.occurrences(document.path):
        if candidate is symbol and start <= offset <= max(end, start + 1):
            span = name_span(Span(found[0].model.files[document.path], start, end), symbol.name)
            where = document.lines.range(span.start, span.end)
            return types.PrepareRenamePlaceholder(range=where, placeholder=symbol.name)
    return None


@server.feature(types.TEXT_DOCUMENT_RENAME)
async def rename(params: types.RenameParams) -> types.WorkspaceEdit | None:
    """Rename a symbol at its definition and every use, in every program that loads
    it; an import keeps its path (``import a.b`` becomes ``import a.b as new``)."""
    document = document_of(params.text_document.uri)
    if document is None:
        return None
    if not valid_name(params.new_name):
        raise ValueError(f"'{params.new_name}' is not a valid KCL name")
    await whole_workspace(params.work_done_token)
    found = await symbol_at(document, params.position)
    if found is None or not _renameable(found[1]):
        return None
    analysis, symbol = found
    changes: dict[str, list[types.TextEdit]] = {}
    for span in uses(analysis, symbol, include_definition=True):
        text = params.new_name
        if span is symbol.span and symbol.kind == SymbolKind.MODULE:
            span, text = _import_alias(span, symbol.name, params.new_name)
        else:
            span = name_span(span, symbol.name)
        place = location(span)
        if place is None:
            continue
        edits = changes.setdefault(place.uri, [])
        if all(edit.range != place.range for edit in edits):
            edits.append(types.TextEdit(place.range, text))
    return types.WorkspaceEdit(changes=changes)


def _import_alias(span: Span, name: str, new_name: str) -> tuple[Span, str]:
    """The edit renaming an import's local name: its ``as`` alias, or a new alias."""
    text = span.file.text[span.start : span.end]
    alias = re.search(rf"\bas\s+({re.escape(name)})\s*$", text)
    if alias is not None:
        return Span(span.file, span.start + alias.start(1), span.start + alias.end(1)), new_name
    end = span.start + len(text.rstrip())
    return Span(span.file, end, end), f" as {new_name}"


# --------------------------------------------------------------------------- symbols

_KINDS = {
    SymbolKind.SCHEMA: types.SymbolKind.Struct,
    SymbolKind.RULE: types.SymbolKind.Struct,
    SymbolKind.MODULE: types.SymbolKind.Module,
    SymbolKind.TYPE_ALIAS: types.SymbolKind.TypeParameter,
    SymbolKind.ATTRIBUTE: types.SymbolKind.Property,
}


def _kind(symbol: Symbol) -> types.SymbolKind:
    if symbol.type.ty_str().startswith("(") and symbol.kind == SymbolKind.VARIABLE:
        return types.SymbolKind.Function
    return _KINDS.get(symbol.kind, types.SymbolKind.Variable)


@server.feature(types.TEXT_DOCUMENT_DOCUMENT_SYMBOL)
async def document_symbols(params: types.DocumentSymbolParams) -> list[types.DocumentSymbol]:
    """The outline of the document as a tree (``outline``): schemas with their
    attributes, configs with their keys; top-level types from the analysis when it
    saw the current text."""
    document = document_of(params.text_document.uri)
    if document is None:
        return []
    analysis = await fresh_analysis(document)
    module = None
    known: dict[str, str] = {}
    if analysis is not None and analysis.texts.get(document.path) == document.text:
        module = module_of(analysis, document.path)
        for name, symbol in _package_of(analysis, document.path).items():
            span = symbol.span
            if span is not None and os.path.abspath(span.file.path) == document.path:
                known[name] = symbol.type.ty_str()
    if module is None:
        module = parse_source(document.text, document.path)[0]
    return outline(document, module, known)


def _package_of(analysis: Analysis, path: str) -> dict[str, Symbol]:
    found = analysis.program.home_of(path)
    return analysis.model.package_symbols(found[0]) if found is not None else {}


@server.feature(types.WORKSPACE_SYMBOL)
async def workspace_symbols(
    params: types.WorkspaceSymbolParams,
) -> list[types.SymbolInformation]:
    """Top-level names of every analysed package whose name contains the query
    (case-insensitive), once the whole workspace is analysed."""
    await whole_workspace(params.work_done_token)
    query = params.query.lower()
    found: dict[tuple[str, int], types.SymbolInformation] = {}
    for analysis in workspace.all_analyses():
        for pkgpath in analysis.model.packages():
            for symbol in analysis.model.package_symbols(pkgpath).values():
                span = symbol.span
                if span is None or query not in symbol.name.lower():
                    continue
                key = (os.path.abspath(span.file.path), span.start)
                place = location(name_span(span, symbol.name))
                if place is not None and key not in found:
                    found[key] = types.SymbolInformation(
                        location=place, name=symbol.name, kind=_kind(symbol), container_name=pkgpath
                    )
    return list(found.values())
