"""A small reader for the plain TOML of ``kcl.mod`` and ``kcl.mod.lock``.

Importing the standard library's ``tomllib`` costs about 2.6 ms (it compiles regular
expressions and imports ``datetime``), paid by every ``kcl run`` in a module. These
files use a tiny part of TOML, read here with string methods only:

- lines ending in ``\\n`` or ``\\r\\n``, blank lines, ``# comments`` (also after a
  statement), spaces and tabs around statements;
- table headers ``[a]`` and ``[a.b]`` of bare keys that open a new table;
- ``key = value`` with a bare key (``A-Za-z0-9_-``) that is new in its table;
- values: ``"basic"`` strings without escapes, ``'literal'`` strings, ``true``,
  ``false``, decimal integers, and one-line arrays ``[v, ...]`` and inline tables
  ``{ k = v, ... }`` of those scalars.

:func:`loads` returns what ``tomllib.loads`` returns for such a text, and ``None``
for anything else (floats, dates, escapes, multi-line values, quoted or dotted keys,
array tables, redefined tables, invalid TOML...): the caller then uses ``tomllib``.
"""

from __future__ import annotations

TYPE_CHECKING = False  # not importing typing at run time: it is not loaded at start-up
if TYPE_CHECKING:
    from typing import Any

_BARE = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
# the control characters TOML allows nowhere but as the end of a line (tab is fine)
_CONTROL = frozenset(chr(i) for i in (*range(32), 127) if chr(i) not in "\t\n")
_TOKEN_END = frozenset(" \t#,]}")  # what ends ``true``, ``false`` or an integer


class _Decline(Exception):
    """The text is outside the subset (or is not TOML): leave it to ``tomllib``."""


def loads(text: str) -> dict[str, Any] | None:
    """The document of ``text``, or ``None`` when it is not within the subset."""
    text = text.replace("\r\n", "\n")  # as tomllib does; a lone "\r" is in _CONTROL
    if not _CONTROL.isdisjoint(text):
        return None
    root: dict[str, Any] = {}
    # the ids of the tables made by headers (root included): a header may go through
    # them, never through a value (an inline table is a value too)
    tables = {id(root)}
    table = root
    try:
        for line in text.split("\n"):
            pos = _skip(line, 0)
            char = line[pos : pos + 1]
            if char == "[":
                table, pos = _header(line, pos, root, tables)
            elif char and char != "#":
                key, pos = _key(line, pos)
                if key in table:
                    raise _Decline
                table[key], pos = _value(line, pos, nested=False)
            pos = _skip(line, pos)
            if pos < len(line) and line[pos] != "#":
                raise _Decline
    except _Decline:
        return None
    return root


def _skip(line: str, pos: int) -> int:
    """The position after the spaces and tabs at ``pos``."""
    while line[pos : pos + 1] in (" ", "\t"):
        pos += 1
    return pos


def _header(
    line: str, pos: int, root: dict[str, Any], tables: set[int]
) -> tuple[dict[str, Any], int]:
    """Open the new table of the header at ``pos``; the position after its ``]``."""
    end = line.find("]", pos)
    if end < 0 or line.startswith("[[", pos):
        raise _Decline
    names = line[pos + 1 : end].split(".")
    table = root
    for depth, part in enumerate(names, 1):
        name = part.strip(" \t")
        if not name or not _BARE.issuperset(name):
            raise _Decline
        child = table.get(name)
        if child is None:
            child = table[name] = {}
            tables.add(id(child))
        elif depth == len(names) or id(child) not in tables:
            raise _Decline  # a table defined again, or a path through a value
        table = child
    return table, end + 1


def _key(line: str, pos: int) -> tuple[str, int]:
    """The bare key at ``pos`` and the position of its value, after ``=``."""
    start = pos
    while line[pos : pos + 1] in _BARE:
        pos += 1
    key = line[start:pos]
    pos = _skip(line, pos)
    if not key or line[pos : pos + 1] != "=":
        raise _Decline
    return key, _skip(line, pos + 1)


def _value(line: str, pos: int, nested: bool) -> tuple[Any, int]:
    """The value at ``pos`` and the position after it; ``nested``: only a scalar."""
    char = line[pos : pos + 1]
    if char in ('"', "'"):
        end = line.find(char, pos + 1)
        if end < 0 or line.startswith(char * 3, pos):
            raise _Decline  # unterminated, or a multi-line string
        value = line[pos + 1 : end]
        if char == '"' and "\\" in value:
            raise _Decline
        return value, end + 1
    if char in ("[", "{") and not nested:
        return _array(line, pos) if char == "[" else _inline_table(line, pos)
    end = pos
    while end < len(line) and line[end] not in _TOKEN_END:
        end += 1
    return _scalar(line[pos:end]), end


def _scalar(token: str) -> bool | int:
    if token in ("true", "false"):
        return token == "true"
    digits = token[1:] if token.startswith(("+", "-")) else token
    if not (digits.isascii() and digits.isdigit()) or (digits[0] == "0" and digits != "0"):
        raise _Decline  # also floats, dates, inf, nan, "0x1f", "1_000", "01", ""
    try:
        return int(token)
    except ValueError:  # more digits than sys.get_int_max_str_digits()
        raise _Decline from None


def _array(line: str, pos: int) -> tuple[list[Any], int]:
    items: list[Any] = []
    pos = _skip(line, pos + 1)
    while not line.startswith("]", pos):
        value, pos = _value(line, pos, nested=True)
        items.append(value)
        pos = _skip(line, pos)
        if line.startswith(",", pos):
            pos = _skip(line, pos + 1)  # a trailing comma is allowed
        elif not line.startswith("]", pos):
            raise _Decline
    return items, pos + 1


def _inline_table(line: str, pos: int) -> tuple[dict[str, Any], int]:
    table: dict[str, Any] = {}
    pos = _skip(line, pos + 1)
    if line.startswith("}", pos):
        return table, pos + 1
    while True:
        key, pos = _key(line, pos)  # a trailing comma is not allowed
        if key in table:
            raise _Decline
        table[key], pos = _value(line, pos, nested=True)
        pos = _skip(line, pos)
        if line.startswith("}", pos):
            return table, pos + 1
        if not line.startswith(",", pos):
            raise _Decline
        pos = _skip(line, pos + 1)
