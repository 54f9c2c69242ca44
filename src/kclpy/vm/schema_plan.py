"""What every instance of a schema shares, computed once per schema type.

Takes a schema type and its resolved chain (base schemas first, each followed by
its mixins, down to the schema itself) and returns a :class:`SchemaPlan`: the
attribute table in output order and, per attribute, its setters along the chain
(with the literal each constant setter stores), its declaration, the package its
type names resolve in, its ``@deprecated`` arguments and the value types its type
check passes unchanged; the bodies and checks to run; the index signature; the
required attributes. The schema builder (:mod:`kclpy.vm.schemas`) caches the plan
on the ``SchemaType`` and reads it for every instance, so that an instance pays
only for the work that depends on its config.
"""

from __future__ import annotations

from typing import Final

from kclpy.compile.code import AttrSpec, Code, IndexSignatureSpec
from kclpy.values import Value
from kclpy.values.errors import Location
from kclpy.vm.objects import PackageState, SchemaType
from kclpy.vm.typecheck import unchanged_literals, unchanged_types

_LITERAL_TYPES: Final = frozenset({int, float, str, bool})
# a setter of an attribute: the chain member it belongs to, its code, and the
# (attribute, literal) it stores when that is all it does (SchemaProto.constants; else None)
Setter = tuple[SchemaType, Code, tuple[str, Value] | None]
# the index signature of a schema chain and the member declaring it
Signature = tuple[IndexSignatureSpec, SchemaType]


class AttrPlan:
    """One attribute of a schema chain: how its value is computed and checked."""

    __slots__ = (
        "check_type",
        "deprecations",
        "into",
        "literals",
        "owner",
        "passes",
        "spec",
        "where",
        "whole",
    )

    def __init__(
        self, whole: list[Setter], into: list[Setter], spec: AttrSpec | None, owner: PackageState
    ) -> None:
        self.whole = whole  # setters assigning the attribute, in chain order
        self.into = into  # setters assigning into its value (`a.b = v`)
        self.spec = spec  # its declaration (None: only assigned)
        declared = spec.type if spec is not None else None
        passes = unchanged_types(declared)
        # the type values are checked against (None: every value passes unchanged)
        self.check_type = declared if passes is not None else None
        self.owner = owner  # the declaring member's package: its type names resolve there
        self.deprecations: list[dict[str, object]] = []
        # the value types (and the literals) whose type check returns them unchanged
        self.passes = passes or frozenset()
        self.literals = unchanged_literals(declared)
        self.where: Location = ("", 0, 0)  # where a missing required attribute is reported
        if spec is not None:
            self.deprecations = [args for name, args in spec.decorators if name == "deprecated"]

    def passes_literal(self, value: Value) -> bool:
        """Whether ``value`` is one of the literals the type passes unchanged."""
        kind = type(value)
        return kind in _LITERAL_TYPES and (kind, value) in self.literals


class SchemaPlan:
    """The per-schema facts of instantiation (see the module docstring)."""

    __slots__ = (
        "attrs",
        "bare",
        "bodies",
        "chain",
        "checks",
        "lineage",
        "required",
        "signature",
        "table",
    )

    def __init__(self, schema: SchemaType, chain: list[SchemaType]) -> None:
        self.chain = chain
        self.table = attribute_table(chain)
        self.attrs = attribute_plans(schema, chain, self.table)
        self.bare = AttrPlan([], [], None, schema.package)
        self.signature = index_signature(chain)
        self.bodies: list[tuple[SchemaType, Code]] = []
        self.checks: list[tuple[SchemaType, Code]] = []
        for member in chain:
            if member.proto.body is not None:
                self.bodies.append((member, member.proto.body))
            if member.proto.checks is not None:
                self.checks.append((member, member.proto.checks))
        self.required = [
            name for name, spec in self.table.items() if spec is not None and not spec.optional
        ]
        # the schema and its parents: an instance is one of each one's instances
        self.lineage: list[SchemaType] = []
        current: SchemaType | None = schema
        while current is not None:
            self.lineage.append(current)
            current = current.parent_type

    def attr(self, name: str) -> AttrPlan:
        """The plan of attribute ``name`` (one without setters or declaration when the
        chain has neither)."""
        return self.attrs.get(name) or self.bare


def attribute_table(chain: list[SchemaType]) -> dict[str, AttrSpec | None]:
    """Every attribute name of the chain in output order, with its (last) declaration."""
    table: dict[str, AttrSpec | None] = {}
    for member in chain:
        declared = {attr.name: attr for attr in member.proto.attrs}
        for name in member.proto.attr_order:
            spec = declared.get(name)
            if spec is not None:
                table[name] = spec
            else:
                table.setdefault(name, None)
    return table


def attribute_plans(
    schema: SchemaType, chain: list[SchemaType], table: dict[str, AttrSpec | None]
) -> dict[str, AttrPlan]:
    """Per attribute name (declared, or only assigned in a body), its plan."""
    owners: dict[str, PackageState] = {}
    for member in chain:
        for attr in member.proto.attrs:
            if attr.name in member.proto.attr_order:
                owners[attr.name] = member.package
    whole: dict[str, list[Setter]] = {}
    into: dict[str, list[Setter]] = {}
    for member in chain:
        constants = member.proto.constants
        for name, code in member.proto.setters.items():
            constant = (name, constants[name]) if name in constants else None
            whole.setdefault(name, []).append((member, code, constant))
        for name, code in member.proto.path_setters.items():
            into.setdefault(name, []).append((member, code, None))
    plans: dict[str, AttrPlan] = {}
    for name in [*table, *whole, *into]:
        if name in plans:
            continue
        spec = table.get(name)
        plan = AttrPlan(
            whole.get(name, []), into.get(name, []), spec, owners.get(name, schema.package)
        )
        if spec is not None:
            plan.where = (schema.header.path, *spec.position)
        plans[name] = plan
    return plans


def index_signature(chain: list[SchemaType]) -> Signature | None:
    """The index signature of the member nearest the schema that declares one."""
    for member in reversed(chain):
        if member.proto.index_signature is not None:
            return member.proto.index_signature, member
    return None
