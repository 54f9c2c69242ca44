"""Compiled code objects: what the compiler hands to the VM (and the cache stores).

Everything here is plain data (ints, strings, tuples, lists and these slots
classes), so a compiled package can be pickled into the module cache.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Final, Protocol, TypeAlias

# Bumped whenever the encoding of compiled code changes (invalidates the cache).
BYTECODE_VERSION: Final = 10

# Fallback kinds of LOAD_NAME (when the schema being built has no such attribute).
FALLBACK_GLOBAL: Final = 0
FALLBACK_IMPORT: Final = 1
FALLBACK_BUILTIN: Final = 2
FALLBACK_UNDEFINED: Final = 3


class Code:
    """One unit of bytecode: a setter, a body, a check block or a lambda body.

    ``ops`` is flat ``[op, arg, ...]``; ``positions[pc // 2]`` is the ``(start, end)``
    code-point span of the instruction at ``pc`` in ``path``.
    """

    __slots__ = ("consts", "name", "names", "ops", "path", "positions")

    def __init__(self, name: str, path: str) -> None:
        self.name = name
        self.path = path
        self.ops: list[int] = []
        self.consts: list[Any] = []
        self.names: list[str] = []
        self.positions: list[tuple[int, int]] = []

    def __repr__(self) -> str:
        return f"<code {self.name} {self.path} ({len(self.ops) // 2} ops)>"


class TypeRef:
    """A type as the runtime checks it: a kind and its parts.

    Kinds: ``any``, ``int``, ``float``, ``bool``, ``str``, ``none``, ``list`` (args:
    element), ``dict`` (key, value), ``union`` (members), ``literal`` (value, suffix),
    ``schema`` (reference: a ``NameRef``), ``function``, ``number_multiplier``.
    """

    __slots__ = ("args", "kind", "text")

    def __init__(self, kind: str, args: tuple[Any, ...] = (), text: str = "") -> None:
        self.kind = kind
        self.args = args
        self.text = text

    def __repr__(self) -> str:
        return self.text or self.kind


class NameRef:
    """A compile-time reference to a named definition: a global slot or an import member."""

    __slots__ = ("member", "name", "pkgpath", "slot")

    def __init__(self, name: str, slot: int = -1, pkgpath: str = "", member: str = "") -> None:
        self.name = name  # the text as written, e.g. "P" or "k8s.Deployment"
        self.slot = slot  # global slot in the defining package (-1: not local)
        self.pkgpath = pkgpath  # imported package path when the name is `alias.member`
        self.member = member

    def __repr__(self) -> str:
        return self.name


class ParamSpec:
    """A parameter of a lambda, schema or rule."""

    __slots__ = ("has_default", "name", "type")

    def __init__(self, name: str, type: TypeRef | None, has_default: bool) -> None:
        self.name = name
        self.type = type
        self.has_default = has_default


class FunctionProto:
    """A lambda: its parameters and body; defaults are evaluated where it is created."""

    __slots__ = ("code", "name", "nlocals", "params", "return_type")

    def __init__(
        self,
        name: str,
        code: Code,
        params: list[ParamSpec],
        return_type: TypeRef | None,
        nlocals: int,
    ) -> None:
        self.name = name
        self.code = code
        self.params = params
        self.return_type = return_type
        self.nlocals = nlocals


class AttrSpec:
    """A declared schema attribute."""

    __slots__ = ("decorators", "name", "optional", "position", "type")

    def __init__(
        self,
        name: str,
        type: TypeRef | None,
        optional: bool,
        position: tuple[int, int],
        decorators: list[tuple[str, dict[str, Any]]],
    ) -> None:
        self.name = name
        self.type = type
        self.optional = optional
        self.position = position
        self.decorators = decorators


class IndexSignatureSpec:
    """``[key_name: K]: V = default`` of a schema; ``key_slot`` binds the key name."""

    __slots__ = ("any_other", "default", "key_name", "key_slot", "key_type", "value_type")

    def __init__(
        self,
        key_name: str | None,
        key_type: TypeRef | None,
        value_type: TypeRef | None,
        any_other: bool,
        default: Code | None,
        key_slot: int,
    ) -> None:
        self.key_name = key_name
        self.key_type = key_type
        self.value_type = value_type
        self.any_other = any_other
        self.default = default
        self.key_slot = key_slot


class SchemaHeader:
    """What defining a ``schema``, ``mixin``, ``protocol`` or ``rule`` at run time reads:
    its name, kind, package, file and position. A package compiled with its schemas
    deferred holds headers only; the VM asks its :class:`CodeSource` for the whole
    proto the first time it needs more (most schemas of a model library are never
    instantiated by a given program: konfig's stack uses 33 of 387)."""

    __slots__ = ("kind", "name", "path", "pkgpath", "position")

    def __init__(
        self, name: str, kind: str, pkgpath: str, path: str, position: tuple[int, int] = (0, 0)
    ) -> None:
        self.name = name
        self.kind = kind  # schema | mixin | protocol | rule
        self.pkgpath = pkgpath
        self.path = path
        self.position = position

    def __repr__(self) -> str:
        return f"<schema {self.pkgpath}.{self.name}>"


class SchemaProto(SchemaHeader):
    """A compiled ``schema``, ``mixin``, ``protocol`` or ``rule``."""

    __slots__ = (
        "attr_order",
        "attrs",
        "body",
        "checks",
        "constants",
        "decorators",
        "index_signature",
        "mixins",
        "nlocals",
        "param_defaults",
        "params",
        "parent",
        "path_setters",
        "plain_attrs",
        "setters",
    )

    def __init__(self, name: str, kind: str, pkgpath: str, path: str) -> None:
        super().__init__(name, kind, pkgpath, path)
        self.params: list[ParamSpec] = []
        # sets the parameters that were not given to their default values
        self.param_defaults: Code | None = None
        self.parent: NameRef | None = None
        self.mixins: list[NameRef] = []
        self.attrs: list[AttrSpec] = []
        # names assigned in the body without a declaration (output, not configurable)
        self.plain_attrs: list[str] = []
        # declared and assigned names in order of first appearance in the body
        self.attr_order: list[str] = []
        # per attribute: its assignments (``a = v``, ``a: T = v``, ``a += v``, ``a: v``)
        # and, apart, the assignments into its value (``a.b = v``, ``a[0] = v``): the
        # runtime applies the instance's config between the two
        self.setters: dict[str, Code] = {}
        self.path_setters: dict[str, Code] = {}
        # per attribute whose setter only stores a literal (one unconditional
        # ``a = 1``, ``a: int = 1`` or required ``a: "x"``): the literal, stored
        # without running the setter
        self.constants: dict[str, Scalar] = {}
        self.body: Code | None = None
        self.checks: Code | None = None
        self.index_signature: IndexSignatureSpec | None = None
        self.decorators: list[tuple[str, dict[str, Any]]] = []
        self.nlocals = 0

    def __repr__(self) -> str:
        return f"<schema proto {self.pkgpath}.{self.name}>"


if TYPE_CHECKING:  # used in annotations only

    class CodeSource(Protocol):
        """Where the VM gets the body of a schema its code holds the header of (the query
        layer, ``kclpy.pipeline.queries``, hands one to the runner)."""

        def schema(self, header: SchemaHeader) -> SchemaProto:
            """The whole proto of ``header``'s schema; raises ``LookupError`` when the
            program's sources no longer define it as compiled."""
            ...


class NoCodeSource:
    """The code source of a program compiled whole: it holds no header."""

    def schema(self, header: SchemaHeader) -> SchemaProto:
        raise LookupError(f"no source for the schema {header.pkgpath}.{header.name}")


NO_SOURCE: Final = NoCodeSource()


def schema_protos(package: PackageCode) -> Iterator[SchemaHeader]:
    """The schemas, mixins, protocols and rules a package defines (whole, or headers)."""
    for constant in package.constants.values():
        if isinstance(constant, SchemaHeader):
            yield constant
    for codes in package.setters:  # (a schema statement under an ``if``)
        for code in codes:
            for const in code.consts:
                if isinstance(const, SchemaHeader):
                    yield const


def fill_schemas(package: PackageCode, found: Callable[[SchemaHeader], SchemaProto | None]) -> None:
    """Put in place of each header of ``package`` its whole proto when ``found`` has
    it (before a package is stored: an entry holds what its runs compiled)."""
    constants = package.constants
    for slot, constant in constants.items():
        if type(constant) is SchemaHeader:
            whole = found(constant)
            if whole is not None:
                constants[slot] = whole
    for codes in package.setters:
        for code in codes:
            consts = code.consts
            for index, const in enumerate(consts):
                if type(const) is SchemaHeader:
                    whole = found(const)
                    if whole is not None:
                        consts[index] = whole


Scalar: TypeAlias = bool | int | float | str | None
"""The value of a plain literal (``kclpy.syntax.ast.plain_literal``)."""
Constant: TypeAlias = "Scalar | tuple[Scalar, ...] | ConfigConstant | SchemaHeader"
"""A compiled constant: a literal's value, a tuple standing for a list of literals, a
config literal of constants (the VM builds a new list or config of it each run), or
a schema's header or proto (the VM makes its schema type for each package state)."""


class ConfigConstant:
    """A config literal of constants (``{a = 1, "b": "x", c = [1, 2], d = {e = True}}``):
    its entries as (key, constant, operator text: ``=`` or ``:``), distinct keys, each
    constant a literal's value, a tuple for a list of literals or a ConfigConstant."""

    __slots__ = ("entries",)

    def __init__(self, entries: tuple[tuple[str, Constant, str], ...]) -> None:
        self.entries = entries

    def __repr__(self) -> str:
        return "{" + ", ".join(f"{key!r} {op} {value!r}" for key, value, op in self.entries) + "}"


class PackageCode:
    """One compiled package: every file of it shares one namespace of global slots."""

    __slots__ = (
        "body",
        "constants",
        "files",
        "nlocals",
        "output",
        "pkgpath",
        "setters",
        "slot_names",
        "slot_types",
    )

    def __init__(self, pkgpath: str) -> None:
        self.pkgpath = pkgpath
        self.files: list[str] = []
        self.slot_names: list[str] = []
        self.slot_types: list[TypeRef | None] = []
        # per slot, the codes that set it, run in order the first time it is read
        self.setters: list[list[Code]] = []
        # the slots set once, unconditionally, to a constant (no setter codes): a
        # literal's value, a tuple standing for a list of literals, a ConfigConstant
        # (lists and configs: new ones each run), a schema statement's header or proto
        self.constants: dict[int, Constant] = {}
        # per file with anything to run, the top-level walk: forces each variable (the
        # constants excepted), runs the other statements
        self.body: list[Code] = []
        # slots in output order (first definition; a unification at its last statement)
        self.output: list[int] = []
        self.nlocals = 0

    def slot_of(self, name: str) -> int:
        try:
            return self.slot_names.index(name)
        except ValueError:
            return -1
