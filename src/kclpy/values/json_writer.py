"""Runtime values to JSON text, exactly as the reference KCL writes them.

Used by program output (:mod:`kclpy.emit`, ``--format json``) and by the system
module ``json``; the rules every writer shares are in :mod:`kclpy.values.scalars`.
Strings are escaped as serde_json does (``\\"``, ``\\\\``, ``\\n``... and ``\\u00XX``
for other control characters; everything else raw); floats as
:func:`~kclpy.values.scalars.format_json_float` gives them.
"""

from __future__ import annotations

from io import StringIO
from json.encoder import encode_basestring
from typing import Any

from kclpy.values.scalars import Filter, format_json_float, scalar_text


def _json_other(value: Any) -> str | None:
    """The JSON text of a non-string scalar; None for what is never written."""
    return scalar_text(value, format_json_float)


class _Json(Filter):
    """One JSON writing pass; ``indent`` None (or 0) for the one-line form."""

    __slots__ = ("step",)

    def __init__(
        self, sort_keys: bool, indent: int | None, ignore_private: bool, ignore_none: bool
    ) -> None:
        super().__init__(sort_keys, ignore_private, ignore_none)
        self.step = " " * indent if indent else ""

    def scalar(self, value: Any) -> str | None:
        """The text of ``value`` when it is a scalar, "" when it is a container,
        None when it is not written."""
        kind = type(value)
        if kind is str:
            return encode_basestring(value)
        if kind is dict or kind is list or isinstance(value, dict | list):
            return ""
        if kind is int:
            return int.__repr__(value)
        if isinstance(value, str):
            return encode_basestring(value)
        if value is None:
            return None if self.ignore_none else "null"
        return _json_other(value)

    def value(self, out: StringIO, value: Any, depth: int) -> None:
        """Write a dict or list (``depth`` levels deep, for the indented form)."""
        if self.step:
            inner = "\n" + self.step * (depth + 1)
            comma = "," + inner
        else:
            inner = ""
            comma = ", "
        ignore_private = self.ignore_private
        if isinstance(value, dict):
            separator = "{" + inner
            for key, item in self.entries(value):
                if ignore_private and key[:1] == "_":
                    continue
                text = self.scalar(item)
                if text is None:
                    continue
                if text:
                    out.write(separator + encode_basestring(key) + ": " + text)
                else:
                    out.write(separator + encode_basestring(key) + ": ")
                    self.value(out, item, depth + 1)
                separator = comma
            if separator is comma:
                out.write("\n" + self.step * depth + "}" if self.step else "}")
            else:
                out.write("{}")
            return
        separator = "[" + inner
        for item in value:
            text = self.scalar(item)
            if text is None:
                continue
            if text:
                out.write(separator + text)
            else:
                out.write(separator)
                self.value(out, item, depth + 1)
            separator = comma
        if separator is comma:
            out.write("\n" + self.step * depth + "]" if self.step else "]")
        else:
            out.write("[]")


def to_json(
    value: Any,
    *,
    sort_keys: bool = False,
    indent: int | None = None,
    ignore_private: bool = False,
    ignore_none: bool = False,
) -> str:
    """``value`` as JSON text, as ``json.encode`` writes it (no final newline).

    Without ``indent`` (or with 0) everything is on one line with ``, `` and ``: ``;
    otherwise ``indent`` spaces per level, empty collections as ``[]`` and ``{}``.
    """
    writer = _Json(sort_keys, indent, ignore_private, ignore_none)
    text = writer.scalar(value)
    if text:
        return text
    if text is None:
        return "null"
    out = StringIO()  # one growing buffer, not a list of pieces (see yaml_writer)
    writer.value(out, value, 0)
    return out.getvalue()
