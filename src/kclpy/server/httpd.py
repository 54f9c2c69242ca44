"""The HTTP side of ``kcl server``: routes, the JSON envelope, bounds and shutdown.

Takes :class:`ServerSettings`; serves the KCL API until SIGINT or SIGTERM and returns
the number of the signal that stopped it. Routes are kcl-go's REST server's:
``POST`` (JSON body) or ``GET`` (query parameters) ``/api:protorpc/<Service>.<Method>``.
Every answer is JSON in kcl-go's envelope, ``{"error": "...", "result": {...}}``
(``result`` null on error), tab-indented with ``<``, ``>`` and ``&`` escaped as Go's
encoder writes them. A method's own failure is ``200`` with ``error`` set, as the real
server answers; unlike it (plain text there), a bad request is also an envelope:
``400`` malformed JSON or wrong field types, ``404`` unknown route, ``405`` another
verb, ``411``/``413`` a body without a length or over ``max_body``, ``503`` busy,
``500`` a bug in kclpy (its type and message, never a traceback).

Bounds: at most ``workers`` requests are answered at once (others wait up to
``queue_wait`` seconds, then get 503) and at most ``connections`` connections are
open; a client must send its request within ``read_timeout`` seconds; each request
runs under ``timeout`` and ``max_memory`` (:mod:`kclpy.vm.limits`, as ``kcl run``'s
``--timeout``/``--max-memory``). On a signal the server stops accepting, lets running
requests finish for up to ``grace`` seconds and closes its socket.
"""

from __future__ import annotations

import json
import signal
import sys
import threading
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import FrameType
from typing import Any
from urllib.parse import parse_qs, urlsplit

from kclpy.depth import run_deep
from kclpy.records import Record
from kclpy.server.messages import RequestError, decode_json, decode_query
from kclpy.server.methods import REQUESTS, Limits, ServiceError, call

__all__ = ["PREFIX", "ServerSettings", "envelope", "make_server", "serve"]

PREFIX = "/api:protorpc/"


class ServerSettings(Record):
    """Where and how ``kcl server`` listens, and the bounds of its requests."""

    host: str = "127.0.0.1"
    port: int = 2021
    workers: int = 4
    timeout: float = 60.0
    max_memory: int | None = None
    max_body: int = 16 << 20
    read_timeout: float = 30.0
    queue_wait: float = 60.0
    connections: int = 64
    grace: float = 10.0
    verbose: bool = False


_GO_ESCAPES = {"<": "\\u003c", ">": "\\u003e", "&": "\\u0026", "\u2028": "\\u2028"}
_GO_ESCAPES["\u2029"] = "\\u2029"


def envelope(error: str, result: dict[str, Any] | None) -> bytes:
    """The answer's body as kcl-go's encoder writes it."""
    text = json.dumps({"error": error, "result": result}, indent="\t", ensure_ascii=False)
    for character, escape in _GO_ESCAPES.items():
        text = text.replace(character, escape)  # (only possible inside strings)
    return (text + "\n").encode("utf-8")


class _Server(ThreadingHTTPServer):
    """A threading server that knows its settings, counts connections and requests."""

    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, settings: ServerSettings) -> None:
        self.settings = settings
        self.slots = threading.BoundedSemaphore(settings.workers)
        self.lock = threading.Lock()
        self.open_connections = 0
        self.running = 0
        super().__init__((settings.host, settings.port), _Handler)

    def process_request(self, request: Any, client_address: Any) -> None:
        with self.lock:
            full = self.open_connections >= self.settings.connections
            if not full:
                self.open_connections += 1
        if full:
            try:
                body = envelope("the server has too many open connections", None)
                head = f"HTTP/1.0 503 Service Unavailable\r\nContent-Length: {len(body)}\r\n"
                request.sendall(head.encode() + b"Content-Type: application/json\r\n\r\n" + body)
            except OSError:
                pass
            self.shutdown_request(request)
            return
        super().process_request(request, client_address)

    def process_request_thread(self, request: Any, client_address: Any) -> None:
        try:
            super().process_request_thread(request, client_address)
        finally:
            with self.lock:
                self.open_connections -= 1


class _Handler(BaseHTTPRequestHandler):
    """One connection: one request (HTTP/1.0), answered with the envelope."""

    server: _Server
    server_version = "kclpy-server"

    def setup(self) -> None:
        # (StreamRequestHandler reads it as the connection's socket timeout)
        self.timeout = self.server.settings.read_timeout  # type: ignore[misc]
        super().setup()

    def do_POST(self) -> None:
        self._answer("POST")

    def do_GET(self) -> None:
        self._answer("GET")

    def _other(self) -> None:
        self._send(405, envelope(f"method {self.command} is not allowed; use POST or GET", None))

    do_PUT = do_DELETE = do_PATCH = do_HEAD = do_OPTIONS = _other

    def _answer(self, verb: str) -> None:
        parts = urlsplit(self.path)
        method = parts.path[len(PREFIX) :] if parts.path.startswith(PREFIX) else ""
        message = REQUESTS.get(method)
        if message is None:
            self._send(404, envelope(f"no such route: {parts.path}", None))
            return
        try:
            if verb == "GET":
                args = decode_query(parse_qs(parts.query, keep_blank_values=True), message)
            else:
                body = self._body()
                if body is None:
                    return
                args = decode_json(body, message)
        except RequestError as error:
            self._send(400, envelope(str(error), None))
            return
        self._dispatch(method, args)

    def _body(self) -> bytes | None:
        """The request body within ``max_body`` (None: answered with an error)."""
        if "chunked" in self.headers.get("Transfer-Encoding", "").lower():
            self._send(411, envelope("a request body needs a Content-Length", None))
            return None
        try:
            length = int(self.headers.get("Content-Length", "0") or "0")
        except ValueError:
            length = -1
        if length < 0:
            self._send(400, envelope("invalid Content-Length", None))
            return None
        if length > self.server.settings.max_body:
            limit = self.server.settings.max_body
            self._send(413, envelope(f"the request body is over the limit of {limit} bytes", None))
            return None
        return self.rfile.read(length)

    def _dispatch(self, method: str, args: dict[str, Any]) -> None:
        settings = self.server.settings
        if not self.server.slots.acquire(timeout=settings.queue_wait):
            self._send(503, envelope("the server is busy; try again later", None))
            return
        with self.server.lock:
            self.server.running += 1
        started = time.monotonic()
        try:
            limits = Limits(settings.timeout, settings.max_memory)
            status, body = 200, envelope("", run_deep(call, method, args, limits))
        except ServiceError as error:
            status, body = 200, envelope(str(error), None)
        except MemoryError:
            status, body = 200, envelope(f"{method}: out of memory", None)
        except RecursionError:
            status, body = 200, envelope(f"{method}: maximum recursion depth exceeded", None)
        except Exception as error:  # a bug in kclpy: its name, never a traceback
            message = f"kclpy failed unexpectedly: {type(error).__name__}: {error}"
            status, body = 500, envelope(message, None)
        finally:
            with self.server.lock:
                self.server.running -= 1
            self.server.slots.release()
        self._send(status, body)
        if settings.verbose:
            seconds = time.monotonic() - started
            sys.stderr.write(f"kcl server: {method} {status} {seconds:.3f}s\n")

    def _send(self, status: int, body: bytes) -> None:
        try:
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
        except OSError:  # the client went away
            self.close_connection = True

    def log_message(self, format: str, *args: Any) -> None:
        del format, args  # requests are logged by _dispatch with -v


def make_server(settings: ServerSettings) -> _Server:
    """A bound, listening server (OSError when the address cannot be had)."""
    return _Server(settings)


def serve(settings: ServerSettings, announce: Callable[[str], None]) -> int:
    """Serve until SIGINT or SIGTERM; returns the signal's number. ``announce`` gets
    the address line once the server listens (``listen on http://HOST:PORT ...``)."""
    server = make_server(settings)
    stopped: list[int] = []
    wake = threading.Event()

    def stop(number: int, frame: FrameType | None) -> None:
        stopped.append(number)
        wake.set()

    previous = {number: signal.signal(number, stop) for number in _stop_signals()}
    worker = threading.Thread(target=server.serve_forever, args=(0.2,), daemon=True)
    try:
        worker.start()
    except BaseException:
        server.server_close()
        _restore(previous)
        raise
    try:
        host, port = server.server_address[:2]
        host = host.decode() if isinstance(host, bytes) else str(host)
        shown = f"[{host}]" if ":" in host else host
        announce(f"listen on http://{shown}:{port} ...")
        while not wake.wait(1.0):
            pass
    finally:
        server.shutdown()
        deadline = time.monotonic() + settings.grace
        while server.running and time.monotonic() < deadline:
            time.sleep(0.05)
        server.server_close()
        _restore(previous)
    return stopped[0] if stopped else 0


def _restore(previous: dict[int, Any]) -> None:
    for number, handler in previous.items():
        signal.signal(number, handler)


def _stop_signals() -> list[int]:
    names = ("SIGINT", "SIGTERM", "SIGHUP")
    return [getattr(signal, name) for name in names if hasattr(signal, name)]
