"""Values as the reference importer (kcl-openapi) writes them in KCL.

``go_number(n)`` is a number as Go prints a float64 (``%v``): integral values
without a point, an exponent from 1e+06 and below 1e-04
(``2.147483647e+09``). ``reference_literal(value)`` is a default or enum
value (``{"key": value}`` for mappings; strings escaped so the KCL stays valid).
``regex_literal(pattern)`` is a raw string when one can hold the pattern.
``truthy(value)`` is Go templates' truth (``false``, ``0``, ``""``, empty
collections and null are false). ``RESERVED`` are the words the reference
prefixes with ``$``.
"""

from __future__ import annotations

import math
from decimal import Decimal
from typing import Any

from kclpy.tools.importer.literals import NotRepresentable, string_literal

RESERVED = frozenset(
    [
        "import",
        "as",
        "rule",
        "schema",
        "mixin",
        "protocol",
        "relaxed",
        "check",
        "for",
        "assert",
        "if",
        "elif",
        "else",
        "or",
        "and",
        "not",
        "in",
        "is",
        "final",
        "lambda",
        "all",
        "filter",
        "map",
        "type",
    ]
)


def go_number(value: int | float) -> str:
    """``value`` as Go's ``%v`` prints it as a float64 (the shortest digits; an
    exponent when it is below -4 or from 6 up)."""
    number = float(value)
    if not math.isfinite(number):
        raise NotRepresentable(f"KCL has no literal for the number {value}")
    if number == 0:
        return "0"
    _, digit_tuple, exponent = Decimal(repr(abs(number))).normalize().as_tuple()
    digits = "".join(map(str, digit_tuple))
    point = len(digits) + int(exponent) - 1  # the decimal exponent of the first digit
    sign_text = "-" if number < 0 else ""
    if point < -4 or point >= 6:
        mantissa = digits[0] + ("." + digits[1:] if len(digits) > 1 else "")
        return f"{sign_text}{mantissa}e{'-' if point < 0 else '+'}{abs(point):02d}"
    if point >= len(digits) - 1:
        return sign_text + digits + "0" * (point - len(digits) + 1)
    if point >= 0:
        return sign_text + digits[: point + 1] + "." + digits[point + 1 :]
    return sign_text + "0." + "0" * (-point - 1) + digits


def reference_literal(value: Any) -> str:
    """A default or enum value as the reference writes it."""
    if value is None:
        return "None"
    if isinstance(value, bool):
        return "True" if value else "False"
    if isinstance(value, int | float):
        return go_number(value)
    if isinstance(value, str):
        return string_literal(value)
    if isinstance(value, list | tuple):
        return "[" + ", ".join(reference_literal(item) for item in value) + "]"
    if isinstance(value, dict):
        items = (f"{string_literal(str(k))}: {reference_literal(v)}" for k, v in value.items())
        return "{" + ", ".join(items) + "}"
    return string_literal(str(value))


def regex_literal(pattern: str) -> str:
    """A pattern as a KCL string: raw (``r"..."``) when it can be one."""
    if '"' in pattern or "\n" in pattern or "\r" in pattern or pattern.endswith("\\"):
        return string_literal(pattern)
    return f'r"{pattern}"'


def truthy(value: Any) -> bool:
    """Whether a Go template's ``if`` takes ``value`` as true."""
    return value not in (None, False, 0, "") and value != [] and value != {}
