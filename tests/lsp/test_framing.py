"""The frame reader (``kclpy_lsp.framing``) on byte streams, in process: what each
hostile stream yields, that the well-formed frame after it is always found, that the
result does not depend on how the stream is cut into reads, and that an oversized
body is never held whole."""

from __future__ import annotations

import io
import json
from collections.abc import Callable

import pytest
from kclpy_lsp.framing import (
    CHUNK,
    MAX_VALUES,
    FrameReader,
    Item,
    Malformed,
    Message,
    Refused,
    Skipped,
    envelope,
)

PROBE = {"jsonrpc": "2.0", "id": 99, "method": "workspace/symbol", "params": {"query": ""}}


def frame(value: object) -> bytes:
    body = json.dumps(value).encode()
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


def raw(body: bytes) -> bytes:
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


def items(data: bytes, limit: int = 1 << 20, step: int | None = None) -> list[Item]:
    """Every item of a stream, read ``step`` bytes at a time (or as asked)."""
    stream = io.BytesIO(data)
    read: Callable[[int], bytes] = stream.read
    if step is not None:
        size = step
        read = lambda wanted: stream.read(min(wanted, size))  # noqa: E731
    reader = FrameReader(read, limit)
    found = []
    while (item := reader.next()) is not None:
        found.append(item)
    return found


HOSTILE = {
    "nothing": (b"", []),
    "a huge length": (b"Content-Length: 99999999999999999\r\n\r\n{}", [Refused]),
    "a length that is no number": (b"Content-Length: abc\r\n\r\n{}", [Skipped]),
    "no header": (b"hello there\r\n\r\n", [Skipped]),
    "a short body": (b"Content-Length: 3\r\n\r\n", [Malformed]),
    "a body cut by a header": (b"Content-Length: 1000\r\n\r\n12345", [Malformed]),
    "an unterminated header": (b"Content-Length: 5\r\nX-Other: ", []),
    "a half blank line": (b"Content-Length: 5\r\n\r", []),
    "a header line that is no field": (b"Content-Length: 5\r\nno field\r\n\r\n", [Skipped]),
    "JSON that is not": (b"Content-Length: 5\r\n\r\n{abc}", [Malformed]),
    "a truncated header": (b"Content-Length: 1", [Skipped]),
    "deep nesting": (
        b"Content-Length: 200000\r\n\r\n" + b"[" * 100_000 + b"]" * 100_000,
        [Malformed],
    ),
    "a long line": (b"x" * 100_000, [Skipped]),
    "not UTF-8": (b"Content-Length: 4\r\n\r\n\xff\xfe{}", [Malformed]),
}


@pytest.mark.parametrize("name", sorted(HOSTILE))
@pytest.mark.parametrize("step", [None, 1, 7])
def test_the_frame_after_a_hostile_stream_is_found(name: str, step: int | None) -> None:
    prefix, expected = HOSTILE[name]
    found = items(prefix + frame(PROBE), step=step)
    assert found[-1] == Message(PROBE)
    if step is None:
        assert [type(item) for item in found[:-1]] == expected


def test_well_formed_frames_in_a_row() -> None:
    values = [PROBE, [1, 2], "text", {"jsonrpc": "2.0", "method": "x\r\nContent-Length: 5"}]
    data = b"".join(frame(value) for value in values)
    assert items(data) == [Message(value) for value in values]
    assert items(data, step=3) == [Message(value) for value in values]


def test_headers_are_read_as_the_protocol_allows() -> None:
    body = json.dumps(PROBE).encode()
    spelled = [
        b"content-length: %d\r\n\r\n" % len(body),
        b"Content-Length:%d\r\n\r\n" % len(body),
        b"Content-Length: %d\r\nContent-Type: application/vscode-jsonrpc; charset=utf-8\r\n\r\n"
        % len(body),
        b"Content-Type: application/vscode-jsonrpc\r\nContent-Length: %d\r\n\r\n" % len(body),
        b"Content-Length: %d\n\n" % len(body),
    ]
    for header in spelled:
        assert items(header + body) == [Message(PROBE)], header


def test_an_oversized_body_is_dropped_with_its_id_and_method() -> None:
    request = {"jsonrpc": "2.0", "id": "big", "method": "textDocument/didOpen", "x": "y" * 5000}
    found = items(frame(request) + frame(PROBE), limit=1000)
    assert found == [
        Refused(
            f"a message of {len(json.dumps(request))} bytes is over the limit of 1000",
            "big",
            "textDocument/didOpen",
        ),
        Message(PROBE),
    ]


def test_a_body_of_too_many_values_is_refused_with_its_id() -> None:
    """Within the byte limit, a body that would decode into millions of values is
    refused before it is decoded; the brackets and commas of its strings do not count."""
    values = b"1," * MAX_VALUES + b"[]"
    body = b'{"jsonrpc": "2.0", "id": 3, "method": "m", "params": [' + values + b"]}"
    found = items(raw(body) + frame(PROBE), limit=len(body))
    assert found == [Refused(f"a message of more than {MAX_VALUES} JSON values", 3, "m"),
                     Message(PROBE)]  # fmt: skip
    text = {"jsonrpc": "2.0", "method": "m", "params": "[]," * MAX_VALUES}
    assert items(frame(text), limit=1 << 23) == [Message(text)]


def test_an_oversized_body_is_read_in_chunks() -> None:
    """The reader asks for one chunk at a time and never holds the body whole."""
    size = 50 * CHUNK
    data = b"Content-Length: %d\r\n\r\n" % size + b"x" * size + frame(PROBE)
    stream = io.BytesIO(data)
    held: list[int] = []
    reader = FrameReader(stream.read, limit=CHUNK)

    def read(wanted: int) -> bytes:
        held.append(len(reader._buffer))
        return stream.read(wanted)

    reader._read = read
    assert isinstance(reader.next(), Refused)
    assert reader.next() == Message(PROBE)
    assert max(held) <= 2 * CHUNK


def test_a_header_inside_a_body_cuts_it() -> None:
    """A body that waits for bytes while the next frame is there already is cut at
    that frame's header, so no read waits for bytes that will never come."""
    stream = io.BytesIO(b"Content-Length: 1000000\r\n\r\n{" + frame(PROBE))
    reader = FrameReader(stream.read)
    assert isinstance(reader.next(), Malformed)
    assert reader.next() == Message(PROBE)


@pytest.mark.parametrize(
    ("head", "expected"),
    [
        (b'{"jsonrpc":"2.0","id":5,"method":"a/b","params":{"id":7', (5, "a/b")),
        (b'{"params":{"id":7,"method":"no"},"id":"x","method":"m"', ("x", "m")),
        (b'{"jsonrpc":"2.0","method":"n"', (None, "n")),
        (b'{"id": null, "method": 5', (None, None)),
        (b'{"text": "\\"id\\": 3", "id": 4', (4, None)),
        (b'{"method": "\\q", "id": 1.5', (None, None)),
        (b"\xff\xfe garbage", (None, None)),
    ],
)
def test_envelope_reads_top_level_keys(
    head: bytes, expected: tuple[int | str | None, str | None]
) -> None:
    assert envelope(head) == expected


def test_deep_json_is_refused_before_decoding_whatever_the_recursion_limit() -> None:
    import io
    import sys

    from kclpy_lsp.framing import MAX_DEPTH, FrameReader, nesting

    deep = b"[" * 100_000 + b"]" * 100_000
    stream = b"Content-Length: %d\r\n\r\n%s" % (len(deep), deep) + b"Content-Length: 2\r\n\r\n{}"
    saved = sys.getrecursionlimit()
    sys.setrecursionlimit(242_000)  # as after a deep KCL program (kclpy.depth)
    try:
        reader = FrameReader(io.BytesIO(stream).read)
        first, second = reader.next(), reader.next()
    finally:
        sys.setrecursionlimit(saved)
    assert isinstance(first, Malformed) and "nested more than" in first.reason
    assert second == Message({})
    assert nesting(b'{"a": "' + b"[" * 1000 + b'"}') == 1  # brackets in strings: none
    assert nesting(b"[" * MAX_DEPTH + b"]" * MAX_DEPTH) <= MAX_DEPTH
    assert nesting(b"[" * (MAX_DEPTH + 1) + b"]" * (MAX_DEPTH + 1)) == MAX_DEPTH + 1
