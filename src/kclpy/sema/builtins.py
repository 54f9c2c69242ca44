"""Types of the builtin functions, string methods, decorators and system modules.

The names, signatures and docs are declared once in :mod:`kclpy.syntax.universe`;
this module reads their small text notation into sema's types:
``name(param: T, optional?: T) -> R``; ``...`` as the last parameter makes the
function variadic (any extra positional or keyword argument is accepted). Types
are ``any int float str bool None number iterable multiplier``, ``[T]``,
``{K:V}``, ``A|B`` and function types ``fn(A,B)->R``. A module member that is not
a function (``units.Ki``) is ``name: T``. The builtin functions are read at import (every
check gives each a symbol), a string method's or decorator's type on its first
look-up (:class:`kclpy.lazy_table.LazyTable`), a system module's members on the
module's first look-up (:func:`module_member_types`).
"""

from __future__ import annotations

from collections.abc import Mapping

from kclpy.lazy_table import LazyTable
from kclpy.sema.types import (
    ANY,
    BOOL_T,
    FLOAT_T,
    INT_T,
    ITERABLE_T,
    NONE,
    NUMBER_T,
    NUMMUL_T,
    STR_T,
    DictType,
    FuncType,
    ListType,
    Param,
    Type,
    UnionType,
)
from kclpy.syntax import universe
from kclpy.syntax.universe import Declaration, read_signature

_NAMED: dict[str, Type] = {
    "any": ANY,
    "int": INT_T,
    "float": FLOAT_T,
    "str": STR_T,
    "bool": BOOL_T,
    "None": NONE,
    "number": NUMBER_T,
    "iterable": ITERABLE_T,
    "multiplier": NUMMUL_T,
}


class _TypeReader:
    """Reads one type of the signature notation."""

    def __init__(self, text: str) -> None:
        self.text = text.replace(" ", "")
        self.pos = 0

    def read(self) -> Type:
        first = self.atom()
        members = [first]
        while self.peek("|"):
            self.pos += 1
            members.append(self.atom())
        return members[0] if len(members) == 1 else UnionType(tuple(members))

    def peek(self, char: str) -> bool:
        return self.text.startswith(char, self.pos)

    def expect(self, char: str) -> None:
        if not self.peek(char):
            raise ValueError(f"bad signature type {self.text!r} at {self.pos}")
        self.pos += len(char)

    def atom(self) -> Type:
        if self.peek("["):
            self.pos += 1
            elem = self.read()
            self.expect("]")
            return ListType(elem)
        if self.peek("{"):
            self.pos += 1
            key = self.read()
            self.expect(":")
            val = self.read()
            self.expect("}")
            return DictType(key, val)
        if self.peek("fn("):
            self.pos += 3
            params: list[Param] = []
            while not self.peek(")"):
                params.append(Param(f"arg{len(params)}", self.read()))
                if self.peek(","):
                    self.pos += 1
            self.expect(")->")
            return FuncType(params, self.read())
        start = self.pos
        while self.pos < len(self.text) and (self.text[self.pos].isalnum()):
            self.pos += 1
        return _NAMED[self.text[start : self.pos]]


def parse_type(text: str) -> Type:
    return _TypeReader(text).read()


def parse_signature(line: str) -> tuple[str, Type]:
    """``name(p: T, q?: T, ...) -> R`` (a function) or ``name: T`` (a value)."""
    line = line.strip()
    if "(" not in line.split(":", 1)[0]:
        name, _, type_text = line.partition(":")
        return name.strip(), parse_type(type_text)
    name, _, rest = line.partition("(")
    declared, variadic, result = read_signature("(" + rest)
    params = [Param(p.name, parse_type(p.type_text), p.optional) for p in declared]
    ret = parse_type(result) if result else ANY
    return name.strip(), FuncType(params, ret, variadic)


def _type_of(name: str, declaration: Declaration) -> Type:
    """The type of a declaration; a function's type carries its doc."""
    kind = parse_signature(name + declaration.signature)[1]
    if isinstance(kind, FuncType):
        kind.doc = declaration.doc
    return kind


def _types(declarations: Mapping[str, Declaration]) -> dict[str, Type]:
    """The type of each declaration."""
    return {name: _type_of(name, declaration) for name, declaration in declarations.items()}


def _type_table(declarations: Mapping[str, Declaration]) -> LazyTable[Type]:
    """The types of a table of declarations, each read from its signature when first
    looked up (a check reads few string methods; reading them all was a tenth of
    importing the checker)."""
    return LazyTable(declarations, lambda name: _type_of(name, declarations[name]))


BUILTIN_FUNCTIONS = _types(universe.builtin_functions())  # (every check reads them all)
STRING_METHODS = _type_table(universe.string_methods())
DECORATORS = _type_table(universe.decorators())
SCHEMA_MEMBER_FUNCTIONS = _type_table(universe.schema_member_functions())

_module_types: dict[str, dict[str, Type]] = {}


def module_member_types(module: str) -> dict[str, Type] | None:
    """The type of each member of system module ``module``, or None for another name."""
    table = _module_types.get(module)
    if table is None:
        if module not in universe.SYSTEM_MODULES:
            return None
        table = _module_types[module] = _types(universe.module_members(module))
    return table
