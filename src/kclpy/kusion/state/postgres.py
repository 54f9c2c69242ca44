"""The shared team backend: releases in a PostgreSQL database (``--state postgresql://...``).

Uses psycopg 3. The lock transaction takes a transaction-scoped advisory lock
on the project/workspace key before reading the latest release, so concurrent
applies from different machines are serialised by the server. Any database
failure (server stopped, connection lost) becomes ``StateUnavailableError``,
so callers can keep outcomes in the local journal and end cleanly; the next
call reconnects.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from contextlib import contextmanager, suppress
from typing import Any

from kclpy.kusion.extras import require
from kclpy.kusion.model import StateUnavailableError
from kclpy.kusion.state.base import SCHEMAS, SqlStateBackend

_SCHEMA_LOCK = "kclpy: kusion state schema"
"""The advisory lock's key while the tables are made (a project key holds a ``/``)."""


class PostgresStateBackend(SqlStateBackend):
    """Releases in a PostgreSQL table ``kusion_releases``."""

    placeholder = "%s"

    def __init__(self, url: str) -> None:
        super().__init__()
        self._psycopg: Any = require(
            "psycopg", "the PostgreSQL state backend (--state postgresql://...)"
        )
        self.url = url
        self._connection: Any = None
        # CREATE ... IF NOT EXISTS is not safe against itself: two first connections
        # may both create a table's row type and one fails on the catalogue's unique
        # index, so the schema is made under one lock for every client of the database.
        with self._lock, self._exclusive(_SCHEMA_LOCK):
            for statement in SCHEMAS:
                self._execute(statement)

    def _connected(self) -> Any:
        if self._connection is None or self._connection.closed:
            try:
                self._connection = self._psycopg.connect(
                    self.url, autocommit=True, connect_timeout=10
                )
            except self._psycopg.Error as error:
                raise StateUnavailableError(
                    f"cannot connect to {redact(self.url)}: {_first_line(error)}"
                ) from None
        return self._connection

    @contextmanager
    def _database_errors(self) -> Iterator[None]:
        try:
            yield
        except self._psycopg.OperationalError as error:
            self._drop()
            raise StateUnavailableError(
                f"the state database {redact(self.url)} is unavailable: {_first_line(error)}"
            ) from None
        except self._psycopg.InterfaceError as error:  # "connection is closed"
            self._drop()
            raise StateUnavailableError(
                f"lost the connection to the state database {redact(self.url)}: "
                f"{_first_line(error)}"
            ) from None

    def _drop(self) -> None:
        connection, self._connection = self._connection, None
        if connection is not None:
            with suppress(self._psycopg.Error):
                connection.close()

    def _execute(self, sql: str, parameters: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        with self._database_errors(), self._connected().cursor() as cursor:
            cursor.execute(sql, tuple(parameters) if parameters else None)
            if cursor.description is None:
                return []
            return [tuple(row) for row in cursor.fetchall()]

    def _update(self, sql: str, parameters: Sequence[Any] = ()) -> int:
        with self._database_errors(), self._connected().cursor() as cursor:
            cursor.execute(sql, tuple(parameters) if parameters else None)
            return int(cursor.rowcount)

    @contextmanager
    def _exclusive(self, key: str) -> Iterator[None]:
        with self._database_errors(), self._connected().transaction():
            self._execute("SELECT pg_advisory_xact_lock(hashtext(%s))", (key,))
            yield

    def close(self) -> None:
        with self._lock:
            self._drop()

    def __repr__(self) -> str:
        return f"PostgresStateBackend({redact(self.url)!r})"


def _first_line(error: BaseException) -> str:
    text = str(error).strip()
    return text.splitlines()[0] if text else type(error).__name__


def redact(url: str) -> str:
    """The URL with any password replaced by ``***``."""
    return re.sub(r"(://[^:/@]+:)[^@]*@", r"\1***@", url)
