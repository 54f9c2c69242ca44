"""The ``option()`` builtin: a ``-D`` / settings-file value, converted to its ``type=``.

Takes the options through the builtin context; returns the value, its default, or
None, converted as the reference converts (``type="int"`` turns ``"8"`` into 8).
"""

from __future__ import annotations

from kclpy.patterns import compiled
from kclpy.values import UNDEFINED, Value
from kclpy.values.errors import KclRuntimeError
from kclpy.vm.builtins.context import BuiltinContext
from kclpy.vm.builtins.marks import needs_context


@needs_context
def option(
    context: BuiltinContext,
    key: str,
    type: str = "",
    required: bool = False,
    default: Value = None,
    help: str = "",
    **_: Value,
) -> Value:
    """``option(key, type=, required=, default=, help=)``."""
    options = context.options
    if key in options:
        value = options[key]
    elif default is not None:
        value = default
    elif required:
        raise KclRuntimeError(f"option('{key}') must be initialized, try '-D {key}=?' argument")
    else:
        return None
    return convert_option(key, value, type)


def convert_option(key: str, value: Value, type_name: str) -> Value:
    """An option value (or default) converted to the ``type=`` of ``option()``."""
    if not type_name:
        return value
    if type_name == "bool":
        return _to_bool(value)
    converted: Value = UNDEFINED
    if type_name == "int":
        converted = _to_int(value)
    elif type_name == "float":
        converted = _to_float(value)
    elif type_name == "str":
        converted = _to_str(value)
    elif type_name == "list":
        converted = value if isinstance(value, list) else UNDEFINED
    elif type_name == "dict":
        converted = value if isinstance(value, dict) else UNDEFINED
    else:
        raise KclRuntimeError(f"unknown type '{type_name}'")
    if converted is UNDEFINED:
        raise KclRuntimeError(f"cannot use '{_short_text(value)}' as type '{type_name}'")
    return converted


def _to_bool(value: Value) -> Value:
    if isinstance(value, bool):
        return value
    if isinstance(value, int | float):
        return value != 0
    if isinstance(value, str):
        return value in ("True", "true")
    return UNDEFINED


def _to_int(value: Value) -> Value:
    if isinstance(value, int | float):  # bool included
        return int(value)
    if isinstance(value, str) and compiled(_INT_TEXT).match(value):
        return int(value)
    return UNDEFINED


def _to_float(value: Value) -> Value:
    if isinstance(value, int | float):
        return float(value)
    if isinstance(value, str):
        try:
            return float(value)
        except ValueError:
            return 0.0
    return UNDEFINED


def _to_str(value: Value) -> Value:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | str):
        return str(value)
    if isinstance(value, float):
        return _plain_float(value)
    return UNDEFINED


_INT_TEXT = r"^[+-]?\d+$"  # (compiled on first use: few runs convert an option to int)


def _plain_float(value: float) -> str:
    """A float without exponent and without a needless ``.0`` (``120.0`` -> ``120``)."""
    if value != value or value in (float("inf"), float("-inf")):
        return {True: "NaN"}.get(value != value, "inf" if value > 0 else "-inf")
    from decimal import Decimal  # (rare: an option's float; decimal costs ~1 ms to import)

    text = format(Decimal(repr(value)), "f")
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return text


def _short_text(value: Value) -> str:
    from kclpy.vm.builtins.convert import to_str

    return to_str(value)
