"""Runtime values to YAML, JSON and TOML text, exactly as the reference KCL writes them.

Used by program output (:mod:`kclpy.emit`) and by the system modules ``yaml``, ``json``
and ``manifests``. Takes the values of :mod:`kclpy.vm.values`; returns ``str``.

Common rules for every writer:

* Undefined, functions, schema types and modules are omitted, whether they are dict
  values or list elements.
* Schema instances are written as dicts, in their stored (output) order.
* ``sort_keys`` sorts the keys of every dict (code-point order);
  ``ignore_private`` drops keys starting with ``_`` at every depth; ``ignore_none``
  drops None at every depth, list elements included.
* A unit value (:class:`~kclpy.vm.values.NumberMultiplier`) is written as its float
  value. inf and nan are written as ``null``.

YAML (:func:`to_yaml`) follows the reference (a serde-yaml/libyaml emitter), learnt by
running it:

* block style, 2-space mapping indent; a sequence under a mapping key is not indented;
  ``- a: 1`` puts a mapping's first key after the dash; empty collections are ``[]`` and
  ``{}``; no line folding at any width.
* a string is single-quoted when it would read back as something else: the empty string,
  ``~``, the words y n yes no on off true false null nil nan in any letter case, and
  anything starting with a digit, ``+``, ``-`` or ``.``. Otherwise it is plain when
  YAML allows (no indicator at the start, no ``: `` or `` #``, no leading/trailing
  space), else single-quoted, else double-quoted.
* non-printable characters (C0 controls but newline, tab, DEL, C1 controls, U+FEFF,
  U+FFFE, U+FFFF) force double quotes with libyaml escapes (``\\t``, ``\\e``, ``\\N``,
  ``\\x7F``, ``\\uFEFF``...). So does a space before a line break.
* a string with a newline is a literal block (``|``, ``|-``, ``|+``, with the ``2``
  indentation indicator when it starts with a space or a break), unless it ends with a
  space (then double quotes). U+2028/U+2029 are line breaks too.
* keys follow the same rules; a key with a line break or longer than 128 UTF-8 bytes is
  written as a complex key ``? key`` / ``: value``.
* :func:`to_yaml` returns the document with a final newline (what ``yaml.encode``
  returns); a literal block that ends the document supplies that newline itself.
  :func:`yaml_document` returns the form ``kcl run`` uses for each output document.

Floats (:func:`format_float`): shortest round-trip digits; ``.0`` on integral values;
exponent form when the decimal exponent is < -5 or >= 16 (``1e16``, ``1e-6``,
``0.00001``); JSON writes positive exponents with ``+`` (``1e+16``).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable
from json.encoder import encode_basestring
from typing import Any, Final

from kclpy.vm.values import NumberMultiplier

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
        value: float | None = (
            float(significand) * _POW10[exponent]
            if exponent >= 0
            else (float(significand) / _POW10[-exponent])
        )
    else:
        value = _fast_parse(significand, exponent)
    if value is None:
        return None
    return -value if negative else value


_EXACT_LIMIT: Final = 2**53
_POW10: Final = tuple(float(f"1e{power}") for power in range(309))


def _fast_parse(significand: int, exponent: int) -> float | None:
    """``significand * 10**exponent`` as a fast JSON float parser computes it: the
    significand rounded to a float, then one multiplication or division by a power of
    ten (in steps of 1e308 below 1e-308). None when the result overflows."""
    value = float(significand)
    while True:
        if -308 <= exponent <= 308:
            if exponent >= 0:
                value *= _POW10[exponent]
                return None if value == _INF else value
            return value / _POW10[-exponent]
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


# ---------------------------------------------------------------------------------------
# YAML scalars

# Words the reference quotes, in any letter case.
_WORDS: Final = frozenset(
    ["y", "n", "yes", "no", "on", "off", "true", "false", "null", "nil", "nan"]
)
# Plain without further checks: identifier-like, first character not a digit/sign/dot.
_SIMPLE: Final = re.compile(r"[A-Za-z_/][A-Za-z0-9_./\-]*\Z")
# Characters libyaml cannot print (tab and CR included, newline excluded).
_SPECIAL: Final = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f\ud800-\udfff\ufeff\ufffe\uffff]")
_HAS_BREAK: Final = re.compile("[\n\r\x85\u2028\u2029]")
_SPACE_BREAK: Final = re.compile(" [\n\r\x85\u2028\u2029]")
_BREAK_SPACE: Final = re.compile("[\n\r\x85\u2028\u2029] ")
# Block indicators that rule out a plain scalar: a leading indicator character, a
# leading "-", "?" or ":" followed by a blank, ": " or a final ":", and " #".
_INDICATOR: Final = re.compile(
    "\\A[#,\\[\\]{}&*!|>'\"%@`]"
    "|\\A[-?:](?:[ \t\n\r\x85\u2028\u2029]|\\Z)"
    "|:(?:[ \t\n\r\x85\u2028\u2029]|\\Z)"
    "|[ \t\n\r\x85\u2028\u2029]#"
)
_LITERAL_SPLIT: Final = re.compile("([\n\u2028\u2029])")

_ESCAPES: Final = {
    "\x00": "\\0",
    "\x07": "\\a",
    "\x08": "\\b",
    "\t": "\\t",
    "\n": "\\n",
    "\x0b": "\\v",
    "\x0c": "\\f",
    "\r": "\\r",
    "\x1b": "\\e",
    '"': '\\"',
    "\\": "\\\\",
    "\x85": "\\N",
    "\u2028": "\\L",
    "\u2029": "\\P",
}
_TO_ESCAPE: Final = re.compile(
    '["\\\\\x00-\x09\n-\x1f\x7f-\x9f\ud800-\udfff\u2028\u2029\ufeff\ufffe\uffff]'
)


def _escape_char(match: re.Match[str]) -> str:
    char = match.group()
    known = _ESCAPES.get(char)
    if known is not None:
        return known
    code = ord(char)
    if code <= 0xFF:
        return f"\\x{code:02X}"
    if code <= 0xFFFF:
        return f"\\u{code:04X}"
    return f"\\U{code:08X}"


def _double_quoted(text: str) -> str:
    return '"' + _TO_ESCAPE.sub(_escape_char, text) + '"'


def _looks_like_other(text: str) -> bool:
    """Whether the reference single-quotes ``text`` so it does not read back as a
    null, bool or number (whatever YAML itself would allow)."""
    if not text:
        return True
    if text[0] in "0123456789+-.":
        return True
    return text == "~" or (len(text) <= 5 and text.lower() in _WORDS)


# Single-line scalar texts by string (they do not depend on the context).
_SCALAR_CACHE: dict[str, str] = {}
_CACHE_LIMIT: Final = 50_000

_LITERAL: Final = 1
_SINGLE: Final = 2
_DOUBLE: Final = 3
_PLAIN: Final = 0


def _style(text: str) -> int:
    """The style the reference picks for a string (not for the fast plain path)."""
    if _SPECIAL.search(text) is not None or _SPACE_BREAK.search(text) is not None:
        return _DOUBLE
    if "\n" in text:
        return _DOUBLE if text[-1] == " " else _LITERAL
    single_ok = _BREAK_SPACE.search(text) is None
    if _looks_like_other(text):
        return _SINGLE if single_ok else _DOUBLE
    if (
        text[0] != " "
        and text[-1] != " "
        and _HAS_BREAK.search(text) is None
        and _INDICATOR.search(text) is None
    ):
        return _PLAIN
    return _SINGLE if single_ok else _DOUBLE


def _single_quoted(text: str, indent: int) -> str:
    body = text.replace("'", "''")
    if "\u2028" in body or "\u2029" in body:
        # A line break inside quotes is written as is, then the indentation.
        pad = " " * indent
        pieces = _LITERAL_SPLIT.split(body)
        out = []
        for index, piece in enumerate(pieces):
            if index % 2:
                out.append(piece)
            elif piece or index == len(pieces) - 1:
                out.append((pad + piece) if index else piece)
        body = "".join(out)
    return "'" + body + "'"


def _scalar(text: str) -> str:
    """The text of a single-line string scalar (plain, quoted); cached."""
    cached = _SCALAR_CACHE.get(text)
    if cached is not None:
        return cached
    style = _style(text)
    if style == _PLAIN:
        result = text
    elif style == _SINGLE:
        result = _single_quoted(text, 0)
    else:
        result = _double_quoted(text)
    if len(_SCALAR_CACHE) >= _CACHE_LIMIT:
        _SCALAR_CACHE.clear()
    _SCALAR_CACHE[text] = result
    return result


def _literal(text: str, indent: int) -> tuple[str, bool]:
    """A literal block scalar: header and body; True when it ends at a line start."""
    last = text[-1]
    ends_with_break = last in "\n\u2028\u2029"
    if not ends_with_break:
        chomp = "-"
    elif len(text) == 1 or text[-2] in "\n\u2028\u2029":
        chomp = "+"
    else:
        chomp = ""
    hint = "2" if text[0] in " \n\u2028\u2029" else ""
    pad = " " * indent
    if "\u2028" in text or "\u2029" in text:
        pieces = _LITERAL_SPLIT.split(text)
        body = "".join(
            piece if index % 2 else (pad + piece if piece else "")
            for index, piece in enumerate(pieces)
        )
    else:
        body = "\n".join([pad + line if line else "" for line in text.split("\n")])
    return "|" + hint + chomp + "\n" + body, ends_with_break


# ---------------------------------------------------------------------------------------
# YAML writer
#
# The writer appends pieces to ``out``. Its methods return _AT_LINE_START when the
# output ends just after a line break written by a literal block (the next line then
# gets only its indentation), else 0.

_AT_LINE_START: Final = 1


# What can be written; everything else (Undefined, functions, types, modules) is not.
_DATA: Final = (str, int, float, list, dict, NumberMultiplier)


class _Filter:
    """The options every writer shares."""

    __slots__ = ("ignore_none", "ignore_private", "sort_keys")

    def __init__(self, sort_keys: bool, ignore_private: bool, ignore_none: bool) -> None:
        self.sort_keys = sort_keys
        self.ignore_private = ignore_private
        self.ignore_none = ignore_none

    def entries(self, mapping: dict[str, Any]) -> Iterable[tuple[str, Any]]:
        """The entries of ``mapping`` in output order (not yet filtered)."""
        if self.sort_keys:
            return sorted(mapping.items(), key=_first)
        return mapping.items()


def _first(item: tuple[str, Any]) -> str:
    return item[0]


# Key texts ("name:"), or "" for a key written as a complex key.
_KEY_CACHE: dict[str, str] = {}
# A mapping or sequence that wrote nothing (all its entries were filtered out).
_EMPTY: Final = 2


def _key_text(key: str) -> str:
    if _HAS_BREAK.search(key) is not None or len(key.encode("utf-8")) > 128:
        text = ""
    else:
        text = _scalar(key) + ":"
    if len(_KEY_CACHE) >= _CACHE_LIMIT:
        _KEY_CACHE.clear()
    _KEY_CACHE[key] = text
    return text


def _line_text(value: str) -> str | None:
    """The text of a string scalar when it is one line that does not depend on where
    it is written; None for strings with line breaks."""
    text = _SCALAR_CACHE.get(value)
    if text is not None:
        return text
    if "\n" in value or "\u2028" in value or "\u2029" in value:
        return None
    if _SIMPLE.match(value) is not None and (len(value) > 5 or value.lower() not in _WORDS):
        if len(_SCALAR_CACHE) >= _CACHE_LIMIT:
            _SCALAR_CACHE.clear()
        _SCALAR_CACHE[value] = value
        return value
    return _scalar(value)


def _other_text(value: Any, float_text: Callable[[float], str] | None = None) -> str | None:
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


class _Yaml(_Filter):
    """One YAML writing pass (holds the options; the output list is passed along).

    The methods return _AT_LINE_START when the output ends just after a line break
    written by a literal block (the next line then gets only its indentation),
    _EMPTY when a collection wrote nothing, else 0.
    """

    __slots__ = ()

    def mapping(self, out: list[str], mapping: dict[str, Any], indent: int, inline: bool) -> int:
        """Write the entries of ``mapping`` with keys at column ``indent``, the first
        one right here when ``inline``."""
        pad = " " * indent
        newline_pad = "\n" + pad
        child = indent + 2
        ignore_private = self.ignore_private
        ignore_none = self.ignore_none
        flags = _EMPTY
        for key, value in self.entries(mapping):
            if ignore_private and key[:1] == "_":
                continue
            kind = type(value)
            text: str | None
            if kind is str:
                text = _SCALAR_CACHE.get(value) or _line_text(value)
            elif kind is dict or kind is list:
                text = None
            elif kind is int:
                text = int.__repr__(value)
            elif value is None:
                if ignore_none:
                    continue
                text = "null"
            elif isinstance(value, dict | list):
                text = None
            elif isinstance(value, str):
                text = _line_text(value)
            else:
                text = _other_text(value)
                if text is None:
                    continue
            if flags == _EMPTY:
                if not inline:
                    out.append(newline_pad)
            elif flags:
                out.append(pad)
            else:
                out.append(newline_pad)
            key_text = _KEY_CACHE.get(key)
            if key_text is None:
                key_text = _key_text(key if isinstance(key, str) else str(key))
            if not key_text:
                flags = self.complex_entry(out, key, value, indent)
            elif text is not None:
                out.append(key_text + " " + text)
                flags = 0
            else:
                out.append(key_text)
                flags = self.node(out, value, child, False)
        return flags

    def sequence(self, out: list[str], sequence: list[Any], indent: int, inline: bool) -> int:
        """Write the items of ``sequence`` with dashes at column ``indent``, the first
        one right here when ``inline``."""
        pad_dash = " " * indent + "- "
        newline_dash = "\n" + pad_dash
        child = indent + 2
        ignore_none = self.ignore_none
        flags = _EMPTY
        for value in sequence:
            kind = type(value)
            text: str | None
            if kind is str:
                text = _SCALAR_CACHE.get(value) or _line_text(value)
            elif kind is dict or kind is list:
                text = None
            elif kind is int:
                text = int.__repr__(value)
            elif value is None:
                if ignore_none:
                    continue
                text = "null"
            elif isinstance(value, dict | list):
                text = None
            elif isinstance(value, str):
                text = _line_text(value)
            else:
                text = _other_text(value)
                if text is None:
                    continue
            if flags == _EMPTY:
                out.append("- " if inline else newline_dash)
            elif flags:
                out.append(pad_dash)
            else:
                out.append(newline_dash)
            if text is not None:
                out.append(text)
                flags = 0
            else:
                flags = self.node(out, value, child, True)
        return flags

    def node(self, out: list[str], value: Any, indent: int, inline: bool) -> int:
        """Write a string, dict or list after ``- ``, ``? ``, ``: `` (``inline``) or
        after ``key:``.

        ``indent`` is the indentation of the value's own lines (literal block body,
        nested mapping keys); after ``key:`` a nested sequence goes at ``indent - 2``.
        """
        if isinstance(value, dict):
            flags = self.mapping(out, value, indent, inline)
            if flags == _EMPTY:
                out.append("{}" if inline else " {}")
                return 0
            return flags
        if isinstance(value, list):
            flags = self.sequence(out, value, indent if inline else indent - 2, inline)
            if flags == _EMPTY:
                out.append("[]" if inline else " []")
                return 0
            return flags
        flags = 0
        if isinstance(value, str):
            text = _line_text(value)
            if text is None:
                style = _style(value)
                if style == _LITERAL:
                    text, at_line_start = _literal(value, indent)
                    flags = _AT_LINE_START if at_line_start else 0
                elif style == _SINGLE:
                    text = _single_quoted(value, indent)
                else:  # never plain: the string has a line break
                    text = _double_quoted(value)
        else:
            text = _other_text(value) or "null"
        out.append(text if inline else " " + text)
        return flags

    def complex_entry(self, out: list[str], key: str, value: Any, indent: int) -> int:
        """Write ``? key`` / ``: value`` for a key that cannot be a simple key."""
        out.append("? ")
        flags = self.node(out, key, indent + 2, True)
        if flags & _AT_LINE_START:
            out.append(" " * indent + ": ")
        else:
            out.append("\n" + " " * indent + ": ")
        return self.node(out, value, indent + 2, True)

    def document(self, out: list[str], value: Any) -> int:
        """Write a whole document (without the final newline)."""
        if isinstance(value, dict | list):
            return self.node(out, value, 0, True)
        if value is not None and not isinstance(value, _DATA):
            out.append("null")
            return 0
        return self.node(out, value, 2, True)


def _yaml_pieces(
    value: Any, sort_keys: bool, ignore_private: bool, ignore_none: bool
) -> tuple[list[str], int]:
    out: list[str] = []
    writer = _Yaml(sort_keys, ignore_private, ignore_none)
    flags = writer.document(out, value)
    return out, flags


def to_yaml(
    value: Any,
    *,
    sort_keys: bool = False,
    ignore_private: bool = False,
    ignore_none: bool = False,
) -> str:
    """``value`` as one YAML document with its final newline (as ``yaml.encode``)."""
    out, flags = _yaml_pieces(value, sort_keys, ignore_private, ignore_none)
    if not flags & _AT_LINE_START:
        out.append("\n")
    return "".join(out)


def to_yaml_all(
    values: Iterable[Any],
    *,
    sort_keys: bool = False,
    ignore_private: bool = False,
    ignore_none: bool = False,
) -> str:
    """Several documents as ``yaml.encode_all`` writes them (joined by ``\\n---\\n``)."""
    return "\n---\n".join(
        to_yaml(value, sort_keys=sort_keys, ignore_private=ignore_private, ignore_none=ignore_none)
        for value in values
    )


def yaml_document(
    value: Any,
    *,
    sort_keys: bool = False,
    ignore_private: bool = False,
    ignore_none: bool = False,
) -> str:
    """One output document of ``kcl run`` (its part of ``yaml_result``).

    This is :func:`to_yaml` minus the final newline, except where the reference keeps
    it because the document seems to end inside a literal block (see
    :func:`_strip_final_newline`).
    """
    text = to_yaml(
        value, sort_keys=sort_keys, ignore_private=ignore_private, ignore_none=ignore_none
    )
    return _strip_final_newline(text)


def is_literal_block(text: str) -> bool:
    """Whether YAML writes the string ``text`` as a literal block (``|``...)."""
    return "\n" in text and _style(text) == _LITERAL


def yaml_roundtrip(
    value: Any,
    *,
    sort_keys: bool = False,
    ignore_private: bool = False,
    ignore_none: bool = False,
) -> Any:
    """The data a YAML reader gets back from :func:`to_yaml` with these options: plain
    dicts and lists, strings, ints, bools, None, and floats as printed (inf and nan
    become None, unit values floats). The reference reads its YAML back this way for
    the JSON of ``manifests.yaml_stream`` and for TOML."""
    if isinstance(value, str):
        return str(value)
    if isinstance(value, bool) or value is None:
        return value
    if isinstance(value, int):
        return int(value)
    if isinstance(value, float | NumberMultiplier):
        return _yaml_float(value.value if isinstance(value, NumberMultiplier) else value)
    options = (sort_keys, ignore_private, ignore_none)
    if isinstance(value, dict):
        writer = _Filter(*options)
        return {
            key: yaml_roundtrip(
                item, sort_keys=sort_keys, ignore_private=ignore_private, ignore_none=ignore_none
            )
            for key, item in writer.entries(value)
            if not (ignore_private and key[:1] == "_")
            and (isinstance(item, _DATA) or (item is None and not ignore_none))
        }
    if isinstance(value, list):
        return [
            yaml_roundtrip(
                item, sort_keys=sort_keys, ignore_private=ignore_private, ignore_none=ignore_none
            )
            for item in value
            if isinstance(item, _DATA) or (item is None and not ignore_none)
        ]
    return None


_BLOCK_HEADERS: Final = frozenset(["|", "|-", "|+", ">", ">-", ">+"])


def _indent_bytes(line: str) -> int:
    """Leading whitespace (any Unicode space) of ``line``, in UTF-8 bytes."""
    rest = line.lstrip()
    prefix = line[: len(line) - len(rest)]
    return len(prefix) if prefix.isascii() else len(prefix.encode("utf-8"))


def _strip_final_newline(text: str) -> str:
    """Drop the final newline of a document unless the reference keeps it.

    The reference looks at the last non-empty line: at indentation 0 the newline goes.
    Otherwise it looks back for the nearest non-blank line indented less (indentation
    measured in UTF-8 bytes of Unicode whitespace); when the text after that line's
    first ``:`` is a bare block header (``|``, ``|-``, ``|+``, ``>``...), the newline
    belongs to the block and stays. It also stays when no such line exists. A header
    with an indentation indicator (``|2-``) does not count.
    """
    if not text.endswith("\n"):
        return text
    trimmed = text.rstrip("\n")
    if not trimmed:
        return text
    start = trimmed.rfind("\n") + 1
    last = trimmed[start:]
    last_indent = _indent_bytes(last)
    if last_indent == 0:
        return text[:-1]
    end = start - 1
    while end > 0:
        begin = trimmed.rfind("\n", 0, end) + 1
        line = trimmed[begin:end]
        end = begin - 1
        if not line.strip():
            continue
        if _indent_bytes(line) < last_indent:
            colon = line.find(":")
            header = line[colon + 1 :].lstrip() if colon >= 0 else ""
            return text if header in _BLOCK_HEADERS else text[:-1]
    return text


# ---------------------------------------------------------------------------------------
# JSON


def json_string(text: str) -> str:
    """A JSON string literal as serde_json writes it: ``\\"``, ``\\\\``, ``\\n``... and
    ``\\u00XX`` for other control characters; everything else raw."""
    return encode_basestring(text)


def _json_other(value: Any) -> str | None:
    """The JSON text of a non-string scalar; None for what is never written."""
    return _other_text(value, format_json_float)


class _Json(_Filter):
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

    def value(self, out: list[str], value: Any, depth: int) -> None:
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
                    out.append(separator + encode_basestring(key) + ": " + text)
                else:
                    out.append(separator + encode_basestring(key) + ": ")
                    self.value(out, item, depth + 1)
                separator = comma
            if separator is comma:
                out.append("\n" + self.step * depth + "}" if self.step else "}")
            else:
                out.append("{}")
            return
        separator = "[" + inner
        for item in value:
            text = self.scalar(item)
            if text is None:
                continue
            if text:
                out.append(separator + text)
            else:
                out.append(separator)
                self.value(out, item, depth + 1)
            separator = comma
        if separator is comma:
            out.append("\n" + self.step * depth + "]" if self.step else "]")
        else:
            out.append("[]")


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
    out: list[str] = []
    writer.value(out, value, 0)
    return "".join(out)


# ---------------------------------------------------------------------------------------
# TOML
#
# The reference writes TOML (``GenerateToml`` of its API, ``kcl run --format toml``)
# by reading its YAML output back and handing it to a TOML serializer. So floats are
# the values the YAML shows, None entries of tables are dropped, and None in an array
# is an error. A table's entries come in three passes: plain values (arrays without
# tables included), then arrays of tables (``[[a.b]]``), then sub-tables (``[a.b]``).
# A table header is written before the table's first plain value, or for an empty
# table, and always for an element of an array of tables; a table holding only
# sub-tables gets no header of its own. A blank line comes before a header when the
# enclosing table has already written something (a value or a header below it).

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


def _yaml_float(x: float) -> float | None:
    """The float value a reader of our YAML output gets (None for ``null``)."""
    if x != x or x == _INF or x == -_INF:
        return None
    return _reread(repr(x))


def _toml_data(value: Any) -> Any:
    """``value`` as it reads back from YAML (None for null and skipped values)."""
    if isinstance(value, NumberMultiplier):
        return _yaml_float(value.value)
    if isinstance(value, float):
        return _yaml_float(value)
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
            entries.sort(key=_first)
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
