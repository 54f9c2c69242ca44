"""Any byte stream into the language server's stdin, then a well-formed request (hypothesis).

One ``python -m kclpy_lsp`` serves every example (a new one only after a failure
killed it). A stream is a few fragments: header pieces (``Content-Length:`` with
good, huge, negative and lying lengths; other fields; lone line breaks), random
bytes, bodies that are not JSON or no JSON-RPC message, and well-formed messages
that break a rule (a position past the end, params that do not fit, an unknown
method, a response nobody asked for); never ``shutdown`` or ``exit``.

Property: after the stream, the server is alive and answers the next well-formed
request (a bounded wait: a server that stopped answering fails the example).
"""

from __future__ import annotations

import itertools
import json
import os
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tests"))

from lsp.raw import RawServer, hover, raw_frame, symbols

pytestmark = pytest.mark.filterwarnings("ignore::hypothesis.errors.HypothesisWarning")

EXAMPLES = int(os.environ.get("KCLPY_FUZZ_LSP_EXAMPLES", "40"))
ANSWER_WAIT = 30.0  # seconds for the answer to the request after a stream

PIECES = [
    b"Content-Length: ", b"Content-Length: 5", b"Content-Length: 0", b"content-length:12",
    b"Content-Length: 99999999999999999999", b"Content-Length: -1", b"Content-Length: 1e3",
    b"Content-Type: application/vscode-jsonrpc; charset=utf-8", b"X-Field: value",
    b"\r\n", b"\r\n\r\n", b"\n", b"\r", b":", b" ", b"\0", b"\xff", b"{", b"}", b"[", b'"',
    b'{"jsonrpc": "2.0"', b'"id": 1', b'"method": "textDocument/hover"', b"Content-Len",
]  # fmt: skip

VALUES: list[object] = [
    [], [1, 2], 5, "text", None, {}, {"jsonrpc": "2.0"},
    {"jsonrpc": "1.0", "id": "h", "method": "x"},
    {"jsonrpc": "2.0", "id": {"a": 1}, "method": "workspace/symbol"},
    {"jsonrpc": "2.0", "id": "h-bad-params", "method": "textDocument/hover", "params": 7},
    {"jsonrpc": "2.0", "id": "h-unknown", "method": "kclpy/unknown", "params": {}},
    {"jsonrpc": "2.0", "method": "textDocument/didChange", "params": {"textDocument": 1}},
    {"jsonrpc": "2.0", "method": "$/cancelRequest", "params": {"id": "nobody"}},
    {"jsonrpc": "2.0", "id": "h-response", "result": [1]},
    {"jsonrpc": "2.0", "id": "h-error", "error": {"code": "x"}},
]  # fmt: skip


class Serving:
    """The running server, in a folder with one program; a fresh one once it died."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.probes = itertools.count()
        self.server = self._start()

    def _start(self) -> RawServer:
        server = RawServer(self.folder)
        server.initialize(self.folder.as_uri())
        return server

    def current(self) -> RawServer:
        if self.server.process.poll() is not None:  # an earlier example killed it
            self.server = self._start()
        return self.server


@pytest.fixture(scope="module")
def serving(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Serving]:
    folder = tmp_path_factory.mktemp("lsp-streams")
    (folder / "a.k").write_text("a = 1\nb = a\n", encoding="utf-8")
    serving = Serving(folder)
    yield serving
    serving.server.kill()


def _fragments(folder_uri: str) -> st.SearchStrategy[bytes]:
    values = st.sampled_from(VALUES).map(lambda value: raw_frame(json.dumps(value).encode()))
    bodies = st.binary(max_size=64).map(raw_frame)
    lying = st.tuples(st.integers(0, 200), st.binary(max_size=64)).map(
        lambda pair: b"Content-Length: %d\r\n\r\n" % pair[0] + pair[1]
    )
    positions = st.tuples(st.integers(0, 5), st.integers(0, 2**31 - 1)).map(
        lambda where: hover("h-hover", f"{folder_uri}/a.k", where[0] % 4 * 10, where[1])
    )
    return st.one_of(
        st.sampled_from(PIECES), st.binary(max_size=128), values, bodies, lying, positions
    )


@settings(
    max_examples=EXAMPLES,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(data=st.data())
def test_the_server_answers_after_any_stream(serving: Serving, data: st.DataObject) -> None:
    server = serving.current()
    stream = b"".join(data.draw(st.lists(_fragments(serving.folder.as_uri()), max_size=12)))
    probe = f"probe-{next(serving.probes)}"
    server.seen.clear()
    server.write(stream)
    server.write(symbols(probe))
    answer = server.answer(probe, ANSWER_WAIT)
    assert answer.get("result") == [], answer
    assert b"Traceback" not in server.stderr
