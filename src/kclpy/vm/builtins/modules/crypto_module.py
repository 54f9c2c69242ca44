"""The ``crypto`` system module: hex digests, ``uuid()`` and ``filesha256(path)``.

``md5 sha1 sha224 sha256 sha384 sha512 blake3 (value, encoding="utf-8")`` hash the
string encoded with ``encoding`` (a WHATWG label as the reference understands it:
``latin1`` means windows-1252, characters the encoding lacks become ``&#NNNN;``) and
return lower-case hex. ``blake3`` uses the ``blake3`` package when it is installed
and a small pure-Python BLAKE3 otherwise (the inputs here are short strings).
``uuid()`` is a random version-4 UUID. ``filesha256(path)`` hashes a file; a relative
path is resolved against the directory of the running .k file (the reference uses
the process's working directory).
"""

from __future__ import annotations

import os
import struct
from typing import TYPE_CHECKING, Final

from kclpy.values import Value
from kclpy.values.errors import KclRuntimeError
from kclpy.vm.builtins.marks import Fail, needs_context, on_mismatch

if TYPE_CHECKING:
    from kclpy.vm.builtins.context import BuiltinContext

# WHATWG encoding labels (the subset people use) -> Python codec names.
_ENCODINGS: Final[dict[str, str]] = {
    **dict.fromkeys(["utf-8", "utf8", "unicode-1-1-utf-8", "unicode11utf8"], "utf-8"),
    **dict.fromkeys(
        [
            "ascii",
            "us-ascii",
            "latin1",
            "l1",
            "iso-8859-1",
            "iso8859-1",
            "iso88591",
            "iso_8859-1",
            "windows-1252",
            "cp1252",
            "x-cp1252",
            "cp819",
            "ibm819",
        ],
        "cp1252",
    ),
    **dict.fromkeys(["gbk", "gb2312", "x-gbk", "chinese", "csgb2312"], "gbk"),
    "gb18030": "gb18030",
    **dict.fromkeys(["big5", "big5-hkscs", "cn-big5", "x-x-big5"], "big5hkscs"),
    **dict.fromkeys(["shift_jis", "shift-jis", "sjis", "ms_kanji", "windows-31j"], "cp932"),
    **dict.fromkeys(["euc-jp", "x-euc-jp"], "euc_jp"),
    **dict.fromkeys(["euc-kr", "korean", "windows-949"], "cp949"),
    **dict.fromkeys(["iso-2022-jp", "csiso2022jp"], "iso2022_jp"),
    **dict.fromkeys(["koi8-r", "koi8", "koi"], "koi8_r"),
    "koi8-u": "koi8_u",
    **dict.fromkeys(["iso-8859-2", "latin2", "l2"], "iso8859_2"),
    **dict.fromkeys(["iso-8859-5", "cyrillic"], "iso8859_5"),
    **dict.fromkeys(["iso-8859-15", "latin9", "l9"], "iso8859_15"),
    "windows-1251": "cp1251",
    # encoding_rs never encodes to UTF-16: it writes UTF-8 instead.
    **dict.fromkeys(["utf-16", "utf-16le", "utf-16be"], "utf-8"),
}


# a value that is not a string (the adapter's check): the reference's words
_TEXT: Final = on_mismatch(Fail("expected str, got {python}"))


def encode_text(value: str, encoding: Value) -> bytes:
    """``value`` encoded as the reference encodes it for hashing."""
    label = str(encoding).strip().lower() if encoding is not None else "utf-8"
    codec = _ENCODINGS.get(label)
    if codec is None:
        raise KclRuntimeError(
            f"called `Result::unwrap()` on an `Err` value: unknown encoding {encoding}"
        )
    return value.encode(codec, errors="xmlcharrefreplace")


def _digest(name: str, value: str, encoding: Value) -> str:
    import hashlib

    return hashlib.new(name, encode_text(value, encoding)).hexdigest()


@_TEXT
def md5(value: str, encoding: Value = "utf-8") -> str:
    return _digest("md5", value, encoding)


@_TEXT
def sha1(value: str, encoding: Value = "utf-8") -> str:
    return _digest("sha1", value, encoding)


@_TEXT
def sha224(value: str, encoding: Value = "utf-8") -> str:
    return _digest("sha224", value, encoding)


@_TEXT
def sha256(value: str, encoding: Value = "utf-8") -> str:
    return _digest("sha256", value, encoding)


@_TEXT
def sha384(value: str, encoding: Value = "utf-8") -> str:
    return _digest("sha384", value, encoding)


@_TEXT
def sha512(value: str, encoding: Value = "utf-8") -> str:
    return _digest("sha512", value, encoding)


@_TEXT
def blake3(value: str, encoding: Value = "utf-8") -> str:
    data = encode_text(value, encoding)
    try:
        from blake3 import blake3 as native  # type: ignore[import-not-found,unused-ignore]
    except ImportError:
        return blake3_digest(data).hex()
    return str(native(data).hexdigest())


def uuid() -> str:
    import uuid as uuid_lib

    return str(uuid_lib.uuid4())


@needs_context
def filesha256(ctx: BuiltinContext, filepath: Value) -> str:
    import hashlib

    from kclpy.vm.fs_policy import Access

    path = str(filepath)
    access = Access(ctx.fs_policy, ctx.root, ctx.current_file)
    full = access.resolve(path)
    try:
        with os.fdopen(access.open(full, os.O_RDONLY), "rb") as handle:
            return hashlib.file_digest(handle, "sha256").hexdigest()
    except OSError as error:
        raise KclRuntimeError(
            f"failed to access file '{path}': {error.strerror} (os error {error.errno})"
        ) from None


# ---------------------------------------------------------------------------------------
# BLAKE3 (32-byte default hash), written from the specification.

_IV: Final = (
    0x6A09E667, 0xBB67AE85, 0x3C6EF372, 0xA54FF53A,
    0x510E527F, 0x9B05688C, 0x1F83D9AB, 0x5BE0CD19,
)  # fmt: skip
_PERMUTATION: Final = (2, 6, 3, 10, 7, 0, 4, 13, 1, 11, 12, 5, 9, 14, 15, 8)
_CHUNK_START: Final = 1
_CHUNK_END: Final = 2
_PARENT: Final = 4
_ROOT: Final = 8
_MASK: Final = 0xFFFFFFFF
_BLOCK: Final = 64
_CHUNK: Final = 1024
# (a, b, c, d) state indices of the eight G applications of a round.
_G_STEPS: Final = (
    (0, 4, 8, 12), (1, 5, 9, 13), (2, 6, 10, 14), (3, 7, 11, 15),
    (0, 5, 10, 15), (1, 6, 11, 12), (2, 7, 8, 13), (3, 4, 9, 14),
)  # fmt: skip

_Output = tuple[tuple[int, ...], bytes, int, int, int]


def _compress(
    chaining: tuple[int, ...], block: bytes, counter: int, length: int, flags: int
) -> list[int]:
    message = list(struct.unpack("<16I", block.ljust(_BLOCK, b"\0")))
    state = [
        *chaining, *_IV[:4], counter & _MASK, counter >> 32 & _MASK, length, flags,
    ]  # fmt: skip
    for round_number in range(7):
        for step, (a, b, c, d) in enumerate(_G_STEPS):
            x = message[2 * step]
            y = message[2 * step + 1]
            state[a] = (state[a] + state[b] + x) & _MASK
            state[d] ^= state[a]
            state[d] = (state[d] >> 16 | state[d] << 16) & _MASK
            state[c] = (state[c] + state[d]) & _MASK
            state[b] ^= state[c]
            state[b] = (state[b] >> 12 | state[b] << 20) & _MASK
            state[a] = (state[a] + state[b] + y) & _MASK
            state[d] ^= state[a]
            state[d] = (state[d] >> 8 | state[d] << 24) & _MASK
            state[c] = (state[c] + state[d]) & _MASK
            state[b] ^= state[c]
            state[b] = (state[b] >> 7 | state[b] << 25) & _MASK
        if round_number < 6:
            message = [message[index] for index in _PERMUTATION]
    for index in range(8):
        state[index] ^= state[index + 8]
        state[index + 8] ^= chaining[index]
    return state


def _chunk_output(chunk: bytes, counter: int) -> _Output:
    blocks = [chunk[start : start + _BLOCK] for start in range(0, len(chunk), _BLOCK)] or [b""]
    chaining: tuple[int, ...] = _IV
    flags = _CHUNK_START
    for block in blocks[:-1]:
        chaining = tuple(_compress(chaining, block, counter, _BLOCK, flags)[:8])
        flags = 0
    last = blocks[-1]
    return chaining, last, counter, len(last), flags | _CHUNK_END


def _node_output(data: bytes, first_chunk: int) -> _Output:
    if len(data) <= _CHUNK:
        return _chunk_output(data, first_chunk)
    chunks = (len(data) + _CHUNK - 1) // _CHUNK
    left_chunks = 1 << ((chunks - 1).bit_length() - 1)
    split = left_chunks * _CHUNK
    left = _chaining_value(_node_output(data[:split], first_chunk))
    right = _chaining_value(_node_output(data[split:], first_chunk + left_chunks))
    block = struct.pack("<16I", *left, *right)
    return _IV, block, 0, _BLOCK, _PARENT


def _chaining_value(output: _Output) -> tuple[int, ...]:
    chaining, block, counter, length, flags = output
    return tuple(_compress(chaining, block, counter, length, flags)[:8])


def blake3_digest(data: bytes) -> bytes:
    """The 32-byte BLAKE3 hash of ``data``."""
    chaining, block, counter, length, flags = _node_output(data, 0)
    words = _compress(chaining, block, counter, length, flags | _ROOT)[:8]
    return struct.pack("<8I", *words)


MEMBERS: Final[dict[str, object]] = {
    "md5": md5,
    "sha1": sha1,
    "sha224": sha224,
    "sha256": sha256,
    "sha384": sha384,
    "sha512": sha512,
    "blake3": blake3,
    "uuid": uuid,
    "filesha256": filesha256,
}
