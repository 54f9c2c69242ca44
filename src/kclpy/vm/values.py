"""Runtime values of KCL programs.

KCL values are plain Python objects wherever Python has the same thing, which keeps
the interpreter and the emitters fast:

========================  ==========================================================
KCL                       Python
========================  ==========================================================
None                      ``None``
Undefined                 :data:`UNDEFINED` (the only :class:`UndefinedType`)
bool / int / float / str  ``bool`` / ``int`` / ``float`` / ``str``
unit literal (``1Ki``)    :class:`NumberMultiplier`
list                      ``list``
dict (config)             ``dict`` (insertion ordered); :class:`Config` when entry
                          operators must be remembered for a later union
schema instance           :class:`SchemaInstance` (a ``dict`` of its attributes, in
                          output order, that knows its schema)
function, schema type,    any other object: never output
module
========================  ==========================================================

Runtime failures raised by builtins and the interpreter are :class:`KclRuntimeError`;
the VM turns them into diagnostics at the failing call site.
"""

from __future__ import annotations

from typing import Any, Final, Protocol, TypeAlias


class UndefinedType:
    """The type of :data:`UNDEFINED`, KCL's "no value" (distinct from None)."""

    __slots__ = ()
    _instance: UndefinedType | None = None

    def __new__(cls) -> UndefinedType:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __bool__(self) -> bool:
        return False

    def __repr__(self) -> str:
        return "Undefined"

    def __reduce__(self) -> str:
        return "UNDEFINED"


UNDEFINED: Final = UndefinedType()

# Operators of config entries, as remembered by Config.ops.
OP_UNION: Final = 0  # key: value
OP_OVERRIDE: Final = 1  # key = value
OP_INSERT: Final = 2  # key += value

UNIT_FACTORS: Final[dict[str, int | float]] = {
    "n": 1e-9,
    "u": 1e-6,
    "m": 1e-3,
    "k": 1_000,
    "K": 1_000,
    "M": 1_000_000,
    "G": 1_000_000_000,
    "T": 1_000_000_000_000,
    "P": 1_000_000_000_000_000,
    "Ki": 1024,
    "Mi": 1024**2,
    "Gi": 1024**3,
    "Ti": 1024**4,
    "Pi": 1024**5,
}


class NumberMultiplier:
    """A unit literal such as ``1Ki``: output as a float, ``str()`` keeps the suffix."""

    __slots__ = ("number", "suffix", "value")

    def __init__(self, number: int | float, suffix: str) -> None:
        self.number = number
        self.suffix = suffix
        self.value: float = float(number * UNIT_FACTORS[suffix])

    def __repr__(self) -> str:
        return f"{self.number}{self.suffix}"

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, NumberMultiplier)
            and self.number == other.number
            and self.suffix == other.suffix
        )

    def __hash__(self) -> int:
        return hash((self.number, self.suffix))


class Config(dict[str, "Value"]):
    """A dict value that remembers the operator of each entry (``:``, ``=``, ``+=``).

    ``ops`` maps a key to its operator only where it is not a plain union.
    """

    __slots__ = ("ops",)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.ops: dict[str, int] = {}


class SchemaLike(Protocol):
    """What values need to know of a schema type (the VM's schema class satisfies it)."""

    @property
    def name(self) -> str: ...

    @property
    def pkgpath(self) -> str: ...


class SchemaInstance(dict[str, "Value"]):
    """An instance of a schema: its attributes in output order.

    ``ops`` keeps the operators of the config entries it was built from (where not
    a union), so that unifying it with another value applies them (``env += [...]``);
    ``config`` is that config, from which a union builds the instance again.
    """

    __slots__ = ("arguments", "config", "ops", "required_checked", "schema")

    def __init__(self, schema: SchemaLike, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.schema = schema
        self.ops: dict[str, int] = {}
        # the config it was built from: a union with it builds the schema again
        self.config: dict[str, Value] | None = None
        # required attributes are checked once the value is final (see vm.schemas)
        self.required_checked = False
        # the schema arguments it was built with (positional, keyword), for rebuilds
        self.arguments: tuple[list[Value], dict[str, Value]] = ([], {})

    @property
    def type_name(self) -> str:
        return self.schema.name

    @property
    def full_type_name(self) -> str:
        pkg = self.schema.pkgpath
        if not pkg or pkg == "__main__":
            return f"__main__.{self.schema.name}"
        return f"{pkg}.{self.schema.name}"


Location = tuple[str, int, int]
"""Where a runtime error happened: (file path, start, end), offsets in code points."""


class KclRuntimeError(Exception):
    """A runtime failure of a KCL program (reported as ``EvaluationError`` by default).

    Raised without a position; the interpreter fills ``location`` at the failing
    instruction and appends a ``stack`` entry in every frame it unwinds through.
    ``api.runtime_diagnostic`` turns the fields into a diagnostic.
    """

    def __init__(self, message: str, kind: str = "EvaluationError") -> None:
        super().__init__(message)
        self.message = message
        self.kind = kind  # the diagnostic kind name (diag.codes.code_for_kind)
        self.location: Location | None = None  # the failing expression (the primary label)
        self.stack: list[Location] = []  # the KCL call sites, innermost first
        self.related: list[tuple[Location | None, str]] = []  # secondary labels
        self.primary_label = ""  # the primary label's text ("" for none)
        self.check_message = ""  # a failed check's own message (runtime.catch gives it)

    def locate(self, where: Location) -> None:
        """Record ``where`` as the failing position (first time) or as a call site."""
        if self.location is None:
            self.location = where
        elif not self.stack or self.stack[-1] != where:
            self.stack.append(where)


class CheckFailure(KclRuntimeError):
    """A failing ``check:`` condition (reported with the instantiation site)."""

    def __init__(self, message: str, check_message: str) -> None:
        super().__init__(message)
        self.check_message = check_message

    def at_instance(self) -> KclRuntimeError:
        """The error of the instantiation: at the caller, this check as a second label."""
        error = KclRuntimeError(self.message)
        error.check_message = self.check_message
        error.related = [(self.location, self.message)]
        error.primary_label = "Instance check failed"
        return error


class KclObject(Protocol):
    """A runtime value that is not data (a function, a schema type, a module)."""

    @property
    def kcl_type_name(self) -> str:
        """What ``typeof`` reports for it."""
        ...


Value: TypeAlias = (
    bool
    | int
    | float
    | str
    | UndefinedType
    | NumberMultiplier
    | list["Value"]
    | dict[str, "Value"]
    | KclObject
    | None
)
"""A KCL runtime value: the data of the table above (``Config`` and ``SchemaInstance``
are dicts) or a non-data object of :mod:`kclpy.vm.objects`."""


def is_data(value: object) -> bool:
    """True for values that can appear in output (everything but functions, types, modules)."""
    return value is None or isinstance(
        value, bool | int | float | str | list | dict | NumberMultiplier | UndefinedType
    )
