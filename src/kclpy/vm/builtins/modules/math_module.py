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
from typing import Any, Final

from kclpy.values.errors import KclRuntimeError

INT_MIN: Final = -(2**63)
INT_MAX: Final = 2**63 - 1

Number = int | float


def _number(function: str, value: Any, count: str = "one argument") -> Number:
    kind = type(value)
    if kind is int or kind is float:
        return value  # type: ignore[no-any-return]
    raise KclRuntimeError(f"{function}() takes exactly {count} (0 given)")


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


def ceil(x: Any) -> int:
    value = _number("ceil", x)
    return value if isinstance(value, int) else _to_int(value, math.ceil)


def floor(x: Any) -> int:
    value = _number("floor", x)
    return value if isinstance(value, int) else _to_int(value, math.floor)


def factorial(x: Any) -> Number:
    kind = type(x)
    if kind is int:
        if x < 0:
            raise KclRuntimeError("factorial() only accepts integral values")
        result = math.factorial(x)
        if result > INT_MAX:
            raise KclRuntimeError("factorial() result overflow")
        return result
    if kind is float and x >= 0 and x.is_integer():
        if x > 170:
            raise KclRuntimeError("factorial() result overflow")
        return float(math.factorial(int(x)))
    raise KclRuntimeError("factorial() only accepts integral values")


def gcd(a: Any, b: Any) -> int:
    if type(a) is not int or type(b) is not int:
        raise KclRuntimeError("gcd() takes exactly two arguments (2 given)")
    result = math.gcd(a, b)
    if result > INT_MAX:  # gcd(-2**63, 0): the reference wraps it to -2**63
        raise KclRuntimeError(f"{result}: A 64 bit integer overflow")
    return result


def isfinite(x: Any) -> bool:
    return math.isfinite(_number("isfinite", x))


def isinf(x: Any) -> bool:
    return math.isinf(_number("isinf", x))


def isnan(x: Any) -> bool:
    return math.isnan(_number("isnan", x))


def modf(x: Any) -> list[float]:
    fraction, whole = math.modf(_number("modf", x))
    return [fraction, whole]


def exp(x: Any) -> float:
    value = float(_number("exp", x))
    try:
        return math.exp(value)
    except OverflowError:
        return math.inf


def expm1(x: Any) -> float:
    value = float(_number("expm1", x))
    try:
        return math.expm1(value)
    except OverflowError:
        return math.inf


def log1p(x: Any) -> float:
    value = float(_number("log1p", x))
    if value == -1.0:
        return -math.inf
    if value < -1.0 or math.isnan(value):
        return math.nan
    return math.log1p(value)


def sqrt(x: Any) -> float:
    value = float(_number("sqrt", x))
    return math.nan if value < 0 or math.isnan(value) else math.sqrt(value)


def log(x: Any, e: Any = math.e) -> float:
    value = float(_number("log", x))
    base = float(_number("log", e))
    if base == math.e:
        return _ln(value)
    return _divide(_ln(value), _ln(base))


def log2(x: Any) -> float:
    return _ln(float(_number("log2", x)), math.log2)


def log10(x: Any) -> float:
    return _ln(float(_number("log10", x)), math.log10)


def pow(x: Any, y: Any) -> Number:
    base = _number("pow", x)
    exponent = _number("pow", y)
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


MEMBERS: Final[dict[str, Any]] = {
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
