"""Connections to Kubernetes clusters in which every wait is bounded.

``connect(kubeconfig, timeout, cache_directory)`` loads the kubeconfig (the
file is never written back: refreshed tokens stay in memory), builds the
official client's ``DynamicClient`` and returns a ``Connection``: the client
plus the ``Cluster`` it talks to (server URL, context, kubeconfig path), for
messages that say which cluster did not answer.

The client does not bound its requests by itself: API discovery (which the
``DynamicClient`` runs while it is created, and again lazily for each API
group) passes no timeout at all, so a server that accepts connections and
never answers held the caller forever; and urllib3's timeouts are between two
bytes, so a server that trickles its answer held it as long. Here every
request of the client gets ``timeout`` seconds for the whole of it (connecting,
sending, the whole answer: :mod:`kclpy.request_deadline`), and the discovery
done while connecting shares one deadline of ``timeout`` seconds; urllib3
retries are off so a timeout is not silently tripled. Once a request to a cluster has timed
out, the connection is marked ``unresponsive`` and later calls fail at once
with the same message instead of each waiting again.

The discovery cache is kept in ``cache_directory`` (the project's
``.kusion/cache``), not in the shared temporary folder.
"""

from __future__ import annotations

import hashlib
import os
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import attrs

from kclpy.kusion.extras import require
from kclpy.kusion.model import RuntimeFailure
from kclpy.kusion.private import private_directory
from kclpy.request_deadline import bound_manager, within

RUNTIME = "the Kubernetes runtime"
DEFAULT_TIMEOUT = 30.0
TIMEOUT_VARIABLE = "KCLPY_KUSION_CLUSTER_TIMEOUT"
Result = TypeVar("Result")


def timeout_from_environment() -> float:
    """``$KCLPY_KUSION_CLUSTER_TIMEOUT`` in seconds, else ``DEFAULT_TIMEOUT``."""
    text = os.environ.get(TIMEOUT_VARIABLE, "").strip()
    if not text:
        return DEFAULT_TIMEOUT
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not 0 < value <= 86400:
        raise RuntimeFailure(
            f"${TIMEOUT_VARIABLE} must be a number of seconds between 0 and 86400, got {text!r}"
        )
    return value


@attrs.frozen
class Cluster:
    """Which cluster a connection talks to, for messages."""

    server: str
    context: str
    kubeconfig: str

    def describe(self) -> str:
        return f"{self.server} (context {self.context!r}, kubeconfig {self.kubeconfig})"


class Connection:
    """A dynamic client of one cluster whose requests are all bounded by ``timeout``."""

    def __init__(self, cluster: Cluster, timeout: float) -> None:
        self.cluster = cluster
        self.timeout = timeout
        self.client: Any = None
        self.deadline: float | None = None
        self.unresponsive = ""
        self._lock = threading.Lock()

    def request_seconds(self) -> float:
        """The timeout of the next request (within the connect deadline while connecting)."""
        seconds = self.timeout
        if self.deadline is not None:
            seconds = max(0.001, min(seconds, self.deadline - time.monotonic()))
        return seconds

    def guarded(self, what: str, action: Callable[[], Result]) -> Result:
        """Run ``action`` (requests to the cluster); a timeout becomes a RuntimeFailure."""
        if self.unresponsive:
            raise RuntimeFailure(f"{what}: {self.unresponsive}")
        try:
            return action()
        except Exception as error:
            if not _is_timeout(error):
                raise
            message = (
                f"the Kubernetes cluster at {self.cluster.describe()} did not answer within "
                f"{self.timeout:g}s (--cluster-timeout, ${TIMEOUT_VARIABLE})"
            )
            with self._lock:
                self.unresponsive = self.unresponsive or message
            raise RuntimeFailure(f"{what}: {message}") from None


def _is_timeout(error: BaseException) -> bool:
    exceptions = require("urllib3.exceptions", RUNTIME)
    seen: BaseException | None = error
    while seen is not None:
        if isinstance(seen, exceptions.TimeoutError | TimeoutError):
            return True
        reason = getattr(seen, "reason", None)
        seen = reason if isinstance(reason, BaseException) else seen.__cause__
    return False


def connect(kubeconfig: str | None, timeout: float, cache_directory: Path | None) -> Connection:
    """A bounded connection to the cluster of ``kubeconfig`` (see the module docstring)."""
    config = require("kubernetes.config", RUNTIME)
    dynamic = require("kubernetes.dynamic", RUNTIME)
    client_module = require("kubernetes.client", RUNTIME)
    path = os.path.expanduser(kubeconfig or os.environ.get("KUBECONFIG") or "~/.kube/config")
    configuration = client_module.Configuration()
    try:
        _, active = config.list_kube_config_contexts(config_file=path)
        config.load_kube_config(
            config_file=path, client_configuration=configuration, persist_config=False
        )
    except Exception as error:
        raise RuntimeFailure(f"cannot load the kubeconfig {path}: {error}") from None
    configuration.retries = False
    context = str((active or {}).get("name") or "(current)")
    connection = Connection(Cluster(str(configuration.host), context, path), timeout)
    api_client = client_module.ApiClient(configuration=configuration)
    bound_manager(api_client.rest_client.pool_manager)
    _bound_requests(api_client, connection)
    cache_file = None
    if cache_directory is not None:
        folder = private_directory(cache_directory / "kubernetes")
        digest = hashlib.sha256(f"{configuration.host}\n{path}".encode()).hexdigest()[:16]
        cache_file = str(folder / f"discovery-{digest}.json")
    connection.deadline = time.monotonic() + timeout
    try:
        connection.client = connection.guarded(
            "cannot connect",
            lambda: dynamic.DynamicClient(api_client, cache_file=cache_file),
        )
    except RuntimeFailure:
        raise
    except Exception as error:
        raise RuntimeFailure(
            f"cannot connect to the Kubernetes cluster at {connection.cluster.describe()}: {error}"
        ) from None
    finally:
        connection.deadline = None
    return connection


def _bound_requests(api_client: Any, connection: Connection) -> None:
    """Bound the whole of every request of ``api_client``: by its own timeout, else by
    the connection's one (which also becomes its connect and read timeout)."""
    rest_client = api_client.rest_client
    unbounded = rest_client.request

    def request(*args: Any, **keywords: Any) -> Any:
        given = keywords.get("_request_timeout")
        if given:
            seconds = float(max(given) if isinstance(given, tuple) else given)
        else:
            seconds = connection.request_seconds()
            keywords["_request_timeout"] = (seconds, seconds)  # (connect, read)
        with within(seconds):
            return unbounded(*args, **keywords)

    rest_client.request = request
