"""A real PostgreSQL state server stopped in the middle of a real chained Terraform apply.

The apply must end cleanly (exit 1, a message naming the outage, no
traceback), keep the outcome of the resource it was applying in the local
journal, start nothing more, and the next apply - once the server is back -
must write that outcome into the state and finish: every resource created
exactly once, state equal to reality, nothing orphaned after destroy.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from .faults_support import PREFIX, KusionProcess, chain, lines, run, terraform_reality
from .postgres_server import PostgresServer
from .support import requires_terraform

pytestmark = requires_terraform

NAMES = ["r1", "r2", "r3"]


def recorded(workdir: Path, url: str) -> tuple[str, list[str]]:
    code, out, err = run(workdir, "state", "-o", "json", "--state", url)
    assert code == 0, out + err
    document = json.loads(out)
    return document["phase"], sorted(r["id"].removeprefix(PREFIX) for r in document["resources"])


@pytest.mark.parametrize("step", ["intent", "applied", "recorded"])
def test_database_stopped_mid_apply(
    tmp_path: Path, own_postgres: PostgresServer, step: str
) -> None:
    url = own_postgres.url
    spec = chain(tmp_path, NAMES)
    apply = KusionProcess(
        tmp_path,
        "apply",
        "--spec",
        str(spec),
        "--yes",
        "--state",
        url,
        pause_at=f"{step}:{PREFIX}r2",
    )
    apply.wait_for(apply.pause_file)
    own_postgres.stop("immediate")
    apply.pause_file.unlink()
    code, out, err = apply.finish()
    assert code == 1, out + err
    assert "Traceback" not in out + err and "InternalError" not in out + err
    assert "state database" in err and "unavailable" in err
    journal = tmp_path / ".kusion" / "journal"
    if step == "recorded":  # r2 was recorded before the outage; r3 never started
        assert "r3  failed: not started" in out or "r3  failed: the state database" in out
        assert not list(journal.rglob("*.jsonl"))
        assert lines(tmp_path / "created.log") == ["r1", "r2"]
    else:  # r2 was created while the database was down: its outcome is in the journal
        assert "is kept in" in err
        assert [path.name for path in journal.rglob("*.jsonl")] == ["default.jsonl"]
        assert lines(tmp_path / "created.log") == ["r1", "r2"]

    own_postgres.start()
    code, out, err = run(tmp_path, "apply", "--spec", str(spec), "--yes", "--state", url)
    assert code == 0, out + err
    assert "note: recovered the lock" in err
    if step != "recorded":
        assert f"journal: recorded {PREFIX}r2" in err
    assert recorded(tmp_path, url) == ("succeeded", NAMES)
    assert lines(tmp_path / "created.log") == NAMES
    assert terraform_reality(tmp_path) == NAMES
    assert not list(journal.rglob("*.jsonl"))

    code, out, err = run(tmp_path, "destroy", "--yes", "--state", url)
    assert code == 0, out + err
    assert lines(tmp_path / "destroyed.log") == NAMES
    assert terraform_reality(tmp_path) == []
