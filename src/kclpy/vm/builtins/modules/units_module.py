"""The ``units`` system module: unit constants and ``to_<unit>`` conversions.

Constants: ``n u m`` (floats 1e-9, 1e-6, 0.001), ``k K M G T P`` (powers of 1000) and
``Ki Mi Gi Ti Pi`` (powers of 1024), all plain numbers as in the reference;
``NumberMultiplier`` is the reference's runtime value of the type name (``1.0``).

``to_<unit>(num)`` divides ``num`` by the unit and writes the whole part, truncated
toward zero, followed by the suffix: ``to_K(1500) == "1K"``, ``to_Mi(1024) == "0Mi"``.
The truncation is the reference's behaviour and is kept (these functions produce
integral quantities). Two reference bugs are fixed (``docs/differences-modules.md``):
the division is exact on the number as written, so ``to_n(1) == "1000000000n"``
(the reference prints ``999999999n``), and large results are not clamped to the 64-bit
maximum. A non-finite number is an error (the reference prints ``0K`` for nan).
"""

from __future__ import annotations

from typing import Final

from kclpy.values import Value
from kclpy.values.errors import KclRuntimeError

# Each unit as numerator / denominator.
_FACTORS: Final[dict[str, tuple[int, int]]] = {
    "n": (1, 10**9),
    "u": (1, 10**6),
    "m": (1, 10**3),
    "K": (1000, 1),
    "M": (1000**2, 1),
    "G": (1000**3, 1),
    "T": (1000**4, 1),
    "P": (1000**5, 1),
    "Ki": (1024, 1),
    "Mi": (1024**2, 1),
    "Gi": (1024**3, 1),
    "Ti": (1024**4, 1),
    "Pi": (1024**5, 1),
}


def _convert(num: Value, suffix: str) -> str:
    from fractions import Fraction

    if type(num) is bool or type(num) is int:
        exact = Fraction(int(num))
    elif type(num) is float:
        if num != num or num in (float("inf"), float("-inf")):
            raise KclRuntimeError(f"cannot convert float {num} to integer")
        exact = Fraction(repr(num))
    else:
        text = "None" if num is None else str(num)
        raise KclRuntimeError(f"invalid literal for float() with base 10: '{text}'")
    numerator, denominator = _FACTORS[suffix]
    return f"{int(exact * denominator / numerator)}{suffix}"


def to_n(num: Value) -> str:
    return _convert(num, "n")


def to_u(num: Value) -> str:
    return _convert(num, "u")


def to_m(num: Value) -> str:
    return _convert(num, "m")


def to_K(num: Value) -> str:
    return _convert(num, "K")


def to_M(num: Value) -> str:
    return _convert(num, "M")


def to_G(num: Value) -> str:
    return _convert(num, "G")


def to_T(num: Value) -> str:
    return _convert(num, "T")


def to_P(num: Value) -> str:
    return _convert(num, "P")


def to_Ki(num: Value) -> str:
    return _convert(num, "Ki")


def to_Mi(num: Value) -> str:
    return _convert(num, "Mi")


def to_Gi(num: Value) -> str:
    return _convert(num, "Gi")


def to_Ti(num: Value) -> str:
    return _convert(num, "Ti")


def to_Pi(num: Value) -> str:
    return _convert(num, "Pi")


MEMBERS: Final[dict[str, object]] = {
    "n": 1e-9,
    "u": 1e-6,
    "m": 0.001,
    "k": 1000,
    "K": 1000,
    "M": 1000**2,
    "G": 1000**3,
    "T": 1000**4,
    "P": 1000**5,
    "Ki": 1024,
    "Mi": 1024**2,
    "Gi": 1024**3,
    "Ti": 1024**4,
    "Pi": 1024**5,
    "NumberMultiplier": 1.0,
    "to_n": to_n,
    "to_u": to_u,
    "to_m": to_m,
    "to_K": to_K,
    "to_M": to_M,
    "to_G": to_G,
    "to_T": to_T,
    "to_P": to_P,
    "to_Ki": to_Ki,
    "to_Mi": to_Mi,
    "to_Gi": to_Gi,
    "to_Ti": to_Ti,
    "to_Pi": to_Pi,
}
