"""Schema types as the KCL API's ``KclType`` records (``GetSchemaTypeMapping``).

Takes a loaded program (and optionally one schema name); returns, by name, JSON-shaped
dicts with the field names of kcl-lang's API spec (``type``, ``union_types``,
``schema_name``, ``schema_doc``, ``properties``, ``required``, ``key``, ``item``,
``line``, ``decorators``, ``filename``, ``pkg_path``, ``description``, ``examples``,
``base_schema``, ``function``, ``index_signature``, ``default``); fields with zero values
are left out, as the spec's JSON encoders do.

The selection is :func:`kclpy.tools.schema_types.get_schema_types`'s (schemas of the
main package, then schema-typed top-level variables), except that with a schema name
only that schema is given. As the reference does:

* a property's ``line`` is its 1-based position among the schema's attributes (base
  attributes first), not a source line;
* ``required`` lists the schema's own required attributes, then its base's;
* a schema met as an attribute's type is described in full unless it already
  encloses itself ``MAX_DEPTH`` times (a recursive schema): then only by name, file
  and package;
* a top-level entry's ``description`` is the schema's summary, a property's the
  attribute's description from the docstring;
* ``decorators`` give each decorator's name, its arguments' and keywords' source text;
  ``examples`` the docstring's example as ``Default example``.
"""

from __future__ import annotations

from typing import Any

from kclpy.loader import MAIN, Program
from kclpy.pipeline import driver
from kclpy.sema import Model, SchemaInfo, SymbolKind
from kclpy.sema.docstrings import example
from kclpy.sema.symbols import SchemaType
from kclpy.sema.types import DictType, FuncType, ListType, LitType, PrimType, Type, UnionType
from kclpy.syntax import ast
from kclpy.tools.format_exprs import ExprPrinter
from kclpy.tools.schema_types import describe_schema

__all__ = ["MAX_DEPTH", "schema_type_mapping"]

MAX_DEPTH = 3
"""How often a schema type may enclose itself and still be described in full."""


def _fields(**fields: Any) -> dict[str, Any]:
    """The non-zero fields, in order (zero values are not written)."""
    return {name: value for name, value in fields.items() if value}


def _source(node: ast.Node) -> str:
    return node.span.file.text[node.span.start : node.span.end]


def _decorators(decorators: list[ast.Decorator]) -> list[dict[str, Any]]:
    """Each decorator's name and the source text of its arguments and keywords."""
    return [
        _fields(
            name=decorator.name,
            arguments=[_source(argument) for argument in decorator.args],
            keywords={keyword.name: _source(keyword.value) for keyword in decorator.keywords},
        )
        for decorator in decorators
    ]


def _examples(doc: str) -> dict[str, Any]:
    value = example(doc) if doc else None
    return {} if value is None else {"Default example": _fields(value=value)}


class _Describer:
    """Turns sema types into KclType dicts, with the model for schema attributes."""

    def __init__(self, model: Model, program: Program | None = None) -> None:
        self.model = model
        modules = [m for ms in program.packages.values() for m in ms] if program else []
        self.modules = {id(module.file): module for module in modules}

    def default(self, node: ast.Node | None, text: str) -> str:
        """An attribute's default as the formatter prints it (as the reference does)."""
        value = node.value if isinstance(node, ast.SchemaAttr | ast.UnificationStmt) else None
        module = self.modules.get(id(value.span.file)) if value is not None else None
        if value is None or module is None:
            return text
        return ExprPrinter(module).expr(value, 0)

    def type(self, kind: Type, path: tuple[SchemaInfo, ...]) -> dict[str, Any]:
        if isinstance(kind, SchemaType):
            return self.schema(kind.info, path)
        if isinstance(kind, UnionType):
            members = [self.type(member, path) for member in kind.types]
            return _fields(type="union", union_types=members)
        if isinstance(kind, ListType):
            return _fields(type="list", item=self.type(kind.elem, path))
        if isinstance(kind, DictType):
            return _fields(
                type="dict", key=self.type(kind.key, path), item=self.type(kind.val, path)
            )
        if isinstance(kind, FuncType):
            params = [_fields(name=p.name, ty=self.type(p.type, path)) for p in kind.params]
            function = _fields(params=params, return_ty=self.type(kind.ret, path))
            return _fields(type="function", function=function)
        if isinstance(kind, PrimType) and kind.name == "NoneType":
            return {"type": "any"}  # as the reference describes a None member
        if isinstance(kind, (PrimType, LitType)):
            return {"type": kind.ty_str()}
        return {"type": kind.ty_str()}

    def schema(self, info: SchemaInfo, path: tuple[SchemaInfo, ...]) -> dict[str, Any]:
        described = describe_schema(self.model, info)
        shallow = path.count(info) >= MAX_DEPTH
        inner = (*path, info)
        properties: dict[str, Any] = {}
        if not shallow:
            members = self.model.members(info)
            for line, (name, attribute) in enumerate(described.attributes.items(), 1):
                symbol = members[name]
                entry = self.type(symbol.type, inner) if symbol.type is not None else {}
                entry = {"type": entry.get("type", "any"), **entry}
                entry.pop("description", None)  # (an attribute's is its own, from the doc)
                node = symbol.node
                decorators = node.decorators if isinstance(node, ast.SchemaAttr) else []
                entry.update(
                    _fields(
                        default=self.default(node, attribute.default),
                        line=line,
                        decorators=_decorators(decorators),
                        description=attribute.description,
                    )
                )
                properties[name] = entry
        base = info.base
        node = info.node
        return _fields(
            type="schema",
            schema_name=info.name,
            schema_doc=described.doc,
            properties=properties,
            required=[] if shallow else _required(self.model, info),
            decorators=_decorators(node.decorators) if isinstance(node, ast.SchemaStmt) else [],
            filename=info.file,
            pkg_path=info.pkgpath or MAIN,
            description=described.doc,
            examples=_examples(info.doc),
            base_schema=self.schema(base, path) if base is not None and not shallow else None,
            index_signature=None if shallow else self.index_signature(info, inner),
        )

    def index_signature(self, info: SchemaInfo, path: tuple[SchemaInfo, ...]) -> dict[str, Any]:
        """``[key_name: K]: V`` of the schema (or of its nearest base that has one)."""
        current: SchemaInfo | None = info
        while current is not None and current.index_signature is None:
            current = current.base
        if current is None or current.index_signature is None:
            return {}
        signature = current.index_signature
        return _fields(
            key_name=signature.key_name or "",
            key=self.type(signature.key_type, path),
            val=self.type(signature.val_type, path),
            any_other=signature.any_other,
        )


def _required(model: Model, info: SchemaInfo) -> list[str]:
    """Own required attributes first, then the base's (recursively)."""
    names: list[str] = []
    seen: list[SchemaInfo] = []
    current: SchemaInfo | None = info
    while current is not None and current not in seen:
        seen.append(current)
        described = describe_schema(model, current)
        for name in current.attrs:
            attribute = described.attributes.get(name)
            if attribute is not None and not attribute.optional and name not in names:
                names.append(name)
        current = current.base
    return names


def schema_type_mapping(program: Program, schema_name: str | None = None) -> dict[str, Any]:
    """The KclType of every schema of the main package and schema-typed top-level
    variable (only those of ``schema_name`` when given), by name."""
    model = driver.check(program)
    describer = _Describer(model, program)
    mapping: dict[str, Any] = {}
    for info in model.schemas.values():
        if info.is_rule or (info.pkgpath or MAIN) != MAIN:
            continue
        if schema_name is None or info.name == schema_name:
            mapping[info.name] = _top(describer, info)
    if schema_name is not None:
        return mapping  # (the reference then lists the schema alone, not its variables)
    for name, symbol in model.package_symbols(MAIN).items():
        kind = symbol.type
        if symbol.kind == SymbolKind.VARIABLE and isinstance(kind, SchemaType):
            mapping.setdefault(name, _top(describer, kind.info))
    return mapping


def _top(describer: _Describer, info: SchemaInfo) -> dict[str, Any]:
    entry = describer.schema(info, ())
    for name in ("examples", "base_schema", "index_signature"):  # (the spec's field order)
        if name in entry:
            entry[name] = entry.pop(name)
    return entry
