"""The default state backend: a SQLite file (``.kusion/state.db`` in the working directory).

The lock transaction is ``BEGIN IMMEDIATE``, which takes SQLite's write lock
up front, so two processes checking "is a release in progress?" at the same
time are serialised and the second one sees the first one's release.

The database records secrets in clear, so its file is created with mode 0600
before SQLite opens it (SQLite gives its ``-wal`` and ``-shm`` files the same
mode), a missing folder is created 0700, and files that already exist with
wider modes are tightened (``kclpy.kusion.private``).
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from kclpy.kusion.private import private_directory, private_file
from kclpy.kusion.state.base import SCHEMAS, SqlStateBackend

SIDE_FILES = ("-wal", "-shm", "-journal")


class SqliteStateBackend(SqlStateBackend):
    """Releases in one SQLite database file."""

    placeholder = "?"

    def __init__(self, path: Path) -> None:
        super().__init__()
        if not path.parent.exists():
            private_directory(path.parent)
        private_file(path)
        for suffix in SIDE_FILES:
            side = path.with_name(path.name + suffix)
            if side.exists():
                private_file(side)
        self.path = path
        self._connection = sqlite3.connect(
            str(path), timeout=30.0, isolation_level=None, check_same_thread=False
        )
        self._connection.execute("PRAGMA busy_timeout=30000")
        # Every commit reaches the disk before the runtime is called: intents are durable.
        self._connection.execute("PRAGMA synchronous=FULL")
        # Switching to WAL and creating the tables can fail at once with "database is
        # locked" while other connections open the same new file (SQLite does not use
        # the busy handler there): retry for a while.
        for attempt in range(200):
            try:
                self._connection.execute("PRAGMA journal_mode=WAL")
                for statement in SCHEMAS:
                    self._connection.execute(statement)
                break
            except sqlite3.OperationalError as error:
                if "locked" not in str(error) or attempt == 199:
                    raise
                time.sleep(0.05)

    def _execute(self, sql: str, parameters: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        cursor = self._connection.execute(sql, tuple(parameters))
        rows = cursor.fetchall()
        cursor.close()
        return rows

    def _update(self, sql: str, parameters: Sequence[Any] = ()) -> int:
        cursor = self._connection.execute(sql, tuple(parameters))
        count = cursor.rowcount
        cursor.close()
        return count

    @contextmanager
    def _exclusive(self, key: str) -> Iterator[None]:
        self._connection.execute("BEGIN IMMEDIATE")
        try:
            yield
        except BaseException:
            self._connection.execute("ROLLBACK")
            raise
        self._connection.execute("COMMIT")

    def close(self) -> None:
        with self._lock:
            self._connection.close()

    def __repr__(self) -> str:
        return f"SqliteStateBackend({str(self.path)!r})"
