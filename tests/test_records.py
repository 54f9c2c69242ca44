"""kclpy.records.Record makes the classes typing.NamedTuple makes, without ForwardRefs."""

from __future__ import annotations

import pickle
import typing

import pytest

from kclpy.records import Record


class Point(Record):
    """A point."""

    x: int
    y: int = 0
    label: str | None = None

    def moved(self, step: int) -> Point:
        return self._replace(x=self.x + step)


class TypedPoint(typing.NamedTuple):
    """A point."""

    x: int
    y: int = 0
    label: str | None = None

    def moved(self, step: int) -> TypedPoint:
        return self._replace(x=self.x + step)


def test_a_record_is_the_namedtuple_typing_makes() -> None:
    for cls in (Point, TypedPoint):
        point = cls(1)
        assert point == (1, 0, None)
        assert cls._fields == ("x", "y", "label")
        assert cls._field_defaults == {"y": 0, "label": None}
        assert cls.__doc__ == "A point."
        assert cls.__module__ == __name__
        assert point.moved(2) == (3, 0, None)
        assert point._asdict() == {"x": 1, "y": 0, "label": None}
        assert pickle.loads(pickle.dumps(point)) == point
        assert isinstance(point, tuple)
    assert repr(Point(1, 2, "a")) == "Point(x=1, y=2, label='a')"
    assert list(Point.__annotations__) == list(TypedPoint.__annotations__)
    assert Point.__annotations__["label"] == "str | None"  # kept as written


def test_a_record_makes_no_forward_reference(monkeypatch: pytest.MonkeyPatch) -> None:
    made: list[str] = []
    monkeypatch.setattr(
        typing.ForwardRef, "__init__", lambda self, *args, **kwargs: made.append(args[0])
    )

    class Pair(Record):
        first: int
        second: str = ""

    assert Pair(1) == (1, "")
    assert made == []


def test_a_field_without_default_after_one_with_is_refused() -> None:
    with pytest.raises(TypeError, match="follows one with a default"):

        class Wrong(Record):
            first: int = 0
            second: int


def test_namedtuple_machinery_is_not_overwritten() -> None:
    with pytest.raises(AttributeError, match="_replace"):

        class Wrong(Record):
            first: int

            def _replace(self) -> None:  # type: ignore[override]
                pass
