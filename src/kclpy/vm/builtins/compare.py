"""Equality, ordering and membership with KCL's runtime semantics.

Takes runtime values (see :mod:`kclpy.values`) and returns ``bool`` / ``int``;
raises :class:`~kclpy.values.errors.KclRuntimeError` with the reference's messages.

Equality (``==``, list membership, ``isunique``):

* ``bool`` is not a number: ``1 == True`` is false, while ``1 == 1.0`` is true;
* ``None`` and ``Undefined`` only equal themselves;
* lists compare item by item, dicts by their key sets and values (order does not
  matter); schema instances compare their attributes, whatever their schema, and
  never equal a plain dict;
* a unit value (``1Ki``) equals nothing, not even itself (the reference's rule);
* other objects (functions, schema types) use Python ``==`` (identity unless the
  class defines ``__eq__``).

Ordering (``<`` ``<=`` ``>`` ``>=``, ``max``, ``min``): numbers (bools count as 0 and
1), strings by code point, and lists lexicographically; anything else is
``'<' not supported between instances of 'X' and 'Y'``. ``sorted`` is stricter
(:func:`sort_compare`): only int/float and str/str pairs, else
``cannot compare X and Y``.
"""

from __future__ import annotations

from collections.abc import Callable

from kclpy.values import UNDEFINED, NumberMultiplier, SchemaInstance, Value
from kclpy.values.errors import KclRuntimeError
from kclpy.vm.builtins.convert import type_name

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Final

_SCALARS: Final = frozenset({str, int, float, bool})
_NUMBERS: Final = (int, float)  # for isinstance: bools count as numbers


def equal(left: Value, right: Value) -> bool:
    """KCL ``==``."""
    kind = type(left)
    if kind is type(right):
        if kind in _SCALARS:
            return bool(left == right)
        if type(left) is list and type(right) is list:
            return _list_equal(left, right)
        if left is None or left is UNDEFINED:
            return True
        if isinstance(left, dict) and isinstance(right, dict):
            return _dict_equal(left, right)
        if kind is NumberMultiplier:
            return False
        return bool(left == right)
    if (kind is int and type(right) is float) or (kind is float and type(right) is int):
        return bool(left == right)
    if isinstance(left, dict) and isinstance(right, dict):
        if isinstance(left, SchemaInstance) or isinstance(right, SchemaInstance):
            return False
        return _dict_equal(left, right)
    return False


def not_equal(left: Value, right: Value) -> bool:
    """KCL ``!=``."""
    return not equal(left, right)


def _list_equal(left: list[Value], right: list[Value]) -> bool:
    if len(left) != len(right):
        return False
    return all(equal(item, other) for item, other in zip(left, right, strict=True))


def _dict_equal(left: dict[str, Value], right: dict[str, Value]) -> bool:
    if len(left) != len(right):
        return False
    for key, item in left.items():
        try:
            other = right[key]
        except KeyError:
            return False
        if not equal(item, other):
            return False
    return True


def _order(left: Value, right: Value, op: str) -> int | None:
    """-1, 0 or 1; None when unordered (NaN). Raises for types without an order."""
    if isinstance(left, _NUMBERS) and isinstance(right, _NUMBERS):
        if left < right:
            return -1
        if left > right:
            return 1
        return 0 if left == right else None
    if type(left) is str and type(right) is str:
        return (left > right) - (left < right)
    if type(left) is list and type(right) is list:
        for item, other in zip(left, right, strict=False):
            if not equal(item, other):
                return _order(item, other, op)
        return (len(left) > len(right)) - (len(left) < len(right))
    raise KclRuntimeError(
        f"'{op}' not supported between instances of '{type_name(left)}' and '{type_name(right)}'"
    )


def less(left: Value, right: Value) -> bool:
    """KCL ``<``."""
    if type(left) is int and type(right) is int:
        return left < right
    order = _order(left, right, "<")
    return order is not None and order < 0


def less_equal(left: Value, right: Value) -> bool:
    """KCL ``<=``."""
    if type(left) is int and type(right) is int:
        return left <= right
    order = _order(left, right, "<=")
    return order is not None and order <= 0


def greater(left: Value, right: Value) -> bool:
    """KCL ``>``."""
    if type(left) is int and type(right) is int:
        return left > right
    order = _order(left, right, ">")
    return order is not None and order > 0


def greater_equal(left: Value, right: Value) -> bool:
    """KCL ``>=``."""
    if type(left) is int and type(right) is int:
        return left >= right
    order = _order(left, right, ">=")
    return order is not None and order >= 0


ORDERING: Final[dict[str, Callable[[Value, Value], bool]]] = {
    "<": less,
    "<=": less_equal,
    ">": greater,
    ">=": greater_equal,
}


def compare(left: Value, right: Value, op: str | None = None) -> int:
    """-1, 0 or 1. With ``op`` (``"<"``...) the operator's rules and error message apply;
    without, the stricter rules of ``sorted`` (:func:`sort_compare`).

    NaN compares as 0 here; use :data:`ORDERING` when NaN must be unordered.
    """
    if op is None:
        return sort_compare(left, right)
    order = _order(left, right, op)
    return 0 if order is None else order


def sort_compare(left: Value, right: Value) -> int:
    """The comparison ``sorted`` uses: int/float pairs and str pairs only."""
    if (type(left) is int or type(left) is float) and (type(right) is int or type(right) is float):
        return (left > right) - (left < right)
    if type(left) is str and type(right) is str:
        return (left > right) - (left < right)
    raise KclRuntimeError(f"cannot compare {type_name(left)} and {type_name(right)}")


def contains(container: Value, item: Value) -> bool:
    """KCL ``item in container``: list items by ``==``, dict keys, schema attributes,
    substrings."""
    if type(container) is list:
        item_kind = type(item)
        if item_kind is str:
            return item in container
        if item_kind is int or item_kind is float:
            for element in container:
                if element == item and (type(element) is int or type(element) is float):
                    return True
            return False
        return any(equal(element, item) for element in container)
    if type(container) is str:
        return type(item) is str and item in container
    if isinstance(container, dict):
        return type(item) is str and item in container
    raise KclRuntimeError(f"TypeError: argument of type '{type_name(container)}' is not iterable")
