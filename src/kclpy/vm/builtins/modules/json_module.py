"""The ``json`` system module: ``encode``, ``decode``, ``validate``, ``dump_to_file``, ``merge``.

``encode`` and ``dump_to_file`` write with :func:`kclpy.values.json_writer.to_json` (compact
``", "``/``": "`` style, or indented with ``indent``; Undefined omitted; schemas as
their attributes). ``dump_to_file`` writes no final newline and returns Undefined; a
relative file name is resolved against the directory of the running .k file (the
reference uses the process's working directory).

``decode`` reads JSON as the reference's reader (serde_json) does, errors included
(``trailing comma at line 1 column 7``, columns counted in UTF-8 bytes). Numbers:
an integer that fits in 64 bits is an int, any other number a float; ``-0`` is the
float ``-0.0``; floats are computed the way serde_json's default (fast, not always
correctly rounded) parser computes them, so ``9.044889105823875e19`` reads as
``9.044889105823877e19`` in both. Duplicate keys keep the first position and the last
value. ``validate`` tells whether ``decode`` would succeed.

``merge(src, patch)`` is an RFC 7396 merge patch: dict entries of ``patch`` merge
recursively, None deletes a key, anything else replaces.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Final

from kclpy.values import UNDEFINED, Value
from kclpy.values.errors import KclRuntimeError
from kclpy.vm.builtins.marks import Answer, Fail, needs_context, on_mismatch
from kclpy.vm.fs_policy import WRITE, Access

if TYPE_CHECKING:
    from kclpy.vm.builtins.context import BuiltinContext

INT_MIN: Final = -(2**63)
INT_MAX: Final = 2**63 - 1
_U64_MAX: Final = 2**64 - 1
_POW10: Final = tuple(float(f"1e{power}") for power in range(309))
_WHITESPACE: Final = " \t\n\r"
_MAX_DEPTH: Final = 128
_ESCAPES: Final = {
    '"': '"', "\\": "\\", "/": "/", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t",
}  # fmt: skip


class JsonError(Exception):
    """A decoding failure; ``str()`` is the reference's message."""


def serde_float(significand: int, exponent: int, negative: bool = False) -> float:
    """``significand * 10**exponent`` as serde_json's default float parser computes it.

    The significand is rounded to a float, then multiplied or divided by one power of
    ten (in steps of 1e308 for tiny values). Raises OverflowError when the result is
    infinite.
    """
    value = float(significand)
    while True:
        if -308 <= exponent <= 308:
            if exponent >= 0:
                value *= _POW10[exponent]
                if value == float("inf"):
                    raise OverflowError
            else:
                value /= _POW10[-exponent]
            break
        if value == 0.0:
            break
        if exponent > 0:
            raise OverflowError
        value /= 1e308
        exponent += 308
    return -value if negative else value


class _Reader:
    """A serde_json-compatible reader over one text."""

    __slots__ = ("depth", "pos", "text")

    def __init__(self, text: str) -> None:
        self.text = text
        self.pos = 0
        self.depth = 0

    # -- errors ---------------------------------------------------------------------

    def error(self, message: str, pos: int | None = None) -> JsonError:
        """``message at line L column C`` for the character before ``pos``."""
        end = self.pos if pos is None else pos
        before = self.text[:end]
        line = before.count("\n") + 1
        start = before.rfind("\n") + 1
        column = len(before[start:].encode("utf-8"))
        return JsonError(f"{message} at line {line} column {column}")

    def error_at(self, message: str) -> JsonError:
        """An error about the character at the current position (its column is counted)."""
        if self.pos >= len(self.text):
            return self.error(message)
        before = self.text[: self.pos]
        line = before.count("\n") + 1
        if self.text[self.pos] == "\n":  # serde_json puts a newline on the next line
            return JsonError(f"{message} at line {line + 1} column 0")
        start = before.rfind("\n") + 1
        column = len(before[start:].encode("utf-8")) + 1
        return JsonError(f"{message} at line {line} column {column}")

    # -- scanning -------------------------------------------------------------------

    def skip_whitespace(self) -> str:
        text = self.text
        pos = self.pos
        while pos < len(text) and text[pos] in _WHITESPACE:
            pos += 1
        self.pos = pos
        return text[pos] if pos < len(text) else ""

    def document(self) -> Value:
        value = self.value()
        if self.skip_whitespace():
            raise self.error_at("trailing characters")
        return value

    def value(self) -> Value:
        char = self.skip_whitespace()
        if not char:
            raise self.error("EOF while parsing a value")
        if char == '"':
            self.pos += 1
            return self.string()
        if char == "{":
            return self.object()
        if char == "[":
            return self.array()
        if char == "-" or "0" <= char <= "9":
            return self.number()
        for word, result in (("true", True), ("false", False), ("null", None)):
            if char == word[0]:
                self.pos += 1
                self.ident(word[1:])
                return result
        raise self.error_at("expected value")

    def ident(self, rest: str) -> None:
        for expected in rest:
            if self.pos >= len(self.text):
                raise self.error("EOF while parsing a value")
            if self.text[self.pos] != expected:
                raise self.error_at("expected ident")
            self.pos += 1

    def enter(self) -> None:
        self.depth += 1
        if self.depth >= _MAX_DEPTH:
            raise self.error_at("recursion limit exceeded")
        self.pos += 1

    def next_item(self, close: str, what: str, first: bool) -> str | None:
        """Before an item of an array or object: None (consumed) at ``close``, else the
        item's first character, after the ``,`` separator unless ``first``."""
        char = self.skip_whitespace()
        if not char:
            raise self.error(f"EOF while parsing {what}")
        if char == close:
            self.pos += 1
            self.depth -= 1
            return None
        if first:
            return char
        if char != ",":
            raise self.error_at(f"expected `,` or `{close}`")
        self.pos += 1
        char = self.skip_whitespace()
        if char == close:
            raise self.error_at("trailing comma")
        if not char:
            raise self.error("EOF while parsing a value")
        return char

    def array(self) -> list[Value]:
        self.enter()
        result: list[Value] = []
        while self.next_item("]", "a list", not result) is not None:
            result.append(self.value())
        return result

    def object(self) -> dict[str, Value]:
        self.enter()
        result: dict[str, Value] = {}
        seen = False
        while (char := self.next_item("}", "an object", not seen)) is not None:
            seen = True
            if char != '"':
                raise self.error_at("key must be a string")
            self.pos += 1
            key = self.string()
            char = self.skip_whitespace()
            if char != ":":
                if not char:
                    raise self.error("EOF while parsing an object")
                raise self.error_at("expected `:`")
            self.pos += 1
            result[key] = self.value()
        return result

    def string(self) -> str:
        text = self.text
        parts: list[str] = []
        start = self.pos
        while True:
            if self.pos >= len(text):
                raise self.error("EOF while parsing a string")
            char = text[self.pos]
            if char == '"':
                parts.append(text[start : self.pos])
                self.pos += 1
                return "".join(parts)
            if char == "\\":
                parts.append(text[start : self.pos])
                self.pos += 1
                parts.append(self.escape())
                start = self.pos
            elif char < " ":
                self.pos += 1
                raise self.error("control character (\\u0000-\\u001F) found while parsing a string")
            else:
                self.pos += 1

    def escape(self) -> str:
        if self.pos >= len(self.text):
            raise self.error("EOF while parsing a string")
        char = self.text[self.pos]
        self.pos += 1
        if char in _ESCAPES:
            return _ESCAPES[char]
        if char != "u":
            raise self.error("invalid escape")
        code = self.hex4()
        if 0xDC00 <= code <= 0xDFFF:
            raise self.error("lone leading surrogate in hex escape")
        if not 0xD800 <= code <= 0xDBFF:
            return chr(code)
        if self.pos >= len(self.text):
            raise self.error("EOF while parsing a string")
        if self.text[self.pos] != "\\":
            raise self.error_at("unexpected end of hex escape")
        if self.pos + 1 >= len(self.text):
            raise self.error("EOF while parsing a string", len(self.text))
        if self.text[self.pos + 1] != "u":
            raise self.error("unexpected end of hex escape", self.pos + 2)
        self.pos += 2
        low = self.hex4()
        if not 0xDC00 <= low <= 0xDFFF:
            raise self.error("lone leading surrogate in hex escape")
        return chr(0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00))

    def hex4(self) -> int:
        if self.pos + 4 > len(self.text):
            self.pos = len(self.text)
            raise self.error("EOF while parsing a string")
        chunk = self.text[self.pos : self.pos + 4]
        self.pos += 4
        if not all(char in "0123456789abcdefABCDEF" for char in chunk):
            raise self.error("invalid escape")
        return int(chunk, 16)

    def digits(self) -> str:
        text = self.text
        start = self.pos
        while self.pos < len(text) and "0" <= text[self.pos] <= "9":
            self.pos += 1
        return text[start : self.pos]

    def number(self) -> int | float:
        text = self.text
        negative = text[self.pos] == "-"
        if negative:
            self.pos += 1
        integer = self.digits()
        if not integer:
            if self.pos >= len(text):
                raise self.error("EOF while parsing a value")
            raise self.error_at("invalid number")
        if integer[0] == "0" and len(integer) > 1:
            self.pos -= len(integer) - 1
            raise self.error_at("invalid number")
        fraction = ""
        exponent = 0
        is_float = False
        if self.pos < len(text) and text[self.pos] == ".":
            self.pos += 1
            fraction = self.digits()
            if not fraction:
                if self.pos >= len(text):
                    raise self.error("EOF while parsing a value")
                raise self.error_at("invalid number")
            is_float = True
        if self.pos < len(text) and text[self.pos] in "eE":
            self.pos += 1
            sign = 1
            if self.pos < len(text) and text[self.pos] in "+-":
                sign = -1 if text[self.pos] == "-" else 1
                self.pos += 1
            power = self.digits()
            if not power:
                if self.pos >= len(text):
                    raise self.error("EOF while parsing a value")
                raise self.error_at("invalid number")
            exponent = sign * int(power)
            is_float = True
        if not is_float:
            value = int(integer)
            if negative and value == 0:
                return -0.0
            signed = -value if negative else value
            if INT_MIN <= signed <= INT_MAX:
                return signed
            if value <= _U64_MAX:
                return float(signed)
        return self.float_value(integer, fraction, exponent, negative)

    def float_value(self, integer: str, fraction: str, exponent: int, negative: bool) -> float:
        # serde_json accumulates digits while the significand fits in 64 bits; later
        # integer digits only raise the exponent, later fraction digits are dropped.
        significand = 0
        for index, char in enumerate(integer):
            grown = significand * 10 + ord(char) - 48
            if grown > _U64_MAX:
                exponent += len(integer) - index
                break
            significand = grown
        for char in fraction:
            grown = significand * 10 + ord(char) - 48
            if grown <= _U64_MAX:
                significand = grown
                exponent -= 1
        try:
            return serde_float(significand, exponent, negative)
        except OverflowError:
            raise self.error("number out of range") from None


def _fast_loads(text: str) -> Value:
    """Python's json for the common case; raises ValueError when it may differ."""
    import json

    def no_constant(_name: str) -> Value:
        raise ValueError

    def parse_int(digits: str) -> int | float:
        value = int(digits)
        if value == 0 and digits.startswith("-"):
            return -0.0
        if INT_MIN <= value <= INT_MAX:
            return value
        raise ValueError

    def parse_float(digits: str) -> float:
        # Exact only while one correctly rounded operation gives the value (<= 15
        # digits, <= 22 decimals, no exponent); otherwise serde_json's rounding rules.
        whole, _, fraction = digits.lstrip("-").partition(".")
        if "e" in digits or "E" in digits or len(fraction) > 22:
            raise ValueError
        if len((whole + fraction).lstrip("0")) > 15:
            raise ValueError
        return float(digits)

    if "\\u" in text and "\\ud" in text.lower():
        raise ValueError
    if text.count("[") + text.count("{") >= _MAX_DEPTH:
        raise ValueError
    value: Value = json.loads(
        text, parse_constant=no_constant, parse_int=parse_int, parse_float=parse_float
    )
    return value


def loads(text: str) -> Value:
    """Decode JSON text as the reference does (raises :class:`JsonError`)."""
    try:
        return _fast_loads(text)
    except (ValueError, RecursionError):
        return _Reader(text).document()


def _text(function: str, value: Value) -> str:
    if type(value) is not str:
        from kclpy.vm.builtins.convert import type_name

        raise KclRuntimeError(f"{function}() expected str, got {type_name(value)}")
    return value


def _flag(value: Value) -> bool:
    from kclpy.vm.builtins.convert import truthy

    return truthy(value)


class _NoIndent:
    """The default of ``indent``: left out (an indent of None is an error)."""

    __slots__ = ()


_NO_INDENT: Final = _NoIndent()


def _indent(value: Value | _NoIndent) -> int | None:
    if isinstance(value, _NoIndent):
        return None
    if type(value) is not int:
        raise KclRuntimeError("invalid int value")
    return value


def encode(
    data: Value,
    sort_keys: Value = False,
    indent: Value | _NoIndent = _NO_INDENT,
    ignore_private: Value = False,
    ignore_none: Value = False,
) -> str:
    """``data`` as JSON text."""
    from kclpy.values.json_writer import to_json

    return to_json(
        data,
        sort_keys=_flag(sort_keys),
        indent=_indent(indent),
        ignore_private=_flag(ignore_private),
        ignore_none=_flag(ignore_none),
    )


@on_mismatch(Fail("decode() expected str, got {kcl}"))
def decode(value: str) -> Value:
    """The value of JSON text ``value``."""
    try:
        return loads(value)
    except JsonError as error:
        raise KclRuntimeError(str(error)) from None


@on_mismatch(Answer(False))
def validate(value: str) -> bool:
    """Whether ``value`` is JSON text that :func:`decode` accepts."""
    try:
        loads(value)
    except JsonError:
        return False
    return True


def _access(ctx: BuiltinContext) -> Access:
    return Access(ctx.fs_policy, ctx.root, ctx.current_file)


_ERROR_KINDS: Final = {
    1: "PermissionDenied", 2: "NotFound", 13: "PermissionDenied", 17: "AlreadyExists",
    20: "NotADirectory", 21: "IsADirectory", 28: "StorageFull", 30: "ReadOnlyFilesystem",
    36: "InvalidFilename",
}  # fmt: skip


def write_text(ctx: BuiltinContext, filename: Value, text: str, debug_error: bool = False) -> None:
    """Write ``text`` to ``filename``; errors are worded as the reference words them
    (``debug_error``: as ``dump_all_to_file`` does, with Rust's debug form of the error)."""
    access = _access(ctx)
    name = _text("dump_to_file", filename)
    path = access.resolve(name, WRITE)
    try:
        if not name:
            raise FileNotFoundError(2, os.strerror(2))
        access.write_text(path, text)
    except OSError as error:
        code = error.errno or 0
        reason = os.strerror(code)
        if debug_error:
            kind = _ERROR_KINDS.get(code, "Uncategorized")
            detail = f'Os {{ code: {code}, kind: {kind}, message: "{reason}" }}'
            raise KclRuntimeError(f"Unable to write file: {detail}") from None
        raise KclRuntimeError(
            f"Unable to write file '{filename}': {reason} (os error {code})"
        ) from None


@needs_context
def dump_to_file(
    ctx: BuiltinContext,
    data: Value,
    filename: Value,
    sort_keys: Value = False,
    indent: Value | _NoIndent = _NO_INDENT,
    ignore_private: Value = False,
    ignore_none: Value = False,
) -> Value:
    """Write ``data`` as JSON to ``filename``; returns Undefined."""
    write_text(ctx, filename, encode(data, sort_keys, indent, ignore_private, ignore_none))
    return UNDEFINED


def _merge_patch(target: Value, patch: Value) -> Value:
    if not isinstance(patch, dict):
        return patch
    result = dict(target) if isinstance(target, dict) else {}
    for key, value in patch.items():
        if value is None or value is UNDEFINED:
            result.pop(key, None)
        else:
            result[key] = _merge_patch(result.get(key), value)
    return result


def merge(src: Value, patch: Value) -> Value:
    """``src`` with the RFC 7396 merge ``patch`` applied."""
    return _merge_patch(src, patch)


MEMBERS: Final[dict[str, object]] = {
    "encode": encode,
    "decode": decode,
    "validate": validate,
    "dump_to_file": dump_to_file,
    "merge": merge,
}
