"""Issue 29: the server over stdio under hostile input, measured from a real client.

Each test writes bytes that break the base protocol or JSON-RPC to the server's
stdin, then a well-formed request, and asserts what came back: the right error
(-32700, -32600, -32602) and an answer to the next request. Also the server's end:
the file-system root is no workspace, ``shutdown``/``exit`` with the input still
open, and the client's process going away."""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from kclpy_lsp.framing import MAX_MESSAGE, MAX_VALUES

from .raw import WAIT, RawServer, frame, hover, raw_frame, symbols

TEXT = "a = 1\nb = a\n"


@pytest.fixture
def server(tmp_path: Path) -> Iterator[RawServer]:
    (tmp_path / "a.k").write_text(TEXT, encoding="utf-8")
    running = RawServer(tmp_path)
    try:
        running.initialize(tmp_path.as_uri())
        yield running
    finally:
        running.kill()


def peak_memory(pid: int) -> int | None:
    """The process's peak resident memory in bytes (None without /proc)."""
    try:
        with open(f"/proc/{pid}/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        return None
    return None


HOSTILE_PREFIXES = {
    "a huge length": b"Content-Length: 99999999999999999999\r\n\r\n{}",
    "a length that is no number": b"Content-Length: abc\r\n\r\n{}",
    "no header at all": b"hello there\r\n\r\n",
    "a header without its blank line": b"Content-Length: 5\r\nX-Other: ",
    "a body shorter than its length": b"Content-Length: 1000\r\n\r\n{}",
    "a body longer than its length": b'Content-Length: 3\r\n\r\n{"jsonrpc": "2.0"}',
    "a header line of 100 kB": b"X" * 100_000,
    "a truncated header": b"Content-Len",
    "NUL bytes": b"\0" * 1000,
    "a notification whose params do not fit": frame(
        {"method": "textDocument/didChange", "params": {"textDocument": 1}}
    ),
}


def test_after_any_hostile_prefix_the_next_request_is_answered(server: RawServer) -> None:
    for number, (name, prefix) in enumerate(HOSTILE_PREFIXES.items()):
        server.write(prefix)
        server.write(symbols(number))
        answer = server.answer(number)
        assert answer.get("result") == [], name
    assert b"Traceback" not in server.stderr
    assert server.finish() == 0


def test_a_huge_length_is_noted_and_dropped(server: RawServer) -> None:
    server.write(b"Content-Length: 99999999999999999\r\n\r\n")
    server.alive(2)
    assert any("over the limit" in note for note in server.notes())


def test_an_oversized_request_is_answered_with_its_id(server: RawServer) -> None:
    head = b'{"jsonrpc": "2.0", "id": 7, "method": "workspace/symbol", "params": {"query": "'
    body = head + b"x" * (MAX_MESSAGE + 1 - len(head) - 3) + b'"}}'
    server.write(raw_frame(body))
    error = server.answer(7)["error"]
    assert error["code"] == -32600
    assert "over the limit" in error["message"]
    server.alive(8)
    peak = peak_memory(server.process.pid)
    if peak is not None:  # the body was never held whole
        assert peak < MAX_MESSAGE


def test_a_request_of_too_many_values_is_answered_with_its_id(server: RawServer) -> None:
    values = b'"",' * MAX_VALUES + b"[]"
    body = b'{"jsonrpc": "2.0", "id": 7, "method": "workspace/symbol", "params": {"x": ['
    server.write(raw_frame(body + values + b"]}}"))
    error = server.answer(7)["error"]
    assert error["code"] == -32600
    assert "JSON values" in error["message"]
    server.alive(8)


def test_malformed_json_gets_a_parse_error(server: RawServer) -> None:
    for body in (b'{"jsonrpc": "2.0", "id": 2, "method": ', b"\xff\xfe{}", b"[" * 100_000):
        server.write(raw_frame(body))
        error = server.answer(None)["error"]
        assert error["code"] == -32700
    server.alive(3)


@pytest.mark.parametrize(
    ("message", "answered_id"),
    [
        ([1, 2], None),
        (5, None),
        ({"id": 2, "method": "workspace/symbol"}, 2),  # no "jsonrpc"
        ({"jsonrpc": "1.0", "id": 2, "method": "workspace/symbol"}, 2),
        ({"jsonrpc": "2.0", "id": {"a": 1}, "method": "workspace/symbol"}, None),
        ({"jsonrpc": "2.0", "id": 2.5, "method": "workspace/symbol"}, None),
        ({"jsonrpc": "2.0", "id": 2, "method": 7}, 2),
        ({"jsonrpc": "2.0", "id": 2, "method": "workspace/symbol", "params": 3}, 2),
        ({"jsonrpc": "2.0", "id": 2}, 2),  # neither a request nor a response
    ],
)
def test_a_value_that_is_no_message_gets_invalid_request(
    server: RawServer, message: Any, answered_id: int | None
) -> None:
    server.write(raw_frame(json.dumps(message).encode()))
    assert server.answer(answered_id)["error"]["code"] == -32600
    server.alive(3)


def _position_params(method: str, uri: str, line: int) -> dict[str, Any]:
    document = {"uri": uri}
    position = {"line": line, "character": 0}
    where = {"start": position, "end": {"line": line + 1, "character": 0}}
    if method in ("textDocument/rangeFormatting",):
        options = {"tabSize": 4, "insertSpaces": True}
        return {"textDocument": document, "range": where, "options": options}
    if method in ("textDocument/inlayHint",):
        return {"textDocument": document, "range": where}
    if method == "textDocument/codeAction":
        return {"textDocument": document, "range": where, "context": {"diagnostics": []}}
    params: dict[str, Any] = {"textDocument": document, "position": position}
    if method == "textDocument/references":
        params["context"] = {"includeDeclaration": True}
    if method == "textDocument/rename":
        params["newName"] = "c"
    return params


POSITION_METHODS = [
    "textDocument/hover",
    "textDocument/completion",
    "textDocument/definition",
    "textDocument/references",
    "textDocument/rename",
    "textDocument/prepareRename",
    "textDocument/signatureHelp",
    "textDocument/rangeFormatting",
    "textDocument/inlayHint",
    "textDocument/codeAction",
]


def test_positions_past_the_end_get_invalid_params(server: RawServer, tmp_path: Path) -> None:
    uri = (tmp_path / "a.k").as_uri()
    for number, method in enumerate(POSITION_METHODS):
        params = _position_params(method, uri, 50)
        server.write(frame({"id": number, "method": method, "params": params}))
        error = server.answer(number)["error"]
        assert error["code"] == -32602, method
        assert "past the end" in error["message"]
    for number, method in enumerate(POSITION_METHODS, start=100):  # in the document: served
        params = _position_params(method, uri, 1)
        server.write(frame({"id": number, "method": method, "params": params}))
        assert "error" not in server.answer(number), method


def test_positions_at_the_edges_are_served(server: RawServer, tmp_path: Path) -> None:
    uri = (tmp_path / "a.k").as_uri()
    lines = TEXT.count("\n") + 1  # the last one empty
    server.write(hover(1, uri, 0, 500))  # past the end of a line: the line's end
    server.write(hover(2, uri, lines - 1, 0))  # the empty line after the last line break
    server.write(hover(3, uri, lines, 0))
    assert "error" not in server.answer(1)
    assert "error" not in server.answer(2)
    assert server.answer(3)["error"]["code"] == -32602
    whole = {"start": {"line": 0, "character": 0}, "end": {"line": 100, "character": 0}}
    params = {"textDocument": {"uri": uri}, "range": whole}
    server.write(frame({"id": 4, "method": "textDocument/inlayHint", "params": params}))
    assert "error" not in server.answer(4)  # a range may end past the end: "to the end"
    backwards = {"start": {"line": 1, "character": 0}, "end": {"line": 0, "character": 0}}
    params = {"textDocument": {"uri": uri}, "range": backwards}
    server.write(frame({"id": 5, "method": "textDocument/inlayHint", "params": params}))
    assert server.answer(5)["error"]["code"] == -32602


def test_a_request_after_shutdown_is_refused(server: RawServer) -> None:
    server.write(frame({"id": 1, "method": "shutdown"}))
    assert server.answer(1)["result"] is None
    server.write(symbols(2))
    assert server.answer(2)["error"]["code"] == -32600
    server.write(frame({"method": "exit"}))
    assert server.wait() == 0  # with its input still open


def test_the_file_system_root_is_no_workspace(tmp_path: Path) -> None:
    server = RawServer(tmp_path)
    try:
        server.initialize("file:///")
        server.alive(2)
        assert any("not a workspace" in note for note in server.notes())
        assert server.finish() == 0
    finally:
        server.kill()


def test_the_home_folder_is_no_workspace(tmp_path: Path) -> None:
    server = RawServer(tmp_path)
    try:
        server.initialize(Path(os.path.expanduser("~")).as_uri())
        server.alive(2)
        assert any("home folder" in note for note in server.notes())
        assert server.finish() == 0
    finally:
        server.kill()


@pytest.mark.skipif(os.name != "posix", reason="the client's process is watched on POSIX only")
def test_the_server_ends_when_the_client_process_is_gone(tmp_path: Path) -> None:
    client = subprocess.Popen(["sleep", str(int(WAIT) * 2)])
    server = RawServer(tmp_path)
    try:
        server.initialize(tmp_path.as_uri(), process_id=client.pid)
        server.alive(2)
        client.kill()
        client.wait()
        assert server.wait() == 1  # exit without shutdown
        assert b"is gone" in server.stderr or server.stderr == b""
    finally:
        server.kill()
        if client.poll() is None:
            client.kill()
