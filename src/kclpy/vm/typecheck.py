"""Runtime type checks and conversions (``x: T = v``, attributes, parameters, ``as``).

A dict assigned where a schema is expected becomes an instance of it (the first
member of a union it fits); ints are accepted where floats are expected.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from kclpy.compile.code import TypeRef
from kclpy.vm.values import (
    UNDEFINED,
    KclRuntimeError,
    NumberMultiplier,
    SchemaInstance,
)

# (schema reference, config) -> instance; raises KclRuntimeError when it does not fit
Instantiate = Callable[[Any, dict[str, Any]], Any]
# schema reference -> the runtime schema type (has .name, .proto, is a subtype via is_sub)
ResolveSchema = Callable[[Any], Any]


def value_type_name(value: Any) -> str:
    """The type of a value as runtime type errors name it (``int``, ``str``, ``P``)."""
    if value is None:
        return "NoneType"
    if value is UNDEFINED:
        return "UndefinedType"
    if value is True or value is False:
        return "bool"
    kind = type(value)
    if kind is int:
        return "int"
    if kind is float:
        return "float"
    if kind is str:
        return "str"
    if isinstance(value, SchemaInstance):
        return value.schema.name
    if isinstance(value, dict):
        return "dict"
    if isinstance(value, list):
        return "list"
    if isinstance(value, NumberMultiplier):
        return f"number_multiplier({value!r})"
    return str(getattr(value, "kcl_type_name", kind.__name__))


class TypeChecker:
    """Checks and converts values against ``TypeRef``s for one running program."""

    def __init__(
        self,
        resolve: ResolveSchema,
        instantiate: Instantiate,
        is_subschema: Callable[[Any, Any], bool],
    ) -> None:
        self.resolve = resolve
        self.instantiate = instantiate
        self.is_subschema = is_subschema
        self.strict = False

    def check(self, value: Any, type_ref: TypeRef | None, strict: bool = False) -> Any:
        """``value`` converted to ``type_ref``; raises ``expect T, got U`` when it does not fit.

        As in the reference, only ``strict`` checks (``x as T``) compare a schema
        instance's schema with the expected one; elsewhere the static checker has
        judged it, so any instance passes where a schema is expected (konfig's
        frontend ``Affinity`` into the k8s model's ``Affinity``, say).
        """
        if type_ref is None or value is None or value is UNDEFINED:
            return value
        outer = self.strict
        self.strict = strict
        try:
            converted = self.convert(value, type_ref)
        finally:
            self.strict = outer
        if converted is _MISMATCH:
            raise KclRuntimeError(
                f"expect {type_ref.text or type_ref.kind}, got {value_type_name(value)}"
            )
        return converted

    def convert(self, value: Any, type_ref: TypeRef) -> Any:
        kind = type_ref.kind
        if kind == "any":
            return value
        if value is None or value is UNDEFINED:
            return value
        value_kind = type(value)
        if kind == "int":
            return value if value_kind is int else _MISMATCH
        if kind == "float":
            return value if value_kind is float or value_kind is int else _MISMATCH
        if kind == "str":
            return value if value_kind is str else _MISMATCH
        if kind == "bool":
            return value if value_kind is bool else _MISMATCH
        if kind == "list":
            return self.convert_list(value, type_ref.args[0])
        if kind == "dict":
            return self.convert_dict(value, type_ref.args[1])
        if kind == "schema":
            return self.convert_schema(value, type_ref.args[0])
        if kind == "union":
            return self.convert_union(value, type_ref.args)
        if kind == "literal":
            return self.convert_literal(value, type_ref.args)
        if kind == "number_multiplier":
            return value if isinstance(value, NumberMultiplier) else _MISMATCH
        if kind == "function":
            return value if getattr(value, "kcl_type_name", "") == "function" else _MISMATCH
        return value

    def convert_list(self, value: Any, elem: TypeRef | None) -> Any:
        if not isinstance(value, list):
            return _MISMATCH
        if elem is None:
            return value
        out = []
        changed = False
        for item in value:
            converted = self.convert(item, elem)
            if converted is _MISMATCH:
                return _MISMATCH
            changed = changed or converted is not item
            out.append(converted)
        return out if changed else value

    def convert_dict(self, value: Any, elem: TypeRef | None) -> Any:
        if not isinstance(value, dict) or isinstance(value, SchemaInstance):
            return _MISMATCH
        if elem is None:
            return value
        changed = False
        out = type(value)()
        if hasattr(value, "ops"):
            out.ops = dict(value.ops)  # type: ignore[attr-defined]
        for key, item in value.items():
            converted = self.convert(item, elem)
            if converted is _MISMATCH:
                return _MISMATCH
            changed = changed or converted is not item
            out[key] = converted
        return out if changed else value

    def convert_schema(self, value: Any, ref: Any) -> Any:
        schema = self.resolve(ref)
        if isinstance(value, SchemaInstance):
            if not self.strict or self.is_subschema(value.schema, schema):
                return value
            return _MISMATCH
        if isinstance(value, dict):
            if schema.proto.kind == "protocol":
                return value
            if not self.fits(value, schema):
                raise KclRuntimeError(_not_convertible(value, schema))
            return self.instantiate(schema, value)
        return _MISMATCH

    def convert_union(self, value: Any, members: tuple[TypeRef, ...]) -> Any:
        plain_dict = isinstance(value, dict) and not isinstance(value, SchemaInstance)
        for member in members:
            if plain_dict and member.kind == "schema":
                schema = self.resolve(member.args[0])
                if not self.fits(value, schema):
                    continue
            try:
                converted = self.convert(value, member)
            except KclRuntimeError:
                continue
            if converted is not _MISMATCH:
                return converted
        return _MISMATCH

    def fits(self, value: dict[str, Any], schema: Any) -> bool:
        """Whether a dict's keys are all attributes of ``schema`` (for union selection)."""
        attrs = schema_attribute_names(schema)
        if schema_has_index_signature(schema):
            return True
        return all(key in attrs for key in value)

    def convert_literal(self, value: Any, args: tuple[Any, ...]) -> Any:
        literal, suffix = args
        if suffix:
            if isinstance(value, NumberMultiplier):
                return value if (value.number, value.suffix) == (literal, suffix) else _MISMATCH
            return _MISMATCH
        if type(value) is not type(literal):
            return _MISMATCH
        return value if value == literal else _MISMATCH


class _Mismatch:
    __slots__ = ()


_MISMATCH: Any = _Mismatch()


def _not_convertible(value: dict[str, Any], schema: Any) -> str:
    """The reference's message for a dict with keys a schema does not declare."""
    name = schema.proto.name
    lines = [f"expect {name}, got dict. For details:"]
    attrs = schema_attribute_names(schema)
    lines.extend(
        f"Schema {name} does not contain attribute {key}" for key in value if key not in attrs
    )
    chain = []
    current = schema
    while current is not None:
        chain.append(current)
        current = current.parent_type
    defaulted = {attr for member in chain for attr in member.proto.setters}
    for member in reversed(chain):
        for attr in member.proto.attrs:
            if not attr.optional and attr.name not in value and attr.name not in defaulted:
                lines.append(f"Schema {name}'s attribute {attr.name} is missing")
    return "\n".join(lines)


def schema_attribute_names(schema: Any) -> set[str]:
    names: set[str] = set()
    current = schema
    while current is not None:
        names.update(attr.name for attr in current.proto.attrs)
        names.update(current.proto.plain_attrs)
        for mixin in current.mixin_types:
            names.update(attr.name for attr in mixin.proto.attrs)
        current = current.parent_type
    return names


def schema_has_index_signature(schema: Any) -> bool:
    current = schema
    while current is not None:
        if current.proto.index_signature is not None:
            return True
        current = current.parent_type
    return False
