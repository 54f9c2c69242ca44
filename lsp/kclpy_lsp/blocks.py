"""Where the cursor stands in the text being typed: the brackets open around it and
the keys already set in a config block.

Completion answers from the latest completed analysis, whose offsets may lag the
buffer by a few keystrokes, so the shape around the cursor is read from the text
itself. The statement holding the cursor (from the last line that starts at
column 0 with something other than a closing bracket or a comment, to the next
such line) is *masked*: string literals (quoted, triple-quoted, with prefixes)
and comments become spaces of the same length, so brackets and keys inside them
do not count. On the masked text:

* ``open_brackets(text, offset)``: every bracket open at the offset, outermost
  first, each with its *head* (what precedes it on its segment: ``p = Person``
  before ``{``, ``ports:`` before ``[``);
* ``keys_set(text, bracket)``: the first names of the entries written at the
  block's own level (``name`` in ``name = 1``, ``labels`` in ``labels.app: "a"``);
* ``string_at(text, offset)``: the string literal around the offset (a docstring);
* ``in_text(text, offset)``: whether the offset lies in a comment or in a string's
  text (not inside one of its ``${...}`` interpolations): no code is typed there.

Takes text and offsets (code points); returns plain data. Knows nothing of types.
"""

from __future__ import annotations

import re

import attrs

_OPENING = {"{": "}", "[": "]", "(": ")"}
_CLOSING = {"}", "]", ")"}
_STRING_START = re.compile(r"(?i)(?:[rbf]|rb|br)?('''|\"\"\"|'|\")")
_ENTRY_KEY = re.compile(r"\s*([A-Za-z_$][\w$]*)(?:\s*\.\s*[A-Za-z_$][\w$]*)*\s*(?:\+?=|:)")


@attrs.frozen
class Bracket:
    """An open bracket around the cursor."""

    char: str  # "{", "[" or "("
    offset: int  # of the bracket, in the text
    head: str  # the masked text before it on its segment (after a newline, bracket or comma)


def statement_bounds(text: str, offset: int) -> tuple[int, int]:
    """The start and end offsets of the top-level statement holding ``offset``."""
    start = text.rfind("\n", 0, offset) + 1
    while start > 0 and not _starts_statement(text, start):
        start = text.rfind("\n", 0, start - 1) + 1
    end = text.find("\n", offset)
    while end != -1 and not _starts_statement(text, end + 1):
        end = text.find("\n", end + 1)
    return start, len(text) if end == -1 else end + 1


def _starts_statement(text: str, start: int) -> bool:
    char = text[start : start + 1]
    return char != "" and not char.isspace() and char not in _CLOSING and char != "#"


def mask(text: str, start: int, end: int) -> str:
    """``text[start:end]`` with the contents of strings and comments replaced by spaces
    (quotes and line breaks kept, so offsets and lines stay where they were)."""
    return _scan(text, start, end)[0]


def string_at(text: str, offset: int) -> tuple[int, int, str] | None:
    """The string literal whose contents hold ``offset``: where its contents start
    and stop, and its quote (None outside strings)."""
    start, end = statement_bounds(text, offset)
    for begin, close, quote in _scan(text, start, end)[1]:
        if begin <= offset <= close:
            return begin, close, quote
    return None


def in_text(text: str, offset: int) -> bool:
    """Whether ``offset`` lies in a comment or in the text of a string literal
    (an interpolation ``${...}`` open at the offset is code)."""
    start, end = statement_bounds(text, offset)
    masked, strings = _scan(text, start, end)
    for begin, close, _quote in strings:
        if begin <= offset <= close:
            return not _interpolating(text[begin:offset])
    line_start = max(start, text.rfind("\n", 0, offset) + 1)
    for index in range(line_start, offset):
        if text[index] == "#" and masked[index - start] == " ":
            inside = any(begin <= index < close for begin, close, _quote in strings)
            if not inside:
                return True
    return False


def _interpolating(contents: str) -> bool:
    """Whether a ``${`` is open at the end of a string's contents."""
    depth = 0
    index = 0
    while index < len(contents):
        if contents[index] == "\\":
            index += 2
            continue
        if contents.startswith("${", index):
            depth += 1
            index += 2
            continue
        if contents[index] == "}" and depth:
            depth -= 1
        index += 1
    return depth > 0


def _scan(text: str, start: int, end: int) -> tuple[str, list[tuple[int, int, str]]]:
    """The masked text and the strings found: (contents start, contents end, quote)."""
    out: list[str] = []
    strings: list[tuple[int, int, str]] = []
    index = start
    while index < end:
        char = text[index]
        if char == "#":
            stop = text.find("\n", index, end)
            stop = end if stop == -1 else stop
            out.append(" " * (stop - index))
            index = stop
            continue
        found = _STRING_START.match(text, index) if char in "\"'rRbBfF" else None
        if found is not None and (index == start or not text[index - 1].isalnum()):
            quote = found.group(1)
            close = _string_end(text, found.end(), end, quote)
            strings.append((found.end(), close, quote))
            out.append(text[index : found.end()])
            out.append(re.sub(r"[^\n]", " ", text[found.end() : close]))
            index = close
            if text.startswith(quote, close):
                out.append(quote)
                index += len(quote)
            continue
        out.append(char)
        index += 1
    return "".join(out), strings


def _string_end(text: str, index: int, end: int, quote: str) -> int:
    """The offset of the closing quote (``end`` for an unterminated string; a one-line
    string also stops at its line's end)."""
    while index < end:
        char = text[index]
        if char == "\\":
            index += 2
            continue
        if text.startswith(quote, index):
            return index
        if char == "\n" and len(quote) == 1:
            return index
        index += 1
    return min(index, end)


def open_brackets(text: str, offset: int) -> list[Bracket]:
    """The brackets open at ``offset``, outermost first."""
    start, _end = statement_bounds(text, offset)
    masked = mask(text, start, offset)
    stack: list[int] = []  # positions in ``masked``
    for index, char in enumerate(masked):
        if char in _OPENING:
            stack.append(index)
        elif char in _CLOSING and stack:
            stack.pop()
    found = []
    for index in stack:
        head = masked[_segment_start(masked, index) : index]
        found.append(Bracket(masked[index], start + index, head))
    return found


def _segment_start(masked: str, index: int) -> int:
    """Where the segment before ``index`` starts: after the nearest newline, comma or
    unclosed bracket (closed groups such as ``(b)`` in ``Person(b) {`` are skipped)."""
    depth = 0
    position = index - 1
    while position >= 0:
        char = masked[position]
        if char in _CLOSING:
            depth += 1
        elif char in _OPENING:
            if depth == 0:
                break
            depth -= 1
        elif depth == 0 and char in ",\n":
            break
        position -= 1
    return position + 1


def keys_set(text: str, bracket: Bracket) -> set[str]:
    """The first names of the entries written at the block's own level (before and
    after the cursor, to the block's closing bracket or its statement's end)."""
    _start, end = statement_bounds(text, bracket.offset)
    body = mask(text, bracket.offset + 1, end)
    keys: set[str] = set()
    depth = 0
    entry_start = 0
    for index, char in enumerate(body + "\n"):
        if char in _OPENING:
            if depth == 0:
                _add_key(body[entry_start:index], keys)
                entry_start = len(body)  # the rest of this entry is its value
            depth += 1
        elif char in _CLOSING:
            depth -= 1
            if depth < 0:  # the block's own closing bracket
                _add_key(body[entry_start:index], keys)
                break
        elif depth == 0 and char in ",\n":
            _add_key(body[entry_start:index], keys)
            entry_start = index + 1
    return keys


def _add_key(entry: str, keys: set[str]) -> None:
    found = _ENTRY_KEY.match(entry)
    if found is not None:
        keys.add(found.group(1))
