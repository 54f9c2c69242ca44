"""Runtime values to TOML text, exactly as the reference KCL writes them.

The reference writes TOML (``GenerateToml`` of its API, ``kcl run --format toml``)
by reading its YAML output back and handing it to a TOML serializer. So floats are
the values the YAML shows, None entries of tables are dropped, and None in an array
is an error. A table's entries come in three passes: plain values (arrays without
tables included), then arrays of tables (``[[a.b]]``), then sub-tables (``[a.b]``).
A table header is written before the table's first plain value, or for an empty
table, and always for an element of an array of tables; a table holding only
sub-tables gets no header of its own. A blank line comes before a header when the
enclosing table has already written something (a value or a header below it).

Used by program output (:mod:`kclpy.emit`, ``--format toml``) and by the system
module ``toml``.
"""

from __future__ import annotations

import re
from typing import Any, Final

from kclpy.values import NumberMultiplier
from kclpy.values.scalars import entry_key, yaml_float

_TOML_BARE_KEY: Final = re.compile(r"[A-Za-z0-9_\-]+\Z")
_TOML_ESCAPE: Final = re.compile('[\\x00-\\x1f\\x7f"\\\\]')
_TOML_ESCAPES: Final = {
    "\b": "\\b",
    "\t": "\\t",
    "\n": "\\n",
    "\f": "\\f",
    "\r": "\\r",
    '"': '\\"',
    "\\": "\\\\",
}


class TomlError(ValueError):
    """A value TOML cannot represent (the reference fails the same way)."""


def _toml_escape_char(match: re.Match[str]) -> str:
    char = match.group()
    known = _TOML_ESCAPES.get(char)
    return known if known is not None else f"\\u{ord(char):04X}"


def _toml_string(text: str) -> str:
    return '"' + _TOML_ESCAPE.sub(_toml_escape_char, text) + '"'


def _toml_key(key: str) -> str:
    return key if _TOML_BARE_KEY.match(key) is not None else _toml_string(key)


def _positional(x: float) -> str:
    """``x`` in positional notation with its shortest digits (Rust's ``{}``), with
    ``.0`` added to integral values."""
    text = repr(x)
    mark = text.find("e")
    if mark >= 0:
        mantissa = text[:mark]
        exponent = int(text[mark + 1 :])
        sign = ""
        if mantissa[0] == "-":
            sign = "-"
            mantissa = mantissa[1:]
        point = mantissa.find(".")
        digits = mantissa.replace(".", "")
        integral = (point if point >= 0 else len(mantissa)) + exponent
        if integral <= 0:
            text = sign + "0." + "0" * -integral + digits
        elif integral >= len(digits):
            text = sign + digits + "0" * (integral - len(digits))
        else:
            text = sign + digits[:integral] + "." + digits[integral:]
    if "." not in text:
        text += ".0"
    return text


def _toml_data(value: Any) -> Any:
    """``value`` as it reads back from YAML (None for null and skipped values)."""
    if isinstance(value, NumberMultiplier):
        return yaml_float(value.value)
    if isinstance(value, float):
        return yaml_float(value)
    return value


def _toml_inline(value: Any) -> str:
    if isinstance(value, str):
        return _toml_string(value)
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return _positional(value)
    if isinstance(value, list):
        items = []
        for element in value:
            element = _toml_data(element)
            if element is None:
                raise TomlError(
                    "null array element cannot be represented in TOML (TOML has no null)"
                )
            if isinstance(element, dict):
                raise TomlError("a table inside an inline array is not supported")
            items.append(_toml_inline(element))
        return "[" + ", ".join(items) + "]"
    raise TomlError(f"cannot write {type(value).__name__} as TOML")


def _is_table_array(value: Any) -> bool:
    return isinstance(value, list) and any(isinstance(element, dict) for element in value)


class _Toml:
    """One TOML writing pass; each table's "has written something" flag is a
    one-element list shared with its descendants."""

    __slots__ = ("out", "sort_keys")

    def __init__(self, sort_keys: bool) -> None:
        self.out: list[str] = []
        self.sort_keys = sort_keys

    def header(self, path: list[str], array: bool, ancestors: list[list[bool]]) -> None:
        if ancestors[-1][0]:
            self.out.append("\n")
        name = ".".join(_toml_key(key) for key in path)
        self.out.append(f"[[{name}]]\n" if array else f"[{name}]\n")
        for flag in ancestors:
            flag[0] = True

    def table(
        self,
        mapping: dict[str, Any],
        path: list[str],
        ancestors: list[list[bool]],
        array: bool,
    ) -> None:
        written = [False]
        has_header = False
        if array:
            self.header(path, True, ancestors)
            has_header = True
        entries: list[tuple[str, Any]] = []
        for key, value in mapping.items():
            value = _toml_data(value)
            if value is None or not isinstance(value, str | int | float | list | dict):
                continue
            entries.append((key, value))
        if self.sort_keys:
            entries.sort(key=entry_key)
        values = [
            entry
            for entry in entries
            if not isinstance(entry[1], dict) and not _is_table_array(entry[1])
        ]
        arrays = [entry for entry in entries if _is_table_array(entry[1])]
        tables = [entry for entry in entries if isinstance(entry[1], dict)]
        if path and not has_header and (values or not entries):
            self.header(path, False, ancestors)
        for key, value in values:
            self.out.append(f"{_toml_key(key)} = {_toml_inline(value)}\n")
            written[0] = True
        inner = [*ancestors, written]
        for key, value in arrays:
            for element in value:
                if not isinstance(element, dict):
                    raise TomlError("an array mixing tables and other values is not supported")
                self.table(element, [*path, key], inner, True)
        for key, value in tables:
            self.table(value, [*path, key], inner, False)


def to_toml(value: Any, *, sort_keys: bool = False) -> str:
    """A dict value as TOML text with a final newline, as the reference writes it.

    Raises :class:`TomlError` for what TOML cannot hold (None in an array, a
    non-table document) and for arrays mixing tables with other values, which the
    reference writes as broken text.
    """
    if not isinstance(value, dict):
        raise TomlError("the top level of a TOML document must be a table")
    writer = _Toml(sort_keys)
    writer.table(value, [], [[False]], False)
    return "".join(writer.out)
