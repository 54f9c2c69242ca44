"""The ``base64`` system module: ``encode(value, encoding?)`` and ``decode(value)``.

``encode`` takes the UTF-8 bytes of the string (the reference accepts an ``encoding``
argument and ignores it) and returns standard, padded base64. ``decode`` follows the
reference's decoder (Rust ``base64`` 0.13, standard alphabet): padding may be left out,
but a bad length, a stray character or a badly placed ``=`` is an error whose text
names the problem the way the reference does (``InvalidByte(0, 33)``,
``InvalidLength``, ``InvalidLastSymbol(5, 66)``); the decoded bytes must be UTF-8.
"""

from __future__ import annotations

import binascii
from typing import Final

from kclpy.values import Value
from kclpy.values.errors import KclRuntimeError
from kclpy.vm.builtins.marks import Fail, on_mismatch

_ALPHABET: Final = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
_VALUES: Final = {ord(char): index for index, char in enumerate(_ALPHABET)}
_PAD: Final = ord("=")
_CHUNK: Final = 8  # the reference decodes in blocks of 8 input bytes


# a value that is not a string (the adapter's check): the reference's words
_TEXT: Final = on_mismatch(Fail("{function}() expected str, got {python}"))


def _unwrap_error(detail: str) -> KclRuntimeError:
    return KclRuntimeError(f"called `Result::unwrap()` on an `Err` value: {detail}")


def utf8_error(data: bytes) -> str:
    """The reference's text for bytes that are not UTF-8 (Rust's ``Utf8Error``)."""
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as error:
        if error.reason == "unexpected end of data":
            length = "None"
        else:
            length = f"Some({error.end - error.start})"
        return f"Utf8Error {{ valid_up_to: {error.start}, error_len: {length} }}"
    return ""


def _check(data: bytes) -> None:
    """Raise the reference's error when ``data`` is not base64 it accepts."""
    size = len(data)
    if size % _CHUNK in (1, 5):
        last = data[-1]
        if last != _PAD and last not in _VALUES:
            raise _unwrap_error(f"InvalidByte({size - 1}, {last})")
        raise _unwrap_error("InvalidLength")
    start = 0 if size == 0 else (size - 1) // _CHUNK * _CHUNK
    for index in range(start):
        if data[index] not in _VALUES:
            raise _unwrap_error(f"InvalidByte({index}, {data[index]})")
    morsels = 0
    padding = 0
    first_padding = 0
    last_symbol = 0
    bits = 0
    for offset, byte in enumerate(data[start:]):
        if byte == _PAD:
            if offset % 4 < 2:
                bad = first_padding if padding else offset
                raise _unwrap_error(f"InvalidByte({start + bad}, {byte})")
            if padding == 0:
                first_padding = offset
            padding += 1
            continue
        if padding:
            raise _unwrap_error(f"InvalidByte({start + first_padding}, {_PAD})")
        morsel = _VALUES.get(byte)
        if morsel is None:
            raise _unwrap_error(f"InvalidByte({start + offset}, {byte})")
        last_symbol = byte
        bits = bits << 6 | morsel
        morsels += 1
    useful = {0: 0, 2: 8, 3: 16, 4: 24, 6: 32, 7: 40, 8: 48}.get(morsels)
    if useful is None:
        raise _unwrap_error("InvalidLength")
    if bits & ((1 << (morsels * 6 - useful)) - 1):
        raise _unwrap_error(f"InvalidLastSymbol({start + morsels - 1}, {last_symbol})")


@_TEXT
def encode(value: str, encoding: Value = "utf-8") -> str:
    """Base64 of the UTF-8 bytes of ``value`` (``encoding`` is accepted and ignored)."""
    data = value.encode("utf-8")
    return binascii.b2a_base64(data, newline=False).decode("ascii")


@_TEXT
def decode(value: str) -> str:
    """The UTF-8 text whose base64 form is ``value`` (padding optional)."""
    data = value.encode("utf-8")
    _check(data)
    stripped = data.rstrip(b"=")
    padded = stripped + b"=" * (-len(stripped) % 4)
    raw = binascii.a2b_base64(padded, strict_mode=True) if padded else b""
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        raise _unwrap_error(utf8_error(raw)) from None


MEMBERS: Final[dict[str, object]] = {"encode": encode, "decode": decode}
