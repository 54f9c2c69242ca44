"""The server's message loop over stdio: bounded frames in, JSON-RPC's rules, a sure end.

Stands in for pygls's stdio loop (``pygls.io_.run_async``), whose ``readline`` and
``read(n)`` take whatever length the client declares or sends (a huge
``Content-Length`` ended the process with MemoryError; a malformed header left it
deaf to every later message). Takes the protocol (pygls's, with every handler) and
the two streams. Frames are read (``framing``) on a daemon thread, one ahead of the
event loop at most, and handed to the protocol there:

* a body that is not JSON: -32700 Parse error (id null);
* a value that is no JSON-RPC 2.0 message: -32600 Invalid Request (with its id when
  it has a valid one), as is a notification whose params do not fit its method (a
  ``window/logMessage`` note, as it has no id);
* a message too big to take: -32600 with its id when its first bytes tell it, else a
  note;
  bytes skipped to find the next header: a note.

The loop ends at the end of input, at ``exit`` (pygls raises SystemExit), or when
``stop`` is called (the client's process is gone: ``watch_parent`` polls it every
``PARENT_POLL`` seconds, as vscode-languageserver does). ``end_within`` ends a process
that some thread holds up after that.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import sys
import threading
from collections.abc import Callable
from typing import BinaryIO

import attrs
from lsprotocol import types
from pygls.exceptions import JsonRpcException
from pygls.io_ import StdoutWriter
from pygls.protocol import JsonRPCProtocol

from kclpy_lsp.framing import FrameReader, Item, Malformed, Message, Refused, Skipped

PARSE_ERROR = -32700
INVALID_REQUEST = -32600
INTERNAL_ERROR = -32603
PARENT_POLL = 3.0  # seconds between two looks at the client's process
EXIT_GRACE = 5.0  # seconds a process may take to end after its loop did


@attrs.frozen
class _End:
    """The reader reached the end of input, or ``stop`` was called."""

    reason: str | None = None


class Connection:
    """One client on two streams: the loop, its notes, its end."""

    def __init__(self, protocol: JsonRPCProtocol, stdin: BinaryIO, stdout: BinaryIO) -> None:
        self.protocol = protocol
        self.stdin = stdin
        self.stdout = stdout
        self._loop: asyncio.AbstractEventLoop | None = None
        self._queue: asyncio.Queue[Item | _End] | None = None
        self._ahead = threading.Semaphore(1)  # frames read but not yet taken by the loop
        self._done = threading.Event()

    def run(self) -> None:
        """Serve until the end of input, ``exit`` or ``stop``."""
        quiet_library_logs()
        self.protocol.set_writer(StdoutWriter(self.stdout))
        try:
            asyncio.run(self._serve())
        except (BrokenPipeError, SystemExit, KeyboardInterrupt):
            pass  # the client closed our output; ``exit``; an interrupt
        finally:
            self._done.set()

    def stop(self, reason: str) -> None:
        """End the loop (from any thread), with a note saying why."""
        self._put(_End(reason))

    def note(self, message: str, kind: types.MessageType = types.MessageType.Warning) -> None:
        """A ``window/logMessage`` to the client (from any thread)."""
        params = types.LogMessageParams(type=kind, message=f"kclpy-lsp: {message}")
        if self._loop is None:
            return
        with contextlib.suppress(RuntimeError):  # the loop closed: ending anyway
            self._loop.call_soon_threadsafe(self.protocol.notify, types.WINDOW_LOG_MESSAGE, params)

    def watch_parent(self, pid: int) -> None:
        """End the loop when process ``pid`` (the client) is gone."""
        if os.name != "posix" or pid <= 0 or pid == os.getpid():
            return  # Windows' os.kill(pid, 0) would end the process
        if not process_alive(pid):  # another PID namespace (a container): not ours to see
            self.note(f"the client's process {pid} is not visible here: not watched")
            return

        def watch() -> None:
            while not self._done.wait(PARENT_POLL):
                if not process_alive(pid):
                    self.stop(f"the client's process {pid} is gone")
                    end_within(EXIT_GRACE, 1)
                    return

        threading.Thread(target=watch, name="kclpy-lsp-parent", daemon=True).start()

    # ------------------------------------------------------------------ the loop

    async def _serve(self) -> None:
        self._loop = asyncio.get_running_loop()
        self._queue = asyncio.Queue()
        threading.Thread(target=self._read, name="kclpy-lsp-reader", daemon=True).start()
        while True:
            item = await self._queue.get()
            if isinstance(item, _End):
                if item.reason:
                    print(f"kclpy-lsp: {item.reason}: ending", file=sys.stderr, flush=True)
                return
            self._ahead.release()
            self._dispatch(item)

    def _read(self) -> None:
        """The reader thread: frames, one at a time, to the loop."""
        frames = FrameReader(_reader(self.stdin))
        try:
            while (item := frames.next()) is not None:
                self._ahead.acquire()
                self._put(item)
        except OSError as error:
            print(f"kclpy-lsp: cannot read the input: {error}", file=sys.stderr, flush=True)
        self._put(_End())

    def _put(self, item: Item | _End) -> None:
        if self._loop is None or self._queue is None:
            return
        with contextlib.suppress(RuntimeError):  # the loop closed meanwhile
            self._loop.call_soon_threadsafe(self._queue.put_nowait, item)

    def _dispatch(self, item: Item) -> None:
        if isinstance(item, Skipped):
            self.note(f"skipped {item.count} bytes that were not a message header")
        elif isinstance(item, Malformed):
            self._error(None, PARSE_ERROR, f"Parse error: {item.reason}")
        elif isinstance(item, Refused):
            if item.id is not None and item.method is not None:
                self._error(item.id, INVALID_REQUEST, f"Invalid Request: {item.reason}")
            else:
                self.note(f"{item.reason}: dropped")
        else:
            self._message(item)

    def _message(self, item: Message) -> None:
        value = item.value
        problem = envelope_problem(value)
        message_id = request_id(value)
        if problem is not None:
            self._error(message_id, INVALID_REQUEST, f"Invalid Request: {problem}")
            return
        assert isinstance(value, dict)
        try:
            message = self.protocol.structure_message(value)
        except JsonRpcException as error:  # pygls: params that do not fit (no id here)
            if "method" in value and message_id is not None:
                self._error(message_id, error.code, error.message)
            else:
                self.note(f"dropped a {value.get('method', 'response')} message: {error.message}")
            return
        try:
            self.protocol.handle_message(message)
        except (SystemExit, BrokenPipeError):
            raise
        except Exception as error:  # a bug: answer briefly, keep serving
            if "method" in value and message_id is not None:
                self._error(message_id, INTERNAL_ERROR, f"internal error: {error!r}")
            else:
                self.note(f"internal error handling {value.get('method')}: {error!r}")

    def _error(self, message_id: int | str | None, code: int, message: str) -> None:
        error = types.ResponseError(code=code, message=message)
        self.protocol._send_response(message_id, None, error)  # type: ignore[arg-type]


def _reader(stream: BinaryIO) -> Callable[[int], bytes]:
    """``read(n)`` of a stream: on its file descriptor when it has one (a daemon thread
    blocked in a buffered stream's read holds its lock, and the interpreter aborts
    when it meets that lock at exit), else its ``read1``."""
    try:
        descriptor = stream.fileno()
    except (OSError, ValueError):
        return getattr(stream, "read1", stream.read)
    return lambda size: os.read(descriptor, size)


def request_id(value: object) -> int | str | None:
    """A message's id when it is a valid one (a number or a string)."""
    if not isinstance(value, dict):
        return None
    message_id = value.get("id")
    if isinstance(message_id, str) or (
        isinstance(message_id, int) and not isinstance(message_id, bool)
    ):
        return message_id
    return None


def envelope_problem(value: object) -> str | None:
    """Why a JSON value is no JSON-RPC 2.0 request, notification or response."""
    if not isinstance(value, dict):
        return f"a message is a JSON object, not {type(value).__name__}"
    if value.get("jsonrpc") != "2.0":
        return 'a message has "jsonrpc": "2.0"'
    if "id" in value and request_id(value) is None:
        return "an id is a number or a string"
    if "method" in value:
        if not isinstance(value["method"], str):
            return "a method is a string"
        if value.get("params") is not None and not isinstance(value["params"], dict | list):
            return "params are an object or an array"
        return None
    if "id" not in value or ("result" in value) == ("error" in value):
        return "a message has a method, or an id and a result or an error"
    return None


class _FirstLine(logging.Formatter):
    """A log record as one line: no traceback, whatever the library attached."""

    def format(self, record: logging.LogRecord) -> str:
        lines = record.getMessage().splitlines() or [""]
        return f"kclpy-lsp: {record.name}: {record.levelname.lower()}: {lines[0]}"


def quiet_library_logs() -> None:
    """pygls's warnings and errors on stderr as one line each (pygls logs a traceback
    for every message whose params do not fit; the client gets its answer anyway)."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(_FirstLine())
    library = logging.getLogger("pygls")
    library.handlers[:] = [handler]
    library.setLevel(logging.WARNING)
    library.propagate = False


def process_alive(pid: int) -> bool:
    """Whether process ``pid`` runs (a zombie does not; another user's does)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            state = handle.read().rpartition(b")")[2].split()[:1]
    except OSError:
        return True  # no /proc: os.kill said it runs
    return state != [b"Z"]


def end_within(seconds: float, code: int) -> None:
    """End the process with ``code`` in ``seconds`` unless it has ended by then."""

    def end() -> None:
        with contextlib.suppress(Exception):
            sys.stdout.flush()
            sys.stderr.flush()
        os._exit(code)

    timer = threading.Timer(seconds, end)
    timer.daemon = True
    timer.start()


__all__ = ["Connection", "end_within", "envelope_problem", "process_alive", "request_id"]
