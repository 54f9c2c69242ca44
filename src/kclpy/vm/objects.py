"""Runtime objects that are not plain data: scopes, functions, schema types, modules,
and what every instance of a schema shares.

None of these is ever output; ``kcl_type_name`` is what ``typeof`` reports.

:class:`SchemaPlan` is computed once per schema type from the type and its resolved
chain (base schemas first, each followed by its mixins, down to the schema itself):
the attribute table in output order and, per attribute (:class:`AttrPlan`), its
setters along the chain (with the literal each constant setter stores), its
declaration, the package its type names resolve in, its ``@deprecated`` arguments
and the value types its type check passes unchanged (:func:`unchanged_types`); the
bodies and checks to run; the index signature; the required attributes. The schema
builder (:mod:`kclpy.vm.schemas`) caches the plan on the :class:`SchemaType` and
reads it for every instance (:class:`SchemaState`), so that an instance pays only
for the work that depends on its config. The types, the plan and the instance under
construction refer to each other, so they live in this one module.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from kclpy.compile.code import (
    AttrSpec,
    Code,
    ConfigConstant,
    Constant,
    FunctionProto,
    IndexSignatureSpec,
    PackageCode,
    SchemaHeader,
    SchemaProto,
    TypeRef,
)
from kclpy.values import OPS_BY_TEXT, UNDEFINED, Config, SchemaInstance, UndefinedType, Value
from kclpy.values.errors import Location

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Final, TypeAlias

NOT_STARTED = 0
IN_PROGRESS = 1
DONE = 2
# for isinstance() on hot paths (``dict | list`` makes a union object at each test)
CONTAINERS = (dict, list)


class Scope:
    """The locals of one running unit, its lexical parent, and the schema being built."""

    __slots__ = ("instance", "parent", "values")

    def __init__(self, size: int, parent: Scope | None, instance: SchemaState | None) -> None:
        self.values: list[Value] = [UNDEFINED] * size
        self.parent = parent
        self.instance = instance


def constant_value(constant: Constant, package: PackageState) -> Value:
    """A new value of a compiled constant of ``package`` (``PackageCode.constants``): a
    list of a tuple, a config of a ``ConfigConstant``, built as their code would build
    them, the schema type of a schema's header."""
    if isinstance(constant, SchemaHeader):
        return SchemaType(constant, package)
    if isinstance(constant, tuple):
        items: list[Value] = list(constant)
        return items
    if isinstance(constant, ConfigConstant):
        config = Config()
        ops = config.ops
        for key, value, op in constant.entries:
            config[key] = constant_value(value, package)
            ops[key] = OPS_BY_TEXT[op]
        return config
    return constant


class PackageState:
    """A loaded package: its compiled code and the (lazily computed) global values."""

    __slots__ = ("code", "scope", "started", "states", "values")

    def __init__(self, code: PackageCode) -> None:
        self.code = code
        count = len(code.slot_names)
        self.values: list[Value] = [UNDEFINED] * count
        self.states: list[int] = [NOT_STARTED] * count
        values = self.values
        states = self.states
        for slot, value in code.constants.items():  # known before running
            values[slot] = constant_value(value, self)
            states[slot] = DONE
        self.scope = Scope(code.nlocals, None, None)
        self.started = False

    @property
    def pkgpath(self) -> str:
        return self.code.pkgpath


class Function:
    """A lambda value: its prototype, the scope it closes over and its defaults."""

    __slots__ = ("defaults", "package", "proto", "scope")
    kcl_type_name = "function"

    def __init__(
        self, proto: FunctionProto, scope: Scope, package: PackageState, defaults: list[Value]
    ) -> None:
        self.proto = proto
        self.scope = scope
        self.package = package
        self.defaults = defaults


class Builtin:
    """A Python-backed function (a builtin, a system-module member, a bound method):
    its name and its adapter (:mod:`kclpy.vm.builtins.adapt`), called as
    ``call(host, calling package, args, kwargs)``."""

    __slots__ = ("call", "name")
    kcl_type_name = "function"

    def __init__(self, name: str, call: Callable[..., Value]) -> None:
        self.name = name
        self.call = call

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Builtin) and other.name == self.name

    def __hash__(self) -> int:
        return hash(self.name)


class SchemaType:
    """A schema, mixin, protocol or rule, with its parent and mixins resolved lazily.

    Made from its ``header`` (what defining it reads); ``proto``, the whole compiled
    schema, is set from the header when the code held it whole, else by the schema
    builder from the run's code source the first time the schema is used."""

    __slots__ = (
        "header",
        "instances",
        "mixin_types",
        "package",
        "parent_type",
        "plan",
        "proto",
        "resolved",
    )
    kcl_type_name = "type"

    def __init__(self, header: SchemaHeader, package: PackageState) -> None:
        self.header = header
        if isinstance(header, SchemaProto):
            self.proto = header
        self.package = package
        self.parent_type: SchemaType | None = None
        self.mixin_types: list[SchemaType] = []
        self.resolved = False
        self.instances: list[tuple[SchemaInstance, str]] = []  # (instance, creating pkgpath)
        # what its instances share, once its chain is resolved (SchemaPlan)
        self.plan: SchemaPlan | None = None

    @property
    def name(self) -> str:
        return self.header.name

    @property
    def pkgpath(self) -> str:
        return self.header.pkgpath

    def __repr__(self) -> str:
        return f"<schema {self.header.name}>"


class SchemaState:
    """One schema instance under construction: its config (and the operators of its
    entries), the attribute values computed so far and their states, and the scope of
    each member of the schema chain."""

    __slots__ = ("config", "ops", "plan", "schema", "scopes", "states", "values")

    def __init__(self, schema: SchemaType, config: dict[str, Value], plan: SchemaPlan) -> None:
        self.schema = schema
        self.plan = plan
        self.config = config
        self.ops: dict[str, int] = getattr(config, "ops", None) or {}
        self.values: dict[str, Value] = {}
        self.states: dict[str, int] = {}
        self.scopes: dict[SchemaType, Scope] = {}


Member: TypeAlias = "Callable[..., Value] | Value"
"""A member of a system module or a plugin: a function (its adapter) or a constant."""


class ModuleValue:
    """An imported module: a user package or a system module's (or a plugin's) members."""

    __slots__ = ("members", "name", "package")
    kcl_type_name = "module"

    def __init__(
        self, name: str, package: PackageState | None, members: Mapping[str, Member] | None
    ) -> None:
        self.name = name
        self.package = package
        self.members = members


class Frame:
    """A running code: the KCL call stack for error reports is the chain of frames."""

    __slots__ = ("code", "package", "parent", "pc", "scope")

    def __init__(self, code: Code, scope: Scope, package: PackageState, parent: Frame | None):
        self.code = code
        self.scope = scope
        self.package = package
        self.parent = parent
        self.pc = 0


# ------------------------------------------------ what a schema's instances share

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


# ------------------------------------------- values a type check passes unchanged

_ABSENT: Final = frozenset({type(None), UndefinedType})
_SCALAR_KINDS: Final = frozenset({"int", "float", "str", "bool", "literal"})
_UNCHANGED: Final = {
    "int": _ABSENT | {int},
    "float": _ABSENT | {float, int},
    "str": _ABSENT | {str},
    "bool": _ABSENT | {bool},
}


def unchanged_types(type_ref: TypeRef | None) -> frozenset[type] | None:
    """The value types that :meth:`TypeChecker.check` returns unchanged whatever the
    value (None: every value, for no type and ``any``). A union counts when all its
    members are scalar types or literals, which only ever pass or fail a value."""
    if type_ref is None or type_ref.kind == "any":
        return None
    if _scalar_union(type_ref):
        return _ABSENT.union(*(_UNCHANGED.get(member.kind, _ABSENT) for member in type_ref.args))
    return _UNCHANGED.get(type_ref.kind, _ABSENT)


def unchanged_literals(type_ref: TypeRef | None) -> frozenset[tuple[type, Value]]:
    """(type, value) of the literals a literal type or a union of scalar types and
    literals passes unchanged (``"a" | "b"``)."""
    if type_ref is None:
        return frozenset()
    if type_ref.kind == "literal":
        literal, suffix = type_ref.args
        return frozenset() if suffix else frozenset({(type(literal), literal)})
    if not _scalar_union(type_ref):
        return frozenset()
    return frozenset().union(*(unchanged_literals(member) for member in type_ref.args))


def _scalar_union(type_ref: TypeRef) -> bool:
    """A union of scalar types and literals (each member passes a value or fails it)."""
    return type_ref.kind == "union" and all(
        member.kind in _SCALAR_KINDS for member in type_ref.args
    )
