"""Completion and signature help, answered from the latest completed analysis.

Neither waits for the analysis of the newest keystroke: the text before the
cursor says what is asked (``import `` line, ``a.b[0].`` chain, the config
blocks open around it as ``blocks`` reads them, a call's open parenthesis), and
the semantic model of the latest analysis says what it means: the names at the
cursor, the types of names, the attributes of schemas, the members of modules,
the keys of dict literals, the methods of strings. At the start of an entry of a
schema's config block: the attributes not yet set, as snippets (``snippets``);
after ``key = ``: the values the attribute accepts; on a schema body's first line
or in its empty docstring: a docstring skeleton. Elsewhere: the names in scope,
builtins, keywords and the schemas of packages not imported yet, with the import
(``importable``).
"""

from __future__ import annotations

import os
import re
from typing import Any

from lsprotocol import types

from kclpy.sema.builtins import BUILTIN_FUNCTIONS, STRING_METHODS, module_member_types
from kclpy.sema.model import Model
from kclpy.sema.symbols import MAIN, SchemaType, Symbol, SymbolKind
from kclpy.sema.types import (
    STR_T,
    DictType,
    FuncType,
    ListType,
    LitType,
    ModuleType,
    Type,
    UnionType,
)
from kclpy.syntax.tokens import KEYWORDS
from kclpy.syntax.universe import SYSTEM_MODULES as SYSTEM_MODULE_NAMES
from kclpy_lsp.app import document_of, parameter_labels, server, workspace
from kclpy_lsp.blocks import (
    Bracket,
    in_text,
    keys_set,
    mask,
    open_brackets,
    statement_bounds,
)
from kclpy_lsp.documents import Document
from kclpy_lsp.importable import importable_items
from kclpy_lsp.progress import first_analysis
from kclpy_lsp.ranking import Rank, bounded, typed_word
from kclpy_lsp.snippets import attribute_items, docstring_items
from kclpy_lsp.workspace import Analysis

_IMPORT = re.compile(r"^\s*import\s+([\w.]*)$")
_CHAIN = re.compile(
    r"((?:[A-Za-z_$][\w$]*|\"[^\"]*\"|'[^']*')(?:\.[A-Za-z_$][\w$]*|\[[^\[\]]*\])*)\.([\w$]*)$"
)
_STEP = re.compile(r"\.([A-Za-z_$][\w$]*)|\[([^\[\]]*)\]")
_SCHEMA_HEAD = re.compile(r"([A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*)\s*(?:\(.*\))?\s*$")
_KEY_HEAD = re.compile(r"^\s*([A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*)\s*(?::[^=]*)?(?:\+?=|:)\s*$")
_KEY_START = re.compile(r"(?:^|[{,])\s*[A-Za-z_$]?[\w$]*$")
_VALUE = re.compile(r"([A-Za-z_$][\w$]*)\s*[:=]\s*$")
_CALLEE = re.compile(
    r"((?:[A-Za-z_$][\w$]*|\"[^\"]*\"|'[^']*')(?:\.[A-Za-z_$][\w$]*|\[[^\[\]]*\])*)\s*$"
)

_ITEM_KINDS = {
    SymbolKind.SCHEMA: types.CompletionItemKind.Class,
    SymbolKind.RULE: types.CompletionItemKind.Class,
    SymbolKind.MODULE: types.CompletionItemKind.Module,
    SymbolKind.ATTRIBUTE: types.CompletionItemKind.Field,
    SymbolKind.PARAMETER: types.CompletionItemKind.Variable,
    SymbolKind.BUILTIN: types.CompletionItemKind.Function,
}


class Context:
    """The cursor: the document, its offset, the text before it on its line."""

    def __init__(self, document: Document, position: types.Position) -> None:
        self.document = document
        self.offset = document.lines.offset(position)
        line_start = document.lines.starts[min(position.line, len(document.lines.starts) - 1)]
        self.prefix = document.text[line_start : self.offset]


def _item(name: str, kind: Any, detail: str = "") -> types.CompletionItem:
    return types.CompletionItem(label=name, kind=kind, detail=detail or None)


def _symbol_item(symbol: Symbol, field: bool = False) -> types.CompletionItem:
    kind = types.CompletionItemKind.Field if field else _ITEM_KINDS.get(symbol.kind)
    if isinstance(symbol.type, FuncType) and not field:
        kind = types.CompletionItemKind.Function
    item = _item(symbol.name, kind or types.CompletionItemKind.Variable, symbol.type.ty_str())
    if symbol.kind == SymbolKind.BUILTIN and symbol.doc:
        item.documentation = symbol.doc
    return item


@server.feature(
    types.TEXT_DOCUMENT_COMPLETION,
    types.CompletionOptions(trigger_characters=[".", "=", ":", "\n"]),
)
async def completion(params: types.CompletionParams) -> types.CompletionList:
    document = document_of(params.text_document.uri)
    if document is None:
        return _NOTHING
    context = Context(document, params.position)
    analysis = await first_analysis(document.path)
    trigger = params.context.trigger_character if params.context is not None else None
    if analysis is not None:
        docstring = docstring_items(
            analysis.model, document.text, context.offset, _pkgpath(analysis.model, context)
        )
        if docstring:
            return types.CompletionList(is_incomplete=False, items=docstring)
    if in_text(document.text, context.offset):  # a comment or a string's text
        return _NOTHING
    word = "" if _IMPORT.match(context.prefix) else typed_word(context.prefix)
    if trigger == "\n":  # Enter: only what a new line asks for, never the names in scope
        attributes = attribute_groups(context, analysis) if analysis is not None else None
        return bounded(attributes or [], word)
    return bounded(groups_for(context, analysis), word)


_NOTHING = types.CompletionList(is_incomplete=False, items=[])

Groups = list[tuple[Rank, list[types.CompletionItem]]]


def groups_for(context: Context, analysis: Analysis | None) -> Groups:
    """The completion items the cursor's place asks for, by source."""
    importing = _IMPORT.match(context.prefix)
    if importing is not None:
        return [(Rank.UNSET, _import_items(context.document.path, importing.group(1)))]
    if analysis is None:
        return [(Rank.BUILTIN, _builtin_items()), (Rank.KEYWORD, _keyword_items())]
    model = analysis.model
    chain = _CHAIN.search(context.prefix)
    if chain is not None:
        owner = resolve(model, context, chain.group(1))
        return [(Rank.UNSET, member_items(model, owner) if owner is not None else [])]
    value = _VALUE.search(context.prefix)
    if value is not None:  # ``key = `` or ``key: `` in a schema's block: what it accepts
        block = block_type(model, context)
        if block is not None and isinstance(block[0], SchemaType):
            member = model.members(block[0]).get(value.group(1))
            return [(Rank.UNSET, _value_items(member.type) if member is not None else [])]
    attributes = attribute_groups(context, analysis)
    if attributes is not None:
        return attributes
    word = typed_word(context.prefix)
    local, package = _scope_items(model, context)
    return [
        (Rank.LOCAL, local),
        (Rank.PACKAGE, package),
        (Rank.BUILTIN, _builtin_items()),
        (Rank.KEYWORD, _keyword_items()),
        (Rank.IMPORTABLE, importable_items(context.document, analysis, workspace, word)),
    ]


def attribute_groups(context: Context, analysis: Analysis) -> Groups | None:
    """At the start of an entry of a schema's config block: its attributes, those
    not yet set first (None elsewhere)."""
    if not _KEY_START.search(context.prefix):
        return None
    model = analysis.model
    block = block_type(model, context)
    if block is None or not isinstance(block[0], SchemaType):
        return None
    members = model.members(block[0])
    written = keys_set(context.document.text, block[1])
    unset = {name: member for name, member in members.items() if name not in written}
    again = {name: member for name, member in members.items() if name in written}
    return [
        (Rank.UNSET, attribute_items(model, unset, set())),
        (Rank.SET, attribute_items(model, again, set())),
    ]


def block_type(model: Model, context: Context) -> tuple[Type, Bracket] | None:
    """The type of the config block (``{``) the cursor is in, and its bracket: each
    bracket around the cursor, outermost first, opens a value of a type known from
    its head (``Person {``, ``key = {`` inside a typed block, ``[{`` in a list)."""
    brackets = open_brackets(context.document.text, context.offset)
    if not brackets or brackets[-1].char != "{":
        return None
    current: Type | None = None
    for bracket in brackets:
        current = _opened_type(model, context, bracket, current)
    return (current, brackets[-1]) if current is not None else None


def _opened_type(
    model: Model, context: Context, bracket: Bracket, outer: Type | None
) -> Type | None:
    if bracket.char == "(":
        return None
    if bracket.char == "{":
        named = _SCHEMA_HEAD.search(bracket.head)
        found = resolve(model, context, named.group(1)) if named is not None else None
        if isinstance(found, SchemaType):
            return found
    key = _KEY_HEAD.match(bracket.head)
    if key is not None:
        return _config_like(_key_type(model, context, key.group(1), outer))
    if not bracket.head.strip() and isinstance(outer, ListType):  # ``[{`` or ``, {``
        return _config_like(outer.elem)
    return None


def _key_type(model: Model, context: Context, path: str, outer: Type | None) -> Type | None:
    """The type of a (dotted) key in a block of type ``outer`` (a name in scope when
    the block is a statement's value)."""
    names = path.split(".")
    current: Type | None
    if outer is None:
        symbol = _lookup(model, context, names.pop(0))
        current = symbol.type if symbol is not None else None
    else:
        current = outer
    for name in names:
        if current is None:
            return None
        if isinstance(current, DictType) and not current.attrs:
            current = current.val
            continue
        member = _members(model, current).get(name)
        current = member.type if member is not None else None
    return current


def _config_like(kind: Type | None) -> Type | None:
    """A union's schema, dict or list member (``Name | None`` opens a ``Name``)."""
    if isinstance(kind, UnionType):
        for option in kind.types:
            if isinstance(option, SchemaType | DictType | ListType):
                return option
        return None
    return kind


def resolve(model: Model, context: Context, expression: str) -> Type | None:
    """The type of a chain ``a.b[0].c`` or a string literal, in the cursor's scope."""
    if expression[:1] in "\"'":
        return STR_T
    head = re.match(r"[A-Za-z_$][\w$]*", expression)
    if head is None:
        return None
    symbol = _lookup(model, context, head.group().lstrip("$"))
    if symbol is None:
        return None
    current: Type | None = symbol.type
    for step in _STEP.finditer(expression, head.end()):
        if current is None:
            return None
        if step.group(1) is not None:
            members = _members(model, current)
            found = members.get(step.group(1))
            current = found.type if found is not None else None
        elif isinstance(current, ListType):
            current = current.elem
        elif isinstance(current, DictType):
            current = current.val
        else:
            return None
    return current


def _lookup(model: Model, context: Context, name: str) -> Symbol | None:
    pkgpath = _pkgpath(model, context)
    for symbol, _package in model.names_at(context.document.path, context.offset, pkgpath):
        if symbol.name == name:
            return symbol
    builtin = model.builtin_names.get(name)
    return builtin.symbol if builtin is not None else None


def _pkgpath(model: Model, context: Context) -> str:
    path = context.document.path
    owner = model.owners.get(path)  # (the home package of a file two packages hold)
    if owner is not None:
        return owner
    for pkgpath in model.packages():
        for symbol in model.package_symbols(pkgpath).values():
            if symbol.span is not None and os.path.abspath(symbol.span.file.path) == path:
                return pkgpath
    return MAIN


def _members(model: Model, kind: Type) -> dict[str, Symbol]:
    system = module_member_types(kind.pkgpath) if isinstance(kind, ModuleType) else None
    if system is not None:
        return {name: _builtin_symbol(name, member) for name, member in system.items()}
    if isinstance(kind, ModuleType):
        return {
            name: member
            for name, member in model.package_symbols(kind.pkgpath).items()
            if not name.startswith("_")
        }
    if isinstance(kind, DictType) and kind.attrs:
        return {
            name: Symbol(name, SymbolKind.CONFIG_KEY, attr.type)
            for name, attr in kind.attrs.items()
        }
    if _is_string(kind):
        return {name: _builtin_symbol(name, method) for name, method in STRING_METHODS.items()}
    return model.members(kind)


def _builtin_symbol(name: str, kind: Type) -> Symbol:
    """A symbol for a builtin member (of a system module, of strings), with its doc."""
    symbol = Symbol(name, SymbolKind.BUILTIN, kind)
    symbol.doc = kind.doc if isinstance(kind, FuncType) else ""
    return symbol


def member_items(model: Model, owner: Type) -> list[types.CompletionItem]:
    field = isinstance(owner, SchemaType | DictType)
    return [_symbol_item(member, field) for member in _members(model, owner).values()]


def _value_items(kind: Type) -> list[types.CompletionItem]:
    """The literal values a type accepts (``"TCP" | "UDP"``), a schema's ``Name {}``."""
    options = kind.types if isinstance(kind, UnionType) else (kind,)
    items = []
    for option in options:
        if isinstance(option, LitType):
            text = option.value_text()
            shown = f'"{text}"' if isinstance(option.value, str) else text
            items.append(_item(shown, types.CompletionItemKind.Value, option.ty_str()))
        elif isinstance(option, SchemaType):
            name = option.info.name
            item = _item(f"{name}{{}}", types.CompletionItemKind.Class, option.ty_str())
            item.insert_text = f"{name} {{$1}}"
            item.insert_text_format = types.InsertTextFormat.Snippet
            items.append(item)
    return items


def _scope_items(
    model: Model, context: Context
) -> tuple[list[types.CompletionItem], list[types.CompletionItem]]:
    """The names declared around the cursor (the resolver's declarations of the
    enclosing regions), then the package's."""
    found: dict[str, tuple[Symbol, bool]] = {}
    path, offset = context.document.path, context.offset
    for symbol, outer in model.names_at(path, offset, _pkgpath(model, context)):
        if symbol.name not in found and symbol.kind != SymbolKind.BUILTIN:
            found[symbol.name] = (symbol, outer)
    local = [_symbol_item(symbol) for symbol, outer in found.values() if not outer]
    package = [_symbol_item(symbol) for symbol, outer in found.values() if outer]
    return local, package


def _builtin_items() -> list[types.CompletionItem]:
    builtins = sorted(BUILTIN_FUNCTIONS.items())
    return [_symbol_item(_builtin_symbol(name, kind)) for name, kind in builtins]


def _keyword_items() -> list[types.CompletionItem]:
    return [_item(word, types.CompletionItemKind.Keyword) for word in sorted(KEYWORDS)]


def _import_items(path: str, typed: str) -> list[types.CompletionItem]:
    """System modules and the packages under the file's root (``a.b`` paths)."""
    from kclpy.loader import find_root, package_files

    folder = os.path.dirname(path)
    root = find_root(folder) or folder
    names = set(SYSTEM_MODULE_NAMES)
    for current, dirs, _files in os.walk(root):
        dirs[:] = sorted(
            d for d in dirs if not d.startswith(".") and d not in ("node_modules", ".venv")
        )
        if current != root and package_files(current):
            names.add(os.path.relpath(current, root).replace(os.sep, "."))
        if current.count(os.sep) - root.count(os.sep) > 4:
            dirs[:] = []
    for entry in os.listdir(folder) if os.path.isdir(folder) else []:
        if entry.endswith(".k") and os.path.join(folder, entry) != path:
            names.add(entry[:-2])
    prefix = typed.rpartition(".")[0]
    items = []
    for name in sorted(names):
        if prefix and not name.startswith(prefix + "."):
            continue
        kind = types.CompletionItemKind.Module
        items.append(
            types.CompletionItem(
                label=name, kind=kind, insert_text=name[len(prefix) + 1 :] if prefix else name
            )
        )
    return items


# --------------------------------------------------------------------------- signature help


@server.feature(
    types.TEXT_DOCUMENT_SIGNATURE_HELP,
    types.SignatureHelpOptions(trigger_characters=["(", ","]),
)
async def signature_help(params: types.SignatureHelpParams) -> types.SignatureHelp | None:
    """The signature of the function, method or schema whose call's argument list
    holds the cursor: builtins, string methods (``"a".replace(``, ``name.upper(``),
    system-module functions (``math.log(``), lambdas, schema arguments."""
    document = document_of(params.text_document.uri)
    analysis = await first_analysis(document.path) if document is not None else None
    if document is None or analysis is None:
        return None
    context = Context(document, params.position)
    if in_text(document.text, context.offset):
        return None
    call = _open_call(document.text, context.offset)
    if call is None:
        return None
    callee, argument = call
    found = _callee(analysis.model, context, callee)
    if found is None:
        return None
    shown, kind = found
    labels = parameter_labels(kind)
    label = f"{shown}({', '.join(labels)}) -> {kind.ret.ty_str()}"
    signature = types.SignatureInformation(
        label=label,
        documentation=kind.doc or None,
        parameters=[types.ParameterInformation(label=text) for text in labels],
    )
    active = min(argument, max(len(labels) - 1, 0))
    return types.SignatureHelp([signature], active_signature=0, active_parameter=active)


def _callee(model: Model, context: Context, callee: str) -> tuple[str, FuncType] | None:
    """The name to show for a callee and its function type: ``str.replace`` for a
    string method, ``math.log`` for a system-module function, else as written."""
    head, _, name = callee.rpartition(".")
    owner = resolve(model, context, head) if head else None
    kind = _callee_type(model, context, callee)
    if not isinstance(kind, FuncType):
        return None
    if owner is not None and _is_string(owner) and name in STRING_METHODS:
        return f"str.{name}", kind
    if isinstance(owner, ModuleType):
        return f"{owner.pkgpath}.{name}", kind
    return callee, kind


def _callee_type(model: Model, context: Context, callee: str) -> Type | None:
    if "." not in callee and callee in BUILTIN_FUNCTIONS:
        return BUILTIN_FUNCTIONS[callee]
    head, _, name = callee.rpartition(".")
    if head:
        owner = resolve(model, context, head)
        if owner is None:
            return None
        member = _members(model, owner).get(name)
        return member.type if member is not None else None
    symbol = _lookup(model, context, callee)
    if symbol is None:
        return None
    if isinstance(symbol.type, SchemaType):
        return FuncType(list(symbol.type.info.func.params), symbol.type)
    return symbol.type


def _is_string(kind: Type) -> bool:
    return kind.ty_str() == "str" or kind.ty_str().startswith(('"', "'"))


def _open_call(text: str, offset: int) -> tuple[str, int] | None:
    """The callee before the innermost ``(`` open at ``offset`` and the index of
    the argument the cursor is in (brackets and commas in strings and comments do
    not count; a string receiver keeps its quotes: ``"  ".replace``)."""
    start = max(statement_bounds(text, offset)[0], offset - 2000)
    masked = mask(text, start, offset)
    depth = 0
    commas = 0
    index = len(masked) - 1
    while index >= 0:
        char = masked[index]
        if char in ")]}":
            depth += 1
        elif char in "[{":
            if depth == 0:
                return None
            depth -= 1
        elif char == "(":
            if depth == 0:
                found = _CALLEE.search(masked[max(0, index - 200) : index])
                return (found.group(1), commas) if found is not None else None
            depth -= 1
        elif char == "," and depth == 0:
            commas += 1
        index -= 1
    return None
