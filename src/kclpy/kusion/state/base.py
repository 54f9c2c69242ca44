"""Releases and the SQL logic shared by the SQLite and PostgreSQL state backends.

A release is one revision of a project's workspace: the spec of an apply or
destroy, the resulting state (the applied resources) and a phase. The phase
is the lock: a new release can only start when the latest one is finished
(``succeeded`` or ``failed``); checking that and inserting the next revision
happen in one exclusive transaction, so two concurrent applies cannot both
run. The owner of a running release is checked for liveness
(``ownership.owner_alive``): a release whose owner is gone is recovered (marked
``failed``, with a note) by the next ``begin``; a live owner's lock is never
taken, and ``unlock`` refuses it unless forced. A forced unlock changes the
release's owner, so the old owner's next ``save`` fails with ``LockLostError``
instead of overwriting the phase.

Intents (table ``kusion_intents``): before a runtime touches a resource the
engine records what it is about to do; the record is removed once the outcome
is in the release. An intent still there on the next run means the outcome
is unknown, and the resource is reconciled against the live object.
"""

from __future__ import annotations

import datetime
import json
import threading
from collections.abc import Iterator, Sequence
from contextlib import AbstractContextManager
from typing import Any, Protocol

import attrs

from kclpy.kusion.model import JsonObject, LockLostError, Resource, StateLockedError
from kclpy.kusion.state.ownership import current_owner, owner_alive

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

RELEASES_TABLE = """
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

INTENTS_TABLE = """
CREATE TABLE IF NOT EXISTS kusion_intents (
    project     TEXT NOT NULL,
    workspace   TEXT NOT NULL,
    resource_id TEXT NOT NULL,
    action      TEXT NOT NULL,
    resource    TEXT NOT NULL,
    revision    INTEGER NOT NULL,
    started_at  TEXT NOT NULL,
    PRIMARY KEY (project, workspace, resource_id)
)
"""

SCHEMAS = (RELEASES_TABLE, INTENTS_TABLE)


def now() -> str:
    return datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds")


@attrs.define
class Release:
    """One revision: what was asked (spec), what exists (resources), and the phase."""

    project: str
    workspace: str
    revision: int
    operation: str
    phase: str
    spec: JsonObject = attrs.field(factory=dict)
    resources: list[Resource] = attrs.field(factory=list)
    owner: str = ""
    error: str = ""
    created_at: str = ""
    modified_at: str = ""
    # Not stored: what ``begin`` had to do first (e.g. a recovered stale lock).
    notes: list[str] = attrs.field(factory=list)

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


@attrs.frozen
class Intent:
    """A resource operation that was started; its outcome is not recorded yet."""

    resource_id: str
    action: str
    resource: Resource
    revision: int
    started_at: str


class StateBackend(Protocol):
    """Where releases live. Implementations must be safe to call from several threads."""

    def latest(self, project: str, workspace: str) -> Release | None: ...

    def get(self, project: str, workspace: str, revision: int) -> Release | None: ...

    def history(self, project: str, workspace: str) -> list[Release]: ...

    def begin(self, project: str, workspace: str, operation: str, phase: str) -> Release: ...

    def save(self, release: Release) -> None: ...

    def discard(self, release: Release) -> None: ...

    def unlock(self, project: str, workspace: str, force: bool = False) -> Release | None: ...

    def touch(self, release: Release) -> None: ...

    def record_intent(self, release: Release, action: str, resource: Resource) -> None: ...

    def clear_intent(self, release: Release, resource_id: str) -> None: ...

    def intents(self, project: str, workspace: str) -> list[Intent]: ...

    def close(self) -> None: ...


def locked_message(release: Release) -> str:
    return (
        f"another {release.operation} is in progress for project {release.project!r} "
        f"workspace {release.workspace!r} (release {release.revision}, phase {release.phase}, "
        f"started {release.created_at} by {release.owner}, which is alive); wait for it to "
        "finish (`kcl kusion state unlock --force` takes the lock from a live owner)"
    )


class SqlStateBackend:
    """The releases table behind a DB-API connection; subclasses supply the dialect."""

    placeholder = "?"

    def __init__(self) -> None:
        self._lock = threading.RLock()

    # -- dialect hooks -------------------------------------------------------------
    def _execute(self, sql: str, parameters: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        raise NotImplementedError

    def _update(self, sql: str, parameters: Sequence[Any] = ()) -> int:
        """Run a data-changing statement; return the number of rows it changed."""
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
        """Start the next revision, or raise ``StateLockedError`` if a live owner runs one."""
        notes: list[str] = []
        with self._lock, self._exclusive(f"{project}/{workspace}"):
            previous = self.latest(project, workspace)
            if previous is not None and previous.phase in IN_PROGRESS:
                if owner_alive(previous.owner, previous.modified_at):
                    raise StateLockedError(locked_message(previous))
                notes.append(self._recover(previous))
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
        release.notes = notes
        return release

    def _recover(self, stale: Release) -> str:
        """Mark the release of a dead owner failed (inside the lock transaction)."""
        message = (
            f"recovered the lock of release {stale.revision} ({stale.operation}, {stale.phase}): "
            f"its owner {stale.owner} is gone (last heartbeat {stale.modified_at})"
        )
        self._force_failed(stale, message)
        return message

    def _force_failed(self, release: Release, error: str) -> None:
        sql = self._sql(
            "UPDATE kusion_releases SET phase = ?, error = ?, owner = ?, modified_at = ?"
            " WHERE project = ? AND workspace = ? AND revision = ?"
        )
        owner = f"{release.owner} (released by {current_owner()})"
        key = (release.project, release.workspace, release.revision)
        self._update(sql, (FAILED, error, owner, now(), *key))
        release.phase, release.error, release.owner = FAILED, error, owner

    def save(self, release: Release) -> None:
        """Write the release; ``LockLostError`` if its owner changed (a forced unlock)."""
        release.modified_at = now()
        sql = self._sql(
            "UPDATE kusion_releases SET phase = ?, spec = ?, state = ?, error = ?, modified_at = ?"
            " WHERE project = ? AND workspace = ? AND revision = ? AND owner = ?"
        )
        row = _release_row(release)
        key = (release.project, release.workspace, release.revision, release.owner)
        with self._lock:
            changed = self._update(sql, (release.phase, row[5], row[6], release.error, now(), *key))
        if changed == 0:
            raise LockLostError(
                f"release {release.revision} of {release.project}/{release.workspace} was "
                "unlocked by another process; this run stops"
            )

    def touch(self, release: Release) -> None:
        """The owner's heartbeat: refresh ``modified_at`` so the lease does not expire."""
        sql = self._sql(
            "UPDATE kusion_releases SET modified_at = ?"
            " WHERE project = ? AND workspace = ? AND revision = ? AND owner = ?"
        )
        key = (release.project, release.workspace, release.revision, release.owner)
        with self._lock:
            self._update(sql, (now(), *key))

    def discard(self, release: Release) -> None:
        sql = self._sql(
            "DELETE FROM kusion_releases WHERE project = ? AND workspace = ? AND revision = ?"
        )
        with self._lock:
            self._execute(sql, (release.project, release.workspace, release.revision))

    def unlock(self, project: str, workspace: str, force: bool = False) -> Release | None:
        """Mark an in-progress release failed; refused while its owner lives unless ``force``.

        Returns the release, or None if nothing was locked.
        """
        with self._lock, self._exclusive(f"{project}/{workspace}"):
            release = self.latest(project, workspace)
            if release is None or release.phase not in IN_PROGRESS:
                return None
            alive = owner_alive(release.owner, release.modified_at)
            if alive and not force:
                raise StateLockedError(
                    f"release {release.revision} ({release.operation}) is held by "
                    f"{release.owner}, which is still running; refusing to unlock "
                    "(use --force to take the lock from a live process)"
                )
            how = "forcibly " if alive else ""
            self._force_failed(release, f"{how}unlocked by {current_owner()} at {now()}")
        return release

    # -- intents -------------------------------------------------------------------
    def record_intent(self, release: Release, action: str, resource: Resource) -> None:
        key = (release.project, release.workspace, resource.id)
        document = json.dumps(resource.to_json(), sort_keys=True)
        with self._lock, self._exclusive(f"{release.project}/{release.workspace}"):
            self._check_owner(release)
            delete = "DELETE FROM kusion_intents WHERE project = ? AND workspace = ?"
            self._update(self._sql(delete + " AND resource_id = ?"), key)
            insert = "INSERT INTO kusion_intents VALUES (?, ?, ?, ?, ?, ?, ?)"
            self._update(self._sql(insert), (*key, action, document, release.revision, now()))

    def _check_owner(self, release: Release) -> None:
        """Inside the lock transaction: a forced-out owner must not start anything more."""
        sql = (
            "SELECT owner FROM kusion_releases WHERE project = ? AND workspace = ? AND revision = ?"
        )
        rows = self._execute(self._sql(sql), (release.project, release.workspace, release.revision))
        if not rows or rows[0][0] != release.owner:
            raise LockLostError(
                f"release {release.revision} of {release.project}/{release.workspace} was "
                "unlocked by another process; this run stops"
            )

    def clear_intent(self, release: Release, resource_id: str) -> None:
        sql = "DELETE FROM kusion_intents WHERE project = ? AND workspace = ? AND resource_id = ?"
        with self._lock:
            self._update(self._sql(sql), (release.project, release.workspace, resource_id))

    def intents(self, project: str, workspace: str) -> list[Intent]:
        sql = (
            "SELECT resource_id, action, resource, revision, started_at FROM kusion_intents"
            " WHERE project = ? AND workspace = ? ORDER BY started_at, resource_id"
        )
        with self._lock:
            rows = self._execute(self._sql(sql), (project, workspace))
        return [
            Intent(
                str(row[0]),
                str(row[1]),
                Resource.from_json(json.loads(row[2])),
                int(row[3]),
                str(row[4]),
            )
            for row in rows
        ]


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
