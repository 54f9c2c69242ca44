"""Static types of the checker: their representation, constructors and names.

A type is an immutable object with a ``flags`` bit set that makes the common
questions (is it an int? a literal? a list?) one ``&`` away. Literal types keep
their value (``int(1)``, ``str(TCP)``); a literal is *widened* to its base type
when it is stored in a variable (see ``relations.widen``). Schema types
(``sema.symbols.SchemaType``) live with the schema definitions they point to.

The lazy parts here (a config literal's key and value unions, a literal key's
widened type) need two operations of ``sema.relations``, which builds on this
module: it hands them over when imported (:func:`install_lattice`), so this module
imports nothing of the checker.

``ty_str`` renders a type the way the reference's messages do (``[int | str]``,
``{str:any}``, ``str(TCP)``, ``number_multiplier(1Ki)``, ``module 'math'``).
"""

from __future__ import annotations

from collections.abc import Callable

TYPE_CHECKING = False
if TYPE_CHECKING:
    from kclpy.source import Span

VOID = 1
INT = 1 << 1
FLOAT = 1 << 2
STR = 1 << 3
BOOL = 1 << 4
ANY_F = 1 << 5
NONE_F = 1 << 6
LIST = 1 << 7
DICT = 1 << 8
SCHEMA = 1 << 9
UNION = 1 << 10
LITERAL = 1 << 11
NUMMUL = 1 << 12
FUNC = 1 << 13
MODULE = 1 << 14

PRIMITIVE = INT | FLOAT | STR | BOOL
NUMBER = INT | FLOAT
ITERABLE = STR | LIST | DICT | SCHEMA


class Type:
    """Base of all static types."""

    __slots__ = ("flags", "skey", "wide")

    def __init__(self, flags: int) -> None:
        self.flags = flags
        self.skey: object = None  # structural key, computed on demand (relations.type_key)
        self.wide: Type | None = None  # the widened type, computed on demand (relations.widen)

    def ty_str(self) -> str:
        """The type as the reference prints it in messages."""
        raise NotImplementedError

    def __repr__(self) -> str:
        return f"<{self.ty_str()}>"


class PrimType(Type):
    """``any``, ``int``, ``float``, ``str``, ``bool``, ``NoneType`` or ``void``."""

    __slots__ = ("name",)

    def __init__(self, flags: int, name: str) -> None:
        super().__init__(flags)
        self.name = name

    def ty_str(self) -> str:
        return self.name


ANY = PrimType(ANY_F, "any")
INT_T = PrimType(INT, "int")
FLOAT_T = PrimType(FLOAT, "float")
STR_T = PrimType(STR, "str")
BOOL_T = PrimType(BOOL, "bool")
NONE = PrimType(NONE_F, "NoneType")
VOID_T = PrimType(VOID, "void")

_BASE_BY_FLAG = {INT: INT_T, FLOAT: FLOAT_T, STR: STR_T, BOOL: BOOL_T}


def float_text(value: float) -> str:
    """A float the way Rust's ``Display`` prints it: no exponent, no trailing ``.0``."""
    if value != value or value in (float("inf"), float("-inf")):
        return "NaN" if value != value else ("inf" if value > 0 else "-inf")
    if value == int(value):
        return str(int(value))
    text = repr(value)
    if "e" in text or "E" in text:
        from decimal import Decimal

        text = format(Decimal(text), "f")
    return text


class LitType(Type):
    """A literal type: ``int(1)``, ``float(1.5)``, ``str(TCP)``, ``bool(True)``."""

    __slots__ = ("value",)

    def __init__(self, base_flag: int, value: int | float | str | bool) -> None:
        # Type.__init__ written out: one literal type per literal walked
        self.flags = base_flag | LITERAL
        self.skey = None
        self.wide = _BASE_BY_FLAG[base_flag]  # (what relations.widen gives a literal)
        self.value = value

    @property
    def base(self) -> PrimType:
        return _BASE_BY_FLAG[self.flags & PRIMITIVE]

    def value_text(self) -> str:
        value = self.value
        if isinstance(value, bool):
            return "True" if value else "False"
        if isinstance(value, float):
            return float_text(value)
        return str(value)

    def ty_str(self) -> str:
        return f"{self.base.name}({self.value_text()})"


class NumMulType(Type):
    """A number-multiplier type: a unit literal ``1Ki`` or ``units.NumberMultiplier``."""

    __slots__ = ("literal", "raw", "suffix")

    def __init__(self, raw: int = 0, suffix: str = "", literal: bool = True) -> None:
        super().__init__(NUMMUL)
        self.raw = raw
        self.suffix = suffix
        self.literal = literal

    def ty_str(self) -> str:
        if self.literal:
            return f"number_multiplier({self.raw}{self.suffix})"
        return "number_multiplier"


NUMMUL_T = NumMulType(literal=False)


class ListType(Type):
    """``[T]``."""

    __slots__ = ("elem",)

    def __init__(self, elem: Type) -> None:
        self.flags = LIST  # (Type.__init__ written out, as in LitType)
        self.skey = None
        self.wide = None
        self.elem = elem

    def ty_str(self) -> str:
        return f"[{self.elem.ty_str()}]"


class DictAttr:
    """The type of one key of a dict literal and where that key is written.

    With ``wide`` False the given type is widened (literals to base types) when first
    read: most literal keys' types (a config's values) are never read."""

    __slots__ = ("_type", "span", "wide")

    def __init__(self, type: Type, span: Span | None, wide: bool = True) -> None:
        self._type = type
        self.span = span
        self.wide = wide

    @property
    def type(self) -> Type:
        if not self.wide:
            self._type = _lattice.widen(self._type)
            self.wide = True
        return self._type


class MergedAttr(DictAttr):
    """A key that several entries of one config literal set (``data: {...}`` again and
    again): its type merges the entries' value types one after the other, as the
    reference does (the ``sup`` of the type so far, widened, and the next value), each
    merge made when first read.

    Most are never read (a literal checked against a schema is judged entry by entry),
    and merging nested config types compares them structurally at every level: it was
    half of checking a schema instance that adds to one attribute block after block.
    ``merged(count)`` is the type after the first ``count`` merges (what the key's
    symbol after that entry has); ``type`` the widened type after all of them. The
    literal's checker adds entries (``add``) until the literal's type is built."""

    __slots__ = ("_first", "_merged", "_values")

    def __init__(self, first: DictAttr, value: Type, span: Span | None) -> None:
        super().__init__(value, span)
        self._first = first  # the key's attribute before the repeats (its type is read lazily)
        self._values = [value]
        self._merged: list[Type] = []  # the merged type after each value, as far as read

    def add(self, value: Type, span: Span | None) -> None:
        """One more entry of the key, written at ``span``."""
        self._values.append(value)
        self.span = span

    @property
    def count(self) -> int:
        """The number of merges (entries after the first)."""
        return len(self._values)

    def merged(self, count: int) -> Type:
        """The merged type, not widened, after the first ``count`` merges (1 or more)."""
        merged = self._merged
        values = self._values
        while len(merged) < count:
            before = _lattice.widen(merged[-1]) if merged else self._first.type
            merged.append(_lattice.sup([before, values[len(merged)]]))
        return merged[count - 1]

    @property
    def type(self) -> Type:
        return _lattice.widen(self.merged(len(self._values)))


class DictType(Type):
    """``{K:V}``; a dict literal also remembers the type of each literal key.

    The type of a config literal (:meth:`of_entries`) computes ``key`` and ``val``, the
    unions of its entries' key and value types, each when it is first read: most are
    never read (a literal checked against a schema is judged by its ``attrs``, and the
    checker's relations decide what its entries decide without them), and the unions
    were a fifth of checking a big config."""

    __slots__ = ("_entries", "_unset", "attrs", "fits", "key", "val")

    def __init__(self, key: Type, val: Type, attrs: dict[str, DictAttr] | None = None) -> None:
        super().__init__(DICT)
        self.key = key
        self.val = val
        self.attrs = attrs
        self._entries: tuple[list[Type], list[Type]] | None = None
        self._unset = 0  # bit 0: ``key`` not computed yet, bit 1: ``val``
        # a dict type this one was checked against and fits with nothing to report (the
        # checker's ``check_type`` of a config literal: an enclosing literal's check
        # meets each nested one again, against the same type)
        self.fits: Type | None = None

    @classmethod
    def of_entries(cls, keys: list[Type], vals: list[Type], attrs: dict[str, DictAttr]) -> DictType:
        """The type of a config literal whose entries have these key and value types."""
        lazy = cls.__new__(cls)
        Type.__init__(lazy, DICT)
        lazy.attrs = attrs
        lazy._entries = (keys, vals)
        lazy._unset = 3
        lazy.fits = None
        return lazy

    def pending_keys(self) -> list[Type] | None:
        """The entries' key types while ``key`` (their union) is not computed yet."""
        return self.pending_part(0)

    def pending_part(self, index: int) -> list[Type] | None:
        """The entries' key (``index`` 0) or value (1) types while their union is not
        computed yet."""
        entries = self._entries
        return entries[index] if entries is not None and self._unset >> index & 1 else None

    def pending_entries(self) -> tuple[list[Type], list[Type]] | None:
        """The entries' key and value types while a union of them is not computed yet."""
        return self._entries

    def __getattr__(self, name: str) -> Type:
        # called only for an unset slot: a union of a config literal's entries, read now
        index = 0 if name == "key" else 1 if name == "val" else -1
        if index < 0:  # (before reading a slot: an unpickled type has none set yet)
            raise AttributeError(name)
        entries = self._entries
        if entries is None:
            raise AttributeError(name)
        union = _lattice.sup(entries[index])
        if index:
            self.val = union
        else:
            self.key = union
        self._unset &= ~(1 << index)
        if not self._unset:
            self._entries = None
        return union

    def ty_str(self) -> str:
        return f"{{{self.key.ty_str()}:{self.val.ty_str()}}}"


class UnionType(Type):
    """``A | B``; built by ``relations.sup`` (which drops subsumed members) or from a type."""

    __slots__ = ("types",)

    def __init__(self, types: tuple[Type, ...]) -> None:
        super().__init__(UNION)
        self.types = types

    def ty_str(self) -> str:
        return " | ".join(t.ty_str() for t in self.types)


class Param:
    """A parameter of a function type."""

    __slots__ = ("has_default", "name", "span", "type")

    def __init__(
        self, name: str, type: Type, has_default: bool = False, span: Span | None = None
    ) -> None:
        self.name = name
        self.type = type
        self.has_default = has_default
        self.span = span


class FuncType(Type):
    """A function: builtins, system-module members, lambdas, ``(A) -> R`` annotations."""

    __slots__ = ("doc", "kw_only", "params", "ret", "variadic")

    def __init__(
        self,
        params: list[Param],
        ret: Type,
        variadic: bool = False,
        doc: str = "",
        kw_only: int | None = None,
    ) -> None:
        super().__init__(FUNC)
        self.params = params
        self.ret = ret
        self.variadic = variadic
        self.doc = doc
        self.kw_only = kw_only

    def ty_str(self) -> str:
        params = ", ".join(p.type.ty_str() for p in self.params)
        return f"({params}) -> {self.ret.ty_str()}"


VARIADIC = FuncType([], ANY, variadic=True)

MODULE_USER = "user"
MODULE_SYSTEM = "system"
MODULE_PLUGIN = "plugin"


class ModuleType(Type):
    """An imported module (``kind`` user, system or plugin)."""

    __slots__ = ("kind", "pkgpath")

    def __init__(self, pkgpath: str, kind: str) -> None:
        super().__init__(MODULE)
        self.pkgpath = pkgpath
        self.kind = kind

    def ty_str(self) -> str:
        return f"module '{self.pkgpath}'"


# --------------------------------------------------------------------------- constructors


def int_lit(value: int) -> LitType:
    return LitType(INT, value)


def float_lit(value: float) -> LitType:
    return LitType(FLOAT, value)


def str_lit(value: str) -> LitType:
    return LitType(STR, value)


def bool_lit(value: bool) -> LitType:
    return LitType(BOOL, value)


LIST_ANY = ListType(ANY)
DICT_ANY = DictType(ANY, ANY)
NUMBER_T = UnionType((INT_T, FLOAT_T))
ITERABLE_T = UnionType((STR_T, DICT_ANY, LIST_ANY))


# --------------------------------------------------------------------------- predicates


def is_primitive(t: Type) -> bool:
    """A non-literal int, float, str or bool."""
    return isinstance(t, PrimType) and bool(t.flags & PRIMITIVE)


def is_key(t: Type) -> bool:
    """A valid dict key type: str, a string literal, or a union of those."""
    if isinstance(t, UnionType):
        return all(is_key(member) for member in t.types)
    return t is STR_T or (isinstance(t, LitType) and bool(t.flags & STR))


def is_assignable_kind(t: Type) -> bool:
    """Whether values of the type can be stored at all (not void or a module)."""
    return not t.flags & (VOID | MODULE)


def members_all(t: Type, flags: int) -> bool:
    """The type, or every member of a union type, has one of ``flags``."""
    if isinstance(t, UnionType):
        return all(member.flags & flags for member in t.types)
    return bool(t.flags & flags)


def config_key_type(t: Type) -> Type:
    if isinstance(t, DictType):
        return t.key
    return STR_T


def _not_installed(_: object) -> Type:
    raise RuntimeError("kclpy.sema.relations was not imported")


class _Lattice:
    """The operations of ``sema.relations`` the lazy types call (see the docstring)."""

    __slots__ = ("sup", "widen")

    def __init__(self) -> None:
        self.widen: Callable[[Type], Type] = _not_installed
        self.sup: Callable[[list[Type]], Type] = _not_installed


_lattice = _Lattice()


def install_lattice(widen: Callable[[Type], Type], sup: Callable[[list[Type]], Type]) -> None:
    """Called once by ``sema.relations``: the widening and the union of types."""
    _lattice.widen = widen
    _lattice.sup = sup
