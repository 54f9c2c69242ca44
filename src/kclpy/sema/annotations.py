"""Type annotations to types: the annotation resolver, a part of the checker.

:class:`AnnotationResolver` turns an annotation node into a :class:`Type` and
records it in the model. A named type (``Person``, ``pkg.Person``, an alias) is
looked up like a name: an unknown one is the reference's CompileError ``name 'X'
is not defined``, with suggestions of close names. A dotted name of an imported
schema (``k8s.Deployment``) denotes the same type at every use in a file: it is read
through the import's members once per written name (the resolver's
:class:`~kclpy.sema.bindings.TypeBinding`, shared by those uses).
"""

from __future__ import annotations

from collections.abc import Callable

from kclpy.sema.base import CheckContext
from kclpy.sema.bindings import TypeBinding
from kclpy.sema.symbols import SchemaType, Symbol
from kclpy.sema.types import (
    ANY,
    BOOL_T,
    FLOAT_T,
    INT_T,
    NONE,
    STR_T,
    DictType,
    FuncType,
    ListType,
    NumMulType,
    Param,
    Type,
    UnionType,
    bool_lit,
    float_lit,
    int_lit,
    str_lit,
)
from kclpy.syntax import ast

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from kclpy.sema.shared import Names, Parts

BASIC_TYPES: dict[str, Type] = {
    "int": INT_T,
    "float": FLOAT_T,
    "str": STR_T,
    "bool": BOOL_T,
    "any": ANY,
}
RESERVED_TYPE_NAMES = ("any", "int", "float", "str", "bool")
RESERVED_TYPE_LIST = "[" + ", ".join(f'"{name}"' for name in RESERVED_TYPE_NAMES) + "]"


class AnnotationResolver:
    """Resolution of type annotations (it holds the context and the name resolver)."""

    names: Names

    def __init__(self, ctx: CheckContext) -> None:
        self.ctx = ctx
        # a dotted schema name's type by its binding (held, so its id stays its own),
        # with the symbol of its first part it was read from
        self._members: dict[int, tuple[TypeBinding, Symbol, Type]] = {}

    def connect(self, parts: Parts) -> None:
        self.names = parts.names

    def resolve_type(self, node: ast.TypeNode | None) -> Type:
        """The type an annotation denotes (``any`` when there is none)."""
        if node is None:
            return ANY
        if type(node) is ast.NamedType:  # most annotations: a basic type's name
            result = BASIC_TYPES.get(node.name) or self.named_type(node)
        else:
            result = self.convert_type(node)
        if self.ctx.tool_facts:  # (a run reads no annotation's type)
            self.ctx.types[node.id] = result
        return result

    def convert_type(self, node: ast.TypeNode) -> Type:
        if type(node) is ast.NamedType:  # most annotations
            return self.named_type(node)
        convert = _CONVERTERS.get(type(node))
        return convert(self, node) if convert is not None else ANY

    def list_type(self, node: ast.ListType) -> Type:
        return ListType(self.convert_type(node.elem) if node.elem is not None else ANY)

    def dict_type(self, node: ast.DictType) -> Type:
        key = self.convert_type(node.key) if node.key is not None else ANY
        val = self.convert_type(node.value) if node.value is not None else ANY
        return DictType(key, val)

    def union_type(self, node: ast.UnionType) -> Type:
        return UnionType(tuple(self.convert_type(member) for member in node.types))

    def function_type(self, node: ast.FunctionType) -> Type:
        params = [Param("", self.convert_type(param), False, param.span) for param in node.params]
        ret = self.convert_type(node.ret) if node.ret is not None else ANY
        return FuncType(params, ret)

    def named_type(self, node: ast.NamedType) -> Type:
        basic = BASIC_TYPES.get(node.name)
        if basic is not None:
            return basic
        symbol = self.ctx.type_symbol(node)
        if symbol is None:
            self.report_undefined(node)
            return ANY
        if "." not in node.name:
            self.ctx.bind(node, symbol)
            return symbol.type
        binding = self.ctx.type_resolution[node.id]  # (its declaration has the symbol)
        known = self._members.get(id(binding))
        if known is not None and known[1] is symbol:
            return known[2]
        reported = len(self.ctx.diagnostics)
        names = node.name.split(".")
        result = symbol.type
        last = len(names) - 1
        for index, attr in enumerate(names[1:], 1):
            result = self.names.load_attr(result, attr, node.span, node if index == last else None)
        # a schema of an imported package: the same at every use of the name
        if (
            isinstance(result, SchemaType)
            and len(self.ctx.diagnostics) == reported
            and not self.ctx.tool_facts  # (tools complete each use: ``ctx.bind``)
        ):
            self._members[id(binding)] = (binding, symbol, result)
        return result

    def report_undefined(self, node: ast.NamedType) -> None:
        self.ctx.report_undefined(node.name.split(".")[0], node)


def literal_type(node: ast.LiteralType) -> Type:
    """A literal type annotation's type (``"TCP"``, ``1``, ``True``, ``1Ki``)."""
    value = node.value
    if node.suffix:
        return NumMulType(int(value) if isinstance(value, int | float) else 0, node.suffix)
    if value is None:
        return NONE
    if isinstance(value, bool):
        return bool_lit(value)
    if isinstance(value, int):
        return int_lit(value)
    if isinstance(value, float):
        return float_lit(value)
    return str_lit(value)


# the rule of each annotation node type but ``NamedType`` (``AnyType``: ``any``)
_CONVERTERS: dict[type, Callable[[AnnotationResolver, Any], Type]] = {
    ast.AnyType: lambda _resolver, _node: ANY,
    ast.ListType: AnnotationResolver.list_type,
    ast.DictType: AnnotationResolver.dict_type,
    ast.UnionType: AnnotationResolver.union_type,
    ast.LiteralType: lambda _resolver, node: literal_type(node),
    ast.FunctionType: AnnotationResolver.function_type,
}
