"""State backends: where releases (spec, applied resources, phase lock) are kept.

``open_state(url, workdir)`` picks the backend from ``--state``:

- nothing: SQLite at ``<workdir>/.kusion/state.db`` (``.kusion`` is kept 0700);
- ``sqlite:///abs/path.db``, ``sqlite:relative.db`` or a plain file path: SQLite there;
- ``postgresql://...`` / ``postgres://...``: PostgreSQL (psycopg 3).
"""

from __future__ import annotations

from pathlib import Path

from kclpy.kusion.state.base import (
    APPLYING,
    DESTROYING,
    FAILED,
    IN_PROGRESS,
    PREVIEWING,
    SUCCEEDED,
    Release,
    StateBackend,
)

DEFAULT_DIRECTORY = ".kusion"
DEFAULT_FILE = "state.db"

__all__ = [
    "APPLYING",
    "DESTROYING",
    "FAILED",
    "IN_PROGRESS",
    "PREVIEWING",
    "SUCCEEDED",
    "Release",
    "StateBackend",
    "open_state",
]


def open_state(url: str | None, workdir: Path) -> StateBackend:
    """Open the backend named by ``url`` (None: the default SQLite file under ``workdir``)."""
    if url and url.startswith(("postgresql://", "postgres://")):
        from kclpy.kusion.state.postgres import PostgresStateBackend

        return PostgresStateBackend(url)
    from kclpy.kusion.private import private_directory
    from kclpy.kusion.state.sqlite import SqliteStateBackend

    if not url:  # the project's own folder: created, or tightened, to 0700
        private_directory(workdir / DEFAULT_DIRECTORY)
    return SqliteStateBackend(sqlite_path(url, workdir))


def sqlite_path(url: str | None, workdir: Path) -> Path:
    if not url:
        return workdir / DEFAULT_DIRECTORY / DEFAULT_FILE
    if url.startswith("sqlite://"):
        url = url[len("sqlite://") :]
    elif url.startswith("sqlite:"):
        url = url[len("sqlite:") :]
    path = Path(url).expanduser()
    return path if path.is_absolute() else workdir / path
