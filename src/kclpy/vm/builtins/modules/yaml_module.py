"""The ``yaml`` system module: encode, decode and validate YAML text.

Writing (``encode``, ``encode_all``, ``dump_to_file``, ``dump_all_to_file``) uses
:mod:`kclpy.values.yaml_writer`; ``encode_all`` joins documents with ``"\\n---\\n"`` (so a
blank line precedes each ``---``, as in the reference). ``dump_*`` return Undefined
and resolve a relative file name against the running .k file's folder.

Reading follows the reference's reader (serde_yaml 0.9 on libyaml), driven here by
PyYAML's libyaml event parser, so syntax errors carry libyaml's own text
(``did not find expected ',' or ']' at line 2 column 1, while parsing a flow
sequence at line 1 column 4``). Plain scalars are resolved with the YAML 1.2 core
schema as serde_yaml applies it:

* null: ``~ null Null NULL`` and the empty scalar; booleans: ``true True TRUE`` and
  the false forms (``yes``/``on`` stay strings);
* integers: decimal (a leading zero makes a string: ``017``), ``0x`` ``0o`` ``0b``
  prefixes with an optional sign; beyond 64 bits an error (up to 128 bits) or a float;
* floats: Rust float syntax (``1.``, ``.5``, ``1e3``) and ``.inf``/``.nan`` forms;
  ``inf``, ``nan``, ``1_000`` and out-of-range values stay strings.

Quoted scalars are strings. Tags ``!!str !!int !!float !!bool !!null`` convert or
fail (``invalid value: string "x", expected an integer``); other ``!!`` or URI tags
are ignored (scalars become strings); local tags (``!foo``, ``!``) fail as the
reference fails on them (``invalid type: enum``). Keys are the scalar's text whatever
it looks like (``1: a`` gives the key ``"1"``); a collection key is an error.
Merge keys ``<<`` are plain keys. Anchors and aliases work; a recursive alias hits
the 128-level recursion limit. Values then travel through JSON as in the reference:
floats are re-read by serde_json's float parser, ``.inf`` and ``.nan`` become None,
64-bit unsigned integers above the signed range become floats, and 128 levels of
nesting fail with serde_json's recursion error.

``decode`` accepts one document (an empty stream is None); ``decode_all`` returns
the list of documents (``[None]`` for an empty stream); ``validate`` tells whether
``decode_all`` succeeds.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

from kclpy.values import UNDEFINED, Value
from kclpy.values.errors import KclRuntimeError
from kclpy.vm.builtins.marks import Answer, Fail, needs_context, on_mismatch

if TYPE_CHECKING:
    import re
    from collections.abc import Iterator

    from kclpy.vm.builtins.context import BuiltinContext

_MAX_DEPTH: Final = 128
_CORE: Final = "tag:yaml.org,2002:"
_NULLS: Final = frozenset(["~", "null", "Null", "NULL"])
_TRUE: Final = frozenset(["true", "True", "TRUE"])
_FALSE: Final = frozenset(["false", "False", "FALSE"])
_INF: Final = frozenset([".inf", ".Inf", ".INF"])
_NAN: Final = frozenset([".nan", ".NaN", ".NAN"])
_INT_MIN: Final = -(2**63)
_INT_MAX: Final = 2**63 - 1
_PREFIXES: Final = (("0x", 16), ("0o", 8), ("0b", 2))
_FLOAT_SYNTAX: re.Pattern[str] | None = None
_RADIX_DIGITS: Final = {16: "0123456789abcdefABCDEF", 8: "01234567", 2: "01", 10: "0123456789"}


class YamlError(Exception):
    """A failure to read YAML; ``str()`` is the reference's message."""


Mark = tuple[int, int]  # 0-based line and column


def _at(mark: Mark | None) -> str:
    if mark is None or mark == (0, 0):
        return ""
    return f" at line {mark[0] + 1} column {mark[1] + 1}"


def _syntax_error(error: Exception) -> YamlError:
    """The reference's text for a libyaml scanner/parser/reader error."""
    problem = str(getattr(error, "problem", None) or getattr(error, "reason", None) or error)
    problem_mark = getattr(error, "problem_mark", None)
    mark = (problem_mark.line, problem_mark.column) if problem_mark is not None else None
    text = problem + _at(mark)
    position = getattr(error, "position", None)
    if mark is None and position:
        text += f" at position {position}"
    context = getattr(error, "context", None)
    if context:
        context_mark = getattr(error, "context_mark", None)
        where = (context_mark.line, context_mark.column) if context_mark is not None else None
        text += ", " + context + (_at(where) if where != mark else "")
    return YamlError(text)


class _Document:
    """The events of one document (as tuples) and the error that ended it early."""

    __slots__ = ("error", "events")

    def __init__(self) -> None:
        # (kind, tag, value, style, mark, target) with kind one of
        # "scalar", "seq", "map", "end", "alias"; target: the aliased event index.
        self.events: list[tuple[str, str | None, str, str, Mark, int]] = []
        self.error: YamlError | None = None


def _documents(text: str) -> Iterator[_Document]:
    import yaml

    events = yaml.parse(text, Loader=getattr(yaml, "CBaseLoader", yaml.BaseLoader))
    first = True
    while True:
        document = _Document()
        anchors: dict[str, int] = {}
        while True:
            try:
                event = next(events)
            except StopIteration:
                return
            except yaml.YAMLError as error:
                document.error = _syntax_error(error)
                yield document
                return
            name = type(event).__name__
            start = event.start_mark
            mark = (start.line, start.column) if start is not None else (0, 0)
            if name in ("StreamStartEvent", "DocumentStartEvent"):
                continue
            if name == "StreamEndEvent":
                if first:
                    document.events.append(("scalar", None, "", "", mark, -1))
                    yield document
                return
            if name == "DocumentEndEvent":
                break
            if name == "AliasEvent":
                target = anchors.get(getattr(event, "anchor", ""))
                if target is None:
                    document.error = YamlError("unknown anchor" + _at(mark))
                    yield document
                    return
                document.events.append(("alias", None, "", "", mark, target))
                continue
            anchor: str | None = getattr(event, "anchor", None)
            if anchor is not None:
                anchors[anchor] = len(document.events)
            if name == "ScalarEvent":
                entry = ("scalar", event.tag, event.value, event.style or "", mark, -1)
            elif name in ("SequenceStartEvent", "MappingStartEvent"):
                kind = "seq" if name == "SequenceStartEvent" else "map"
                entry = (kind, getattr(event, "tag", None), "", "", mark, -1)
            else:
                entry = ("end", None, "", "", mark, -1)
            document.events.append(entry)
        first = False
        yield document


# ---------------------------------------------------------------------------------------
# Scalars


def _digits_but_not_number(text: str) -> bool:
    body = text[1:] if text[:1] in ("+", "-") else text
    return len(body) > 1 and body[0] == "0" and body[1:].isdigit() and body.isascii()


def _radix(digits: str, base: int) -> int | None:
    allowed = _RADIX_DIGITS[base]
    if not digits or any(char not in allowed for char in digits):
        return None
    return int(digits, base)


def _parse_int(text: str) -> int | None:
    """The integer a plain scalar denotes (any size), or None."""
    negative = text.startswith("-")
    body = text[1:] if negative or text.startswith("+") else text
    for prefix, base in _PREFIXES:
        if body.startswith(prefix):
            rest = body[2:]
            if rest[:1] in ("+", "-"):
                return None
            value = _radix(rest, base)
            if value is not None:
                return -value if negative else value
            break
    if body[:1] in ("+", "-") or _digits_but_not_number(text):
        return None
    value = _radix(body, 10)
    if value is None:
        return None
    return -value if negative else value


def _rust_float(text: str) -> float | None:
    """Rust's ``str::parse::<f64>`` of decimal text, finite results only."""
    global _FLOAT_SYNTAX
    if _FLOAT_SYNTAX is None:
        import re

        _FLOAT_SYNTAX = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
    if not _FLOAT_SYNTAX.fullmatch(text):
        return None
    value = float(text)
    return value if value not in (float("inf"), float("-inf")) else None


def _parse_float(text: str) -> float | None:
    unpositive = text[1:] if text.startswith("+") else text
    if unpositive[:1] in ("+", "-") and text.startswith("+"):
        return None
    if unpositive in _INF:
        return float("inf")
    if text in ("-.inf", "-.Inf", "-.INF"):
        return float("-inf")
    if text in _NAN:
        return float("nan")
    return _rust_float(unpositive)


class _Converter:
    """Turns the events of one document into runtime values (serde_yaml's rules)."""

    __slots__ = ("document", "events")

    def __init__(self, document: _Document) -> None:
        self.document = document
        self.events = document.events

    def fail(self, path: str, message: str, mark: Mark) -> YamlError:
        prefix = f"{path}: " if path != "." else ""
        return YamlError(prefix + message + _at(mark))

    def end_of_events(self) -> YamlError:
        return self.document.error or YamlError("EOF while parsing a value")

    def value(self, index: int, path: str, depth: int) -> tuple[Value, int]:
        """The value starting at event ``index`` and the index after it."""
        if index >= len(self.events):
            raise self.end_of_events()
        kind, tag, text, style, mark, target = self.events[index]
        if kind == "alias":
            value, _ = self.value(target, path, depth)
            return value, index + 1
        if tag is not None and tag.startswith("!"):
            raise self.fail(path, "invalid type: enum, expected any valid JSON value", mark)
        if kind == "scalar":
            return self.scalar(tag, text, style, path, mark), index + 1
        if kind == "end":
            raise self.end_of_events()
        if depth >= _MAX_DEPTH:
            raise YamlError("recursion limit exceeded" + _at(mark))
        if kind == "seq":
            return self.sequence(index + 1, path, depth + 1)
        return self.mapping(index + 1, path, depth + 1)

    def sequence(self, index: int, path: str, depth: int) -> tuple[list[Value], int]:
        result: list[Value] = []
        while True:
            if index >= len(self.events):
                raise self.end_of_events()
            if self.events[index][0] == "end":
                return result, index + 1
            item, index = self.value(index, f"{path}[{len(result)}]", depth)
            result.append(item)

    def mapping(self, index: int, path: str, depth: int) -> tuple[dict[str, Value], int]:
        result: dict[str, Value] = {}
        while True:
            if index >= len(self.events):
                raise self.end_of_events()
            if self.events[index][0] == "end":
                return result, index + 1
            key, index = self.key(index, path)
            child = key if path == "." else f"{path}.{key}"
            result[key], index = self.value(index, child, depth)

    def key(self, index: int, path: str) -> tuple[str, int]:
        kind, _tag, text, _style, mark, target = self.events[index]
        while kind == "alias":
            kind, _tag, text, _style, mark, target = self.events[target]
        if kind == "scalar":
            return text, index + 1
        if kind == "end":
            raise self.end_of_events()
        found = "sequence" if kind == "seq" else "map"
        raise self.fail(path, f"invalid type: {found}, expected a string key", mark)

    def scalar(self, tag: str | None, text: str, style: str, path: str, mark: Mark) -> Value:
        if tag is not None and tag.startswith(_CORE):
            name = tag[len(_CORE) :]
            if name == "str":
                return text
            if name == "null":
                if text in _NULLS:
                    return None
                raise self.invalid(text, "null", path, mark)
            if name == "bool":
                if text in _TRUE or text in _FALSE:
                    return text in _TRUE
                raise self.invalid(text, "a boolean", path, mark)
            if name == "int":
                number = _parse_int(text)
                if number is None:
                    raise self.invalid(text, "an integer", path, mark)
                return self.integer(number, path, mark)
            if name == "float":
                real = _parse_float(text)
                if real is None:
                    raise self.invalid(text, "a float", path, mark)
                return _reread(real)
            return text
        if tag is not None or style:
            return text
        return self.plain(text, path, mark)

    def invalid(self, text: str, expected: str, path: str, mark: Mark) -> YamlError:
        return self.fail(path, f'invalid value: string "{text}", expected {expected}', mark)

    def integer(self, number: int, path: str, mark: Mark) -> int | float:
        if _INT_MIN <= number <= _INT_MAX:
            return number
        if 0 <= number < 2**64:
            return float(number)
        if -(2**127) <= number < 2**128:
            width = "i128" if number < 0 else "u128"
            message = f"invalid type: integer `{number}` as {width}, expected any valid JSON value"
            raise self.fail(path, message, mark)
        raise OverflowError

    def plain(self, text: str, path: str, mark: Mark) -> Value:
        if not text or text in _NULLS:
            return None
        if text in _TRUE:
            return True
        if text in _FALSE:
            return False
        number = _parse_int(text)
        if number is not None:
            try:
                return self.integer(number, path, mark)
            except OverflowError:
                pass
        if not _digits_but_not_number(text):
            real = _parse_float(text)
            if real is not None:
                return _reread(real)
        return text


def _reread(value: float) -> float | None:
    """``value`` after the reference's trip through JSON text (serde_json's float reader);
    inf and nan come back as None (JSON null)."""
    if value != value or value in (float("inf"), float("-inf")):
        return None
    from kclpy.vm.builtins.modules.json_module import loads

    result = loads(repr(value))
    return float(result) if isinstance(result, int | float) else None


def _convert(document: _Document) -> Value:
    value, _ = _Converter(document).value(0, ".", 0)
    if document.error is not None:
        raise document.error
    _check_json_depth(value)
    return value


def _depth(value: Value) -> int:
    deepest = 0
    stack = [(value, 1)]
    while stack:
        item, level = stack.pop()
        if isinstance(item, dict | list):
            deepest = max(deepest, level)
            children = item.values() if isinstance(item, dict) else item
            stack.extend((child, level + 1) for child in children)
    return deepest


def _check_json_depth(value: Value) -> None:
    """The reference hands decoded YAML on as JSON text, read back with a nesting limit
    of 127: at 128 levels it fails with serde_json's error, its column counted in that
    compact JSON text."""
    if _depth(value) < _MAX_DEPTH:
        return
    import json

    text = json.dumps(value, separators=(",", ":"), ensure_ascii=False)
    level = 0
    in_string = False
    escaped = False
    for index, char in enumerate(text):
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in "[{":
            level += 1
            if level == _MAX_DEPTH:
                column = len(text[:index].encode("utf-8")) + 1
                raise YamlError(
                    "called `Result::unwrap()` on an `Err` value: "
                    f'Error("recursion limit exceeded", line: 1, column: {column})'
                )
        elif char in "]}":
            level -= 1


def loads(text: str) -> Value:
    """The single document of ``text`` (raises :class:`YamlError`)."""
    documents = _documents(text)
    first = next(documents, None)
    if first is None:
        return None
    value = _convert(first)
    if next(documents, None) is not None:
        raise YamlError(
            "deserializing from YAML containing more than one document is not supported"
        )
    return value


def loads_all(text: str) -> list[Value]:
    """Every document of ``text`` (raises :class:`YamlError`)."""
    return [_convert(document) for document in _documents(text)] or [None]


# ---------------------------------------------------------------------------------------
# Members


# a YAML text that is not a string (the adapter's check): the reference's words
_TEXT: Final = on_mismatch(Fail("{function}() expected str, got {kcl}"))


def _flags(sort_keys: Value, ignore_private: Value, ignore_none: Value) -> dict[str, bool]:
    from kclpy.vm.builtins.convert import truthy

    return {
        "sort_keys": truthy(sort_keys),
        "ignore_private": truthy(ignore_private),
        "ignore_none": truthy(ignore_none),
    }


def _list(data: Value) -> list[Value]:
    if not isinstance(data, list):
        raise KclRuntimeError("invalid list value")
    return data


def encode(
    data: Value, sort_keys: Value = False, ignore_private: Value = False, ignore_none: Value = False
) -> str:
    """``data`` as one YAML document (with a final newline)."""
    from kclpy.values.yaml_writer import to_yaml

    return to_yaml(data, **_flags(sort_keys, ignore_private, ignore_none))


def encode_all(
    data: Value, sort_keys: Value = False, ignore_private: Value = False, ignore_none: Value = False
) -> str:
    """The items of ``data`` as a YAML stream (``"\\n---\\n"`` between documents)."""
    from kclpy.values.yaml_writer import to_yaml_all

    return to_yaml_all(_list(data), **_flags(sort_keys, ignore_private, ignore_none))


@_TEXT
def decode(value: str) -> Value:
    """The value of the single YAML document ``value``."""
    try:
        return loads(value)
    except YamlError as error:
        raise KclRuntimeError(str(error)) from None


@_TEXT
def decode_all(value: str) -> list[Value]:
    """The values of every document in ``value``."""
    try:
        return loads_all(value)
    except YamlError as error:
        raise KclRuntimeError(str(error)) from None


@on_mismatch(Answer(False))
def validate(value: str) -> bool:
    """Whether ``value`` is YAML that :func:`decode_all` accepts."""
    try:
        loads_all(value)
    except YamlError:
        return False
    return True


@needs_context
def dump_to_file(
    ctx: BuiltinContext,
    data: Value,
    filename: Value,
    sort_keys: Value = False,
    ignore_private: Value = False,
    ignore_none: Value = False,
) -> Value:
    """Write ``data`` as YAML to ``filename``; returns Undefined."""
    from kclpy.vm.builtins.modules.json_module import write_text

    write_text(ctx, filename, encode(data, sort_keys, ignore_private, ignore_none))
    return UNDEFINED


@needs_context
def dump_all_to_file(
    ctx: BuiltinContext,
    data: Value,
    filename: Value,
    sort_keys: Value = False,
    ignore_private: Value = False,
    ignore_none: Value = False,
) -> Value:
    """Write the items of ``data`` as a YAML stream to ``filename``; returns Undefined."""
    from kclpy.vm.builtins.modules.json_module import write_text

    text = encode_all(data, sort_keys, ignore_private, ignore_none)
    write_text(ctx, filename, text, debug_error=True)
    return UNDEFINED


MEMBERS: Final[dict[str, object]] = {
    "encode": encode,
    "encode_all": encode_all,
    "decode": decode,
    "decode_all": decode_all,
    "dump_to_file": dump_to_file,
    "dump_all_to_file": dump_all_to_file,
    "validate": validate,
}
