"""Runtime type checks and conversions (``x: T = v``, attributes, parameters, ``as``).

A dict assigned where a schema is expected becomes an instance of it (the first
member of a union it fits); ints are accepted where floats are expected.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Iterable

from kclpy.compile.code import NameRef, TypeRef
from kclpy.values import UNDEFINED, Config, NumberMultiplier, SchemaInstance, Value
from kclpy.values.errors import KclRuntimeError
from kclpy.vm.objects import PackageState, SchemaType, unchanged_types

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Final, TypeAlias

# (schema type, config) -> instance; raises KclRuntimeError when it does not fit
Instantiate = Callable[[SchemaType, dict[str, Value], PackageState], Value]
# schema reference -> the runtime schema type, its parents resolved
ResolveSchema = Callable[[NameRef, PackageState], SchemaType]


def value_type_name(value: object) -> str:
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
        is_subschema: Callable[[SchemaType, SchemaType], bool],
    ) -> None:
        self.resolve = resolve
        self.instantiate = instantiate
        self.is_subschema = is_subschema
        self.strict = False
        self.unchanged: dict[TypeRef, frozenset[type] | None] = {}  # unchanged_types, cached

    def check(
        self,
        value: Value,
        type_ref: TypeRef | None,
        package: PackageState,
        strict: bool = False,
    ) -> Value:
        """``value`` converted to ``type_ref``; raises ``expect T, got U`` when it does not fit.

        As in the reference, only ``strict`` checks (``x as T``) compare a schema
        instance's schema with the expected one; elsewhere the static checker has
        judged it, so any instance passes where a schema is expected (konfig's
        frontend ``Affinity`` into the k8s model's ``Affinity``, say). Schema names
        resolve in ``package``, which also makes the instances a dict converts into.
        """
        if type_ref is None or value is None or value is UNDEFINED:
            return value
        outer = self.strict
        self.strict = strict
        try:
            converted = self.convert(value, type_ref, package)
        finally:
            self.strict = outer
        if converted is _MISMATCH:
            raise KclRuntimeError(
                f"expect {type_ref.text or type_ref.kind}, got {value_type_name(value)}"
            )
        return converted

    def convert(self, value: Value, type_ref: TypeRef, package: PackageState) -> Converted:
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
            return self.convert_list(value, type_ref.args[0], package)
        if kind == "dict":
            return self.convert_dict(value, type_ref.args[1], package)
        if kind == "schema":
            return self.convert_schema(value, type_ref.args[0], package)
        if kind == "union":
            return self.convert_union(value, type_ref.args, package)
        if kind == "literal":
            return self.convert_literal(value, type_ref.args)
        if kind == "number_multiplier":
            return value if isinstance(value, NumberMultiplier) else _MISMATCH
        if kind == "function":
            return value if getattr(value, "kcl_type_name", "") == "function" else _MISMATCH
        return value

    def convert_list(self, value: Value, elem: TypeRef | None, package: PackageState) -> Converted:
        if not isinstance(value, list):
            return _MISMATCH
        if elem is None or self.passes_all(value, elem):
            return value
        out: list[Value] = []
        changed = False
        for item in value:
            converted = self.convert(item, elem, package)
            if converted is _MISMATCH:
                return _MISMATCH
            changed = changed or converted is not item
            out.append(converted)
        return out if changed else value

    def convert_dict(self, value: Value, elem: TypeRef | None, package: PackageState) -> Converted:
        if not isinstance(value, dict) or isinstance(value, SchemaInstance):
            return _MISMATCH
        if elem is None or self.passes_all(value.values(), elem):
            return value
        changed = False
        out = type(value)()
        if isinstance(value, Config) and isinstance(out, Config):
            out.ops = dict(value.ops)
        for key, item in value.items():
            converted = self.convert(item, elem, package)
            if converted is _MISMATCH:
                return _MISMATCH
            changed = changed or converted is not item
            out[key] = converted
        return out if changed else value

    def passes_all(self, items: Iterable[Value], elem: TypeRef) -> bool:
        """Whether every item's type is one ``elem`` passes unchanged."""
        if elem in self.unchanged:
            passes = self.unchanged[elem]
        else:
            passes = self.unchanged[elem] = unchanged_types(elem)
        return passes is None or all(type(item) in passes for item in items)

    def convert_schema(self, value: Value, ref: NameRef, package: PackageState) -> Converted:
        if isinstance(value, SchemaInstance):
            if not self.strict:  # any instance passes: the schema is not needed
                return value
            instance_schema = value.schema
            assert isinstance(instance_schema, SchemaType)
            if self.is_subschema(instance_schema, self.resolve(ref, package)):
                return value
            return _MISMATCH
        schema = self.resolve(ref, package)
        if isinstance(value, dict):
            if schema.header.kind == "protocol":
                return value
            if not self.fits(value, schema):
                raise KclRuntimeError(_not_convertible(value, schema))
            return self.instantiate(schema, value, package)
        return _MISMATCH

    def convert_union(
        self, value: Value, members: tuple[TypeRef, ...], package: PackageState
    ) -> Converted:
        plain_dict = isinstance(value, dict) and not isinstance(value, SchemaInstance)
        for member in members:
            if plain_dict and isinstance(value, dict) and member.kind == "schema":
                schema = self.resolve(member.args[0], package)
                if not self.fits(value, schema):
                    continue
            try:
                converted = self.convert(value, member, package)
            except KclRuntimeError:
                continue
            if converted is not _MISMATCH:
                return converted
        return _MISMATCH

    def fits(self, value: dict[str, Value], schema: SchemaType) -> bool:
        """Whether a dict's keys are all attributes of ``schema`` (for union selection)."""
        attrs = schema_attribute_names(schema)
        if schema_has_index_signature(schema):
            return True
        return all(key in attrs for key in value)

    def convert_literal(self, value: Value, args: tuple[Value, ...]) -> Converted:
        literal, suffix = args
        if suffix:
            if isinstance(value, NumberMultiplier):
                return value if (value.number, value.suffix) == (literal, suffix) else _MISMATCH
            return _MISMATCH
        if type(value) is not type(literal):
            return _MISMATCH
        return value if value == literal else _MISMATCH


class _Mismatch(enum.Enum):
    """The result of a conversion that does not fit (distinct from every value)."""

    MISMATCH = 0


_MISMATCH: Final = _Mismatch.MISMATCH
Converted: TypeAlias = "Value | _Mismatch"


def _not_convertible(value: dict[str, Value], schema: SchemaType) -> str:
    """The reference's message for a dict with keys a schema does not declare."""
    name = schema.header.name
    lines = [f"expect {name}, got dict. For details:"]
    attrs = schema_attribute_names(schema)
    lines.extend(
        f"Schema {name} does not contain attribute {key}" for key in value if key not in attrs
    )
    chain: list[SchemaType] = []
    current: SchemaType | None = schema
    while current is not None:
        chain.append(current)
        current = current.parent_type
    defaulted = {attr for member in chain for attr in member.proto.setters}
    for member in reversed(chain):
        for attr in member.proto.attrs:
            if not attr.optional and attr.name not in value and attr.name not in defaulted:
                lines.append(f"Schema {name}'s attribute {attr.name} is missing")
    return "\n".join(lines)


def admits_none(type_ref: TypeRef) -> bool:
    """Whether a runtime type admits None (the ``None`` literal, or a union holding it)."""
    if type_ref.kind == "literal":
        return bool(type_ref.args[0] is None)
    if type_ref.kind == "union":
        return any(member is None or admits_none(member) for member in type_ref.args)
    return False


def schema_attribute_names(schema: SchemaType) -> set[str]:
    names: set[str] = set()
    current: SchemaType | None = schema
    while current is not None:
        names.update(attr.name for attr in current.proto.attrs)
        names.update(current.proto.plain_attrs)
        for mixin in current.mixin_types:
            names.update(attr.name for attr in mixin.proto.attrs)
        current = current.parent_type
    return names


def schema_has_index_signature(schema: SchemaType) -> bool:
    current: SchemaType | None = schema
    while current is not None:
        if current.proto.index_signature is not None:
            return True
        current = current.parent_type
    return False
