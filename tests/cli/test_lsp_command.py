"""``kcl lsp`` runs the language server's entry point (``python -m kclpy_lsp``) in
its own process rather than importing the editor layer into the product."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest


def _frame(message: dict[str, object]) -> bytes:
    body = json.dumps(message).encode()
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


def test_kcl_lsp_serves_the_protocol_over_stdio() -> None:
    pytest.importorskip("pygls", reason="the language server needs the lsp extra (pygls)")
    messages = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"capabilities": {}}},
        {"jsonrpc": "2.0", "method": "initialized", "params": {}},
        {"jsonrpc": "2.0", "id": 2, "method": "shutdown"},
        {"jsonrpc": "2.0", "method": "exit"},
    ]
    result = subprocess.run(
        [sys.executable, "-m", "kclpy", "lsp"],
        input=b"".join(_frame(message) for message in messages),
        capture_output=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 0, result.stderr.decode()
    assert b'"capabilities"' in result.stdout
    assert b'"id": 2' in result.stdout or b'"id":2' in result.stdout
