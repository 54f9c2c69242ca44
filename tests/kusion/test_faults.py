"""Fault injection: real `kcl kusion apply` processes killed at every step of a chained apply.

The spec is a chain r1 -> r2 -> r3 of real Terraform ``terraform_data``
resources whose provisioners count real creations and deletions. For each
fault (SIGKILL, SIGTERM, SIGINT) and each step of applying r2 (lock taken,
intent recorded, Terraform running, applied but not recorded, recorded,
finishing the release) the apply is stopped there; then a second apply must
finish the job and a destroy must remove everything. Afterwards every
resource was created exactly once and destroyed exactly once, state equals
Terraform's own state, and nothing is orphaned.
"""

from __future__ import annotations

import signal
import time
from pathlib import Path

import pytest

from .faults_support import (
    PREFIX,
    WAIT_SECONDS,
    KusionProcess,
    chain,
    latest_release,
    lines,
    run,
    terraform_reality,
)
from .support import requires_terraform

pytestmark = requires_terraform

NAMES = ["r1", "r2", "r3"]
STEPS = ["locked", "intent:r2", "terraform:r2", "applied:r2", "recorded:r2", "finishing"]
FAULTS = [signal.SIGKILL, signal.SIGTERM, signal.SIGINT]


def stop_at(workdir: Path, step: str, fault: signal.Signals) -> tuple[int, str, str]:
    """Start an apply, stop it with ``fault`` at ``step``; return how it ended."""
    spec = chain(workdir, NAMES, slow="r2" if step == "terraform:r2" else "")
    point, _, name = step.partition(":")
    pause_at = f"{point}:{PREFIX}{name}" if name else step
    if point == "terraform":
        pause_at = ""  # held by the resource's own slow provisioner instead
    apply = KusionProcess(workdir, "apply", "--spec", str(spec), "--yes", pause_at=pause_at)
    apply.wait_for(workdir / "started-r2" if step == "terraform:r2" else apply.pause_file)
    apply.send(fault)
    return apply.finish()


@pytest.mark.parametrize("step", STEPS)
@pytest.mark.parametrize("fault", FAULTS, ids=lambda fault: fault.name)
def test_apply_stopped_at_every_step_recovers_exactly_once(
    tmp_path: Path, fault: signal.Signals, step: str
) -> None:
    code, out, err = stop_at(tmp_path, step, fault)
    assert "Traceback" not in out + err
    if fault is signal.SIGKILL:
        assert code == -signal.SIGKILL
    else:  # stopped cleanly: running resource finished and recorded, lock released
        assert code == 128 + fault, out + err
        assert latest_release(tmp_path)["phase"] in ("failed", "succeeded", None), out + err

    spec = tmp_path / "spec.yaml"
    code, out, err = run(tmp_path, "apply", "--spec", str(spec), "--yes")
    assert code == 0, out + err
    if fault is signal.SIGKILL and step != "finishing":
        assert "note: recovered the lock of release 1" in err
    after = latest_release(tmp_path)
    assert after["phase"] == "succeeded" and after["ids"] == NAMES and after["intents"] == []
    assert lines(tmp_path / "created.log") == NAMES  # each created exactly once
    assert terraform_reality(tmp_path) == NAMES  # state equals Terraform's own state

    code, out, err = run(tmp_path, "destroy", "--yes")
    assert code == 0, out + err
    assert lines(tmp_path / "destroyed.log") == NAMES  # nothing orphaned, nothing twice
    assert terraform_reality(tmp_path) == []
    assert latest_release(tmp_path)["ids"] == []


def test_five_concurrent_applies_exactly_one_runs(tmp_path: Path) -> None:
    """Five processes race for the lock; the winner is held mid-apply while the rest fail."""
    spec = chain(tmp_path, ["a"])
    racers = [
        KusionProcess(
            tmp_path, "apply", "--spec", str(spec), "--yes", pause_at=f"applied:{PREFIX}a"
        )
        for _ in range(5)
    ]
    deadline = time.monotonic() + WAIT_SECONDS
    while not racers[0].pause_file.exists():  # some racer won and holds the lock
        assert time.monotonic() < deadline, "no racer got the lock"
        time.sleep(0.02)
    winner_pid = int(racers[0].pause_file.read_text())
    losers = [racer for racer in racers if racer.process.pid != winner_pid]
    (winner,) = [racer for racer in racers if racer.process.pid == winner_pid]
    assert len(losers) == 4
    for loser in losers:
        code, _, err = loser.finish()
        assert code == 1 and "another apply is in progress" in err, err
    code, _, err = run(tmp_path, "state", "unlock")  # the owner is alive: refused
    assert code == 1 and "refusing to unlock" in err
    winner.pause_file.unlink()
    code, out, err = winner.finish()
    assert code == 0, out + err
    assert lines(tmp_path / "created.log") == ["a"]
    assert latest_release(tmp_path)["revision"] == 1  # the losers left no release behind
