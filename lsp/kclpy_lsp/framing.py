"""The base protocol's frames read from a byte stream, within bounds, whatever it holds.

Takes a ``read`` function (``read(n)``: up to ``n`` bytes as soon as some are there,
``b""`` at the end of input, like ``BufferedReader.read1``) and gives, one by one,
what the client sent (``FrameReader.next``):

* ``Message``: a body that is UTF-8 JSON, decoded (any JSON value: the envelope is
  checked by the transport);
* ``Malformed``: a body that is not (answered -32700 Parse error);
* ``Refused``: a message too big to take: a declared length over the limit (the
  body is read and discarded in bounded chunks), or a body of more than
  ``MAX_VALUES`` JSON values (decoded, 60 MiB of ``[],`` took 1.6 GB); the ``id``
  and ``method`` found at its start are kept, so the request can be answered;
* ``Skipped``: bytes before the next header, dropped to resynchronise.

Rules (the base protocol's, made total):

* A header block ends at the first blank line and is at most ``MAX_HEADER`` bytes.
  The frame starts at its last ``Content-Length: N`` line (whatever stands before is
  skipped); every line after it is ``Name: value``. A block that breaks these rules
  is skipped up to the next ``Content-Length:`` header.
* A valid UTF-8 JSON body never holds a ``Content-Length: N`` line: JSON strings hold
  no raw line break, and no JSON token outside them is a word. So a body in which
  one appears is cut there (before its declared end: a frame that lied about its
  length costs that frame, not the next ones, and no read waits for bytes that will
  never come), and a body that is not JSON is read again from its start for the
  next header.
* Memory: the buffer holds one message of at most ``limit`` bytes plus a chunk.
"""

from __future__ import annotations

import contextlib
import json
import re
from collections.abc import Callable

import attrs

MAX_MESSAGE = 64 << 20  # bytes of one message body
MAX_HEADER = 8192  # bytes of one header block
CHUNK = 1 << 16  # bytes asked of the stream at once
HEAD = 4096  # bytes of an oversized body searched for its id and method
MAX_VALUES = 2_000_000  # JSON values in one message
# levels of JSON nesting in one message: the decoder recurses in C, and the process's
# recursion limit is raised for deep KCL programs (kclpy.depth), so a deeper message
# would overflow the reader thread's stack instead of raising RecursionError
MAX_DEPTH = 512

# ``Content-Length: N`` and its line break; bounded, so a match never spans more than
# ``_TAIL`` bytes (kept between chunks when searching)
_HEADER = re.compile(rb"content-length:[ \t]{0,8}(\d{1,20})[ \t]{0,8}\r?\n", re.IGNORECASE)
_TAIL = 64
_BLANK = re.compile(rb"\r?\n\r?\n")
_LINE_BREAK = re.compile(rb"\r?\n")
_FIELD = re.compile(rb"[!-9;-~]+:[^\r\n]*")  # a header line: token ``:`` value
_FIELDS = re.compile(rb"(?:[!-9;-~]+:[^\r\n]*\r?\n)*")
_STRING = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"')
_BRACKETS = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"|[\[\]{}]')  # a string, or one bracket
_KEY = re.compile(r'"(id|method)"\s*:\s*(-?\d{1,20}(?![\d.eE])|"(?:[^"\\\n]|\\.){0,256}")')


@attrs.frozen
class Message:
    value: object


@attrs.frozen
class Malformed:
    reason: str


@attrs.frozen
class Refused:
    reason: str
    id: int | str | None
    method: str | None


@attrs.frozen
class Skipped:
    count: int


Item = Message | Malformed | Refused | Skipped


class FrameReader:
    """Frames of one input stream (see the module's rules)."""

    def __init__(self, read: Callable[[int], bytes], limit: int = MAX_MESSAGE) -> None:
        self._read = read
        self.limit = limit
        self._buffer = bytearray()
        self._ended = False
        self._reported = 0  # bytes at the buffer's start already reported as Malformed

    def next(self) -> Item | None:
        """The next item of the stream; None at its end."""
        skipped = self._seek() - self._reported
        self._reported = 0
        if skipped > 0:
            return Skipped(skipped)
        if not self._buffer:
            return None
        length = self._header()
        if length is None:  # a broken header block: look for the next header after it
            del self._buffer[:1]
            return Skipped(1 + self._seek())
        if length > self.limit:
            return self._discard(length)
        return self._body(length)

    # ------------------------------------------------------------------ reading

    def _fill(self) -> bool:
        """Read one more chunk into the buffer; False at the end of input."""
        if self._ended:
            return False
        data = self._read(CHUNK)
        if not data:
            self._ended = True
            return False
        self._buffer += data
        return True

    def _seek(self) -> int:
        """Drop bytes until the buffer starts with a header (or holds nothing at the
        end of input); the number of bytes dropped."""
        dropped = 0
        while True:
            found = _HEADER.search(self._buffer)
            if found is not None:
                before = self._buffer[: found.start()]
                if not _FIELDS.fullmatch(before):  # fields before the length are no news
                    dropped += found.start()
                del self._buffer[: found.start()]
                return dropped
            keep = _TAIL if not self._ended else 0
            if len(self._buffer) > keep:
                cut = len(self._buffer) - keep
                dropped += cut
                del self._buffer[:cut]
            if not self._fill():
                dropped += len(self._buffer)
                self._buffer.clear()
                return dropped

    def _header(self) -> int | None:
        """The declared length of the header block the buffer starts with (consumed);
        None when the block is broken (too long, unterminated, a line not a field)."""
        while (blank := _BLANK.search(self._buffer, 0, MAX_HEADER)) is None:
            if len(self._buffer) >= MAX_HEADER or not self._fill():
                return None
        block = bytes(self._buffer[: blank.end()])
        last = list(_HEADER.finditer(block))[-1]
        fields = [line for line in _LINE_BREAK.split(block[last.end() :]) if line]
        if not all(_FIELD.fullmatch(line) for line in fields):
            return None
        del self._buffer[: blank.end()]
        return int(last.group(1))

    def _body(self, length: int) -> Item:
        """A body of at most ``limit`` bytes, decoded; cut at a header inside it."""
        searched = 0
        while len(self._buffer) < length:
            cut = self._header_in(searched, length)
            if cut is not None:
                del self._buffer[:cut]
                return Malformed(f"a message of {cut} bytes, not the {length} it declared")
            searched = len(self._buffer)
            if not self._fill():
                got = len(self._buffer)
                self._buffer.clear()
                return Malformed(f"the input ended {length - got} bytes into a message")
        cut = self._header_in(searched, length)
        if cut is not None:
            del self._buffer[:cut]
            return Malformed(f"a message of {cut} bytes, not the {length} it declared")
        with memoryview(self._buffer) as view:  # one copy (a slice would make two)
            body = view[:length].tobytes()
        del self._buffer[:length]
        if len(body) > 2 * MAX_VALUES and values(body) > MAX_VALUES:
            message_id, method = envelope(body[:HEAD])
            reason = f"a message of more than {MAX_VALUES} JSON values"
            return Refused(reason, message_id, method)
        if nesting(body) > MAX_DEPTH:
            return Malformed(f"JSON nested more than {MAX_DEPTH} levels deep")
        try:
            return Message(json.loads(body.decode("utf-8")))
        except (ValueError, RecursionError) as error:
            self._buffer[:0] = body  # read it again for a header (see the module's rules)
            self._reported = len(body)
            return Malformed(f"not UTF-8 JSON: {str(error)[:120]}")

    def _header_in(self, since: int, end: int) -> int | None:
        """Where a header starts inside the first ``end`` buffered bytes (searching
        from ``since``, less a match's length); None when none does."""
        start = max(0, since - _TAIL)
        if self._buffer.find(b"\n", start, end) < 0:  # no line break: no header
            return None
        found = _HEADER.search(self._buffer, start, end)
        return found.start() if found is not None else None

    def _discard(self, length: int) -> Item:
        """Read and drop an oversized body (in chunks, up to its end or a header inside
        it); its id and method, when its first bytes tell them."""
        head = bytearray()
        remaining = length
        while remaining > 0:
            window = min(remaining, len(self._buffer))
            cut = self._header_in(0, window)
            if cut is not None:
                taken = cut
            elif window == remaining:
                taken = window
            else:  # keep the last bytes: a header may end in the next chunk
                taken = max(0, window - _TAIL)
            head += self._buffer[: max(0, min(taken, HEAD - len(head)))]
            del self._buffer[:taken]
            remaining -= taken
            if cut is not None or (remaining and not self._fill()):
                break
        message_id, method = envelope(bytes(head))
        return Refused(
            f"a message of {length} bytes is over the limit of {self.limit}", message_id, method
        )


def nesting(body: bytes) -> int:
    """How deep ``body``'s arrays and objects nest, counted outside strings, as far as
    it matters: 0 when it has too few brackets to nest past ``MAX_DEPTH`` (counted
    first), and the walk stops at ``MAX_DEPTH + 1``."""
    if body.count(b"[") + body.count(b"{") <= MAX_DEPTH:
        return 0
    depth = deepest = 0
    for token in _BRACKETS.finditer(body):
        mark = token.group()
        if mark in (b"[", b"{"):
            depth += 1
            if depth > deepest:
                deepest = depth
                if deepest > MAX_DEPTH:
                    break
        elif mark in (b"]", b"}"):
            depth -= 1
    return deepest


def values(body: bytes) -> int:
    """At least ``MAX_VALUES`` when a JSON text holds more values, else their number:
    its objects and arrays, and one more for each comma between the items in them,
    counted outside strings. Cheap bounds first (every byte counted; half the strings,
    as each string is a value or the key of one), so the strings are walked only when
    there are fewer than ``4 * MAX_VALUES`` of them; nothing is copied."""
    upper = body.count(b"{") + body.count(b"[") + body.count(b",") + 1
    if upper <= MAX_VALUES:
        return upper
    strings = (body.count(b'"') - body.count(b'\\"')) // 2
    if strings // 2 > MAX_VALUES:
        return strings // 2
    inside = 0
    for string in _STRING.finditer(body):
        start, end = string.span()
        for mark in (b"{", b"[", b","):
            inside += body.count(mark, start, end)
    return upper - inside


def envelope(head: bytes) -> tuple[int | str | None, str | None]:
    """The top-level ``id`` and ``method`` found in the first bytes of a JSON object."""
    text = head.decode("utf-8", "replace")
    found: dict[str, int | str] = {}
    depth = 0
    index = 0
    while index < len(text):
        char = text[index]
        if char == '"':
            key = _KEY.match(text, index) if depth == 1 else None
            if key is not None:
                with contextlib.suppress(ValueError):  # an escape JSON does not know
                    found.setdefault(key.group(1), json.loads(key.group(2)))
                index = key.end()
                continue
            index = _string_end(text, index)
            continue
        if char in "{[":
            depth += 1
        elif char in "}]":
            depth -= 1
        index += 1
    message_id = found.get("id")
    method = found.get("method")
    return message_id, method if isinstance(method, str) else None


def _string_end(text: str, start: int) -> int:
    """The index after the JSON string starting at ``start`` (the end of the text
    when it does not close)."""
    index = start + 1
    while index < len(text):
        if text[index] == "\\":
            index += 2
        elif text[index] == '"':
            return index + 1
        else:
            index += 1
    return len(text)
