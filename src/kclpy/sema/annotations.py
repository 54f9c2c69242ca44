"""Type annotations to types, and name lookups that report undefined names.

A named type (``Person``, ``pkg.Person``, an alias) is looked up like a name: an
unknown one is the reference's CompileError ``name 'X' is not defined``, with
suggestions of close names.
"""

from __future__ import annotations

import re

from kclpy.sema.base import CheckerBase
from kclpy.sema.symbols import Symbol
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
from kclpy.source import Span
from kclpy.syntax import ast

BASIC_TYPES: dict[str, Type] = {
    "int": INT_T,
    "float": FLOAT_T,
    "str": STR_T,
    "bool": BOOL_T,
    "any": ANY,
}
RESERVED_TYPE_NAMES = ("any", "int", "float", "str", "bool")


def close_names(name: str, candidates: list[str]) -> list[str]:
    """The candidates close enough to ``name`` to suggest (at most three, closest first)."""
    from difflib import get_close_matches

    return get_close_matches(name, [c for c in candidates if c != name], n=3, cutoff=0.75)


def suggestion_text(name: str, candidates: list[str]) -> str:
    """``, did you mean '["a", "b"]'?`` for close candidates, else ``""``."""
    close = close_names(name, candidates)
    if not close:
        return ""
    quoted = ", ".join(f'"{item}"' for item in close)
    return f", did you mean '[{quoted}]'?"


def suggested_names(message: str) -> list[str]:
    """The names a message's ``did you mean`` hint proposes (``suggestion_text``'s
    inverse; also the bracket-less ``did you mean 'a, b'?`` form), for quick fixes."""
    found = re.search(r"did you mean '(.*)'\?$", message)
    if found is None:
        return []
    names = found.group(1).removeprefix("[").removesuffix("]").split(",")
    return [name.strip().strip('"') for name in names if name.strip().strip('"')]


class AnnotationMixin(CheckerBase):
    """Resolution of type annotations and of plain names."""

    def lookup_or_report(self, name: str, span: Span | None) -> Symbol | None:
        """The symbol of ``name`` in scope, or report the name as undefined."""
        symbol = self.scope.lookup(name)
        if symbol is None:
            hint = suggestion_text(name, self.visible_names())
            self.compile_error(f"name '{name}' is not defined{hint}", span)
        return symbol

    def resolve_type(self, node: ast.TypeNode | None) -> Type:
        """The type an annotation denotes (``any`` when there is none)."""
        if node is None:
            return ANY
        result = self.convert_type(node)
        self.types[node.id] = result
        return result

    def convert_type(self, node: ast.TypeNode) -> Type:
        if isinstance(node, ast.NamedType):
            return self.named_type(node)
        if isinstance(node, ast.AnyType):
            return ANY
        if isinstance(node, ast.ListType):
            return ListType(self.convert_type(node.elem) if node.elem is not None else ANY)
        if isinstance(node, ast.DictType):
            key = self.convert_type(node.key) if node.key is not None else ANY
            val = self.convert_type(node.value) if node.value is not None else ANY
            return DictType(key, val)
        if isinstance(node, ast.UnionType):
            return UnionType(tuple(self.convert_type(member) for member in node.types))
        if isinstance(node, ast.LiteralType):
            return literal_type(node)
        if isinstance(node, ast.FunctionType):
            params = [
                Param("", self.convert_type(param), False, param.span) for param in node.params
            ]
            ret = self.convert_type(node.ret) if node.ret is not None else ANY
            return FuncType(params, ret)
        return ANY

    def named_type(self, node: ast.NamedType) -> Type:
        basic = BASIC_TYPES.get(node.name)
        if basic is not None:
            return basic
        names = node.name.split(".")
        symbol = self.lookup_or_report(names[0], node.span)
        if symbol is None:
            return ANY
        result = symbol.type
        last = len(names) - 1
        for index, attr in enumerate(names[1:], 1):
            result = self.load_attr(result, attr, node.span, node if index == last else None)
        if not last:
            self.bind(node, symbol)
        return result

    def load_attr(self, obj: Type, attr: str, span: Span | None, node: ast.Node | None) -> Type:
        raise NotImplementedError


def literal_type(node: ast.LiteralType) -> Type:
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
