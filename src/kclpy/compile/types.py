"""Type annotations (AST) to runtime type references (``TypeRef``).

Takes an annotation and a function giving the runtime type of each named type in
it (the compiler's, from the resolver's type bindings); returns the ``TypeRef``
(None: ``any``), and the text of a type as the reference prints it.
"""

from __future__ import annotations

from collections.abc import Callable

from kclpy.compile.code import NameRef, TypeRef
from kclpy.syntax import ast


def type_text(node: ast.TypeNode | None) -> str:
    """The type as the reference prints it in messages (``[int]``, ``{str:int}``, ``A | B``)."""
    if node is None:
        return "any"
    if isinstance(node, ast.AnyType):
        return "any"
    if isinstance(node, ast.NamedType):
        return node.name
    if isinstance(node, ast.ListType):
        return f"[{type_text(node.elem)}]" if node.elem else "[]"
    if isinstance(node, ast.DictType):
        key = type_text(node.key) if node.key else ""
        value = type_text(node.value) if node.value else ""
        return f"{{{key}:{value}}}"
    if isinstance(node, ast.UnionType):
        return " | ".join(type_text(member) for member in node.types)
    if isinstance(node, ast.LiteralType):
        literal = node.value
        if isinstance(literal, str):
            return f'"{literal}"'
        if isinstance(literal, bool) or literal is None:
            return str(literal)
        return f"{literal}{node.suffix or ''}"
    if isinstance(node, ast.FunctionType):
        params = ", ".join(type_text(param) for param in node.params)
        return f"({params}) -> {type_text(node.ret)}"
    return "any"


def build_type(
    node: ast.TypeNode | None,
    resolve_name: Callable[[ast.NamedType], NameRef | TypeRef | None],
) -> TypeRef | None:
    """The runtime type of an annotation; ``resolve_name`` gives each named type's
    (a ``NameRef``: the schema it names)."""
    if node is None or isinstance(node, ast.AnyType):
        return None
    text = type_text(node)
    if isinstance(node, ast.NamedType):
        resolved = resolve_name(node)
        if resolved is None or isinstance(resolved, TypeRef):
            return resolved
        return TypeRef("schema", (resolved,), text)
    if isinstance(node, ast.ListType):
        return TypeRef("list", (build_type(node.elem, resolve_name),), text)
    if isinstance(node, ast.DictType):
        key = build_type(node.key, resolve_name)
        value = build_type(node.value, resolve_name)
        return TypeRef("dict", (key, value), text)
    if isinstance(node, ast.UnionType):
        members = tuple(build_type(member, resolve_name) for member in node.types)
        if any(member is None for member in members):
            return None
        return TypeRef("union", members, text)
    if isinstance(node, ast.LiteralType):
        return TypeRef("literal", (node.value, node.suffix), text)
    if isinstance(node, ast.FunctionType):
        return TypeRef("function", (), text)
    return None
