"""Runtime values to YAML text, exactly as the reference KCL writes them.

Used by program output (:mod:`kclpy.emit`) and by the system modules ``yaml`` and
``manifests``; the rules every writer shares are in :mod:`kclpy.values.scalars`.

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
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from io import StringIO

from kclpy.patterns import compiled
from kclpy.values import NumberMultiplier
from kclpy.values.scalars import DATA, Filter, scalar_text, yaml_float

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Final

# ---------------------------------------------------------------------------------------
# YAML scalars

# Words the reference quotes, in any letter case.
_WORDS: Final = frozenset(
    ["y", "n", "yes", "no", "on", "off", "true", "false", "null", "nil", "nan"]
)
# Plain without further checks: identifier-like, first character not a digit/sign/dot.
_SIMPLE: Final = compiled(r"[A-Za-z_/][A-Za-z0-9_./\-]*\Z")
# Characters libyaml cannot print (tab and CR included, newline excluded).
_SPECIAL: Final = compiled("[\x00-\x09\x0b-\x1f\x7f-\x9f\ud800-\udfff\ufeff\ufffe\uffff]")
_HAS_BREAK: Final = compiled("[\n\r\x85\u2028\u2029]")
_SPACE_BREAK: Final = compiled(" [\n\r\x85\u2028\u2029]")
_BREAK_SPACE: Final = compiled("[\n\r\x85\u2028\u2029] ")
# Block indicators that rule out a plain scalar: a leading indicator character, a
# leading "-", "?" or ":" followed by a blank, ": " or a final ":", and " #".
_INDICATOR: Final = compiled(
    "\\A[#,\\[\\]{}&*!|>'\"%@`]"
    "|\\A[-?:](?:[ \t\n\r\x85\u2028\u2029]|\\Z)"
    "|:(?:[ \t\n\r\x85\u2028\u2029]|\\Z)"
    "|[ \t\n\r\x85\u2028\u2029]#"
)
_LITERAL_SPLIT: Final = compiled("([\n\u2028\u2029])")

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
_TO_ESCAPE: Final = compiled(
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
# The writer writes pieces to ``out``, a StringIO: it keeps the text in one buffer as it
# grows (a list of pieces joined at the end held some 70 bytes per piece: 9 GB for a
# list of 10**8 numbers). Its methods return _AT_LINE_START when the
# output ends just after a line break written by a literal block (the next line then
# gets only its indentation), else 0.

_AT_LINE_START: Final = 1


# Key texts ("name:"), or "" for a key written as a complex key.
_KEY_CACHE: dict[str, str] = {}
# A mapping or sequence that wrote nothing (all its entries were filtered out).
_EMPTY: Final = 2


def _key_text(key: str) -> str:
    if len(key) <= 128 and _SIMPLE.match(key) is not None and _plain_word(key):
        text = key + ":"  # most keys: a plain identifier-like word (ASCII)
    elif _HAS_BREAK.search(key) is not None or len(key.encode("utf-8")) > 128:
        text = ""
    else:
        text = _scalar(key) + ":"
    if len(_KEY_CACHE) >= _CACHE_LIMIT:
        _KEY_CACHE.clear()
    _KEY_CACHE[key] = text
    return text


def _plain_word(text: str) -> bool:
    """Whether a text that ``_SIMPLE`` matches is written plain: not a word the
    reference quotes (the general path, ``_style``, decides the same)."""
    return len(text) > 5 or text.lower() not in _WORDS


def _line_text(value: str) -> str | None:
    """The text of a string scalar when it is one line that does not depend on where
    it is written; None for strings with line breaks."""
    text = _SCALAR_CACHE.get(value)
    if text is not None:
        return text
    if "\n" in value or "\u2028" in value or "\u2029" in value:
        return None
    if _SIMPLE.match(value) is not None and _plain_word(value):
        if len(_SCALAR_CACHE) >= _CACHE_LIMIT:
            _SCALAR_CACHE.clear()
        _SCALAR_CACHE[value] = value
        return value
    return _scalar(value)


class _Yaml(Filter):
    """One YAML writing pass (holds the options; the output list is passed along).

    The methods return _AT_LINE_START when the output ends just after a line break
    written by a literal block (the next line then gets only its indentation),
    _EMPTY when a collection wrote nothing, else 0.
    """

    __slots__ = ()

    def mapping(self, out: StringIO, mapping: dict[str, Any], indent: int, inline: bool) -> int:
        """Write the entries of ``mapping`` with keys at column ``indent``, the first
        one right here when ``inline``."""
        write = out.write
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
                text = scalar_text(value)
                if text is None:
                    continue
            if flags == _EMPTY:
                if not inline:
                    write(newline_pad)
            elif flags:
                write(pad)
            else:
                write(newline_pad)
            key_text = _KEY_CACHE.get(key)
            if key_text is None:
                key_text = _key_text(key if isinstance(key, str) else str(key))
            if not key_text:
                flags = self.complex_entry(out, key, value, indent)
            elif text is not None:
                write(key_text + " " + text)
                flags = 0
            else:
                write(key_text)
                flags = self.node(out, value, child, False)
        return flags

    def sequence(self, out: StringIO, sequence: list[Any], indent: int, inline: bool) -> int:
        """Write the items of ``sequence`` with dashes at column ``indent``, the first
        one right here when ``inline``."""
        write = out.write
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
                text = scalar_text(value)
                if text is None:
                    continue
            if flags == _EMPTY:
                write("- " if inline else newline_dash)
            elif flags:
                write(pad_dash)
            else:
                write(newline_dash)
            if text is not None:
                write(text)
                flags = 0
            else:
                flags = self.node(out, value, child, True)
        return flags

    def node(self, out: StringIO, value: Any, indent: int, inline: bool) -> int:
        """Write a string, dict or list after ``- ``, ``? ``, ``: `` (``inline``) or
        after ``key:``.

        ``indent`` is the indentation of the value's own lines (literal block body,
        nested mapping keys); after ``key:`` a nested sequence goes at ``indent - 2``.
        """
        if isinstance(value, dict):
            flags = self.mapping(out, value, indent, inline)
            if flags == _EMPTY:
                out.write("{}" if inline else " {}")
                return 0
            return flags
        if isinstance(value, list):
            flags = self.sequence(out, value, indent if inline else indent - 2, inline)
            if flags == _EMPTY:
                out.write("[]" if inline else " []")
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
            text = scalar_text(value) or "null"
        out.write(text if inline else " " + text)
        return flags

    def complex_entry(self, out: StringIO, key: str, value: Any, indent: int) -> int:
        """Write ``? key`` / ``: value`` for a key that cannot be a simple key."""
        out.write("? ")
        flags = self.node(out, key, indent + 2, True)
        if flags & _AT_LINE_START:
            out.write(" " * indent + ": ")
        else:
            out.write("\n" + " " * indent + ": ")
        return self.node(out, value, indent + 2, True)

    def document(self, out: StringIO, value: Any) -> int:
        """Write a whole document (without the final newline)."""
        if isinstance(value, dict | list):
            return self.node(out, value, 0, True)
        if value is not None and not isinstance(value, DATA):
            out.write("null")
            return 0
        return self.node(out, value, 2, True)


def to_yaml(
    value: Any,
    *,
    sort_keys: bool = False,
    ignore_private: bool = False,
    ignore_none: bool = False,
) -> str:
    """``value`` as one YAML document with its final newline (as ``yaml.encode``)."""
    out = StringIO()
    flags = _Yaml(sort_keys, ignore_private, ignore_none).document(out, value)
    if not flags & _AT_LINE_START:
        out.write("\n")
    return out.getvalue()


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
        return yaml_float(value.value if isinstance(value, NumberMultiplier) else value)
    options = (sort_keys, ignore_private, ignore_none)
    if isinstance(value, dict):
        writer = Filter(*options)
        return {
            key: yaml_roundtrip(
                item, sort_keys=sort_keys, ignore_private=ignore_private, ignore_none=ignore_none
            )
            for key, item in writer.entries(value)
            if not (ignore_private and key[:1] == "_")
            and (isinstance(item, DATA) or (item is None and not ignore_none))
        }
    if isinstance(value, list):
        return [
            yaml_roundtrip(
                item, sort_keys=sort_keys, ignore_private=ignore_private, ignore_none=ignore_none
            )
            for item in value
            if isinstance(item, DATA) or (item is None and not ignore_none)
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
