"""Releases and the SQL logic shared by the SQLite and PostgreSQL state backends.

A release is one revision of a project's workspace: the spec of an apply or
destroy, the resulting state (the applied resources) and a phase. The phase
is the lock: a new release can only start when the latest one is finished
(``succeeded`` or ``failed``); checking that and inserting the next revision
happen in one exclusive transaction, so two concurrent applies cannot both
run. ``unlock`` forces a stuck release (its process died) to ``failed``.
"""

from __future__ import annotations

import datetime
import getpass
import json
import os
import socket
import threading
from collections.abc import Iterator, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from typing import Any, Protocol

from kclpy.kusion.model import JsonObject, Resource, StateLockedError

PREVIEWING = "previewing"
APPLYING = "applying"
DESTROYING = "destroying"
SUCCEEDED = "succeeded"
FAILED = "failed"
IN_PROGRESS = frozenset({PREVIEWING, APPLYING, DESTROYING})

COLUMNS = (
    "project, workspace, revision, operation, phase, spec, state, owner, error,"
    " created_at, modified_at"
)

SCHEMA = """
CREATE TABLE IF NOT EXISTS kusion_releases (
    project     TEXT NOT NULL,
    workspace   TEXT NOT NULL,
    revision    INTEGER NOT NULL,
    operation   TEXT NOT NULL,
    phase       TEXT NOT NULL,
    spec        TEXT NOT NULL,
    state       TEXT NOT NULL,
    owner       TEXT NOT NULL,
    error       TEXT NOT NULL DEFAULT '',
    created_at  TEXT NOT NULL,
    modified_at TEXT NOT NULL,
    PRIMARY KEY (project, workspace, revision)
)
"""


def now() -> str:
    return datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds")


def current_owner() -> str:
    try:
        user = getpass.getuser()
    except (KeyError, OSError):
        user = "unknown"
    return f"{user}@{socket.gethostname()} pid {os.getpid()}"


@dataclass
class Release:
    """One revision: what was asked (spec), what exists (resources), and the phase."""

    project: str
    workspace: str
    revision: int
    operation: str
    phase: str
    spec: JsonObject = field(default_factory=dict)
    resources: list[Resource] = field(default_factory=list)
    owner: str = ""
    error: str = ""
    created_at: str = ""
    modified_at: str = ""

    def resource_index(self) -> dict[str, Resource]:
        return {resource.id: resource for resource in self.resources}

    def summary(self) -> JsonObject:
        return {
            "project": self.project,
            "workspace": self.workspace,
            "revision": self.revision,
            "operation": self.operation,
            "phase": self.phase,
            "owner": self.owner,
            "error": self.error,
            "createdAt": self.created_at,
            "modifiedAt": self.modified_at,
            "resources": len(self.resources),
        }

    def to_json(self) -> JsonObject:
        document = self.summary()
        document["spec"] = self.spec
        document["resources"] = [resource.to_json() for resource in self.resources]
        return document


class StateBackend(Protocol):
    """Where releases live. Implementations must be safe to call from several threads."""

    def latest(self, project: str, workspace: str) -> Release | None: ...

    def get(self, project: str, workspace: str, revision: int) -> Release | None: ...

    def history(self, project: str, workspace: str) -> list[Release]: ...

    def begin(self, project: str, workspace: str, operation: str, phase: str) -> Release: ...

    def save(self, release: Release) -> None: ...

    def discard(self, release: Release) -> None: ...

    def unlock(self, project: str, workspace: str) -> Release | None: ...

    def close(self) -> None: ...


def locked_message(release: Release) -> str:
    return (
        f"another {release.operation} is in progress for project {release.project!r} "
        f"workspace {release.workspace!r} (release {release.revision}, phase {release.phase}, "
        f"started {release.created_at} by {release.owner}); wait for it to finish, or if that "
        "process is gone, run `kcl kusion state unlock`"
    )


class SqlStateBackend:
    """The releases table behind a DB-API connection; subclasses supply the dialect."""

    placeholder = "?"

    def __init__(self) -> None:
        self._lock = threading.RLock()

    # -- dialect hooks -------------------------------------------------------------
    def _execute(self, sql: str, parameters: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        raise NotImplementedError

    def _exclusive(self, key: str) -> AbstractContextManager[None]:
        """A transaction that no other writer of ``key`` can interleave with."""
        raise NotImplementedError

    def close(self) -> None:
        raise NotImplementedError

    # -- queries -------------------------------------------------------------------
    def _sql(self, text: str) -> str:
        return text.replace("?", self.placeholder)

    def _select(self, where: str, parameters: Sequence[Any], tail: str = "") -> Iterator[Release]:
        sql = self._sql(f"SELECT {COLUMNS} FROM kusion_releases WHERE {where} {tail}")
        with self._lock:
            rows = self._execute(sql, parameters)
        for row in rows:
            yield _release_from_row(row)

    def latest(self, project: str, workspace: str) -> Release | None:
        where = "project = ? AND workspace = ?"
        tail = "ORDER BY revision DESC LIMIT 1"
        return next(self._select(where, (project, workspace), tail), None)

    def get(self, project: str, workspace: str, revision: int) -> Release | None:
        where = "project = ? AND workspace = ? AND revision = ?"
        return next(self._select(where, (project, workspace, revision)), None)

    def history(self, project: str, workspace: str) -> list[Release]:
        where = "project = ? AND workspace = ?"
        return list(self._select(where, (project, workspace), "ORDER BY revision"))

    def begin(self, project: str, workspace: str, operation: str, phase: str) -> Release:
        """Start the next revision, or raise ``StateLockedError`` if one is running."""
        with self._lock, self._exclusive(f"{project}/{workspace}"):
            previous = self.latest(project, workspace)
            if previous is not None and previous.phase in IN_PROGRESS:
                raise StateLockedError(locked_message(previous))
            release = Release(
                project,
                workspace,
                previous.revision + 1 if previous else 1,
                operation,
                phase,
                dict(previous.spec) if previous else {},
                [resource.copy() for resource in previous.resources] if previous else [],
                current_owner(),
                "",
                now(),
                now(),
            )
            values = ", ".join("?" * 11)
            sql = self._sql(f"INSERT INTO kusion_releases ({COLUMNS}) VALUES ({values})")
            self._execute(sql, _release_row(release))
        return release

    def save(self, release: Release) -> None:
        release.modified_at = now()
        sql = self._sql(
            "UPDATE kusion_releases SET phase = ?, spec = ?, state = ?, error = ?, modified_at = ?"
            " WHERE project = ? AND workspace = ? AND revision = ?"
        )
        row = _release_row(release)
        with self._lock:
            self._execute(
                sql,
                (
                    release.phase,
                    row[5],
                    row[6],
                    release.error,
                    release.modified_at,
                    release.project,
                    release.workspace,
                    release.revision,
                ),
            )

    def discard(self, release: Release) -> None:
        sql = self._sql(
            "DELETE FROM kusion_releases WHERE project = ? AND workspace = ? AND revision = ?"
        )
        with self._lock:
            self._execute(sql, (release.project, release.workspace, release.revision))

    def unlock(self, project: str, workspace: str) -> Release | None:
        """Mark a stuck in-progress release failed; return it, or None if nothing was locked."""
        with self._lock, self._exclusive(f"{project}/{workspace}"):
            release = self.latest(project, workspace)
            if release is None or release.phase not in IN_PROGRESS:
                return None
            release.phase = FAILED
            release.error = f"unlocked by {current_owner()} at {now()}"
            self.save(release)
        return release


def _release_row(release: Release) -> tuple[Any, ...]:
    state = json.dumps([resource.to_json() for resource in release.resources], sort_keys=True)
    return (
        release.project,
        release.workspace,
        release.revision,
        release.operation,
        release.phase,
        json.dumps(release.spec, sort_keys=True),
        state,
        release.owner,
        release.error,
        release.created_at,
        release.modified_at,
    )


def _release_from_row(row: Sequence[Any]) -> Release:
    resources = [Resource.from_json(item) for item in json.loads(row[6])]
    return Release(
        project=row[0],
        workspace=row[1],
        revision=int(row[2]),
        operation=row[3],
        phase=row[4],
        spec=json.loads(row[5]),
        resources=resources,
        owner=row[7],
        error=row[8],
        created_at=row[9],
        modified_at=row[10],
    )
