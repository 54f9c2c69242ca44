"""Enumerations: ``enum.Enum`` and ``enum.IntEnum`` classes without their start-up cost.

``class Code(Enumeration): NAME_ERROR = ("E1001", "NameError")`` makes a class whose
members are made once, in the order of the class body, each an instance of the class
with ``name`` and ``value``; an :class:`IntEnumeration`'s members are also ``int``\\ s.
Type checkers see ``enum.Enum`` and ``enum.IntEnum`` themselves (as
:mod:`kclpy.records` does for ``typing.NamedTuple``). The difference is at import: the
enum machinery checks and wires every member (some 70 k instructions each), and the
command line's enumerations (diagnostic codes, opcodes) have well over a hundred.

What a member does, as an enum member does: ``name``, ``value``; ``repr`` ``<Code.X:
value>``; ``str`` and ``format`` ``Code.X`` (an int member: as its int); hashing by name
(an int member: as its int); identity equality (an int member: as its int); pickling and
copying keep the member itself. The class: iteration and ``len`` in definition order,
``Code["X"]``, ``Code(value)`` (``ValueError`` for an unknown value), ``__members__``.
A member is an attribute of the class body whose name has no leading underscore and
that is not a descriptor (methods and properties stay methods and properties).
"""

from __future__ import annotations

from types import MappingProxyType


def _is_member(key: str, value: Any) -> bool:
    """Whether a class body's attribute is a member (the enum module's rule)."""
    if key.startswith("_"):
        return False
    kind = type(value)
    return not (hasattr(kind, "__get__") or hasattr(kind, "__set__") or hasattr(kind, "__delete__"))


class _EnumerationMeta(type):
    """Makes the members of each class defined on an enumeration base."""

    _member_map_: dict[str, Any]
    _value2member_map_: dict[Any, Any]

    def __new__(cls, name: str, bases: tuple[type, ...], namespace: dict[str, Any]) -> Any:
        members: list[tuple[str, Any]] = []
        body: dict[str, Any] = {}
        for key, value in namespace.items():
            if _is_member(key, value):
                members.append((key, value))
            else:
                body[key] = value
        made: Any = super().__new__(cls, name, bases, body)
        if not any(isinstance(base, _EnumerationMeta) for base in bases):
            return made  # an enumeration base itself (Enumeration, IntEnumeration)
        if any(base.__dict__.get("_member_map_") for base in bases):
            raise TypeError(f"{name}: an enumeration with members cannot be extended")
        by_name: dict[str, Any] = {}
        by_value: dict[Any, Any] = {}
        for key, value in members:
            member = made._make_member(value)
            member._name_ = key
            member._value_ = value
            type.__setattr__(made, key, member)
            by_name[key] = member
            by_value.setdefault(value, member)
        made._member_map_ = by_name
        made._value2member_map_ = by_value
        return made

    def __call__(cls, value: Any) -> Any:
        try:
            return cls._value2member_map_[value]
        except (KeyError, TypeError):
            raise ValueError(f"{value!r} is not a valid {cls.__qualname__}") from None

    def __getitem__(cls, name: str) -> Any:
        return cls._member_map_[name]

    def __iter__(cls) -> Any:
        return iter(cls._member_map_.values())

    def __len__(cls) -> int:
        return len(cls._member_map_)

    def __contains__(cls, member: object) -> bool:
        return isinstance(member, cls)

    @property
    def __members__(cls) -> MappingProxyType[str, Any]:
        return MappingProxyType(cls._member_map_)

    def __repr__(cls) -> str:
        return f"<enum {cls.__name__!r}>"


class _Member:
    """What every member has: its name and value, and staying itself when copied."""

    _name_: str
    _value_: Any

    @classmethod
    def _make_member(cls, value: Any) -> Any:
        return object.__new__(cls)

    @property
    def name(self) -> str:
        return self._name_

    @property
    def value(self) -> Any:
        return self._value_

    def __repr__(self) -> str:
        return f"<{type(self).__name__}.{self._name_}: {self._value_!r}>"

    def __reduce_ex__(self, protocol: Any) -> Any:
        return getattr, (type(self), self._name_)

    def __copy__(self) -> Any:
        return self

    def __deepcopy__(self, memo: Any) -> Any:
        return self


class _Enumeration(_Member, metaclass=_EnumerationMeta):
    """The base of an enumeration class (see the module's docstring)."""

    def __str__(self) -> str:
        return f"{type(self).__name__}.{self._name_}"

    def __format__(self, spec: str) -> str:
        return format(str(self), spec)

    def __hash__(self) -> int:
        return hash(self._name_)


class _IntEnumeration(int, _Member, metaclass=_EnumerationMeta):
    """The base of an enumeration of ints (see the module's docstring)."""

    @classmethod
    def _make_member(cls, value: Any) -> Any:
        return int.__new__(cls, value)

    __repr__ = _Member.__repr__
    __str__ = int.__repr__
    __format__ = int.__format__
    __hash__ = int.__hash__


TYPE_CHECKING = False
if TYPE_CHECKING:
    from enum import Enum as Enumeration
    from enum import IntEnum as IntEnumeration
    from typing import Any
else:
    Enumeration = _Enumeration
    IntEnumeration = _IntEnumeration

__all__ = ["Enumeration", "IntEnumeration"]
