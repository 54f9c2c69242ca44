"""Compiled code objects: what the compiler hands to the VM (and the cache stores).

Everything here is plain data (ints, strings, tuples, lists and these slots
classes), so a compiled package can be pickled into the module cache.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from functools import partial
from typing import Any, Final, SupportsIndex

# Bumped whenever the encoding of compiled code changes (invalidates the cache).
BYTECODE_VERSION: Final = 7

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


class SchemaProto:
    """A compiled ``schema``, ``mixin``, ``protocol`` or ``rule``."""

    __slots__ = (
        "attr_order",
        "attrs",
        "body",
        "checks",
        "constants",
        "decorators",
        "index_signature",
        "kind",
        "mixins",
        "name",
        "nlocals",
        "param_defaults",
        "params",
        "parent",
        "path",
        "path_setters",
        "pkgpath",
        "plain_attrs",
        "position",
        "setters",
    )

    def __init__(self, name: str, kind: str, pkgpath: str, path: str) -> None:
        self.name = name
        self.kind = kind  # schema | mixin | protocol | rule
        self.pkgpath = pkgpath
        self.path = path
        self.position: tuple[int, int] = (0, 0)
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
        self.constants: dict[str, Any] = {}
        self.body: Code | None = None
        self.checks: Code | None = None
        self.index_signature: IndexSignatureSpec | None = None
        self.decorators: list[tuple[str, dict[str, Any]]] = []
        self.nlocals = 0


_HEADER = frozenset(("name", "kind", "pkgpath", "path", "position"))
_BODY_FIELDS = frozenset(SchemaProto.__slots__) - _HEADER


class PendingSchema(SchemaProto):
    """A ``SchemaProto`` compiled the first time a field beyond its header (name, kind,
    package, file, position) is read: most schemas of a model library are never
    instantiated by a given program (konfig's stack: 33 of 387), and defining one at
    run time reads only its header. ``compile`` returns the whole proto, whose fields
    this one takes. Pickled once compiled, it is a plain ``SchemaProto``; still pending,
    an :class:`AbsentSchema` (a cache entry holds what its run compiled)."""

    __slots__ = ("compile",)

    def __init__(
        self,
        name: str,
        kind: str,
        pkgpath: str,
        path: str,
        position: tuple[int, int],
        compile: Callable[[], SchemaProto],
    ) -> None:
        self.name = name
        self.kind = kind
        self.pkgpath = pkgpath
        self.path = path
        self.position = position
        self.compile: Callable[[], SchemaProto] | None = compile

    def __getattr__(self, field: str) -> Any:
        # called only for a slot not set yet: the first read of a body field
        if self.compile is None or field not in _BODY_FIELDS:
            raise AttributeError(field)
        return getattr(self.filled(), field)

    def filled(self) -> SchemaProto:
        """This schema, its body compiled."""
        compile = self.compile
        if compile is not None:
            whole = compile()
            for field in _BODY_FIELDS:
                setattr(self, field, getattr(whole, field))
            self.compile = None
        return self

    def __reduce_ex__(self, protocol: SupportsIndex) -> Any:
        if self.compile is not None:  # never read: the entry holds its header only
            header = (self.name, self.kind, self.pkgpath, self.path, self.position)
            return AbsentSchema, header
        state = {field: getattr(self, field) for field in SchemaProto.__slots__}
        return SchemaProto, (self.name, self.kind, self.pkgpath, self.path), (None, state)


class AbsentSchema(PendingSchema):
    """A schema a cache entry holds the header of only (the run that stored the entry
    never read its body): compiled from the program's source files, through the
    provider the driver sets for a run from a cache entry (:func:`provide_sources`),
    the first time a field beyond its header is read."""

    __slots__ = ()

    def __init__(
        self, name: str, kind: str, pkgpath: str, path: str, position: tuple[int, int]
    ) -> None:
        super().__init__(name, kind, pkgpath, path, position, partial(_from_source, pkgpath, name))


def _from_source(pkgpath: str, name: str) -> SchemaProto:
    provider: SourceProvider | None = getattr(_sources, "provider", None)
    if provider is None:  # pragma: no cover - a cache entry read outside the driver
        raise LookupError(f"no source for the cached schema {pkgpath}.{name}")
    return provider(pkgpath, name)


SourceProvider = Callable[[str, str], SchemaProto]
"""(package path, schema name) -> the schema's proto, compiled from the program's source."""

_sources = threading.local()


def provide_sources(provider: SourceProvider | None) -> None:
    """The provider of this thread's absent schemas (None: none, a run compiled from
    source holds no absent schema)."""
    _sources.provider = provider


def schema_protos(package: PackageCode) -> Iterator[SchemaProto]:
    """The schemas, mixins, protocols and rules a package defines."""
    for codes in package.setters:
        for code in codes:
            for const in code.consts:
                if isinstance(const, SchemaProto):
                    yield const


class ConfigConstant:
    """A config literal of constants (``{a = 1, "b": "x", c = [1, 2], d = {e = True}}``):
    its entries as (key, constant, operator text: ``=`` or ``:``), distinct keys, each
    constant a literal's value, a tuple for a list of literals or a ConfigConstant."""

    __slots__ = ("entries",)

    def __init__(self, entries: tuple[tuple[str, Any, str], ...]) -> None:
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
        # (lists and configs: new ones each run)
        self.constants: dict[int, Any] = {}
        # per file, the top-level walk: forces each variable, runs the other statements
        self.body: list[Code] = []
        # slots in output order (first definition; a unification at its last statement)
        self.output: list[int] = []
        self.nlocals = 0

    def slot_of(self, name: str) -> int:
        try:
            return self.slot_names.index(name)
        except ValueError:
            return -1
