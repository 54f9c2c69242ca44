"""Unary, binary and comparison operators with KCL's runtime semantics.

Integers are 64-bit: results outside the range raise an overflow error, worded as
the reference words it (``9223372036854775808: A 64 bit integer overflow``;
``-9223372036854775808 // -1``: ``attempt to divide with overflow``). Shifts are
64-bit two's-complement shifts as in the reference: ``1 << 63`` is the least int,
``x << 64``, ``x >> 64`` and negative counts are errors. Where the reference wraps
silently (``-x`` and ``abs(x)`` of the least int) or fails on a result that fits
(``-9223372036854775808 % -1`` is 0), kclpy gives the right answer
(docs/differences.md). ``bool`` is not a number here (``True + 1`` is an error,
``1 == True`` is false).
"""

from __future__ import annotations

import math
from collections.abc import Callable

from kclpy.values import UNDEFINED, Value
from kclpy.values.errors import KclRuntimeError
from kclpy.vm.builtins.compare import ORDERING, contains, equal
from kclpy.vm.builtins.convert import truthy
from kclpy.vm.limits import CHECK_ABOVE, check_allocation
from kclpy.vm.typecheck import value_type_name

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Final, TypeGuard

INT_MIN: Final = -(2**63)
INT_MAX: Final = 2**63 - 1
# a binary operator's function: (left, right) -> result
Binary = Callable[[Value, Value], Value]


def _unsupported(op: str, left: Value, right: Value) -> KclRuntimeError:
    return KclRuntimeError(
        f"unsupported operand type(s) for {op}: "
        f"'{value_type_name(left)}' and '{value_type_name(right)}'"
    )


def _check_int(value: int) -> int:
    if value < INT_MIN or value > INT_MAX:
        raise KclRuntimeError(f"{value}: A 64 bit integer overflow")
    return value


def _check_float(value: float) -> float:
    return value


def _is_number(value: Value) -> TypeGuard[int | float]:
    """An int or a float (a bool is not a number here)."""
    kind = type(value)
    return kind is int or kind is float


def add(left: Value, right: Value) -> Value:
    if type(left) is int:
        if type(right) is int:
            result = left + right
            if INT_MIN <= result <= INT_MAX:
                return result
            return _check_int(result)
        if type(right) is float:
            return left + right
    elif type(left) is float:
        if type(right) is float or type(right) is int:
            return left + right
    elif type(left) is str:
        if type(right) is str:
            if len(left) + len(right) > CHECK_ABOVE:  # kclpy.vm.limits: big results only
                check_allocation(len(left) + len(right), 1)
            return left + right
    elif type(left) is list and type(right) is list:
        if len(left) + len(right) > CHECK_ABOVE:
            check_allocation(len(left) + len(right), 8)
        return left + right
    raise _unsupported("+", left, right)


def subtract(left: Value, right: Value) -> Value:
    if type(left) is int and type(right) is int:
        result = left - right
        if INT_MIN <= result <= INT_MAX:
            return result
        return _check_int(result)
    if _is_number(left) and _is_number(right):
        return left - right
    raise _unsupported("-", left, right)


def multiply(left: Value, right: Value) -> Value:
    if type(left) is int:
        if type(right) is int:
            result = left * right
            if INT_MIN <= result <= INT_MAX:
                return result
            return _check_int(result)
        if type(right) is float:
            return left * right
        if type(right) is str or type(right) is list:
            return multiply(right, left)
    elif type(left) is float:
        if type(right) is float or type(right) is int:
            return left * right
    elif type(left) is str:
        if type(right) is int:
            if right < 0:
                raise KclRuntimeError("capacity overflow")
            if len(left) * right > CHECK_ABOVE:
                check_allocation(len(left) * right, 1)
            return left * right
    elif type(left) is list and type(right) is int:
        if len(left) * right > CHECK_ABOVE:
            check_allocation(len(left) * right, 8)
        return left * right
    raise _unsupported("*", left, right)


def divide(left: Value, right: Value) -> Value:
    if _is_number(left) and _is_number(right):
        if right == 0:  # as the reference: IEEE division (inf or nan, output as null)
            return math.nan if left == 0 or left != left else math.copysign(math.inf, left)
        return left / right
    raise _unsupported("/", left, right)


def floor_divide(left: Value, right: Value) -> Value:
    if _is_number(left) and _is_number(right):
        if right == 0:
            raise KclRuntimeError("attempt to divide by zero")
        if right == -1 and left == INT_MIN and type(left) is int and type(right) is int:
            raise KclRuntimeError("attempt to divide with overflow")
        return left // right
    raise _unsupported("//", left, right)


def modulo(left: Value, right: Value) -> Value:
    if type(left) is int and type(right) is int and right:
        return left % right  # |result| < |right|: no overflow
    if _is_number(left) and _is_number(right):
        if right == 0:
            if type(left) is float or type(right) is float:
                return math.nan
            raise KclRuntimeError("attempt to calculate the remainder with a divisor of zero")
        return left % right
    raise _unsupported("%", left, right)


def power(left: Value, right: Value) -> Value:
    if type(left) is int and type(right) is int:
        if right < 0:
            raise KclRuntimeError("0: A 64 bit integer overflow")
        if abs(left) > 1 and right > 64:
            raise KclRuntimeError(f"{left}**{right}: A 64 bit integer overflow")
        return _check_int(left**right)
    if _is_number(left) and _is_number(right):
        try:
            result = float(left) ** right
        except (OverflowError, ZeroDivisionError) as error:
            raise KclRuntimeError(str(error)) from None
        if isinstance(result, complex):
            return math.nan
        return result
    raise _unsupported("**", left, right)


def _int_only(op: str, function: Callable[[int, int], int]) -> Binary:
    def apply(left: Value, right: Value) -> Value:
        if type(left) is int and type(right) is int:
            return _check_int(function(left, right))
        raise _unsupported(op, left, right)

    return apply


def _wrap(value: int, bits: int) -> int:
    """``value`` in ``bits``-bit two's complement."""
    half = 1 << (bits - 1)
    return ((value + half) % (half << 1)) - half


def _shift(op: str, move: Callable[[int, int], int]) -> Binary:
    """A 64-bit shift: counts from 0 to 63, bits shifted out of a ``<<`` are lost (as in
    the reference); another count is an overflow, the reference's message giving the
    value the shift has in 128 bits, the count taken modulo 128."""

    def apply(left: Value, right: Value) -> Value:
        if type(left) is not int or type(right) is not int:
            raise _unsupported(op, left, right)
        if 0 <= right < 64:
            return _wrap(move(left, right), 64)
        shown = _wrap(move(left, right % 128), 128)
        raise KclRuntimeError(f"{shown}: A 64 bit integer overflow")

    return apply


BINARY: Final[dict[str, Binary]] = {
    "+": add,
    "-": subtract,
    "*": multiply,
    "/": divide,
    "//": floor_divide,
    "%": modulo,
    "**": power,
    "<<": _shift("<<", lambda a, b: a << b),
    ">>": _shift(">>", lambda a, b: a >> b),
    "&": _int_only("&", lambda a, b: a & b),
    "^": _int_only("^", lambda a, b: a ^ b),
}


def negate(value: Value) -> Value:
    if type(value) is int:
        return _check_int(-value)
    if type(value) is float:
        return -value
    raise KclRuntimeError(f"bad operand type for unary -: '{value_type_name(value)}'")


def positive(value: Value) -> Value:
    if _is_number(value):
        return value
    raise KclRuntimeError(f"bad operand type for unary +: '{value_type_name(value)}'")


def invert(value: Value) -> Value:
    if type(value) is int:
        return ~value
    if type(value) is bool:
        return ~int(value)
    raise KclRuntimeError(f"bad operand type for unary ~: '{value_type_name(value)}'")


UNARY: Final[dict[str, Callable[[Value], Value]]] = {
    "u-": negate,
    "u+": positive,
    "~": invert,
    "not": lambda value: not truthy(value),
}


def _is(left: Value, right: Value) -> bool:
    if left is None or right is None or left is UNDEFINED or right is UNDEFINED:
        return left is right
    if type(left) is not type(right):
        return False
    if type(left) in (int, float, bool, str):
        return bool(left == right)
    return left is right


COMPARE: Final[dict[str, Callable[[Value, Value], bool]]] = {
    "==": equal,
    "!=": lambda left, right: not equal(left, right),
    "<": ORDERING["<"],
    "<=": ORDERING["<="],
    ">": ORDERING[">"],
    ">=": ORDERING[">="],
    "in": lambda left, right: contains(right, left),
    "not in": lambda left, right: not contains(right, left),
    "is": _is,
    "is not": lambda left, right: not _is(left, right),
}


FLOAT32_MAX: Final = 3.4028234663852886e38
INT32_MIN: Final = -(2**31)
INT32_MAX: Final = 2**31 - 1


def _strict(function: Binary) -> Binary:
    """``-r``: results must fit a 32-bit int or float, as the reference checks them."""

    def apply(left: Value, right: Value) -> Value:
        result = function(left, right)
        if type(result) is int and not INT32_MIN <= result <= INT32_MAX:
            raise KclRuntimeError(f"{result}: A 32 bit integer overflow")
        if type(result) is float and abs(result) > FLOAT32_MAX and result != math.inf:
            raise KclRuntimeError(f"{result}: A 32-bit floating point number overflow")
        return result

    return apply


STRICT_BINARY: Final[dict[str, Binary]] = {
    name: _strict(function) for name, function in BINARY.items()
}
