"""State backends: SQLite, and a real PostgreSQL server (see conftest ``postgres_url``)."""

from __future__ import annotations

import datetime
import socket
import subprocess
import sys
import threading
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from kclpy.kusion.model import LockLostError, Resource, StateLockedError
from kclpy.kusion.state import open_state, sqlite_path
from kclpy.kusion.state.base import APPLYING, FAILED, SUCCEEDED, Release, StateBackend
from kclpy.kusion.state.postgres import redact


@pytest.fixture(params=["sqlite", "postgres"])
def backend_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "postgres":
        return str(request.getfixturevalue("postgres_url"))
    return str(tmp_path / "state.db")


@pytest.fixture
def backend(backend_url: str, tmp_path: Path) -> Iterator[StateBackend]:
    state = open_state(backend_url, tmp_path)
    yield state
    state.close()


@pytest.fixture
def project() -> str:
    return f"test-{uuid.uuid4().hex[:8]}"  # unique, so a shared database needs no cleanup


def test_releases_get_revisions_and_carry_state_forward(
    backend: StateBackend, project: str
) -> None:
    assert backend.latest(project, "default") is None
    first = backend.begin(project, "default", "apply", APPLYING)
    assert first.revision == 1 and first.resources == []
    first.resources = [Resource("a", "Local", {"path": "a"}, runtime_data={"k": [1]})]
    first.spec = {"resources": [{"id": "a"}]}
    first.phase = SUCCEEDED
    backend.save(first)
    second = backend.begin(project, "default", "apply", APPLYING)
    assert second.revision == 2
    assert second.resources == first.resources and second.spec == first.spec
    latest = backend.latest(project, "default")
    assert latest is not None and latest.revision == 2 and latest.phase == APPLYING
    fetched = backend.get(project, "default", 1)
    assert fetched is not None and fetched.resources[0].runtime_data == {"k": [1]}
    assert [r.revision for r in backend.history(project, "default")] == [1, 2]
    backend.discard(second)
    assert [r.revision for r in backend.history(project, "default")] == [1]


def test_in_progress_release_is_the_lock(backend: StateBackend, project: str) -> None:
    running = backend.begin(project, "default", "apply", APPLYING)
    with pytest.raises(StateLockedError, match="another apply is in progress"):
        backend.begin(project, "default", "destroy", APPLYING)
    other = backend.begin(project, "staging", "apply", APPLYING)  # other workspace is free
    assert other.revision == 1
    running.phase = FAILED
    backend.save(running)
    assert backend.begin(project, "default", "apply", APPLYING).revision == 2


def test_unlock_marks_a_dead_owners_release_failed(backend: StateBackend, project: str) -> None:
    release = backend.begin(project, "default", "apply", APPLYING)
    set_owner(backend, release, dead_owner())
    unlocked = backend.unlock(project, "default")
    assert unlocked is not None and unlocked.phase == FAILED and "unlocked by" in unlocked.error
    assert backend.unlock(project, "default") is None


def test_unlock_refuses_a_live_owner_and_force_stops_it(
    backend: StateBackend, project: str
) -> None:
    release = backend.begin(project, "default", "apply", APPLYING)
    with pytest.raises(StateLockedError, match="still running"):
        backend.unlock(project, "default")
    forced = backend.unlock(project, "default", force=True)
    assert forced is not None and "forcibly unlocked" in forced.error
    release.phase = SUCCEEDED
    with pytest.raises(LockLostError, match="unlocked by another process"):
        backend.save(release)  # the old owner cannot overwrite the phase any more
    with pytest.raises(LockLostError):  # nor start another resource
        backend.record_intent(release, "Create", Resource("b", "Local", {"path": "b"}))
    latest = backend.latest(project, "default")
    assert latest is not None and latest.phase == FAILED


def test_a_dead_owners_lock_is_recovered_by_the_next_begin(
    backend: StateBackend, project: str
) -> None:
    stale = backend.begin(project, "default", "apply", APPLYING)
    set_owner(backend, stale, dead_owner())
    fresh = backend.begin(project, "default", "apply", APPLYING)
    assert fresh.revision == 2 and "is gone" in fresh.notes[0]
    recovered = backend.get(project, "default", 1)
    assert recovered is not None and recovered.phase == FAILED


def test_another_hosts_lock_is_a_lease(
    backend: StateBackend, project: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    held = backend.begin(project, "default", "apply", APPLYING)
    set_owner(backend, held, "someone@other-host.example pid 1")
    with pytest.raises(StateLockedError):  # heartbeat is fresh: the owner may be working
        backend.begin(project, "default", "apply", APPLYING)
    monkeypatch.setenv("KCLPY_KUSION_LEASE_SECONDS", "1")
    touched = datetime.datetime.now(datetime.UTC) - datetime.timedelta(seconds=5)
    set_owner(backend, held, held.owner, touched.isoformat(timespec="seconds"))
    assert backend.begin(project, "default", "apply", APPLYING).revision == 2


def dead_owner() -> str:
    """The owner string of a process that has exited (on this host)."""
    finished = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"],
        capture_output=True,
        text=True,
        check=True,
    )
    return f"ghost@{socket.gethostname()} pid {finished.stdout.strip()}"


def set_owner(backend: Any, release: Release, owner: str, modified_at: str = "") -> None:
    """Rewrite a release's owner (and heartbeat), as another process would have left it."""
    sql = backend._sql(
        "UPDATE kusion_releases SET owner = ?, modified_at = ? WHERE project = ? AND revision = ?"
    )
    stamp = modified_at or datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds")
    backend._update(sql, (owner, stamp, release.project, release.revision))
    release.owner = owner


def _at_once(work: Callable[[], None], count: int) -> None:
    """Run ``work`` in ``count`` threads started together; wait for them (30 s each)."""
    threads = [threading.Thread(target=work) for _ in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)


def test_only_one_of_many_simultaneous_begins_wins(
    backend_url: str, tmp_path: Path, project: str
) -> None:
    """Eight separate connections race for the lock; exactly one gets it."""
    start = threading.Barrier(8, timeout=20)
    outcomes: list[str] = []

    def contend() -> None:
        state = open_state(backend_url, tmp_path)
        try:
            start.wait()
            state.begin(project, "default", "apply", APPLYING)
            outcomes.append("won")
        except StateLockedError:
            outcomes.append("refused")
        except Exception as error:
            outcomes.append(f"error: {error}")
            start.abort()
        finally:
            state.close()

    _at_once(contend, 8)
    assert sorted(outcomes) == ["refused"] * 7 + ["won"]


def test_first_clients_of_a_new_database_make_its_tables_once(
    postgres_url: str, tmp_path: Path
) -> None:
    """Eight clients open a database that has no tables yet, all at once (CI saw two
    of them race in CREATE TABLE IF NOT EXISTS: duplicate key in pg_type); each gets
    a working backend. Three fresh databases, so the race has chances to happen."""
    import psycopg

    for attempt in range(3):
        name = f"fresh_{uuid.uuid4().hex[:8]}"
        with psycopg.connect(postgres_url, autocommit=True) as admin:
            admin.execute(f"CREATE DATABASE {name}")
        url = postgres_url.rsplit("/", 1)[0] + "/" + name
        start = threading.Barrier(8, timeout=20)
        outcomes: list[str] = []

        def open_at_once(
            url: str = url, start: threading.Barrier = start, outcomes: list[str] = outcomes
        ) -> None:
            try:
                start.wait()
                state = open_state(url, tmp_path)
            except Exception as error:
                outcomes.append(f"error: {type(error).__name__}: {error}")
                return
            try:
                assert state.latest("p", "default") is None
                outcomes.append("ok")
            finally:
                state.close()

        _at_once(open_at_once, 8)
        assert outcomes == ["ok"] * 8, f"attempt {attempt}: {outcomes}"


def test_state_urls_choose_the_backend(tmp_path: Path) -> None:
    assert sqlite_path(None, tmp_path) == tmp_path / ".kusion" / "state.db"
    assert sqlite_path("sqlite:///tmp/x.db", tmp_path) == Path("/tmp/x.db")
    assert sqlite_path("sqlite:rel.db", tmp_path) == tmp_path / "rel.db"
    assert sqlite_path("other/s.db", tmp_path) == tmp_path / "other" / "s.db"
    assert (
        redact("postgresql://kusion:hunter2@db:5432/state")
        == "postgresql://kusion:***@db:5432/state"
    )


def test_heartbeat_refreshes_the_lease(backend: StateBackend, project: str) -> None:
    release = backend.begin(project, "default", "apply", APPLYING)
    old = (datetime.datetime.now(datetime.UTC) - datetime.timedelta(hours=1)).isoformat()
    set_owner(backend, release, release.owner, old)
    backend.touch(release)
    latest = backend.latest(project, "default")
    assert latest is not None and latest.modified_at > old[:19]


def test_intents_are_recorded_until_settled(backend: StateBackend, project: str) -> None:
    release = backend.begin(project, "default", "apply", APPLYING)
    backend.record_intent(release, "Create", Resource("a", "Local", {"path": "a"}))
    backend.record_intent(release, "Update", Resource("a", "Local", {"path": "b"}))
    (intent,) = backend.intents(project, "default")
    assert (intent.resource_id, intent.action, intent.resource.attributes) == (
        "a",
        "Update",
        {"path": "b"},
    )
    backend.clear_intent(release, "a")
    assert backend.intents(project, "default") == []
