"""Every place that names one schema attribute, for references and rename.

The checker records a use on an attribute's symbol where it knows the type:
``p.name`` with ``p: Person``, ``name = "a"`` in a ``Person {}`` block. An
attribute is also named where no type says so, and a rename must reach those too:

* **its family**: the same attribute declared again in a schema that inherits it
  (``schema Sub(Person): name = "sub"``), in the schema it is inherited from, or
  by a mixin, with every typed use of each;
* **untyped uses**: ``x.name`` where the type of ``x`` is unknown (``any``: a
  lambda's untyped parameter, a value read from an untyped dict), and a key
  ``name`` in a config literal that no declared type governs (``p | {name =
  "z"}``, ``d = {name = "q"}`` later given to a ``Person``). A key in a dict
  whose type is declared (``labels: {str:str}``) and a quoted key
  (``{"name": 1}``) are not uses.

Gathered over every analysed program that loads the file declaring the attribute
(each program has its own model of it). Takes analyses and the attribute's
symbol; returns spans, the attribute's own name part of each.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator

from kclpy.sema.model import Model
from kclpy.sema.symbols import SchemaInfo, SchemaType, Symbol, SymbolKind
from kclpy.sema.types import DictType
from kclpy.source import Span
from kclpy.syntax import ast
from kclpy.syntax.walk import walk
from kclpy_lsp.workspace import Analysis


def attribute_uses(analyses: Iterable[Analysis], symbol: Symbol) -> list[Span]:
    """The declarations and uses, typed and untyped, of a schema attribute, over
    the programs that load the file declaring it (definitions first)."""
    owner = symbol.owner
    if symbol.kind != SymbolKind.ATTRIBUTE or owner is None:
        return []
    found: dict[tuple[str, int], Span] = {}
    uses: list[Span] = []
    for analysis in analyses:
        if os.path.abspath(owner.file) not in analysis.texts:
            continue
        model = analysis.model
        for member in _family(model, owner, symbol.name):
            if member.span is not None:
                found.setdefault(_key(member.span), member.span)
            uses.extend(model.references(member, include_definition=False))
        uses.extend(_untyped(analysis, symbol.name))
    for span in uses:
        found.setdefault(_key(span), span)
    return list(found.values())


def _key(span: Span) -> tuple[str, int]:
    return os.path.abspath(span.file.path), span.start


def _family(model: Model, owner: SchemaInfo, name: str) -> list[Symbol]:
    """The attribute ``name`` in every schema of the model related to ``owner``
    through inheritance or mixins: where it is declared, and where a schema's body
    sets it again (``name = "sub"``, a symbol of that body's own)."""
    wanted = (os.path.abspath(owner.file), owner.name)
    infos = list(model.schemas.values())
    start = next(
        (info for info in infos if (os.path.abspath(info.file), info.name) == wanted), None
    )
    if start is None:
        return []
    roots = {id(info) for info in _ancestors(start) if name in info.attrs}
    members: list[Symbol] = []
    for info in infos:
        if not any(id(other) in roots for other in _ancestors(info)):
            continue
        if name in info.attrs:
            members.append(info.attrs[name])
        members.extend(_body_assignments(model, info, name))
    return members


def _body_assignments(model: Model, info: SchemaInfo, name: str) -> Iterator[Symbol]:
    """The symbols of ``name = ...`` statements of a schema's body (an inherited
    attribute set again)."""
    body = list(info.node.body) if isinstance(info.node, ast.SchemaStmt) else []
    while body:
        statement = body.pop()
        if isinstance(statement, ast.IfStmt):
            body.extend([*statement.body, *statement.orelse])
        elif isinstance(statement, ast.AssignStmt):
            for target in statement.targets:
                if isinstance(target, ast.NameExpr) and target.name == name:
                    symbol = model.symbol_of(target)
                    if symbol is not None and symbol.kind != SymbolKind.ATTRIBUTE:
                        yield symbol


def _ancestors(info: SchemaInfo) -> Iterator[SchemaInfo]:
    """The schema itself, its bases, mixins and protocol, transitively."""
    seen: set[int] = set()
    stack = [info]
    while stack:
        current = stack.pop()
        if id(current) in seen:
            continue
        seen.add(id(current))
        yield current
        stack.extend(current.mixins)
        stack.extend(other for other in (current.base, current.protocol) if other is not None)


def _untyped(analysis: Analysis, name: str) -> list[Span]:
    """``x.name`` on values of unknown type, ``name`` keys of configs no declared
    type governs, in every file of the program."""
    model = analysis.model
    found: list[Span] = []
    for modules in analysis.program.packages.values():
        for module in modules:
            for node in walk(module):
                if isinstance(node, ast.SelectorExpr) and node.attr == name:
                    owner_type = model.type_of(node.value)
                    if (owner_type is None or owner_type.ty_str() == "any") and node.span:
                        found.append(Span(node.span.file, node.span.end - len(name), node.span.end))
                elif isinstance(node, ast.ConfigExpr) and _ungoverned(model, node):
                    found.extend(_keys_named(node, name))
    return found


def _ungoverned(model: Model, config: ast.ConfigExpr) -> bool:
    """Whether no declared type governs a config literal's keys."""
    expected = model.expected.get(config.id)
    if isinstance(expected, SchemaType | DictType):
        return False
    kind = model.type_of(config)
    return not isinstance(kind, SchemaType)


def _keys_named(config: ast.ConfigExpr, name: str) -> Iterator[Span]:
    """The spans of the bare keys ``name`` (or ``name.x`` chains' first part) written
    at the config's own level."""
    stack: list[ast.ConfigEntry | ast.ConfigIfEntry] = list(config.entries)
    while stack:
        entry = stack.pop()
        if isinstance(entry, ast.ConfigIfEntry):
            stack.extend(entry.entries)
            orelse = entry.orelse
            if isinstance(orelse, ast.ConfigIfEntry):
                stack.append(orelse)
            elif orelse is not None:
                stack.extend(orelse)
            continue
        key = entry.key
        while isinstance(key, ast.SelectorExpr):
            key = key.value
        if isinstance(key, ast.NameExpr) and key.name == name and key.span is not None:
            yield key.span
