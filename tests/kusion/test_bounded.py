"""Every wait on a cluster is bounded and every signal honoured.

The cluster is a "silent API server": a real TCP server in this process that
accepts every connection and never answers a byte, which is what a hung
kube-apiserver (or a load balancer in front of a dead one) looks like. A
kubeconfig points ``kcl kusion`` at it:

- preview ends with exit 1 and a message naming the server and the context,
  bounded by ``--cluster-timeout`` or ``$KCLPY_KUSION_CLUSTER_TIMEOUT``;
- the same against a "trickling API server" (``tests/trickle.py``: it answers, over HTTP
  or HTTPS, one byte at a time, its headers or its body, never finishing): the
  timeout bounds each request's whole time, not the wait between two bytes;
- with a long timeout, SIGTERM or SIGINT sent to the running preview (once the
  server has seen its connection, so it is waiting on the cluster) ends it
  with 128 + N and no traceback; an apply stopped the same way releases the lock.
"""

from __future__ import annotations

import signal
import socket
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

from tests.trickle import TrickleServer, self_signed

from .faults_support import KusionProcess, latest_release, run

NAMESPACE_ID = "v1:Namespace:demo"
LONG = "600"  # a cluster timeout no test waits for


class SilentServer:
    """Accepts connections on 127.0.0.1 and never answers."""

    def __init__(self) -> None:
        self.socket = socket.create_server(("127.0.0.1", 0))
        self.port = self.socket.getsockname()[1]
        self.accepted = threading.Event()
        self.connections: list[socket.socket] = []
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self) -> None:
        while True:
            try:
                connection, _ = self.socket.accept()
            except OSError:
                return
            self.connections.append(connection)
            self.accepted.set()

    def close(self) -> None:
        self.socket.close()
        for connection in self.connections:
            connection.close()


@pytest.fixture
def silent() -> Iterator[SilentServer]:
    server = SilentServer()
    yield server
    server.close()


def kubeconfig(path: Path, port: int, scheme: str = "http") -> Path:
    cluster: dict[str, object] = {"server": f"{scheme}://127.0.0.1:{port}"}
    if scheme == "https":
        cluster["insecure-skip-tls-verify"] = True  # (a self-signed certificate)
    document = {
        "apiVersion": "v1",
        "kind": "Config",
        "clusters": [{"name": "silent", "cluster": cluster}],
        "users": [{"name": "someone", "user": {"token": "not-used"}}],
        "contexts": [{"name": "silent-ctx", "context": {"cluster": "silent", "user": "someone"}}],
        "current-context": "silent-ctx",
    }
    path.write_text(yaml.safe_dump(document), encoding="utf-8")
    return path


def namespace_spec(workdir: Path, count: int = 1) -> Path:
    resources = [
        {
            "id": f"v1:Namespace:demo{index}" if index else NAMESPACE_ID,
            "type": "Kubernetes",
            "attributes": {
                "apiVersion": "v1",
                "kind": "Namespace",
                "metadata": {"name": f"demo{index}" if index else "demo"},
            },
        }
        for index in range(count)
    ]
    spec = workdir / "spec.yaml"
    spec.write_text(yaml.safe_dump({"resources": resources}), encoding="utf-8")
    return spec


def environment(config: Path, **extra: str) -> dict[str, str]:
    import os

    return {**os.environ, "KUBECONFIG": str(config), **extra}


@pytest.mark.parametrize("how", ["flag", "environment"])
def test_preview_against_a_silent_cluster_ends_with_a_clear_error(
    tmp_path: Path, silent: SilentServer, how: str
) -> None:
    config = kubeconfig(tmp_path / "kubeconfig", silent.port)
    spec = namespace_spec(tmp_path, count=3)
    args = ["preview", "--spec", str(spec)]
    extra = {}
    if how == "flag":
        args += ["--cluster-timeout", "1"]
    else:
        extra["KCLPY_KUSION_CLUSTER_TIMEOUT"] = "1"
    code, out, err = run(tmp_path, *args, env=environment(config, **extra), timeout=120)
    assert code == 1, out + err
    assert silent.accepted.is_set()  # it really waited on the cluster
    assert "Traceback" not in out + err
    assert f"http://127.0.0.1:{silent.port}" in err and "context 'silent-ctx'" in err
    assert "did not answer within 1s" in err and str(config) in err
    assert err.startswith("error[E9201]")


@pytest.mark.parametrize("scheme", ["http", "https"])
@pytest.mark.parametrize("part", ["headers", "body"])
def test_preview_against_a_trickling_cluster_ends_with_the_same_error(
    tmp_path: Path, scheme: str, part: str
) -> None:
    certificate = self_signed(tmp_path) if scheme == "https" else None
    with TrickleServer(part, certificate) as server:
        config = kubeconfig(tmp_path / "kubeconfig", server.port, scheme)
        spec = namespace_spec(tmp_path, count=2)
        args = ["preview", "--spec", str(spec), "--cluster-timeout", "1"]
        code, out, err = run(tmp_path, *args, env=environment(config), timeout=120)
        assert server.bytes_sent > 0  # it really answered, a byte at a time
    assert code == 1, out + err
    assert "Traceback" not in out + err
    # (over HTTPS without verification urllib3 first warns: InsecureRequestWarning)
    assert "error[E9201]: KusionError" in err
    assert f"{scheme}://127.0.0.1:{server.port}" in err and "context 'silent-ctx'" in err
    assert "did not answer within 1s (--cluster-timeout" in err


def test_a_bad_cluster_timeout_is_refused(tmp_path: Path) -> None:
    spec = namespace_spec(tmp_path)
    code, _, err = run(tmp_path, "preview", "--spec", str(spec), "--cluster-timeout", "soon")
    assert code == 2 and "--cluster-timeout" in err
    code, _, err = run(
        tmp_path,
        "preview",
        "--spec",
        str(spec),
        env=environment(tmp_path / "none", KCLPY_KUSION_CLUSTER_TIMEOUT="-3"),
    )
    assert code == 1 and "KCLPY_KUSION_CLUSTER_TIMEOUT" in err and "Traceback" not in err


@pytest.mark.parametrize("number", [signal.SIGTERM, signal.SIGINT], ids=lambda n: n.name)
def test_a_signal_stops_a_preview_waiting_on_the_cluster(
    tmp_path: Path, silent: SilentServer, number: signal.Signals
) -> None:
    config = kubeconfig(tmp_path / "kubeconfig", silent.port)
    spec = namespace_spec(tmp_path, count=3)
    preview = KusionProcess(
        tmp_path,
        "preview",
        "--spec",
        str(spec),
        "--cluster-timeout",
        LONG,
        env=environment(config),
    )
    assert silent.accepted.wait(120), "the preview never connected"
    preview.send(number)
    code, out, err = preview.finish(timeout=60)  # far below the cluster timeout
    assert code == 128 + number, out + err
    assert "Traceback" not in out + err and "interrupted" in err


@pytest.mark.parametrize("number", [signal.SIGTERM, signal.SIGINT], ids=lambda n: n.name)
def test_a_signal_stops_an_apply_waiting_on_the_cluster_and_frees_the_lock(
    tmp_path: Path, silent: SilentServer, number: signal.Signals
) -> None:
    config = kubeconfig(tmp_path / "kubeconfig", silent.port)
    spec = namespace_spec(tmp_path)
    apply = KusionProcess(
        tmp_path,
        "apply",
        "--spec",
        str(spec),
        "--yes",
        "--cluster-timeout",
        LONG,
        env=environment(config),
    )
    assert silent.accepted.wait(120), "the apply never connected"
    apply.send(number)
    code, out, err = apply.finish(timeout=60)
    assert code == 128 + number, out + err
    assert "Traceback" not in out + err
    release = latest_release(tmp_path)
    assert release["phase"] in (None, "failed") and release["intents"] == []
    code, out, err = run(tmp_path, "state", "unlock")  # nothing left locked
    assert "Traceback" not in out + err and "refusing" not in err
