"""A real PostgreSQL server for the tests: ``initdb`` + ``pg_ctl`` in a temporary directory.

The server listens on 127.0.0.1 on a free port, trusts local connections and
is stopped (and its directory removed) by the fixture that started it. As
root (PostgreSQL refuses to run as root) the binaries run as the ``postgres``
user through ``runuser``. ``available()`` says why a machine cannot do this.
"""

from __future__ import annotations

import contextlib
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
from pathlib import Path

USER = "kclpy"


def _binary(name: str) -> str | None:
    found = shutil.which(name)
    if found:
        return found
    for candidate in sorted(Path("/usr/lib/postgresql").glob(f"*/bin/{name}"), reverse=True):
        return str(candidate)
    return None


def available() -> str:
    """ "" when a server can be started here, else the reason it cannot."""
    if _binary("initdb") is None or _binary("pg_ctl") is None:
        return "no initdb/pg_ctl (install Debian's postgresql package)"
    if os.geteuid() == 0:
        try:
            pwd.getpwnam("postgres")
        except KeyError:
            return "running as root and there is no 'postgres' user to run the server as"
        if shutil.which("runuser") is None:
            return "running as root without runuser"
    return ""


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class PostgresServer:
    """One throw-away server; ``start``/``stop`` may be called again (an outage)."""

    def __init__(self) -> None:
        self.directory = Path(tempfile.mkdtemp(prefix="kclpy-pg-"))
        self.data = self.directory / "data"
        self.port = free_port()
        self._as_postgres = os.geteuid() == 0
        if self._as_postgres:
            shutil.chown(self.directory, "postgres")
        self._run(
            _binary("initdb"),
            "-D",
            str(self.data),
            "-U",
            USER,
            "--auth=trust",
            "-E",
            "UTF8",
            "--no-sync",
            "--no-instructions",
        )

    @property
    def url(self) -> str:
        return f"postgresql://{USER}@127.0.0.1:{self.port}/postgres"

    def _run(self, *command: str | None) -> None:
        arguments = [str(part) for part in command]
        if self._as_postgres:
            arguments = ["runuser", "-u", "postgres", "--", *arguments]
        subprocess.run(arguments, check=True, capture_output=True, cwd=self.directory)

    def start(self) -> None:
        options = f"-p {self.port} -k {self.directory} -c listen_addresses=127.0.0.1 -c fsync=off"
        log = str(self.directory / "server.log")
        self._run(_binary("pg_ctl"), "-D", str(self.data), "-o", options, "-l", log, "-w", "start")

    def stop(self, mode: str = "fast") -> None:
        self._run(_binary("pg_ctl"), "-D", str(self.data), "-m", mode, "-w", "stop")

    def close(self) -> None:
        with contextlib.suppress(subprocess.CalledProcessError):  # already stopped
            self.stop("immediate")
        shutil.rmtree(self.directory, ignore_errors=True)
