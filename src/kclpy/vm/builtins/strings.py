"""The methods of KCL strings (``"abc".upper()``), with the reference's quirks.

Every function takes the receiver string first, then the method's arguments, and
returns a runtime value or raises :class:`~kclpy.values.errors.KclRuntimeError`.
:data:`STRING_METHODS` maps each KCL method name to its function.

Behaviour is Python's unless noted:

* ``find rfind index rindex count startswith endswith`` work on **UTF-8 bytes**:
  offsets and ``start``/``end`` are byte positions (``"héllo".find("l") == 3``);
* ``strip()`` without arguments strips Unicode White_Space, which (unlike Python)
  excludes ``\\x1c``-``\\x1f``; ``split()`` without a separator splits at ASCII
  whitespace only; ``split("")`` splits around every character;
* ``splitlines`` breaks only at ``\\n``, ``\\r\\n`` and ``\\r``;
* ``capitalize`` upper-cases the first character (``"ßa"`` -> ``"SSa"``); ``title``
  leaves upper-case letters as they are; ``isdigit`` accepts ASCII and superscript
  digits only; ``isalpha`` also accepts letter numbers (``"Ⅷ"``);
* ``join`` stringifies non-string items with ``str()``;
* a non-string where a string is expected is ``Invalid str object in str_<method>``;
  a non-int ``start``/``end``/``count``/``maxsplit`` means "not given";
* ``format`` implements ``{}``, ``{0}``, ``{name}``, ``{0[i]}``, ``{0.key}`` and format
  specs; conversions (``!r``) are ignored, values other than int/float/str are
  printed with ``str()`` whatever the spec, and a float or int spec without a
  type ignores its precision.
"""

from __future__ import annotations

import builtins
import functools
import re
from collections.abc import Callable

from kclpy.patterns import compiled
from kclpy.values import Value
from kclpy.values.errors import KclRuntimeError
from kclpy.vm.builtins.convert import to_str, truthy, type_name
from kclpy.vm.builtins.marks import OMIT, Fail, on_mismatch

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Final

# Python's whitespace minus \x1c-\x1f: the Unicode White_Space property.
WHITESPACE: Final = (
    "\t\n\x0b\x0c\r \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007"
    "\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000"
)
SPLIT_WHITESPACE: Final = " \t\n\r\x0b\x0c"  # what split() without a separator splits at
_SEPARATORS: Final = compiled("[\x1c-\x1f]")
_NOT_ASCII_SPACE: Final = compiled(
    "[\x1c-\x1f\x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]"
)
_WHITESPACE_RUN: Final = compiled("[" + re.escape(SPLIT_WHITESPACE) + "]+")
_OTHER_LINE_BREAKS: Final = compiled("[\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029]")
_LINE_BREAK: Final = compiled(r"(\r\n|\r|\n)")
_DIGIT_CHARACTERS: Final = frozenset(
    "0123456789\u00b2\u00b3\u00b9\u2070\u2074\u2075\u2076\u2077\u2078\u2079"
)
_DIGRAPHS: Final = compiled("[\u01c4\u01c7\u01ca\u01f1]")


# a non-string where a string is expected is the reference's error; a non-int
# start, end, count or maxsplit means "not given"
_CHECKS: Final = on_mismatch(
    Fail("Invalid str object in str_{function}"), start=OMIT, end=OMIT, count=OMIT, maxsplit=OMIT
)


# ------------------------------------------------------------ byte-offset search


@_CHECKS
def find(text: str, sub: str, start: int | None = None, end: int | None = None) -> int:
    """Lowest byte offset of ``sub`` in ``text[start:end]``, or -1."""
    if text.isascii():
        return text.find(sub, start, end)
    return text.encode().find(sub.encode(), start, end)


@_CHECKS
def rfind(text: str, sub: str, start: int | None = None, end: int | None = None) -> int:
    """Highest byte offset of ``sub`` in ``text[start:end]``, or -1."""
    if text.isascii():
        return text.rfind(sub, start, end)
    return text.encode().rfind(sub.encode(), start, end)


@_CHECKS
def index(text: str, sub: str, start: int | None = None, end: int | None = None) -> int:
    """Like :func:`find`, but "substring not found" is an error."""
    found = find(text, sub, start, end)
    if found < 0:
        raise KclRuntimeError("substring not found")
    return found


@_CHECKS
def rindex(text: str, sub: str, start: int | None = None, end: int | None = None) -> int:
    """Like :func:`rfind`, but "substring not found" is an error."""
    found = rfind(text, sub, start, end)
    if found < 0:
        raise KclRuntimeError("substring not found")
    return found


@_CHECKS
def count(text: str, sub: str, start: int | None = None, end: int | None = None) -> int:
    """Non-overlapping occurrences of ``sub`` in ``text[start:end]`` (byte positions)."""
    if text.isascii():
        return text.count(sub, start, end)
    return text.encode().count(sub.encode(), start, end)


@_CHECKS
def startswith(text: str, val: str, start: int | None = None, end: int | None = None) -> bool:
    """Whether ``text[start:end]`` (byte positions) begins with ``val``."""
    if text.isascii():
        return text.startswith(val, start, end)
    return text.encode().startswith(val.encode(), start, end)


@_CHECKS
def endswith(text: str, val: str, start: int | None = None, end: int | None = None) -> bool:
    """Whether ``text[start:end]`` (byte positions) ends with ``val``."""
    if text.isascii():
        return text.endswith(val, start, end)
    return text.encode().endswith(val.encode(), start, end)


# --------------------------------------------------------------------- case


def capitalize(text: str) -> str:
    """First character upper case, the rest lower case."""
    if text.isascii():
        return text.capitalize()
    return text[:1].upper() + text[1:].lower()


def title(text: str) -> str:
    """Words start upper case; already upper-case letters stay as they are."""
    if _DIGRAPHS.search(text) is None:
        return text.title()
    parts = []
    previous_cased = False
    for character in text:
        if previous_cased:
            parts.append(character.lower())
        elif character.isupper():
            parts.append(character)
        else:
            parts.append(character.title())
        previous_cased = character.isupper() or character.islower() or character.istitle()
    return "".join(parts)


def lower(text: str) -> str:
    return text.lower()


def upper(text: str) -> str:
    return text.upper()


def isdigit(text: str) -> bool:
    """Non-empty and only ASCII or superscript digits."""
    if text.isascii():
        return text.isdigit()
    return all(character in _DIGIT_CHARACTERS for character in text)


def isalnum(text: str) -> bool:
    return text.isalnum()


def isalpha(text: str) -> bool:
    """Letters, and letter-like numbers (Nl) as the Alphabetic property has them."""
    if text.isascii() or text.isalpha():
        return text.isalpha()
    import unicodedata  # (rare: a string with other characters than letters)

    return bool(text) and all(
        character.isalpha() or unicodedata.category(character) == "Nl" for character in text
    )


def isspace(text: str) -> bool:
    return text.isspace()


def islower(text: str) -> bool:
    return text.islower()


def isupper(text: str) -> bool:
    return text.isupper()


def istitle(text: str) -> bool:
    return text.istitle()


# ------------------------------------------------------------- strip and affixes


@_CHECKS
def strip(text: str, chars: str | None = None) -> str:
    """Remove leading and trailing ``chars`` (default: Unicode whitespace)."""
    characters = chars
    if characters is None and _SEPARATORS.search(text) is not None:
        characters = WHITESPACE
    return text.strip(characters)


@_CHECKS
def lstrip(text: str, chars: str | None = None) -> str:
    """Remove leading ``chars`` (default: Unicode whitespace)."""
    characters = chars
    if characters is None and _SEPARATORS.search(text) is not None:
        characters = WHITESPACE
    return text.lstrip(characters)


@_CHECKS
def rstrip(text: str, chars: str | None = None) -> str:
    """Remove trailing ``chars`` (default: Unicode whitespace)."""
    characters = chars
    if characters is None and _SEPARATORS.search(text) is not None:
        characters = WHITESPACE
    return text.rstrip(characters)


@_CHECKS
def removeprefix(text: str, prefix: str) -> str:
    return text.removeprefix(prefix)


@_CHECKS
def removesuffix(text: str, suffix: str) -> str:
    return text.removesuffix(suffix)


@_CHECKS
def replace(text: str, old: str, new: str, count: int = -1) -> str:
    """Replace ``old`` by ``new``, at most ``count`` times (negative: all)."""
    return text.replace(old, new, count)


# -------------------------------------------------------------------- splitting


@_CHECKS
def split(text: str, sep: str | None = None, maxsplit: int = -1) -> list[str]:
    """Split at ``sep`` (default: runs of whitespace), at most ``maxsplit`` times."""
    limit = maxsplit
    if sep is None:
        if _NOT_ASCII_SPACE.search(text) is None:
            return text.split(None, limit)
        return _split_whitespace(text, limit)
    if not sep:
        return _split_empty(text, limit)
    return text.split(sep, limit)


@_CHECKS
def rsplit(text: str, sep: str | None = None, maxsplit: int = -1) -> list[str]:
    """Split from the right at ``sep`` (default: runs of whitespace)."""
    limit = maxsplit
    if sep is None:
        if _NOT_ASCII_SPACE.search(text) is None:
            return text.rsplit(None, limit)
        return [part[::-1] for part in reversed(_split_whitespace(text[::-1], limit))]
    if not sep:
        return [part[::-1] for part in reversed(_split_empty(text[::-1], limit))]
    return text.rsplit(sep, limit)


def _split_whitespace(text: str, limit: int) -> list[str]:
    parts: list[str] = []
    leading = _WHITESPACE_RUN.match(text)
    position = leading.end() if leading else 0
    while position < len(text):
        if 0 <= limit == len(parts):
            parts.append(text[position:])
            break
        run = _WHITESPACE_RUN.search(text, position)
        if run is None:
            parts.append(text[position:])
            break
        parts.append(text[position : run.start()])
        position = run.end()
    return parts


def _split_empty(text: str, limit: int) -> list[str]:
    """The reference's split at "": a piece before every character and one at the end."""
    if limit < 0 or limit > len(text):
        return ["", *text, ""]
    if limit == 0:
        return [text]
    return ["", *text[: limit - 1], text[limit - 1 :]]


def splitlines(text: str, keepends: Value = False) -> list[str]:
    """Lines split at ``\\n``, ``\\r\\n`` and ``\\r`` only."""
    keep = truthy(keepends)
    if _OTHER_LINE_BREAKS.search(text) is None:
        return text.splitlines(keep)
    pieces = _LINE_BREAK.split(text)
    lines = [
        pieces[index] + pieces[index + 1] if keep else pieces[index]
        for index in range(0, len(pieces) - 1, 2)
    ]
    if pieces[-1]:
        lines.append(pieces[-1])
    return lines


def chars(text: str) -> list[str]:
    """The characters of ``text`` (KCL only)."""
    return list(text)


def join(text: str, iter: Value) -> str:
    """Items of a list (or characters of a string, keys of a dict) joined by ``text``;
    non-strings are turned into text with ``str()``."""
    if type(iter) is list:
        items: list[Value] = iter
    elif type(iter) is str or isinstance(iter, dict):
        items = list(iter)
    else:
        raise KclRuntimeError(f"'{type_name(iter)}' object is not iterable")
    return text.join([item if type(item) is str else to_str(item) for item in items])


# ----------------------------------------------------------------------- format

_SPEC: Final = compiled(
    r"(?:(?P<fill>.)?(?P<align>[<>=^]))?(?P<sign>[-+ ])?(?P<alt>#)?(?P<zero>0)?"
    r"(?P<width>[0-9]+)?(?P<group>[,_])?(?:\.(?P<precision>[0-9]+))?(?P<type>[bcdeEfFgGnosxX%])?",
    re.DOTALL,
)
_FIELD_PART: Final = compiled(r"\.([^.\[]+)|\[([^\]]+)\]")


def format(text: str, *args: Value, **kwargs: Value) -> str:
    """``text.format(*args, **kwargs)`` (see the module docstring for the rules)."""
    parts: list[str] = []
    automatic = 0
    for literal, field, spec in _parse(text):
        if literal:
            parts.append(literal)
        if field is None:
            continue
        value, automatic = _field_value(field, args, kwargs, automatic)
        parts.append(format_value(value, spec))
    return "".join(parts)


@functools.lru_cache(maxsize=256)
def _parse(text: str) -> tuple[tuple[str, str | None, str], ...]:
    """The (literal, field, spec) parts of a format string (cached: a program formats
    with few strings, often many times)."""
    import _string  # type: ignore[import-not-found]  # (what string.Formatter().parse calls;
    # importing string compiles string.Template's pattern, 0.4 ms)

    try:
        return tuple(
            (literal, field, spec or "")
            for literal, field, spec, _ in _string.formatter_parser(text)
        )
    except ValueError:
        raise KclRuntimeError("format error") from None


def _field_value(
    field: str, args: tuple[Value, ...], kwargs: dict[str, Value], automatic: int
) -> tuple[Value, int]:
    if not field and automatic < len(args):  # `{}`
        return args[automatic], automatic + 1
    cut = len(field)
    for marker in ".[":
        found = field.find(marker)
        if 0 <= found < cut:
            cut = found
    first = field[:cut]
    if first == "" or first.isdigit():
        position = automatic if first == "" else int(first)
        if first == "":
            automatic += 1
        if position >= len(args):
            raise KclRuntimeError("argument tuple index out of range")
        value = args[position]
    elif first in kwargs:
        value = kwargs[first]
    else:
        raise KclRuntimeError(f"keyword argument '{first}' not found")
    for match in _FIELD_PART.finditer(field, cut):
        value = _select(value, match.group(1), match.group(2))
    return value, automatic


def _select(value: Value, attribute: str | None, key: str | None) -> Value:
    if attribute is not None or (key is not None and not key.isdigit()):
        name = attribute if attribute is not None else key
        if not isinstance(value, dict) or name not in value:
            raise KclRuntimeError(f"format field '{name}' not found")
        return value[name]
    assert key is not None
    if type(value) is not list:
        raise KclRuntimeError("Invalid list object in list_get")
    position = int(key)
    if position >= len(value):
        raise KclRuntimeError(f"list index out of range: {position}")
    return value[position]


def format_value(value: Value, spec: str) -> str:
    """One replacement field: int/float/str by the format spec, others by ``str()``."""
    kind = type(value)
    if kind is not str and kind is not int and kind is not float:
        return to_str(value)
    if not spec:
        return value if isinstance(value, str) else _python_format(value, "")
    if "{" in spec:
        raise KclRuntimeError("Invalid format specifier")
    match = _SPEC.fullmatch(spec)
    if match is None:
        raise KclRuntimeError("Invalid format specifier")
    code = match.group("type")
    if kind is str:
        if code is not None and code != "s":
            raise KclRuntimeError("Unknown format code for object of type 'str'")
        if match.group("zero") and not match.group("align"):
            raise KclRuntimeError("'=' alignment not allowed in string format specifier")
    elif code is None and match.group("precision") is not None:
        spec = spec[: match.start("precision") - 1] + spec[match.end("precision") :]
    elif code == "c" and kind is int:
        raise KclRuntimeError("Unknown format code 'c' for object of type 'int'")
    elif code == "n":
        spec = spec[:-1] + ("d" if kind is int else "g")
    return _python_format(value, spec)


def _python_format(value: Value, spec: str) -> str:
    try:
        return builtins.format(value, spec)
    except ValueError as error:
        message = str(error)
        if message.startswith("Invalid format specifier"):
            message = "Invalid format specifier"
        raise KclRuntimeError(message) from None


STRING_METHODS: Final[dict[str, Callable[..., object]]] = {
    "capitalize": capitalize,
    "chars": chars,
    "count": count,
    "endswith": endswith,
    "find": find,
    "format": format,
    "index": index,
    "isalnum": isalnum,
    "isalpha": isalpha,
    "isdigit": isdigit,
    "islower": islower,
    "isspace": isspace,
    "istitle": istitle,
    "isupper": isupper,
    "join": join,
    "lower": lower,
    "lstrip": lstrip,
    "removeprefix": removeprefix,
    "removesuffix": removesuffix,
    "replace": replace,
    "rfind": rfind,
    "rindex": rindex,
    "rsplit": rsplit,
    "rstrip": rstrip,
    "split": split,
    "splitlines": splitlines,
    "startswith": startswith,
    "strip": strip,
    "title": title,
    "upper": upper,
}
