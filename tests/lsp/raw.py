"""A client that writes any bytes to ``python -m kclpy_lsp`` and reads what comes back.

``RawServer`` starts the server on pipes; a reader thread splits its output into
messages (the server's own framing is trusted here), so every wait is a bounded
``queue.get``: a server that stops answering fails the test, never hangs it."""

from __future__ import annotations

import json
import os
import queue
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

WAIT = 60.0  # seconds before a missing answer fails the test (a hang guard)


def frame(message: dict[str, Any]) -> bytes:
    """A well-formed JSON-RPC 2.0 frame."""
    body = json.dumps({"jsonrpc": "2.0", **message}).encode()
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


def raw_frame(body: bytes) -> bytes:
    """A frame around any body."""
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


def hover(message_id: int | str, uri: str, line: int = 0, character: int = 0) -> bytes:
    position = {"line": line, "character": character}
    params = {"textDocument": {"uri": uri}, "position": position}
    return frame({"id": message_id, "method": "textDocument/hover", "params": params})


def symbols(message_id: int | str) -> bytes:
    """A request every state of the server answers (``workspace/symbol``)."""
    return frame({"id": message_id, "method": "workspace/symbol", "params": {"query": "x"}})


class RawServer:
    """``python -m kclpy_lsp`` on pipes, with a thread reading its messages."""

    def __init__(self, cwd: Path) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-m", "kclpy_lsp"],
            cwd=cwd,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        self.received: queue.Queue[dict[str, Any] | None] = queue.Queue()
        self.seen: list[dict[str, Any]] = []  # messages taken from the queue, less answers
        # given out by ``answer``
        self.stderr = b""
        threading.Thread(target=self._read, daemon=True).start()
        threading.Thread(target=self._read_errors, daemon=True).start()

    def _read(self) -> None:
        stream = self.process.stdout
        assert stream is not None
        while True:
            length = None
            while (line := stream.readline()).strip():
                if line.lower().startswith(b"content-length:"):
                    length = int(line.split(b":")[1])
            if length is None:
                self.received.put(None)  # the server closed its output
                return
            self.received.put(json.loads(stream.read(length)))

    def _read_errors(self) -> None:
        """Keep what the server wrote to stderr so far (tests look at it while it runs)."""
        assert self.process.stderr is not None
        descriptor = self.process.stderr.fileno()
        while chunk := os.read(descriptor, 65536):
            self.stderr += chunk

    def write(self, data: bytes) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(data)
        self.process.stdin.flush()

    def next_message(self, deadline: float) -> dict[str, Any] | None:
        """The next message, or None once the output closed or the deadline passed."""
        try:
            message = self.received.get(timeout=max(0.0, deadline - time.monotonic()))
        except queue.Empty:
            return None
        if message is not None:
            self.seen.append(message)
        return message

    def answer(self, message_id: int | str | None, wait: float = WAIT) -> dict[str, Any]:
        """The response to ``message_id`` (None: an error response with id null)."""
        for message in self.seen:  # answers come in any order
            if "method" not in message and message.get("id") == message_id:
                self.seen.remove(message)
                return message
        deadline = time.monotonic() + wait
        while (message := self.next_message(deadline)) is not None:
            if "method" not in message and message.get("id") == message_id:
                self.seen.remove(message)
                return message
        raise AssertionError(f"no answer to {message_id!r}; got {self.seen[-5:]}")

    def notes(self) -> list[str]:
        """The ``window/logMessage`` texts seen so far."""
        return [
            str(message["params"]["message"])
            for message in self.seen
            if message.get("method") == "window/logMessage"
        ]

    def initialize(self, root_uri: str, process_id: int | None = None) -> None:
        params = {"rootUri": root_uri, "capabilities": {}, "processId": process_id}
        self.write(frame({"id": "init", "method": "initialize", "params": params}))
        assert "result" in self.answer("init")
        self.write(frame({"method": "initialized", "params": {}}))

    def alive(self, message_id: int | str) -> None:
        """Assert the server answers a well-formed request."""
        self.write(symbols(message_id))
        assert self.answer(message_id).get("result") == []

    def finish(self) -> int:
        """Shut down, exit, and the exit status."""
        self.write(frame({"id": "bye", "method": "shutdown"}))
        self.answer("bye")
        self.write(frame({"method": "exit"}))
        return self.wait()

    def wait(self, wait: float = WAIT) -> int:
        try:
            return self.process.wait(wait)
        finally:
            self.kill()

    def kill(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()
