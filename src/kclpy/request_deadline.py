"""One deadline over the whole of an HTTP exchange: connecting, sending, the whole answer.

urllib3 (under ``requests`` and the Kubernetes client) bounds each socket operation
on its own: its read timeout is the longest wait *between two bytes*, so a server
that trickles an answer a byte at a time holds the caller for ever. Here:

- :func:`bound_manager` (a urllib3 ``PoolManager``) and :func:`bound_session` (a
  ``requests.Session``) make the connections of a client report to the deadlines in
  force in their thread, each time they connect and each time they send a request;
- :func:`within` is such a deadline: every exchange of a bounded client that the
  ``with`` block runs in its thread ends at most ``seconds`` after the block began.
  When the time is up a timer shuts down the sockets of the connections that
  reported (a blocked read returns at once; a connection that reports later is shut
  down as it reports), and the block ends with :class:`DeadlineExceeded` (a
  ``TimeoutError``, chained to whatever the client made of its closed socket) - also
  when the client took the shut socket for the end of a complete answer.

Deadlines nest (a connection reports to every one in force), and nothing else
changes: the client's own timeouts still apply, and a signal (Ctrl-C) still
interrupts a blocked read in the main thread at once.
"""

from __future__ import annotations

import contextlib
import functools
import socket
import threading
from collections.abc import Callable, Iterator

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Protocol


class DeadlineExceeded(TimeoutError):
    """The exchanges of a :func:`within` block did not end in time."""


if TYPE_CHECKING:  # used in annotations only

    class _Connection(Protocol):
        """What a deadline needs of a urllib3 connection: its socket, while it has one."""

        sock: object


class _Deadline:
    """The connections that reported to one deadline, and whether its time is up."""

    def __init__(self) -> None:
        self.expired = False
        self.connections: list[_Connection] = []
        self.lock = threading.Lock()

    def watch(self, connection: _Connection) -> None:
        with self.lock:
            if not self.expired:
                self.connections.append(connection)
                return
        _shut(connection)

    def expire(self) -> None:
        with self.lock:
            self.expired = True
            connections, self.connections = self.connections, []
        for connection in connections:
            _shut(connection)


def _shut(connection: _Connection) -> None:
    """Shut the connection's socket down (a TLS socket's too, under its TLS layer)."""
    sock = connection.sock
    if isinstance(sock, socket.socket):
        with contextlib.suppress(OSError):
            socket.socket.shutdown(sock, socket.SHUT_RDWR)


_local = threading.local()


def _in_force() -> list[_Deadline]:
    deadlines: list[_Deadline] | None = getattr(_local, "deadlines", None)
    if deadlines is None:
        deadlines = _local.deadlines = []
    return deadlines


def report(connection: _Connection) -> None:
    """Put ``connection`` under the deadlines in force in this thread."""
    for deadline in _in_force():
        deadline.watch(connection)


@contextlib.contextmanager
def within(seconds: float) -> Iterator[None]:
    """A deadline of ``seconds`` over the exchanges of bounded clients in the block."""
    deadline = _Deadline()
    deadlines = _in_force()
    deadlines.append(deadline)
    timer = threading.Timer(max(seconds, 0.0), deadline.expire)
    timer.daemon = True
    timer.start()
    try:
        yield
    except Exception as error:
        if deadline.expired:
            raise DeadlineExceeded(f"no complete answer within {seconds:g}s") from error
        raise
    finally:
        timer.cancel()
        deadlines.remove(deadline)
    if deadline.expired:
        raise DeadlineExceeded(f"no complete answer within {seconds:g}s")


@functools.cache
def _pool_classes() -> dict[str, type]:
    """urllib3's connection pools, whose connections report to the deadlines when
    they connect and when they start a request."""
    from urllib3.connection import HTTPConnection, HTTPSConnection
    from urllib3.connectionpool import HTTPConnectionPool, HTTPSConnectionPool

    class Connection(HTTPConnection):
        """Reports to the deadlines when it connects and when it starts a request."""

        def connect(self) -> None:
            super().connect()
            report(self)

        def putrequest(
            self, method: str, url: str, skip_host: bool = False, skip_accept_encoding: bool = False
        ) -> None:
            report(self)
            super().putrequest(method, url, skip_host, skip_accept_encoding)

    class SecureConnection(Connection, HTTPSConnection):  # (TLS's connect, then the report)
        pass

    class Pool(HTTPConnectionPool):
        ConnectionCls = Connection

    class SecurePool(HTTPSConnectionPool):
        ConnectionCls = SecureConnection

    return {"http": Pool, "https": SecurePool}


if TYPE_CHECKING:  # used in annotations only

    class _PoolManager(Protocol):
        pool_classes_by_scheme: dict[str, type]

        def clear(self) -> None: ...


def bound_manager(manager: _PoolManager) -> None:
    """Make the connections of ``manager`` (a urllib3 PoolManager or ProxyManager)
    report to the deadlines (the pools it made so far are dropped)."""
    classes = _pool_classes()
    if manager.pool_classes_by_scheme.get("http") is not classes["http"]:
        manager.pool_classes_by_scheme = dict(classes)
        manager.clear()


def bound_session(session: object) -> None:
    """Make the connections of a ``requests.Session`` (its HTTP adapters, through a
    proxy too) report to the deadlines."""
    for adapter in getattr(session, "adapters", {}).values():
        poolmanager = getattr(adapter, "poolmanager", None)
        if poolmanager is None:
            continue
        bound_manager(poolmanager)
        proxy_manager_for = adapter.proxy_manager_for

        def bounded_proxy_manager_for(
            *args: object,
            unbounded: Callable[..., _PoolManager] = proxy_manager_for,
            **keywords: object,
        ) -> _PoolManager:
            manager = unbounded(*args, **keywords)
            bound_manager(manager)
            return manager

        adapter.proxy_manager_for = bounded_proxy_manager_for
