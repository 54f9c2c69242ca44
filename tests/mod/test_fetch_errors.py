"""Why a registry could not be reached, named; and the import hints that follow it.

Real sockets on the loopback: a closed port (refused), a listening socket that never
answers (timeout, with ``KCLPY_REGISTRY_TIMEOUT`` short), a registry that answers one
byte at a time for ever (``tests/trickle.py``: the same timeout, which bounds a request's
whole time, not the wait between bytes), a plain TCP server where TLS
is expected (handshake failure), and a name under ``.invalid`` (no DNS answer, ever:
RFC 6761; no network needed).
"""

from __future__ import annotations

import contextlib
import socket
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from kclpy.mod import dependency_paths
from tests.trickle import TrickleServer, self_signed

from .conftest import free_port, kcl, make_package


@contextlib.contextmanager
def listening(address: str, answer: bytes | None) -> Iterator[str]:
    """``HOST:PORT`` of a TCP server on ``address``: it sends ``answer`` to each
    connection and closes it, or (None) accepts nothing and never answers."""
    try:
        server = socket.create_server((address, 0))
    except OSError as error:
        pytest.skip(f"cannot listen on {address}: {error}")
    stop = threading.Event()

    def serve() -> None:
        while not stop.is_set():
            try:
                connection, _ = server.accept()
            except OSError:
                return
            with connection, contextlib.suppress(OSError):
                connection.settimeout(5)
                connection.recv(4096)
                connection.sendall(answer or b"")

    thread = threading.Thread(target=serve, daemon=True)
    if answer is not None:
        thread.start()
    try:
        yield f"{address}:{server.getsockname()[1]}"
    finally:
        stop.set()
        with contextlib.suppress(OSError):
            server.shutdown(socket.SHUT_RDWR)
        server.close()
        if answer is not None:
            thread.join(timeout=10)


def fetch_error(tmp_path: Path) -> str:
    """The message of resolving a module whose dependency k8s sits on $KPM_REG."""
    app = make_package(tmp_path / "app", "app", "0.0.1", "a = 1\n", 'k8s = "1.31.2"\n')
    _, errors = dependency_paths(str(app))
    assert [error.code.id for error in errors] == ["E9104"]
    return errors[0].message


def test_dns_failure(tmp_path: Path, home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KPM_REG", "nonexistent.invalid")
    assert fetch_error(tmp_path) == (
        "cannot reach the registry 'nonexistent.invalid' for k8s: the host name "
        "'nonexistent.invalid' could not be resolved (DNS lookup failed)"
    )


def test_connection_refused(tmp_path: Path, home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    host = f"127.0.0.1:{free_port()}"  # bound once, now closed: nothing listens
    monkeypatch.setenv("KPM_REG", host)
    assert fetch_error(tmp_path) == (
        f"cannot reach the registry '{host}' for k8s: '{host}' refused the connection "
        "(nothing listens there)"
    )


def test_timeout(tmp_path: Path, home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KCLPY_REGISTRY_TIMEOUT", "0.5")
    with listening("127.0.0.1", None) as host:
        monkeypatch.setenv("KPM_REG", host)
        assert fetch_error(tmp_path) == (
            f"cannot reach the registry '{host}' for k8s: '{host}' did not answer "
            "within 0.5 s (timeout)"
        )


@pytest.mark.parametrize("scheme", ["http", "https"])
@pytest.mark.parametrize("part", ["headers", "body"])
def test_a_registry_that_trickles_its_answer_times_out(
    tmp_path: Path, home: Path, monkeypatch: pytest.MonkeyPatch, scheme: str, part: str
) -> None:
    monkeypatch.setenv("KCLPY_REGISTRY_TIMEOUT", "1")
    address = "127.0.0.1"
    certificate = None
    if scheme == "https":  # 127.0.0.2 is not one of the hosts that always get plain HTTP
        address = "127.0.0.2"
        certificate = self_signed(tmp_path, address)
        monkeypatch.setenv("REQUESTS_CA_BUNDLE", str(certificate[0]))
    with TrickleServer(part, certificate, address) as server:
        host = f"{address}:{server.port}"
        monkeypatch.setenv("KPM_REG", host)
        message = fetch_error(tmp_path)
        assert server.bytes_sent > 0
    assert message == (
        f"cannot reach the registry '{host}' for k8s: '{host}' did not answer within 1 s (timeout)"
    )


def test_tls_handshake_failure(tmp_path: Path, home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # 127.0.0.2 (loopback) is not one of the hosts that always get plain HTTP
    answer = b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n"
    with listening("127.0.0.2", answer) as host:
        monkeypatch.setenv("KPM_REG", host)
        app = make_package(tmp_path / "app", "app", "0.0.1", "a = 1\n", 'k8s = "1.31.2"\n')
        _, [error] = dependency_paths(str(app))
    assert error.message.startswith(
        f"cannot reach the registry '{host}' for k8s: the TLS handshake with '{host}' failed ("
    )
    assert error.notes == [
        "a registry that speaks plain HTTP needs OCI_REG_PLAIN_HTTP=on "
        "(localhost and 127.0.0.1 always use it)"
    ]


def test_a_bad_timeout_setting_is_an_error(
    tmp_path: Path, home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("KPM_REG", f"127.0.0.1:{free_port()}")
    monkeypatch.setenv("KCLPY_REGISTRY_TIMEOUT", "soon")
    app = make_package(tmp_path / "app", "app", "0.0.1", "a = 1\n", 'k8s = "1.31.2"\n')
    _, [error] = dependency_paths(str(app))
    assert error.code.id == "E9002"
    assert "KCLPY_REGISTRY_TIMEOUT must be a number of seconds" in error.message


# --------------------------------------------------------------------------- the hints


def test_a_declared_package_that_failed_is_not_to_be_added(tmp_path: Path, home: Path) -> None:
    """After a failed fetch, the import's hint names the failure, not `kcl mod add`."""
    app = make_package(
        tmp_path / "app", "app", "0.0.1", "import k8s.api.core.v1 as core\n", 'k8s = "1.31.2"\n'
    )
    host = f"127.0.0.1:{free_port()}"
    ran = kcl("run", cwd=app, env={"KPM_REG": host, "KPM_REPO": "kcl-lang"})
    assert ran.returncode == 1 and "Traceback" not in ran.stderr
    assert "kcl mod add" not in ran.stderr and "artifacthub" not in ran.stderr
    assert "error[E9104]: RegistryError" in ran.stderr
    hint = (
        f"note: 'k8s' is declared in kcl.mod but could not be fetched: cannot reach the "
        f"registry '{host}' for k8s: '{host}' refused the connection (nothing listens there)"
    )
    assert ran.stderr.count(hint) == 2  # under both errors of the import
    assert "pkgpath k8s.api.core.v1 not found in the program" in ran.stderr


def test_an_undeclared_package_is_to_be_added(tmp_path: Path, home: Path) -> None:
    app = make_package(tmp_path / "app", "app", "0.0.1", "import k8s.api.core.v1 as core\n")
    ran = kcl("run", cwd=app)
    assert ran.returncode == 1
    assert ran.stderr.count("suggestion: try 'kcl mod add k8s' to download the missing") == 2
    assert ran.stderr.count("suggestion: browse more packages at 'https://artifacthub.io'") == 2
    assert f"Cannot find the module k8s.api.core.v1 from {app}/k8s/api/core/v1" in ran.stderr


def test_a_declared_package_without_the_module(tmp_path: Path, home: Path) -> None:
    make_package(tmp_path / "k8s", "k8s", "1.31.2", "version = '1.31.2'\n")
    app = make_package(
        tmp_path / "app", "app", "0.0.1", "import k8s.api.core.v1 as core\n",
        'k8s = { path = "../k8s" }\n',
    )  # fmt: skip
    ran = kcl("run", cwd=app)
    assert ran.returncode == 1 and "kcl mod add" not in ran.stderr
    assert f"note: the package 'k8s' (at {tmp_path / 'k8s'}) has no module 'api.core.v1'" in (
        ran.stderr
    )


def test_a_declared_package_after_an_earlier_failure(tmp_path: Path, home: Path) -> None:
    """Resolution stops at the first failure: a package after it is named as unresolved."""
    app = make_package(
        tmp_path / "app", "app", "0.0.1", "import later\n",
        'first = { path = "../missing" }\nlater = { path = "../later" }\n',
    )  # fmt: skip
    make_package(tmp_path / "later", "later", "0.1.0", "x = 1\n")
    ran = kcl("run", cwd=app)
    assert ran.returncode == 1 and "kcl mod add" not in ran.stderr
    assert (
        "note: 'later' is declared in kcl.mod but was not resolved: resolving the packages "
        "stopped at the error of 'first'"
    ) in ran.stderr
