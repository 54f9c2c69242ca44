"""Semantic tokens and inlay hints, from the semantic model of the current text.

* Semantic tokens (full document): every definition and use the model knows,
  typed by what the symbol is (schema, attribute, module, function, parameter,
  variable, type), with ``declaration`` and ``defaultLibrary`` modifiers.
* Inlay hints, only where they tell what the text does not: the inferred type
  after the target of an untyped top-level or schema-body assignment (``a: int``);
  the declared type after a config key that sets a schema attribute (the last
  such key of each line, as kcl-language-server shows them); argument names before
  the positional arguments of calls to functions and schemas with more than one
  parameter. No hint repeats what the value spells (``key: Schema {``,
  ``p = Person {}``, ``n = 1``, ``s = "a"``), and an argument that is the
  parameter's own name gets none.
"""

from __future__ import annotations

from lsprotocol import types

from kclpy.sema.model import Model
from kclpy.sema.symbols import SchemaType, Symbol, SymbolKind
from kclpy.sema.types import FuncType, Type
from kclpy.syntax import ast
from kclpy.syntax.walk import walk
from kclpy_lsp.app import analysed, module_of, server
from kclpy_lsp.documents import Document
from kclpy_lsp.snippets import annotation_text

TOKEN_TYPES = ["namespace", "struct", "property", "function", "parameter", "variable", "type"]
TOKEN_MODIFIERS = ["declaration", "defaultLibrary"]
_TOKEN_OF = {
    SymbolKind.MODULE: "namespace",
    SymbolKind.SCHEMA: "struct",
    SymbolKind.RULE: "struct",
    SymbolKind.ATTRIBUTE: "property",
    SymbolKind.CONFIG_KEY: "property",
    SymbolKind.PARAMETER: "parameter",
    SymbolKind.TYPE_ALIAS: "type",
    SymbolKind.BUILTIN: "function",
}


def _token_type(symbol: Symbol) -> int:
    name = _TOKEN_OF.get(symbol.kind, "variable")
    if name == "variable" and isinstance(symbol.type, FuncType):
        name = "function"
    return TOKEN_TYPES.index(name)


@server.feature(
    types.TEXT_DOCUMENT_SEMANTIC_TOKENS_FULL,
    types.SemanticTokensLegend(token_types=TOKEN_TYPES, token_modifiers=TOKEN_MODIFIERS),
)
async def semantic_tokens(params: types.SemanticTokensParams) -> types.SemanticTokens:
    found = await analysed(params.text_document.uri, exact=True)
    if found is None:
        return types.SemanticTokens(data=[])
    document, analysis = found
    return types.SemanticTokens(data=encode_tokens(document, analysis.model))


def encode_tokens(document: Document, model: Model) -> list[int]:
    """The relative five-integer encoding of the tokens of one document."""
    data: list[int] = []
    previous_line = previous_start = 0
    last_end = -1
    for start, end, symbol in model.occurrences(document.path):
        text = document.text[start:end]
        if start < last_end or not text.isidentifier():
            if not text.endswith(symbol.name):
                continue
            start = end - len(symbol.name)  # ``a.b``: the name's own part
        if start < last_end:
            continue
        begin = document.lines.position(start)
        finish = document.lines.position(end)
        if finish.line != begin.line:
            continue
        modifiers = 0
        if symbol.span is not None and symbol.span.start == start:
            modifiers |= 1
        if symbol.kind == SymbolKind.BUILTIN:
            modifiers |= 2
        delta_line = begin.line - previous_line
        delta_start = begin.character - previous_start if delta_line == 0 else begin.character
        data += [
            delta_line,
            delta_start,
            finish.character - begin.character,
            _token_type(symbol),
            modifiers,
        ]
        previous_line, previous_start, last_end = begin.line, begin.character, end
    return data


# --------------------------------------------------------------------------- inlay hints


@server.feature(types.TEXT_DOCUMENT_INLAY_HINT)
async def inlay_hints(params: types.InlayHintParams) -> list[types.InlayHint]:
    found = await analysed(params.text_document.uri, exact=True)
    if found is None:
        return []
    document, analysis = found
    module = module_of(analysis, document.path)
    if module is None:
        return []
    first, last = params.range.start.line, params.range.end.line
    hints = [
        hint
        for hint in hints_of(document, analysis.model, module)
        if first <= hint.position.line <= last
    ]
    return hints


def hints_of(document: Document, model: Model, module: ast.Module) -> list[types.InlayHint]:
    hints: list[types.InlayHint] = []
    keys: dict[int, types.InlayHint] = {}  # line -> the hint of its last schema key
    for node in walk(module):
        if isinstance(node, ast.AssignStmt) and node.type is None:
            hints.extend(_type_hints(document, model, node))
        elif isinstance(node, ast.CallExpr | ast.SchemaExpr):
            hints.extend(_argument_hints(document, model, node))
        elif isinstance(node, ast.ConfigEntry) and node.key is not None:
            hint = _key_hint(document, model, node)
            before = keys.get(hint.position.line) if hint is not None else None
            if hint is not None and (
                before is None or before.position.character < hint.position.character
            ):
                keys[hint.position.line] = hint
    return hints + list(keys.values())


def _key_hint(document: Document, model: Model, entry: ast.ConfigEntry) -> types.InlayHint | None:
    """``: type`` after a config key that sets a schema attribute (its declared type),
    unless the value spells it."""
    key = entry.key
    symbol = model.symbol_of(key) if key is not None else None
    if symbol is None or symbol.kind != SymbolKind.ATTRIBUTE or key is None or key.span is None:
        return None
    label = annotation_text(symbol)
    if _spelled(entry.value, label):
        return None
    return types.InlayHint(
        position=document.lines.position(key.span.end),
        label=f": {label}",
        kind=types.InlayHintKind.Type,
    )


def _spelled(value: ast.Expr | None, type_text: str) -> bool:
    """Whether the value shows its type as plainly as a hint would: a schema
    instance (``Person {}``), a plain literal of that very type."""
    if isinstance(value, ast.SchemaExpr):
        return True
    obvious = _obvious(value)
    return obvious is not None and (not type_text or type_text == obvious)


def _obvious(value: ast.Expr | None) -> str | None:
    """The type a literal spells (``1`` int, ``"a"`` str, ``True`` bool)."""
    if isinstance(value, ast.StringExpr | ast.JoinedStringExpr):
        return "str"
    if isinstance(value, ast.NumberExpr) and value.suffix is None:
        return "float" if isinstance(value.value, float) else "int"
    if isinstance(value, ast.ConstExpr) and isinstance(value.value, bool):
        return "bool"
    return None


def _type_hints(document: Document, model: Model, node: ast.AssignStmt) -> list[types.InlayHint]:
    kind = model.type_of(node.value)
    if kind is None or kind.ty_str() in ("any", "") or _spelled(node.value, ""):
        return []
    hints = []
    for target in node.targets:
        if isinstance(target, ast.NameExpr):
            where = document.lines.position(target.span.end)
            label = f": {kind.ty_str()}"
            hints.append(
                types.InlayHint(
                    position=where,
                    label=label,
                    kind=types.InlayHintKind.Type,
                    text_edits=[types.TextEdit(types.Range(where, where), label)],
                )
            )
    return hints


def _argument_hints(
    document: Document, model: Model, node: ast.CallExpr | ast.SchemaExpr
) -> list[types.InlayHint]:
    callee = node.func if isinstance(node, ast.CallExpr) else node.name
    kind: Type | None = model.type_of(callee)
    if isinstance(kind, SchemaType):
        kind = kind.info.func
    if not isinstance(kind, FuncType) or len(kind.params) < 2:
        return []  # one parameter: its name adds nothing
    hints = []
    for argument, param in zip(node.args, kind.params, strict=False):
        if isinstance(argument, ast.NameExpr) and argument.name == param.name:
            continue
        hints.append(
            types.InlayHint(
                position=document.lines.position(argument.span.start),
                label=f"{param.name}:",
                kind=types.InlayHintKind.Parameter,
                padding_right=True,
            )
        )
    return hints
