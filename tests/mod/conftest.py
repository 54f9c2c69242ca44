"""Fixtures of the package tests: a real OCI registry (Debian's ``docker-registry``,
the Distribution registry) on a free 127.0.0.1 port with its storage in a temp dir,
an empty package cache, and helpers to run the installed ``kcl``."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

REGISTRY_BINARY = shutil.which("docker-registry") or "/usr/bin/docker-registry"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@dataclass
class Registry:
    host: str  # 127.0.0.1:PORT
    process: subprocess.Popen[bytes]


def _start_registry(folder: Path, htpasswd: str = "") -> Registry:
    if not os.access(REGISTRY_BINARY, os.X_OK):
        pytest.skip("docker-registry is not installed (apt-get install docker-registry)")
    port = free_port()
    auth = f"auth:\n  htpasswd:\n    realm: kclpy-test\n    path: {htpasswd}\n" if htpasswd else ""
    config = folder / "config.yml"
    config.write_text(
        "version: 0.1\nlog:\n  level: error\nstorage:\n  filesystem:\n"
        f"    rootdirectory: {folder / 'storage'}\n  delete:\n    enabled: true\n"
        f"http:\n  addr: 127.0.0.1:{port}\n{auth}"
    )
    log = open(folder / "registry.log", "wb")  # noqa: SIM115 (closed with the process)
    process = subprocess.Popen([REGISTRY_BINARY, "serve", str(config)], stdout=log, stderr=log)
    log.close()
    host = f"127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if process.poll() is not None:
            pytest.fail(f"docker-registry exited: {(folder / 'registry.log').read_text()[-2000:]}")
        try:
            urllib.request.urlopen(f"http://{host}/v2/", timeout=2)
            return Registry(host, process)
        except urllib.error.HTTPError:
            return Registry(host, process)  # 401: up, asking for credentials
        except OSError:
            time.sleep(0.1)
    process.kill()
    pytest.fail("docker-registry did not start")


def _stop(registry: Registry) -> None:
    registry.process.terminate()
    try:
        registry.process.wait(timeout=20)
    except subprocess.TimeoutExpired:
        registry.process.kill()
        registry.process.wait()


@pytest.fixture(scope="module")
def registry(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """``HOST:PORT`` of a running registry without authentication."""
    started = _start_registry(tmp_path_factory.mktemp("registry"))
    yield started.host
    _stop(started)


@pytest.fixture(scope="module")
def auth_registry(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """``HOST:PORT`` of a registry that requires user ``test``, password ``1234``."""
    try:
        import warnings

        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            import crypt
        hashed = crypt.crypt("1234", crypt.mksalt(crypt.METHOD_BLOWFISH, rounds=16))  # cheap
    except (ImportError, AttributeError, OSError):
        pytest.skip("no bcrypt implementation (the crypt module) to write an htpasswd file")
    if not hashed or not hashed.startswith("$2"):
        pytest.skip("the system crypt() has no bcrypt")
    folder = tmp_path_factory.mktemp("auth-registry")
    (folder / "htpasswd").write_text(f"test:{hashed}\n")
    started = _start_registry(folder, str(folder / "htpasswd"))
    yield started.host
    _stop(started)


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty package cache as ``$KCL_PKG_PATH`` (for this process and ``kcl`` runs)."""
    cache = tmp_path / "kpm"
    cache.mkdir()
    monkeypatch.setenv("KCL_PKG_PATH", str(cache))
    monkeypatch.delenv("KPM_REG", raising=False)
    monkeypatch.delenv("KPM_REPO", raising=False)
    return cache


def kcl(
    *args: str, cwd: Path, env: dict[str, str] | None = None, stdin: str = ""
) -> subprocess.CompletedProcess[str]:
    """Run the installed ``kcl`` (this interpreter's ``-m kclpy``) in ``cwd``."""
    environment = dict(os.environ, **(env or {}))
    return subprocess.run(
        [sys.executable, "-m", "kclpy", *args],
        cwd=cwd, env=environment, capture_output=True, text=True, input=stdin, timeout=600,
    )  # fmt: skip


def make_package(folder: Path, name: str, version: str, body: str, deps: str = "") -> Path:
    """A module folder with ``kcl.mod`` ([dependencies] from ``deps``) and ``main.k``."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "kcl.mod").write_text(
        f'[package]\nname = "{name}"\nedition = "v0.11.0"\nversion = "{version}"\n\n'
        f"[dependencies]\n{deps}"
    )
    (folder / "main.k").write_text(body)
    return folder
