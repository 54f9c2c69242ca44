"""Literal values: numbers, strings (escapes, dedent of long strings) and the
split of interpolated strings into text and ``${...}`` parts.

Pure functions on the literal's source text; they return values and error
messages (never raise), and the layout filter turns messages into diagnostics.
The rules follow the reference lexer: lowercase radix prefixes only, ``_``
separators in ints (not floats), legacy ``0``-prefixed octal, unit suffixes on
ints (a float silently drops its suffix), Python-like escapes with ``\\N{...}``.
"""

from __future__ import annotations

import re
import unicodedata

from kclpy.patterns import compiled
from kclpy.syntax.lexer import TERMINATED_STRING

UNIT_SUFFIXES = frozenset(
    ("n", "u", "m", "k", "K", "M", "G", "T", "P", "Ki", "Mi", "Gi", "Ti", "Pi")
)

_NUMBER_PARTS = compiled(
    r"(?P<num>(?:0[box][0-9A-Fa-f_]*|[0-9][0-9_]*)"
    r"(?:\.(?![.]|[^\W\d])(?:[0-9][0-9_]*(?:[eE][+-]?[0-9_]*)?)?|[eE][+-]?[0-9_]*)?)"
    r"(?P<suffix>(?:[^\W\d]\w*)?)"
)
_TERMINATED = compiled(TERMINATED_STRING)
_BASES = {"b": (2, "binary"), "o": (8, "octal"), "x": (16, "hexadecimal")}
_MAX_INT = 1 << 64

Number = tuple[int | float, str | None, str | None, int]
"""(value, unit suffix, error message or None, error offset within the literal)."""


def decode_number(text: str) -> Number:
    """The value of a number literal; an error message replaces a bad literal by 0."""
    if len(text) < 19 and text.isdigit() and text.isascii() and (text[0] != "0" or len(text) == 1):
        return int(text), None, None, 0  # the common case: a plain decimal int
    match = _NUMBER_PARTS.match(text)
    num = match.group("num") if match else text
    suffix = match.group("suffix") if match else ""
    radix = _BASES.get(num[1:2]) if num[:1] == "0" else None
    exponent = ("e" in num or "E" in num) and (radix is None or radix[0] != 16)
    is_float = "." in num or exponent
    if is_float:
        return _decode_float(num, radix)
    value, error, where = _decode_int(num, radix)
    if error is not None:
        return 0, None, error, where
    if suffix:
        if suffix not in UNIT_SUFFIXES:
            return value, None, "invalid int binary suffix", 0
        return value, suffix, None, 0
    return value, None, None, 0


def _decode_float(num: str, radix: tuple[int, str] | None) -> Number:
    if num[-1] in "eE+-":
        return 0.0, None, "expected at least one digit in exponent", 0
    if radix is not None:
        return 0.0, None, f"{radix[1]} float literal is not supported", 0
    if "_" in num:
        return 0.0, None, f'expected one of ["float"] got {num}', 0
    return float(num), None, None, 0


def _decode_int(num: str, radix: tuple[int, str] | None) -> tuple[int, str | None, int]:
    if radix is not None:
        digits = num[2:]
        if not any(c != "_" for c in digits):
            return 0, "no valid digits found for number", 0
        base = radix[0]
        for index, char in enumerate(digits):
            if char != "_" and not _is_digit(char, base):
                where = 2 + index
                return 0, f"invalid digit for a base {base} literal", where
        value = _bytes_to_int(digits, base)
    elif len(num) > 1 and num[0] == "0" and num[1].isdigit():
        if not any(c.isdigit() for c in num[2:]):
            return 0, "no valid digits found for number", 0
        for index, char in enumerate(num[2:]):
            if char != "_" and not _is_digit(char, 8):
                return 0, "invalid digit for a base 8 literal", 2 + index
        value = _bytes_to_int(num[1:], 8)
    else:
        value = _bytes_to_int(num, 10)
    if value is None or value >= _MAX_INT:
        return 0, f'expected one of ["int"] got {num}', 0
    return value, None, 0


def _is_digit(char: str, base: int) -> bool:
    return char in "0123456789abcdefABCDEF" and int(char, 16) < base


def _bytes_to_int(digits: str, base: int) -> int | None:
    """The reference's digit-string check: no doubled, leading-only or trailing ``_``."""
    if digits.startswith("_"):
        digits = digits[1:]
    if not digits:
        return None
    if "__" in digits or digits.endswith("_"):
        return None
    try:
        return int(digits.replace("_", ""), base)
    except ValueError:
        return None


# --------------------------------------------------------------------------- strings


class StringInfo:
    """A decoded string literal."""

    __slots__ = ("content_start", "error", "is_long", "is_raw", "quote", "terminated", "value")

    def __init__(self) -> None:
        self.value = ""
        self.is_long = False
        self.is_raw = False
        self.quote = '"'
        self.terminated = True
        self.error: str | None = None
        self.content_start = 0


def decode_string(text: str) -> StringInfo:
    """Decode a string literal as written (prefix and quotes included)."""
    info = StringInfo()
    offset = 1 if text[0] in "rR" else 0
    info.is_raw = offset == 1
    quote = text[offset]
    info.quote = quote
    info.is_long = text[offset : offset + 3] == quote * 3
    width = 3 if info.is_long else 1
    start = offset + width
    info.content_start = start
    info.terminated = is_terminated(text, start, quote * width)
    content = text[start : len(text) - width] if info.terminated else text[start:]
    value = decode_escapes(content, quote, info.is_raw)
    if value is None:
        info.error = "invalid string syntax"
        value = ""
    if info.is_long:
        value = dedent_string(value)
    info.value = value
    return info


def is_terminated(text: str, start: int, closing: str) -> bool:
    """Whether the literal ``text`` (its content from ``start``) is a whole terminated
    string. Without a backslash that is: the first closing quote run is the text's
    end (a long string's quote may not be followed by two more, in the pattern's
    terms), and a short string has no line break; with one, the pattern decides."""
    if "\\" in text:
        return _TERMINATED.fullmatch(text) is not None
    width = len(closing)
    size = len(text)
    return (
        size - start >= width
        and text.find(closing, start) == size - width
        and (width == 3 or "\n" not in text)
    )


_SIMPLE_ESCAPES = {
    "\\": "\\",
    "'": "'",
    '"': '"',
    "\n": "",
    "a": "\x07",
    "b": "\x08",
    "f": "\x0c",
    "n": "\n",
    "r": "\r",
    "t": "\t",
    "v": "\x0b",
}


def decode_escapes(content: str, quote: str, is_raw: bool) -> str | None:
    """Process backslash escapes; None when an escape is malformed."""
    if "\\" not in content:
        return content
    out: list[str] = []
    index = 0
    size = len(content)
    while index < size:
        slash = content.find("\\", index)
        if slash < 0:
            out.append(content[index:])
            break
        out.append(content[index:slash])
        if slash + 1 >= size:
            return None
        char = content[slash + 1]
        if is_raw:
            out.append("\\" + char)
            index = slash + 2
            continue
        decoded, index = _escape(content, slash + 1, char)
        if decoded is None:
            return None
        out.append(decoded)
    return "".join(out)


def _escape(content: str, at: int, char: str) -> tuple[str | None, int]:
    """Decode the escape whose letter is ``content[at]``; returns (text, next index)."""
    simple = _SIMPLE_ESCAPES.get(char)
    if simple is not None:
        return simple, at + 1
    if "0" <= char <= "7":
        end = at + 1
        while end < len(content) and end < at + 3 and "0" <= content[end] <= "7":
            end += 1
        return chr(int(content[at:end], 8)), end
    widths = {"x": 2, "u": 4, "U": 8}
    if char in widths:
        digits = content[at + 1 : at + 1 + widths[char]]
        if len(digits) != widths[char] or any(c not in "0123456789abcdefABCDEF" for c in digits):
            return None, at
        code = int(digits, 16)
        if 0xD800 <= code <= 0xDFFF:
            return "\ufffd", at + 1 + widths[char]
        if code > 0x10FFFF:
            return None, at
        return chr(code), at + 1 + widths[char]
    if char == "N":
        close = content.find("}", at)
        if content[at + 1 : at + 2] != "{" or close < 0:
            return None, at
        try:
            return unicodedata.lookup(content[at + 2 : close]), close + 1
        except KeyError:
            return None, at
    return "\\" + char, at + 1


def dedent_string(text: str) -> str:
    """Strip the common leading blanks of a long string, as the reference does: the
    narrowest run of spaces and tabs leading a line that is not blank (or a blank last
    line) is cut from every line, after an empty first line is dropped. (Docstrings
    are most of the long strings of a model library: most take :func:`_dedent_spaces`.)"""
    dedented = _dedent_spaces(text)
    return dedent_lines(text) if dedented is None else dedented


def dedent_lines(text: str) -> str:
    """:func:`dedent_string` line by line, for every text (tests compare the two)."""
    lines = text.split("\n")
    widths = [len(line) - len(line.lstrip(" \t")) for line in lines if line and not line.isspace()]
    last = lines[-1]
    if last and last.isspace():
        widths.append(len(last) - len(last.lstrip(" \t")))
    indent = min(widths, default=0)
    if len(lines) > 1 and lines[0] == "":
        del lines[0]
    if indent:  # a line whose first `indent` characters are not all blanks loses its blanks
        lines = [
            line[indent:] if not line[:indent].strip(" \t") else line.lstrip(" \t")
            for line in lines
        ]
    return "\n".join(lines)


_SPACE_CUTS: dict[int, tuple[re.Pattern[str], re.Pattern[str]]] = {}


def _space_cut(indent: int) -> tuple[re.Pattern[str], re.Pattern[str]]:
    """For an indent width: the search for a line that is neither empty nor indented by
    that many spaces, and the substitution that cuts them (after a line break)."""
    cut = _SPACE_CUTS.get(indent)
    if cut is None:
        other = compiled(f"\\n(?! {{{indent}}}|\\n|\\Z)")
        cut = _SPACE_CUTS[indent] = (other, compiled(f"\\n {{{indent}}}"))
    return cut


def _dedent_spaces(text: str) -> str | None:
    """:func:`dedent_string` of the common case, in C calls rather than a turn per line:
    the first line that is not blank leads with ``indent`` spaces (no tab) and every
    line is empty or leads with as many spaces. Then ``indent`` is the narrowest run
    (the first such line has no more, the others and a blank last line no fewer) and
    each line loses exactly ``indent`` spaces. None when the case does not hold."""
    start = 0
    while True:  # the first line that is not blank
        end = text.find("\n", start)
        line = text[start:] if end < 0 else text[start:end]
        if line and not line.isspace():
            break
        if end < 0:
            return None
        start = end + 1
    content = line.lstrip(" ")
    indent = len(line) - len(content)
    if content[0] == "\t":
        return None
    dropped = 1 if text[:1] == "\n" else 0  # an empty first line is dropped
    if not indent:
        return text[dropped:]
    other, cut = _space_cut(indent)
    widened = "\n" + text  # (the first line is one after a line break too)
    if other.search(widened):
        return None
    return cut.sub("\n", widened)[1 + dropped :]


# --------------------------------------------------------------------------- interpolation


def split_interpolation(
    value: str, raw: str, quote_width: int
) -> tuple[list[tuple[str, str | int, int]], bool]:
    """Pair the ``${...}`` of the decoded ``value`` with those of the ``raw`` literal.

    Returns the parts — ``("text", text, 0)`` or ``("expr", raw_start, raw_end)``
    with raw offsets of the ``${``..``}`` span — and False when a ``${`` has no
    closing brace (the rest is kept as text). This follows the reference's
    two-pointer walk, including its escape rule (a ``\\`` right before ``${``).
    """
    parts: list[tuple[str, str | int, int]] = []
    body = raw[: len(raw) - quote_width]
    data_off, raw_off = 0, quote_width
    while raw_off < len(body) and data_off < len(value):
        raw_i = body.find("${", raw_off)
        data_i = value.find("${", data_off)
        if raw_i < 0 or data_i < 0:
            parts.append(("text", value[data_off:], 0))
            return parts, True
        raw_j = body.find("}", raw_i)
        data_j = value.find("}", data_i)
        if raw_j < 0 or data_j < 0:
            parts.append(("text", value[data_off:], 0))
            return parts, False
        if body[raw_off:raw_i].endswith("\\"):
            parts.append(("text", value[data_off : data_j + 1].replace("\\$", "$"), 0))
        else:
            if data_i > data_off:
                parts.append(("text", value[data_off:data_i], 0))
            parts.append(("expr", raw_i, raw_j + 1))
        data_off, raw_off = data_j + 1, raw_j + 1
    return parts, True
