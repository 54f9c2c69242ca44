"""kclpy.enumeration's classes behave as the enum module's, member for member."""

from __future__ import annotations

import copy
import enum
import pickle
from typing import Any

import pytest

from kclpy.enumeration import Enumeration, IntEnumeration


class Colour(Enumeration):
    RED = ("r", 1)
    GREEN = ("g", 2)
    ALIAS_VALUE = ("r", 1)  # an equal value: Colour(value) is the first member

    @property
    def letter(self) -> str:
        return self.value[0]


class EnumColour(enum.Enum):
    RED = ("r", 1)
    GREEN = ("g", 2)
    ALIAS_VALUE = ("r", 1)

    @property
    def letter(self) -> str:
        return self.value[0]


class Level(IntEnumeration):
    LOW = 1
    HIGH = 2


class EnumLevel(enum.IntEnum):
    LOW = 1
    HIGH = 2


def _views(member: Any) -> tuple[Any, ...]:
    return (member.name, member.value, str(member), format(member), f"{member:>12}")


def test_members_read_and_print_as_enum_members() -> None:
    assert [_views(member) for member in Level] == [_views(member) for member in EnumLevel]
    for ours, theirs in zip(Level, EnumLevel, strict=True):
        assert repr(ours) == repr(theirs).replace("EnumLevel", "Level")
        assert hash(ours) == hash(theirs) and ours == theirs == int(theirs)
    assert repr(Colour.RED) == "<Colour.RED: ('r', 1)>"
    assert (str(Colour.RED), format(Colour.RED)) == ("Colour.RED", "Colour.RED")
    assert hash(Colour.RED) == hash("RED") and Colour.RED.letter == EnumColour.RED.letter == "r"
    assert repr(Colour) == "<enum 'Colour'>"


def test_the_class_looks_members_up_as_enum_classes_do() -> None:
    # (the enum module makes ALIAS_VALUE an alias of RED; here it is a member of its own,
    # and lookups by value find the first member, as there)
    assert [member.name for member in Colour] == ["RED", "GREEN", "ALIAS_VALUE"]
    assert Colour(("g", 2)) is Colour.GREEN and EnumColour(("g", 2)) is EnumColour.GREEN
    assert Colour(("r", 1)) is Colour.RED
    assert Colour["GREEN"] is Colour.GREEN and Level(2) is Level.HIGH
    assert list(Colour.__members__) == ["RED", "GREEN", "ALIAS_VALUE"] and len(Level) == 2
    assert Colour.RED in Colour and Level.LOW not in Colour
    with pytest.raises(ValueError, match=r"^3 is not a valid Level$"):
        Level(3)
    with pytest.raises(ValueError, match=r"^\[\] is not a valid Colour$"):
        Colour([])  # (unhashable)
    with pytest.raises(KeyError):
        Colour["BLUE"]


def test_members_stay_themselves_when_pickled_or_copied() -> None:
    for member in (Colour.GREEN, Level.HIGH):
        assert pickle.loads(pickle.dumps(member)) is member
        assert copy.copy(member) is member and copy.deepcopy([member])[0] is member
    assert sorted([Level.HIGH, Level.LOW]) == [Level.LOW, Level.HIGH] and Level.HIGH > 1


def test_an_enumeration_with_members_cannot_be_extended() -> None:
    with pytest.raises(TypeError, match="cannot be extended"):
        type("More", (Level,), {"EXTRA": 3})
