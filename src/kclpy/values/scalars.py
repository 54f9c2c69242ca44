"""Scalars to text, and what every writer of values (YAML, JSON, TOML) shares.

The writers (:mod:`kclpy.values.yaml_writer`, :mod:`kclpy.values.json_writer`,
:mod:`kclpy.values.toml_writer`) write runtime values exactly as the reference KCL
does, for program output (:mod:`kclpy.emit`) and for the system modules ``yaml``,
``json``, ``toml`` and ``manifests``. Takes the values of :mod:`kclpy.values`;
returns ``str``.

Common rules for every writer:

* Undefined, functions, schema types and modules are omitted, whether they are dict
  values or list elements.
* Schema instances are written as dicts, in their stored (output) order.
* ``sort_keys`` sorts the keys of every dict (code-point order);
  ``ignore_private`` drops keys starting with ``_`` at every depth; ``ignore_none``
  drops None at every depth, list elements included.
* A unit value (:class:`~kclpy.values.NumberMultiplier`) is written as its float
  value. inf and nan are written as ``null``.

Floats (:func:`format_float`): shortest round-trip digits; ``.0`` on integral values;
exponent form when the decimal exponent is < -5 or >= 16 (``1e16``, ``1e-6``,
``0.00001``); JSON writes positive exponents with ``+`` (``1e+16``).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable

from kclpy.values import NumberMultiplier

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Final

# ---------------------------------------------------------------------------------------
# Floats

_INF: Final = math.inf


def format_float(x: float) -> str:
    """A float as YAML prints it: ``1.0``, ``0.00001``, ``1e16``, ``1e-6``; inf/nan ``null``.

    The reference writes YAML from its own JSON text, read back with a fast float
    parser that can be one unit in the last place off; the value printed is that
    re-read value (``9.044889105823875e19`` prints as ``9.044889105823877e19``).
    """
    if x != x or x == _INF or x == -_INF:
        return "null"
    text = repr(x)
    if len(text) > 16 or "e" in text:
        reread = _reread(text)
        if reread is None:
            return "null"
        if reread != x:
            text = repr(reread)
    mark = text.find("e")
    if mark < 0:
        return text
    exponent = int(text[mark + 1 :])
    if exponent == -5:
        return _positional_e5(text[:mark])
    return f"{text[:mark]}e{exponent}"


def _reread(text: str) -> float | None:
    """The float a fast JSON parser reads from the shortest digits ``text``."""
    mark = text.find("e")
    if mark < 0:
        mantissa = text
        exponent = 0
    else:
        mantissa = text[:mark]
        exponent = int(text[mark + 1 :])
    point = mantissa.find(".")
    if point >= 0:
        digits = mantissa[:point] + mantissa[point + 1 :]
        exponent -= len(mantissa) - point - 1
    else:
        digits = mantissa
    significand = int(digits)
    negative = significand < 0 or mantissa[0] == "-"
    significand = abs(significand)
    if significand <= _EXACT_LIMIT and -22 <= exponent <= 22:
        powers = _POW10 or _powers_of_ten()
        value: float | None = (
            float(significand) * powers[exponent]
            if exponent >= 0
            else (float(significand) / powers[-exponent])
        )
    else:
        value = _fast_parse(significand, exponent)
    if value is None:
        return None
    return -value if negative else value


_EXACT_LIMIT: Final = 2**53
_POW10: tuple[float, ...] = ()  # float("1e<n>") for n in 0..308, made on first use


def _powers_of_ten() -> tuple[float, ...]:
    """:data:`_POW10`, made on the first call (309 float parses a run printing no
    float does without)."""
    global _POW10
    if not _POW10:
        _POW10 = tuple(float(f"1e{power}") for power in range(309))
    return _POW10


def _fast_parse(significand: int, exponent: int) -> float | None:
    """``significand * 10**exponent`` as a fast JSON float parser computes it: the
    significand rounded to a float, then one multiplication or division by a power of
    ten (in steps of 1e308 below 1e-308). None when the result overflows."""
    value = float(significand)
    powers = _POW10 or _powers_of_ten()
    while True:
        if -308 <= exponent <= 308:
            if exponent >= 0:
                value *= powers[exponent]
                return None if value == _INF else value
            return value / powers[-exponent]
        if value == 0.0:
            return value
        if exponent > 0:
            return None
        value /= 1e308
        exponent += 308


def format_json_float(x: float) -> str:
    """A float as JSON prints it: like :func:`format_float` with ``e+`` for big values."""
    if x != x or x == _INF or x == -_INF:
        return "null"
    text = repr(x)
    mark = text.find("e")
    if mark < 0:
        return text
    exponent = int(text[mark + 1 :])
    mantissa = text[:mark]
    if exponent == -5:
        return _positional_e5(mantissa)
    if exponent > 0:
        return f"{mantissa}e+{exponent}"
    return f"{mantissa}e{exponent}"


def _positional_e5(mantissa: str) -> str:
    """``1.234`` (of ``1.234e-05``) as ``0.00001234``."""
    sign = ""
    if mantissa.startswith("-"):
        sign = "-"
        mantissa = mantissa[1:]
    return sign + "0.0000" + mantissa.replace(".", "")


def yaml_float(x: float) -> float | None:
    """The float value a reader of our YAML output gets (None for ``null``)."""
    if x != x or x == _INF or x == -_INF:
        return None
    return _reread(repr(x))


# ---------------------------------------------------------------------------------------
# What every writer shares

# What can be written (by every writer and by emit's plan); everything else (Undefined,
# functions, schema types, modules) is not.
DATA: Final = (str, int, float, list, dict, NumberMultiplier)


class Filter:
    """The options every writer shares (the YAML and JSON writers extend it)."""

    __slots__ = ("ignore_none", "ignore_private", "sort_keys")

    def __init__(self, sort_keys: bool, ignore_private: bool, ignore_none: bool) -> None:
        self.sort_keys = sort_keys
        self.ignore_private = ignore_private
        self.ignore_none = ignore_none

    def entries(self, mapping: dict[str, Any]) -> Iterable[tuple[str, Any]]:
        """The entries of ``mapping`` in output order (not yet filtered)."""
        if self.sort_keys:
            return sorted(mapping.items(), key=entry_key)
        return mapping.items()


def entry_key(item: tuple[str, Any]) -> str:
    """The key of a ``(key, value)`` entry: what ``sort_keys`` sorts by."""
    return item[0]


def scalar_text(value: Any, float_text: Callable[[float], str] | None = None) -> str | None:
    """The text of a non-string scalar (YAML floats unless ``float_text`` says otherwise);
    None for what is never written."""
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, int):
        return int.__repr__(value)
    if isinstance(value, float):
        return (float_text or format_float)(value)
    if isinstance(value, NumberMultiplier):
        return (float_text or format_float)(value.value)
    return None
