"""Why a request to a registry failed: the cause named from the client's exception.

:func:`failure` takes the exception ``requests`` raised (its chain holds the socket
or TLS error underneath), the registry host and what was being done, and returns the
:class:`~kclpy.mod.errors.PackageError` to raise: a failed DNS lookup, a refused
connection, a timeout (connecting or waiting for an answer, with the limit in force),
a failed TLS handshake or certificate check, a reset connection, each with its own
message naming the host. :func:`timeouts` is that limit: ``KCLPY_REGISTRY_TIMEOUT``
seconds for both when set, else 10 s to connect and 60 s to wait for data.
"""

from __future__ import annotations

import os
import socket
import ssl
from collections.abc import Iterator

from kclpy.diag import Code
from kclpy.mod.errors import PackageError

TIMEOUT_VARIABLE = "KCLPY_REGISTRY_TIMEOUT"
DEFAULT_TIMEOUTS = (10.0, 60.0)  # seconds to connect, to wait for data
_PLAIN_HTTP_NOTE = (
    "a registry that speaks plain HTTP needs OCI_REG_PLAIN_HTTP=on "
    "(localhost and 127.0.0.1 always use it)"
)


def timeouts() -> tuple[float, float]:
    """Seconds to connect and to wait for data; a bad ``KCLPY_REGISTRY_TIMEOUT`` is a
    usage error."""
    text = os.environ.get(TIMEOUT_VARIABLE, "").strip()
    if not text:
        return DEFAULT_TIMEOUTS
    try:
        seconds = float(text)
    except ValueError:
        seconds = 0.0
    if not 0 < seconds <= 3600:
        raise PackageError(
            Code.USAGE_ERROR,
            f"{TIMEOUT_VARIABLE} must be a number of seconds above 0 and at most 3600, "
            f"not '{text}'",
        )
    return seconds, seconds


def _chain(error: BaseException) -> Iterator[BaseException]:
    """``error`` and the exceptions under it (causes, contexts, urllib3's ``reason``)."""
    pending = [error]
    seen: set[int] = set()
    while pending and len(seen) < 32:
        current = pending.pop(0)
        if id(current) in seen:
            continue
        seen.add(id(current))
        yield current
        for inner in (current.__cause__, current.__context__, getattr(current, "reason", None)):
            if isinstance(inner, BaseException):
                pending.append(inner)
        pending.extend(arg for arg in current.args if isinstance(arg, BaseException))


def _host_name(host: str) -> str:
    """``HOST:PORT`` -> ``HOST`` (``[::1]:5000`` -> ``::1``)."""
    if host.startswith("["):
        return host[1:].partition("]")[0]
    return host.rpartition(":")[0] if host.count(":") == 1 else host


def cause(error: BaseException, host: str) -> tuple[str, list[str]]:
    """What went wrong, in words naming ``host``, and the notes that help."""
    import requests

    found = list(_chain(error))
    wait, read = timeouts()
    for item in found:
        if isinstance(item, ssl.SSLCertVerificationError):
            reason = item.verify_message or item.reason or str(item)
            return f"the TLS certificate of '{host}' could not be verified ({reason})", []
    for item in found:
        if isinstance(item, ssl.SSLError):
            reason = item.reason or str(item)
            return f"the TLS handshake with '{host}' failed ({reason})", [_PLAIN_HTTP_NOTE]
    for item in found:
        if isinstance(item, socket.gaierror):
            name = _host_name(host)
            return f"the host name '{name}' could not be resolved (DNS lookup failed)", []
    for item in found:
        if isinstance(item, ConnectionRefusedError):
            return f"'{host}' refused the connection (nothing listens there)", []
    for item in found:
        if isinstance(item, requests.exceptions.ConnectTimeout):
            return f"could not connect to '{host}' within {wait:g} s (timeout)", []
        if isinstance(item, (requests.exceptions.Timeout, TimeoutError, socket.timeout)):
            return f"'{host}' did not answer within {read:g} s (timeout)", []
    for item in found:
        if isinstance(item, ConnectionResetError):
            return f"'{host}' closed the connection (reset)", []
    return f"the connection to '{host}' failed ({type(error).__name__})", []


def failure(error: BaseException, host: str, what: str) -> PackageError:
    """The error to raise for a request about ``what`` that failed with ``error``."""
    reason, notes = cause(error, host)
    return PackageError(
        Code.REGISTRY_ERROR,
        f"cannot reach the registry '{host}' for {what}: {reason}",
        *notes,
        dependency=what,
    )
