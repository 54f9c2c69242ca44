"""Runtime objects that are not plain data: scopes, functions, schema types, modules.

None of these is ever output; ``kcl_type_name`` is what ``typeof`` reports.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from kclpy.compile.code import (
    Code,
    ConfigConstant,
    FunctionProto,
    PackageCode,
    SchemaHeader,
    SchemaProto,
)
from kclpy.values import OPS_BY_TEXT, UNDEFINED, Config, SchemaInstance, Value

if TYPE_CHECKING:
    from kclpy.vm.schema_plan import SchemaPlan

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


def constant_value(constant: Any) -> Value:
    """A new value of a compiled constant (``PackageCode.constants``): a list of a
    tuple, a config of a ``ConfigConstant``, built as their code would build them."""
    kind = type(constant)
    if kind is tuple:
        return list(constant)
    if kind is ConfigConstant:
        config = Config()
        ops = config.ops
        for key, value, op in constant.entries:
            config[key] = constant_value(value)
            ops[key] = OPS_BY_TEXT[op]
        return config
    return constant  # type: ignore[no-any-return]


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
            values[slot] = constant_value(value)
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
        # what its instances share, once its chain is resolved (vm.schema_plan)
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


class ModuleValue:
    """An imported module: a user package or a system module's members."""

    __slots__ = ("members", "name", "package")
    kcl_type_name = "module"

    def __init__(
        self, name: str, package: PackageState | None, members: dict[str, Any] | None
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
