"""The ``toml`` system module: ``encode(data, sort_keys?, ignore_private?, ignore_none?)``
and ``decode(value)``.

kcl-lib 0.13.2 has no ``toml`` module at all (``import toml`` fails with
CannotFindModule); kclpy provides one because the CLI can emit TOML. ``encode``
writes with :func:`kclpy.values.toml_writer.to_toml` (the emitter's TOML writer; the data
must be a dict at the top), after dropping ``_private`` keys and None values at every
depth when asked to. ``decode`` reads TOML 1.0 with the standard library's
``tomllib``: tables become dicts, arrays lists; dates and times become their RFC 3339
text (``1979-05-27T07:32:00Z``, ``07:32:00``); integers outside 64 bits are an error.
"""

from __future__ import annotations

from typing import Final

from kclpy.values import Value
from kclpy.values.errors import KclRuntimeError
from kclpy.vm.builtins.marks import Fail, on_mismatch

_INT_MIN: Final = -(2**63)
_INT_MAX: Final = 2**63 - 1


def _plain(value: object) -> Value:
    """A tomllib value as a runtime value."""
    if isinstance(value, dict):
        return {str(key): _plain(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_plain(item) for item in value]
    if type(value) is int and not _INT_MIN <= value <= _INT_MAX:
        raise KclRuntimeError(f"integer {value} does not fit in 64 bits")
    if isinstance(value, bool | int | float | str):
        return value
    from datetime import date, time  # (tomllib has imported it: its values are dates)

    if not isinstance(value, date | time):  # (a datetime is a date)
        raise KclRuntimeError(f"unexpected TOML value {value!r}")
    text = value.isoformat()
    return text[:-6] + "Z" if text.endswith("+00:00") else text


@on_mismatch(Fail("decode() expected str, got {kcl}"))
def decode(value: str) -> Value:
    """The table that TOML text ``value`` describes."""
    import tomllib

    try:
        return _plain(tomllib.loads(value))
    except tomllib.TOMLDecodeError as error:
        raise KclRuntimeError(str(error)) from None


def _filtered(value: Value, ignore_private: bool, ignore_none: bool) -> Value:
    if isinstance(value, dict):
        return {
            key: _filtered(item, ignore_private, ignore_none)
            for key, item in value.items()
            if not (ignore_private and key.startswith("_")) and not (ignore_none and item is None)
        }
    if isinstance(value, list):
        return [
            _filtered(item, ignore_private, ignore_none)
            for item in value
            if not (ignore_none and item is None)
        ]
    return value


def encode(
    data: Value, sort_keys: Value = False, ignore_private: Value = False, ignore_none: Value = False
) -> str:
    """``data`` (a dict) as TOML text."""
    from kclpy.values import toml_writer
    from kclpy.vm.builtins.convert import truthy

    private, none = truthy(ignore_private), truthy(ignore_none)
    if private or none:
        data = _filtered(data, private, none)
    try:
        return toml_writer.to_toml(data, sort_keys=truthy(sort_keys))
    except toml_writer.TomlError as error:
        raise KclRuntimeError(str(error)) from None


MEMBERS: Final[dict[str, object]] = {"encode": encode, "decode": decode}
