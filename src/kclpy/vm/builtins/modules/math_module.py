"""The ``math`` system module: numeric functions on ``int`` and ``float``.

Results follow IEEE arithmetic like the reference: ``sqrt(-1)`` is nan, ``exp(1000)``
is inf, ``log(0)`` is -inf (Python's ``math`` would raise instead). ``ceil``, ``floor``
and ``gcd`` return ints; ``factorial`` keeps the argument's type; ``pow`` of two ints
with a non-negative exponent is an int.

Deliberate differences from the reference (see ``docs/differences-modules.md``):

* ``log(x, base)`` and ``log2(x)`` always return the correct float; the reference
  truncates to an int when ``x`` is an int and then ignores an int base
  (``math.log(100, 10) == 4``, ``math.log2(10) == 3``).
* ``log1p(x)`` is ``ln(1 + x)``; the reference computes ``ln(2 + x)``.
* ``pow``, ``ceil`` and ``floor`` raise the 64-bit overflow error instead of wrapping
  (``math.pow(2, 64) == 0``) or saturating (``math.ceil(1e30)``).

There are no constants (``math.pi`` does not exist in the reference either).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Final

from kclpy.values import Value
from kclpy.values.errors import KclRuntimeError
from kclpy.vm.builtins.marks import Fail, on_mismatch

INT_MIN: Final = -(2**63)
INT_MAX: Final = 2**63 - 1

Number = int | float


# an argument that is not an int or a float (the adapter's check): the reference's words
_NUMBERS: Final = on_mismatch(Fail("{function}() takes exactly one argument (0 given)"))


def _check_int(value: int) -> int:
    if value < INT_MIN or value > INT_MAX:
        raise KclRuntimeError(f"{value}: A 64 bit integer overflow")
    return value


def _to_int(value: float, rounding: Callable[[float], int]) -> int:
    if math.isinf(value) or math.isnan(value):
        raise KclRuntimeError(f"cannot convert float {value} to integer")
    return _check_int(rounding(value))


def _divide(numerator: float, denominator: float) -> float:
    """IEEE division (Python raises on a zero denominator)."""
    if denominator == 0.0:
        if numerator == 0.0 or math.isnan(numerator):
            return math.nan
        negative = (numerator < 0) != (math.copysign(1.0, denominator) < 0)
        return -math.inf if negative else math.inf
    return numerator / denominator


def _ln(value: float, log: Callable[[float], float] = math.log) -> float:
    if math.isnan(value) or value < 0:
        return math.nan
    if value == 0:
        return -math.inf
    return log(value)


@_NUMBERS
def ceil(x: int | float) -> int:
    return x if isinstance(x, int) else _to_int(x, math.ceil)


@_NUMBERS
def floor(x: int | float) -> int:
    return x if isinstance(x, int) else _to_int(x, math.floor)


def factorial(x: Value) -> Number:
    if type(x) is int:
        if x < 0:
            raise KclRuntimeError("factorial() only accepts integral values")
        result = math.factorial(x)
        if result > INT_MAX:
            raise KclRuntimeError("factorial() result overflow")
        return result
    if type(x) is float and x >= 0 and x.is_integer():
        if x > 170:
            raise KclRuntimeError("factorial() result overflow")
        return float(math.factorial(int(x)))
    raise KclRuntimeError("factorial() only accepts integral values")


@on_mismatch(Fail("gcd() takes exactly two arguments (2 given)"))
def gcd(a: int, b: int) -> int:
    result = math.gcd(a, b)
    if result > INT_MAX:  # gcd(-2**63, 0): the reference wraps it to -2**63
        raise KclRuntimeError(f"{result}: A 64 bit integer overflow")
    return result


@_NUMBERS
def isfinite(x: int | float) -> bool:
    return math.isfinite(x)


@_NUMBERS
def isinf(x: int | float) -> bool:
    return math.isinf(x)


@_NUMBERS
def isnan(x: int | float) -> bool:
    return math.isnan(x)


@_NUMBERS
def modf(x: int | float) -> list[float]:
    fraction, whole = math.modf(x)
    return [fraction, whole]


@_NUMBERS
def exp(x: int | float) -> float:
    value = float(x)
    try:
        return math.exp(value)
    except OverflowError:
        return math.inf


@_NUMBERS
def expm1(x: int | float) -> float:
    value = float(x)
    try:
        return math.expm1(value)
    except OverflowError:
        return math.inf


@_NUMBERS
def log1p(x: int | float) -> float:
    value = float(x)
    if value == -1.0:
        return -math.inf
    if value < -1.0 or math.isnan(value):
        return math.nan
    return math.log1p(value)


@_NUMBERS
def sqrt(x: int | float) -> float:
    value = float(x)
    return math.nan if value < 0 or math.isnan(value) else math.sqrt(value)


@_NUMBERS
def log(x: int | float, e: int | float = math.e) -> float:
    value = float(x)
    base = float(e)
    if base == math.e:
        return _ln(value)
    return _divide(_ln(value), _ln(base))


@_NUMBERS
def log2(x: int | float) -> float:
    return _ln(float(x), math.log2)


@_NUMBERS
def log10(x: int | float) -> float:
    return _ln(float(x), math.log10)


@_NUMBERS
def pow(x: int | float, y: int | float) -> Number:
    base, exponent = x, y
    if type(base) is int and type(exponent) is int and exponent >= 0:
        if abs(base) > 1 and exponent > 64:
            raise KclRuntimeError(f"{base}**{exponent}: A 64 bit integer overflow")
        return _check_int(base**exponent)
    try:
        return math.pow(base, exponent)
    except OverflowError:
        odd = float(exponent).is_integer() and int(exponent) % 2 == 1
        return -math.inf if base < 0 and odd else math.inf
    except ValueError:
        if base == 0:
            odd = float(exponent).is_integer() and int(exponent) % 2 == 1
            return -math.inf if odd and math.copysign(1.0, base) < 0 else math.inf
        return math.nan


MEMBERS: Final[dict[str, object]] = {
    "ceil": ceil,
    "factorial": factorial,
    "floor": floor,
    "gcd": gcd,
    "isfinite": isfinite,
    "isinf": isinf,
    "isnan": isnan,
    "modf": modf,
    "exp": exp,
    "expm1": expm1,
    "log1p": log1p,
    "log": log,
    "log2": log2,
    "log10": log10,
    "pow": pow,
    "sqrt": sqrt,
}
