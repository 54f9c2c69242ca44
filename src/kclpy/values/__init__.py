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

The run-time errors (:class:`~kclpy.values.errors.KclRuntimeError`) are in
:mod:`kclpy.values.errors`; the text forms of values (YAML, JSON, TOML) in
:mod:`kclpy.values.yaml_writer`, :mod:`~kclpy.values.json_writer`,
:mod:`~kclpy.values.toml_writer`, over :mod:`kclpy.values.scalars`. This package is
below the VM and the emitter: both take values from here and neither is needed to
read or write them.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
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
OPS_BY_TEXT: Final = {":": OP_UNION, "=": OP_OVERRIDE, "+=": OP_INSERT}

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


if TYPE_CHECKING:  # used in annotations only

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


if TYPE_CHECKING:  # used in annotations only

    class KclObject(Protocol):
        """A runtime value that is not data (a function, a schema type, a module)."""

        @property
        def kcl_type_name(self) -> str:
            """What ``typeof`` reports for it."""
            ...


Value: TypeAlias = (
    "bool | int | float | str | UndefinedType | NumberMultiplier"
    " | list[Value] | dict[str, Value] | KclObject | None"
)
"""A KCL runtime value: the data of the table above (``Config`` and ``SchemaInstance``
are dicts) or a non-data object of the VM (:mod:`kclpy.vm.objects`)."""


def is_data(value: object) -> bool:
    """True for values that can appear in output (everything but functions, types, modules)."""
    return value is None or isinstance(
        value, bool | int | float | str | list | dict | NumberMultiplier | UndefinedType
    )
