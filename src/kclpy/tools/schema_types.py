"""Schema type mappings (the API's ``get_schema_type_mapping``), built on sema's Model.

``get_schema_types(program)`` checks the program and describes every schema of
the main package, and every top-level variable whose type is a schema instance
(keyed by the variable's name, as the reference does): the schema's name,
package, file and documentation, and per attribute (base attributes first) its
type text, whether it is optional, the default's source text and its
description from the docstring.
"""

from __future__ import annotations

import attrs

from kclpy.loader import MAIN, Program
from kclpy.pipeline import driver
from kclpy.sema import Model, SchemaInfo, Symbol, SymbolKind
from kclpy.sema.docstrings import summary
from kclpy.sema.symbols import SchemaType
from kclpy.syntax import ast

__all__ = ["AttributeInfo", "SchemaTypeInfo", "get_schema_types"]


@attrs.frozen
class AttributeInfo:
    """One schema attribute: ``name[?]: type = default``."""

    name: str
    type: str
    optional: bool = False
    default: str = ""  # KCL source text, "" when there is none
    description: str = ""
    line: int = 0

    @property
    def required(self) -> bool:
        return not self.optional


@attrs.frozen
class SchemaTypeInfo:
    """A schema: its name, package, file, docstring summary and attributes."""

    schema_name: str
    pkgpath: str = MAIN
    file: str = ""
    doc: str = ""
    attributes: dict[str, AttributeInfo] = attrs.field(factory=dict)
    base: str = ""

    @property
    def required(self) -> list[str]:
        """The names of the required attributes, in order."""
        return [name for name, attr in self.attributes.items() if not attr.optional]


def _text(node: ast.Node) -> str:
    return node.span.file.text[node.span.start : node.span.end]


def _default(symbol: Symbol) -> str:
    node = symbol.node
    if isinstance(node, ast.SchemaAttr) and node.value is not None:
        return _text(node.value)
    if isinstance(node, ast.UnificationStmt):
        return _text(node.value)
    return ""


def _attribute(model: Model, symbol: Symbol) -> AttributeInfo:
    line = symbol.span.begin_pos.line if symbol.span is not None else 0
    return AttributeInfo(
        symbol.name,
        symbol.type.ty_str(),
        optional=symbol.optional,
        default=_default(symbol),
        description=model.doc(symbol),
        line=line,
    )


def describe_schema(model: Model, info: SchemaInfo) -> SchemaTypeInfo:
    """The type mapping entry of one schema."""
    attributes = {name: _attribute(model, symbol) for name, symbol in model.members(info).items()}
    return SchemaTypeInfo(
        info.name,
        pkgpath=info.pkgpath or MAIN,
        file=info.file,
        doc=summary(info.doc),
        attributes=attributes,
        base=info.base.full_name if info.base is not None else "",
    )


def get_schema_types(
    program: Program, schema_name: str | None = None, model: Model | None = None
) -> dict[str, SchemaTypeInfo]:
    """Schemas of the main package and schema-typed top-level variables, by name.

    ``schema_name`` keeps only that schema (and the variables of its type); pass
    ``model`` to reuse an existing check of the program.
    """
    if model is None:
        model = driver.check(program)
    mapping: dict[str, SchemaTypeInfo] = {}
    for info in model.schemas.values():
        if info.is_rule or (info.pkgpath or MAIN) != MAIN:
            continue
        if schema_name is None or info.name == schema_name:
            mapping[info.name] = describe_schema(model, info)
    for name, symbol in model.package_symbols(MAIN).items():
        kind = symbol.type
        if symbol.kind != SymbolKind.VARIABLE or not isinstance(kind, SchemaType):
            continue
        if schema_name is None or kind.info.name == schema_name:
            mapping.setdefault(name, describe_schema(model, kind.info))
    return mapping
