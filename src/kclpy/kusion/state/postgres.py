"""The shared team backend: releases in a PostgreSQL database (``--state postgresql://...``).

Uses psycopg 3. The lock transaction takes a transaction-scoped advisory lock
on the project/workspace key before reading the latest release, so concurrent
applies from different machines are serialised by the server.
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from kclpy.kusion.model import KusionError
from kclpy.kusion.state.base import SCHEMA, SqlStateBackend


class PostgresStateBackend(SqlStateBackend):
    """Releases in a PostgreSQL table ``kusion_releases``."""

    placeholder = "%s"

    def __init__(self, url: str) -> None:
        super().__init__()
        try:
            psycopg = importlib.import_module("psycopg")
        except ImportError:
            raise KusionError(
                "the PostgreSQL state backend needs psycopg: pip install 'psycopg[binary]'"
            ) from None
        try:
            self._connection: Any = psycopg.connect(url, autocommit=True)
        except psycopg.Error as error:
            raise KusionError(f"cannot connect to {redact(url)}: {error}") from None
        self.url = url
        with self._lock:
            self._execute(SCHEMA)

    def _execute(self, sql: str, parameters: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        with self._connection.cursor() as cursor:
            cursor.execute(sql, tuple(parameters) if parameters else None)
            if cursor.description is None:
                return []
            return [tuple(row) for row in cursor.fetchall()]

    @contextmanager
    def _exclusive(self, key: str) -> Iterator[None]:
        with self._connection.transaction():
            self._execute("SELECT pg_advisory_xact_lock(hashtext(%s))", (key,))
            yield

    def close(self) -> None:
        with self._lock:
            self._connection.close()

    def __repr__(self) -> str:
        return f"PostgresStateBackend({redact(self.url)!r})"


def redact(url: str) -> str:
    """The URL with any password replaced by ``***``."""
    return re.sub(r"(://[^:/@]+:)[^@]*@", r"\1***@", url)
