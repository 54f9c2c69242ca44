"""Record classes: ``typing.NamedTuple`` without its start-up cost.

``class Pos(Record): line: int; col: int`` makes the same class as ``typing.NamedTuple``
would (a ``collections.namedtuple`` with the class body's defaults, docstring and
methods), and type checkers see ``typing.NamedTuple`` itself. The difference is at
import: ``typing.NamedTuple`` checks every field's annotation, and with postponed
annotations (``from __future__ import annotations``, used throughout kclpy) each one is
a string that becomes a ``typing.ForwardRef``, compiled by ``compile()``. The first
``compile()`` of a process also builds the ``ast`` module's classes: about 10 M
instructions, plus some 0.5 M per record, paid by every ``kcl`` command at start-up
for annotations nothing reads. Records keep the annotations as written (strings).
"""

from __future__ import annotations

import collections

# what typing.NamedTuple refuses in a class body, and what it does not copy
_PROHIBITED = frozenset(
    {
        "__new__",
        "__init__",
        "__slots__",
        "__getnewargs__",
        "_fields",
        "_field_defaults",
        "_make",
        "_replace",
        "_asdict",
        "_source",
    }
)
_SPECIAL = frozenset({"__module__", "__name__", "__annotations__"})
_NAMEDTUPLE: Any = collections.namedtuple  # (called with names only known at run time)


class _RecordMeta(type):
    """Makes each class defined on :class:`Record` a ``collections.namedtuple``."""

    def __new__(
        cls, name: str, bases: tuple[type, ...], namespace: dict[str, Any]
    ) -> Any:  # a namedtuple class, not an instance of this metaclass
        if not bases:  # Record itself
            return super().__new__(cls, name, bases, namespace)
        if bases != (Record,):
            raise TypeError("a record derives from Record alone")
        annotations: dict[str, Any] = namespace.get("__annotations__", {})
        defaults = [namespace[field] for field in annotations if field in namespace]
        given = [field for field in annotations if field in namespace]
        if given and list(annotations)[-len(given) :] != given:
            raise TypeError(f"a field without a default follows one with a default in {name}")
        record = _NAMEDTUPLE(
            name, list(annotations), defaults=defaults, module=namespace["__module__"]
        )
        record.__annotations__ = record.__new__.__annotations__ = dict(annotations)
        for key, value in namespace.items():
            if key in _PROHIBITED:
                raise AttributeError("Cannot overwrite NamedTuple attribute " + key)
            if key not in _SPECIAL and key not in record._fields:
                setattr(record, key, value)
        return record


TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any
    from typing import NamedTuple as Record
else:

    class Record(metaclass=_RecordMeta):
        """The base of a record class (see the module's docstring)."""


__all__ = ["Record"]
