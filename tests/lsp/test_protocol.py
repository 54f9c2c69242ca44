"""Issue 15's protocol gaps: requests on files that cannot be read, invalid params,
requests before ``initialize``, ``exit`` without ``shutdown``.

Requests on files go through the pytest-lsp client; the others need a client that
breaks the rules (pytest-lsp's typed client cannot), so they speak JSON-RPC to
``python -m kclpy_lsp`` over its stdio directly."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient

from .helpers import WAIT, diagnostics, document


@pytest.mark.asyncio
async def test_requests_on_unreadable_files_answer_nothing(
    lsp: LanguageClient, tmp_path: Path
) -> None:
    binary = tmp_path / "blob.k"
    binary.write_bytes(b"\x00\xff\xfe binary")
    folder = tmp_path / "folder.k"
    folder.mkdir()
    targets = [tmp_path / "missing.k", folder, binary]
    for target in targets:
        where = document(target.as_uri())
        origin = types.Position(0, 0)
        assert await lsp.text_document_hover_async(types.HoverParams(where, origin)) is None
        assert (
            await lsp.text_document_definition_async(types.DefinitionParams(where, origin)) is None
        )
        assert (
            await lsp.text_document_formatting_async(
                types.DocumentFormattingParams(where, types.FormattingOptions(4, True))
            )
            is None
        )
        found = await lsp.text_document_completion_async(types.CompletionParams(where, origin))
        assert found is not None
        symbols = await lsp.text_document_document_symbol_async(types.DocumentSymbolParams(where))
        assert not symbols


@pytest.mark.asyncio
async def test_an_unsaved_document_is_served(lsp: LanguageClient, tmp_path: Path) -> None:
    path = tmp_path / "unsaved.k"
    uri = path.as_uri()
    lsp.text_document_did_open(
        types.DidOpenTextDocumentParams(types.TextDocumentItem(uri, "kcl", 1, "a = 1\nb = a +\n"))
    )
    found = await diagnostics(lsp, uri)
    assert any(d.code == "E1001" for d in found)
    assert not path.exists()


class RawClient:
    """A JSON-RPC client on the server's stdio that follows no rules."""

    def __init__(self, tmp_path: Path) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-m", "kclpy_lsp"],
            cwd=tmp_path,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
        )
        # a hang guard: a server that stops answering is killed, and reading fails
        self.guard = threading.Timer(WAIT, self.process.kill)
        self.guard.start()

    def send(self, message: dict[str, Any]) -> None:
        data = json.dumps({"jsonrpc": "2.0", **message}).encode()
        assert self.process.stdin is not None
        self.process.stdin.write(b"Content-Length: %d\r\n\r\n" % len(data) + data)
        self.process.stdin.flush()

    def receive(self) -> dict[str, Any]:
        stream = self.process.stdout
        assert stream is not None
        length = 0
        while True:
            line = stream.readline()
            assert line, "the server closed its output"
            if not line.strip():
                break
            if line.lower().startswith(b"content-length"):
                length = int(line.split(b":")[1])
        message: dict[str, Any] = json.loads(stream.read(length))
        return message

    def answer(self, request_id: int) -> dict[str, Any]:
        while True:
            message = self.receive()
            if message.get("id") == request_id and "method" not in message:
                return message

    def initialize(self, root: Path) -> None:
        self.send(
            {
                "id": 1,
                "method": "initialize",
                "params": {"rootUri": root.as_uri(), "capabilities": {}},
            }
        )
        assert "result" in self.answer(1)
        self.send({"method": "initialized", "params": {}})

    def finish(self) -> int:
        try:
            return self.process.wait(WAIT)
        finally:
            self.guard.cancel()
            if self.process.poll() is None:
                self.process.kill()
                self.process.wait()


def test_a_request_before_initialize_gets_32002(tmp_path: Path) -> None:
    client = RawClient(tmp_path)
    hover = {
        "textDocument": {"uri": (tmp_path / "a.k").as_uri()},
        "position": {"line": 0, "character": 0},
    }
    client.send({"id": 7, "method": "textDocument/hover", "params": hover})
    assert client.answer(7)["error"]["code"] == -32002
    client.initialize(tmp_path)
    client.send({"id": 8, "method": "textDocument/hover", "params": hover})
    assert client.answer(8) == {"id": 8, "jsonrpc": "2.0", "result": None}
    client.send({"id": 9, "method": "shutdown"})
    client.answer(9)
    client.send({"method": "exit"})
    assert client.finish() == 0


def test_invalid_params_get_an_error_answer(tmp_path: Path) -> None:
    client = RawClient(tmp_path)
    client.initialize(tmp_path)
    client.send({"id": 5, "method": "textDocument/hover", "params": {"textDocument": 5}})
    assert client.answer(5)["error"]["code"] == -32602
    client.send({"id": 6, "method": "workspace/symbol", "params": {"query": "x"}})
    assert client.answer(6)["result"] == []  # still serving
    client.send({"id": 7, "method": "shutdown"})
    client.answer(7)
    client.send({"method": "exit"})
    assert client.finish() == 0


def test_exit_without_shutdown_ends_with_1(tmp_path: Path) -> None:
    client = RawClient(tmp_path)
    client.initialize(tmp_path)
    client.send({"method": "exit"})
    assert client.finish() == 1


def test_an_internal_error_has_no_traceback(tmp_path: Path) -> None:
    client = RawClient(tmp_path)
    client.initialize(tmp_path)
    # a position far outside any int32: the server must still answer, briefly
    params = {
        "textDocument": {"uri": (tmp_path / "a.k").as_uri()},
        "position": {"line": -1, "character": -5},
    }
    client.send({"id": 3, "method": "textDocument/hover", "params": params})
    answer = client.answer(3)
    assert "traceback" not in json.dumps(answer).lower()
    client.send({"id": 4, "method": "shutdown"})
    client.answer(4)
    client.send({"method": "exit"})
    assert client.finish() == 0
