"""Type annotations (AST) to runtime type references (``TypeRef``).

Takes an annotation and, for each type name in it, the resolver's type binding
(``sema.bindings.TypeBinding``); returns the ``TypeRef`` (None: ``any``): a basic
type, an alias's type, the number multiplier type, or a schema by ``NameRef`` (a
global slot of the package, given by the compiler, or a member of an imported
package). Also the text of a type as the reference prints it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from kclpy.compile.code import NameRef, TypeRef
from kclpy.sema.bindings import TypeBinding, TypeKind
from kclpy.syntax import ast

NamedTypes = Callable[[ast.NamedType], NameRef | TypeRef | None]


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
    resolve_name: NamedTypes,
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


def named_type_ref(
    binding: TypeBinding, slots: Mapping[str, int], resolve_name: NamedTypes
) -> NameRef | TypeRef | None:
    """The runtime type of a bound type name (``resolve_name``: of the names of an
    alias's type); a ``NameRef`` when it names a definition."""
    kind = binding.kind
    if kind == TypeKind.BASIC:
        return None if binding.name == "any" else TypeRef(binding.name, (), binding.name)
    if kind == TypeKind.NUMBER_MULTIPLIER:
        return TypeRef("number_multiplier", (), binding.name)
    if kind == TypeKind.ALIAS:
        resolved = build_type(binding.aliased, resolve_name)
        return resolved if resolved is not None else TypeRef("any")
    return definition_ref(binding, slots)


def definition_ref(binding: TypeBinding, slots: Mapping[str, int]) -> NameRef:
    """A reference to the definition a type name denotes, by its written name: a
    global ``slots`` of this package, or a member of an imported one."""
    if binding.pkgpath:
        return NameRef(binding.name, -1, binding.pkgpath, binding.member)
    return NameRef(binding.name, slots.get(binding.name, -1))


def names_definition(binding: TypeBinding) -> bool:
    """Whether a type name denotes a definition (not a basic type, an alias, the number
    multiplier): the alias of a schema is that schema at run time."""
    return binding.kind in (TypeKind.SCHEMA, TypeKind.UNKNOWN)
