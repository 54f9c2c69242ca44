"""The outline of a document (``textDocument/documentSymbol``), as a tree.

Read from the syntax tree of the document's current text, so every symbol's
range is the whole statement or entry (what the editor folds and highlights)
and its selection range the name:

* ``import a.b as c``: a module ``c`` (detail: ``a.b``);
* ``schema``/``mixin``/``protocol``/``rule``: a struct (an interface for a
  protocol) whose children are its attributes (with their declared types) and
  the names its body assigns;
* ``name = value``, ``name: T = value``, ``name: S {...}``: a variable (a function
  for a lambda; its type from the semantic model when the analysis saw this text),
  whose children are the keys of its config value, nested configs (``Name {}``,
  ``{}``, a list's configs) giving grandchildren;
* ``type A = ...``: a type parameter; the statements of a top-level ``if`` and the
  entries of a config's ``if`` count as if written in place.

At most ``DEPTH`` levels and ``MOST`` symbols: a generated file of a hundred
thousand entries is outlined by its first ones.
"""

from __future__ import annotations

from collections.abc import Iterable

from lsprotocol import types

from kclpy.source import Span
from kclpy.syntax import ast
from kclpy_lsp.documents import Document

DEPTH = 8  # levels of nested configs outlined
MOST = 20000  # symbols in one outline at most

Kind = types.SymbolKind


class Outline:
    """Builds the symbols of one document."""

    def __init__(self, document: Document, package: dict[str, str]) -> None:
        self.document = document
        self.types = package  # top-level name -> its type, from the analysis
        self.count = 0

    def statements(self, body: Iterable[ast.Stmt], depth: int = 0) -> list[types.DocumentSymbol]:
        found: list[types.DocumentSymbol] = []
        for statement in body:
            if isinstance(statement, ast.IfStmt):
                found += self.statements([*statement.body, *statement.orelse], depth)
            else:
                found += self.statement(statement, depth)
        return found

    def statement(self, node: ast.Stmt, depth: int) -> list[types.DocumentSymbol]:
        if isinstance(node, ast.ImportStmt):
            name = node.alias or node.path.rsplit(".", 1)[-1]
            return self.symbol(name, Kind.Module, node.span, node.span, node.path)
        if isinstance(node, ast.SchemaStmt | ast.RuleStmt):
            kind = Kind.Interface if getattr(node, "kind", "") == "protocol" else Kind.Struct
            body = node.body if isinstance(node, ast.SchemaStmt) else []
            children = self.statements(body, depth + 1)
            label = node.kind if isinstance(node, ast.SchemaStmt) else "rule"
            return self.symbol(node.name, kind, node.span, node.name_span, label, children)
        if isinstance(node, ast.SchemaAttr):
            detail = _text(node.type.span) if node.type is not None else ""
            children = self.value(node.value, depth + 1)
            return self.symbol(
                node.name, Kind.Property, node.span, node.name_span, detail, children
            )
        if isinstance(node, ast.AssignStmt):
            found: list[types.DocumentSymbol] = []
            for target in node.targets:
                if isinstance(target, ast.NameExpr):
                    found += self.variable(target, node.span, node.value, node.type, depth)
            return found
        if isinstance(node, ast.UnificationStmt):
            return self.variable(node.target, node.span, node.value, None, depth)
        if isinstance(node, ast.TypeAliasStmt):
            detail = _text(node.type.span)
            return self.symbol(
                node.name.name, Kind.TypeParameter, node.span, node.name.span, detail
            )
        return []

    def variable(
        self,
        target: ast.NameExpr,
        span: Span,
        value: ast.Expr | None,
        annotation: ast.TypeNode | None,
        depth: int,
    ) -> list[types.DocumentSymbol]:
        kind = Kind.Function if isinstance(value, ast.LambdaExpr) else Kind.Variable
        detail = self.types.get(target.name) or (_text(annotation.span) if annotation else "")
        children = self.value(value, depth + 1)
        return self.symbol(target.name, kind, span, target.span, detail, children)

    def value(self, node: ast.Expr | None, depth: int) -> list[types.DocumentSymbol]:
        """The keys of a config value (``{...}``, ``Name {...}``, configs in a list)."""
        if node is None or depth > DEPTH:
            return []
        if isinstance(node, ast.SchemaExpr):
            return self.entries(node.config.entries, depth)
        if isinstance(node, ast.ConfigExpr):
            return self.entries(node.entries, depth)
        if isinstance(node, ast.ListExpr):
            return [symbol for item in node.items for symbol in self.value(item, depth)]
        if isinstance(node, ast.ParenExpr):
            return self.value(node.value, depth)
        return []

    def entries(
        self, entries: Iterable[ast.ConfigEntry | ast.ConfigIfEntry], depth: int
    ) -> list[types.DocumentSymbol]:
        found: list[types.DocumentSymbol] = []
        for entry in entries:
            if isinstance(entry, ast.ConfigIfEntry):
                found += self.entries(_branches(entry), depth)
                continue
            key = entry.key
            if key is None or key.span is None:
                continue
            name = key.value if isinstance(key, ast.StringExpr) else _text(key.span)
            children = self.value(entry.value, depth + 1)
            found += self.symbol(name, Kind.Field, entry.span, key.span, "", children)
        return found

    def symbol(
        self,
        name: str,
        kind: types.SymbolKind,
        span: Span | None,
        name_span: Span | None,
        detail: str = "",
        children: list[types.DocumentSymbol] | None = None,
    ) -> list[types.DocumentSymbol]:
        if span is None or not name or self.count >= MOST:
            return []
        self.count += 1
        lines = self.document.lines
        whole = lines.range(span.start, span.end)
        chosen = name_span if name_span is not None else span
        if not span.start <= chosen.start <= chosen.end <= span.end:
            chosen = span
        return [
            types.DocumentSymbol(
                name=name,
                kind=kind,
                range=whole,
                selection_range=lines.range(chosen.start, chosen.end),
                detail=detail or None,
                children=children or None,
            )
        ]


def _branches(entry: ast.ConfigIfEntry) -> list[ast.ConfigEntry | ast.ConfigIfEntry]:
    found: list[ast.ConfigEntry | ast.ConfigIfEntry] = list(entry.entries)
    orelse = entry.orelse
    if isinstance(orelse, ast.ConfigIfEntry):
        found.append(orelse)
    elif orelse is not None:
        found += orelse
    return found


def _text(span: Span | None) -> str:
    return span.file.text[span.start : span.end] if span is not None else ""


def outline(
    document: Document, module: ast.Module, package: dict[str, str]
) -> list[types.DocumentSymbol]:
    """The symbols of ``module`` (the syntax tree of ``document``'s text) as a tree;
    ``package`` gives the types of top-level names where they are known."""
    return Outline(document, package).statements(module.body)
