"""A server on the loopback that answers every request one byte at a time, for ever.

``TrickleServer(part, certificate, host)`` (on 127.0.0.1 unless ``host`` says)
reads each request's head and then sends, a byte every 50 ms, either an endless
header block (``part="headers"``) or the headers of a 100 MB body and then that body
(``part="body"``), over HTTP, or over HTTPS with ``certificate`` (a ``(cert, key)``
pair of files, :func:`self_signed`).
No per-read timeout of a client ever fires on it; only a bound on the whole
request ends the exchange. Closing the server (leaving the ``with`` block) ends
every connection.
"""

from __future__ import annotations

import contextlib
import shutil
import socket
import ssl
import subprocess
import threading
import time
from pathlib import Path
from types import TracebackType

import pytest

BYTE_INTERVAL = 0.05


def self_signed(folder: Path, host: str = "127.0.0.1") -> tuple[Path, Path]:
    """A self-signed certificate for the address ``host`` and its key, made by ``openssl``."""
    openssl = shutil.which("openssl")
    if openssl is None:
        pytest.skip("openssl is not installed (it makes the HTTPS server's certificate)")
    cert, key = folder / "server.crt", folder / "server.key"
    subprocess.run(
        [openssl, "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
         "-subj", f"/CN={host}", "-addext", f"subjectAltName=IP:{host}",
         "-keyout", str(key), "-out", str(cert)],
        check=True, capture_output=True, timeout=60,
    )  # fmt: skip
    return cert, key


class TrickleServer:
    """See the module docstring."""

    def __init__(
        self, part: str, certificate: tuple[Path, Path] | None = None, host: str = "127.0.0.1"
    ) -> None:
        self.part = part
        self.context: ssl.SSLContext | None = None
        if certificate is not None:
            self.context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            self.context.load_cert_chain(*certificate)
        try:
            self.socket = socket.create_server((host, 0))
        except OSError as error:
            pytest.skip(f"cannot listen on {host}: {error}")
        self.port = self.socket.getsockname()[1]
        self.stop = threading.Event()
        self.bytes_sent = 0
        self.connections: list[socket.socket] = []
        threading.Thread(target=self._accept, daemon=True).start()

    def __enter__(self) -> TrickleServer:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self.stop.set()
        with contextlib.suppress(OSError):
            self.socket.close()
        for connection in list(self.connections):
            with contextlib.suppress(OSError):
                connection.close()

    def _accept(self) -> None:
        while not self.stop.is_set():
            try:
                connection, _ = self.socket.accept()
            except OSError:
                return
            self.connections.append(connection)
            threading.Thread(target=self._answer, args=(connection,), daemon=True).start()

    def _answer(self, connection: socket.socket) -> None:
        with contextlib.suppress(OSError, ssl.SSLError, ValueError):
            connection.settimeout(30)
            if self.context is not None:
                connection = self.context.wrap_socket(connection, server_side=True)
                self.connections.append(connection)
            head = b""
            while b"\r\n\r\n" not in head and len(head) < 1 << 16:
                chunk = connection.recv(4096)
                if not chunk:
                    return
                head += chunk
            if self.part == "headers":
                prefix, filler = b"HTTP/1.1 200 OK\r\nX-Slow: ", b"a"
            else:
                prefix = (
                    b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                    b"Content-Length: 100000000\r\n\r\n{"
                )
                filler = b" "
            for index in range(10**9):
                if self.stop.is_set():
                    return
                connection.sendall(prefix[index : index + 1] if index < len(prefix) else filler)
                self.bytes_sent += 1
                time.sleep(BYTE_INTERVAL)
