"""The engine with a fake runtime: actions, fault injection, the lock, Ctrl-C, parallelism."""

from __future__ import annotations

import os
import signal
import threading
import time
from pathlib import Path

import pytest
import yaml

from kclpy.kusion import operations
from kclpy.kusion.engine import Options
from kclpy.kusion.graph import Graph
from kclpy.kusion.journal import PUT, Journal
from kclpy.kusion.model import Action, Resource, StateLockedError
from kclpy.kusion.state.base import APPLYING, FAILED, SUCCEEDED
from kclpy.kusion.walker import CANCELLED, SKIPPED, walk

from .support import FAKE, Harness, chain_spec


def yes(plan: object) -> bool:
    return True


def recorded(harness: Harness) -> list[str]:
    release = operations.prior_state(harness.context)
    return [] if release is None else [r.id for r in release.resources]


def test_preview_classifies_create_update_delete_unchanged(
    harness: Harness, options: Options
) -> None:
    first = harness.spec(chain_spec(3))
    assert operations.apply(harness.context, first, options, yes, harness.progress).ok
    changed = yaml.safe_load(chain_spec(2))
    changed["resources"][0]["attributes"]["value"] = "new"
    changed["resources"].append({"id": "extra", "type": FAKE, "attributes": {"v": 1}})
    plan = operations.preview(harness.context, harness.spec(yaml.safe_dump(changed)), options)
    actions = {step.id: step.action for step in plan.order.ordered()}
    assert actions == {
        "r1": Action.UPDATE,
        "r2": Action.UPDATE,  # its reference to r1.value changes
        "extra": Action.CREATE,
        "r3": Action.DELETE,
    }


def test_preview_after_apply_is_all_unchanged(harness: Harness, options: Options) -> None:
    spec = harness.spec(chain_spec(4))
    operations.apply(harness.context, spec, options, yes, harness.progress)
    plan = operations.preview(harness.context, spec, options)
    assert {step.action for step in plan.order.ordered()} == {Action.UNCHANGED}
    assert plan.order.ordered()[1].after == {"value": "r2", "previous": "r1"}


def test_third_of_five_fails_then_the_next_apply_finishes(
    harness: Harness, options: Options
) -> None:
    spec = harness.spec(chain_spec(5))
    harness.runtime.fail = {"r3"}
    outcome = operations.apply(harness.context, spec, options, yes, harness.progress)
    assert not outcome.ok and outcome.status == FAILED
    assert recorded(harness) == ["r1", "r2"]
    statuses = {line.id: line.status for line in harness.lines}
    assert statuses == {
        "r1": "succeeded",
        "r2": "succeeded",
        "r3": "failed",
        "r4": SKIPPED,
        "r5": SKIPPED,
    }
    assert outcome.errors == ["r3: injected failure for r3"]

    harness.runtime.fail = set()
    harness.runtime.calls.clear()
    plan = operations.preview(harness.context, spec, options)
    assert [step.action for step in plan.order.ordered()] == [
        Action.UNCHANGED,
        Action.UNCHANGED,
        Action.CREATE,
        Action.CREATE,
        Action.CREATE,
    ]
    outcome = operations.apply(harness.context, spec, options, yes, harness.progress)
    assert outcome.ok and outcome.status == SUCCEEDED
    assert recorded(harness) == ["r1", "r2", "r3", "r4", "r5"]
    applied = [resource for call, resource in harness.runtime.calls if call == "apply"]
    assert applied == ["r3", "r4", "r5"]  # the first two were not applied again
    assert harness.runtime.objects["r4"] == {"value": "r4", "previous": "r3"}


def test_independent_branches_go_on_when_one_fails(harness: Harness, options: Options) -> None:
    text = chain_spec(2, "a") + "".join(
        f"- {{id: b{i}, type: {FAKE}, attributes: {{v: {i}}}}}\n" for i in range(3)
    )
    harness.runtime.fail = {"a1"}
    outcome = operations.apply(harness.context, harness.spec(text), options, yes, harness.progress)
    assert sorted(recorded(harness)) == ["b0", "b1", "b2"]
    assert outcome.result is not None and outcome.result.results["a2"].status == SKIPPED


def test_a_second_concurrent_apply_is_refused(harness: Harness, options: Options) -> None:
    spec = harness.spec(chain_spec(2))
    harness.runtime.gate = threading.Event()
    first: dict[str, object] = {}
    thread = threading.Thread(
        target=lambda: first.update(
            outcome=operations.apply(harness.context, spec, options, yes, harness.progress)
        )
    )
    thread.start()
    try:
        assert harness.runtime.entered.wait(10)
        second = harness.another_context()
        with pytest.raises(StateLockedError) as error:
            operations.apply(second, spec, options, yes, harness.progress)
        message = str(error.value)
        assert "another apply is in progress for project 'demo'" in message
        assert "phase applying" in message and "kcl kusion state unlock" in message
        with pytest.raises(StateLockedError):
            operations.destroy(second, options, yes, harness.progress)
        second.backend.close()
    finally:
        harness.runtime.gate.set()
        thread.join(10)
    assert first["outcome"].ok  # type: ignore[attr-defined]
    assert recorded(harness) == ["r1", "r2"]


def test_a_live_apply_keeps_the_lock_until_forced(harness: Harness, options: Options) -> None:
    backend = harness.context.backend
    stuck = backend.begin("demo", "default", "apply", APPLYING)  # owned by this live process
    spec = harness.spec(chain_spec(1))
    with pytest.raises(StateLockedError, match=f"release {stuck.revision}"):
        operations.apply(harness.context, spec, options, yes, harness.progress)
    with pytest.raises(StateLockedError, match="still running; refusing to unlock"):
        operations.unlock(harness.context)
    unlocked = operations.unlock(harness.context, force=True)
    assert unlocked is not None and unlocked.phase == FAILED
    assert operations.unlock(harness.context) is None
    assert operations.apply(harness.context, spec, options, yes, harness.progress).ok


def test_ctrl_c_lets_running_resources_finish_and_records_them(
    harness: Harness, options: Options
) -> None:
    spec = harness.spec(chain_spec(4))

    def interrupt() -> None:
        os.kill(os.getpid(), signal.SIGINT)
        time.sleep(0.2)  # still running when the main thread sees the interrupt

    harness.runtime.during_apply["r2"] = interrupt
    outcome = operations.apply(harness.context, spec, options, yes, harness.progress)
    assert outcome.interrupted and outcome.release is not None
    assert outcome.release.phase == FAILED and outcome.release.error == "interrupted"
    assert recorded(harness) == ["r1", "r2"]  # r2 finished after Ctrl-C and was saved
    statuses = {line.id: line.status for line in harness.lines}
    assert statuses["r3"] == CANCELLED and statuses["r4"] == CANCELLED
    harness.runtime.during_apply.clear()
    assert operations.apply(harness.context, spec, options, yes, harness.progress).ok
    assert recorded(harness) == ["r1", "r2", "r3", "r4"]


def test_destroy_removes_only_recorded_resources_in_reverse_order(
    harness: Harness, options: Options
) -> None:
    harness.runtime.objects["unmanaged"] = {"keep": True}
    operations.apply(harness.context, harness.spec(chain_spec(3)), options, yes, harness.progress)
    harness.runtime.calls.clear()
    outcome = operations.destroy(harness.context, options, yes, harness.progress)
    assert outcome.ok
    deleted = [resource for call, resource in harness.runtime.calls if call == "delete"]
    assert deleted == ["r3", "r2", "r1"]
    assert recorded(harness) == []
    assert harness.runtime.objects == {"unmanaged": {"keep": True}}
    nothing = operations.destroy(harness.context, options, yes, harness.progress)
    assert nothing.status == "nothing to do"


def test_removed_resources_are_deleted_on_apply(harness: Harness, options: Options) -> None:
    operations.apply(harness.context, harness.spec(chain_spec(3)), options, yes, harness.progress)
    outcome = operations.apply(
        harness.context, harness.spec(chain_spec(1)), options, yes, harness.progress
    )
    assert outcome.ok
    assert recorded(harness) == ["r1"]
    assert sorted(harness.runtime.objects) == ["r1"]


def test_declined_and_dry_run_applies_change_nothing(harness: Harness, options: Options) -> None:
    spec = harness.spec(chain_spec(2))
    declined = operations.apply(
        harness.context, spec, options, lambda plan: False, harness.progress
    )
    assert declined.status == "declined"
    dry = Options(max_concurrent=2, watch=False, dry_run=True)
    outcome = operations.apply(harness.context, spec, dry, yes, harness.progress)
    assert outcome.status == "dry run" and len(harness.lines) == 2
    assert harness.runtime.objects == {} and operations.prior_state(harness.context) is None


def test_history_has_a_revision_per_apply_and_destroy(harness: Harness, options: Options) -> None:
    spec = harness.spec(chain_spec(1))
    operations.apply(harness.context, spec, options, yes, harness.progress)
    operations.apply(harness.context, spec, options, yes, harness.progress)  # no changes
    operations.destroy(harness.context, options, yes, harness.progress)
    history = harness.context.backend.history("demo", "default")
    assert [(r.revision, r.operation, r.phase) for r in history] == [
        (1, "apply", SUCCEEDED),
        (2, "destroy", SUCCEEDED),
    ]
    assert history[0].spec["resources"][0]["id"] == "r1"


def test_walk_never_runs_more_than_max_concurrent() -> None:
    graph = Graph()
    for index in range(12):
        graph.add_node(f"n{index}")
    lock = threading.Lock()
    active = {"now": 0, "max": 0}

    def visit(node: str) -> None:
        with lock:
            active["now"] += 1
            active["max"] = max(active["max"], active["now"])
        time.sleep(0.02)
        with lock:
            active["now"] -= 1

    result = walk(graph, visit, 3, lambda node, outcome: None)
    assert result.ok() and active["max"] == 3


def test_unsettled_intents_are_reconciled_against_the_live_objects(
    harness: Harness, options: Options
) -> None:
    """A create that happened and a delete that happened, neither recorded (a crash)."""
    spec = harness.spec(chain_spec(2))
    assert operations.apply(harness.context, spec, options, yes, harness.progress).ok
    backend = harness.context.backend
    crashed = backend.begin("demo", "default", "apply", APPLYING)
    extra = Resource("extra", FAKE, {"value": "made"})
    backend.record_intent(crashed, "Create", extra)
    harness.runtime.objects["extra"] = {"value": "made"}  # the create did happen
    backend.record_intent(crashed, "Delete", crashed.resource_index()["r2"])
    del harness.runtime.objects["r2"]  # and so did the delete
    crashed.phase = FAILED
    backend.save(crashed)
    notes: list[str] = []
    harness.context.notify = notes.append
    outcome = operations.apply(harness.context, spec, options, yes, harness.progress)
    assert outcome.ok
    assert any("reconciled extra" in note and "adopted" in note for note in notes)
    assert any("reconciled r2" in note and "no live resource" in note for note in notes)
    assert backend.intents("demo", "default") == []
    # r2 was re-created (it is in the spec), extra is deleted (it is not): state = reality
    assert recorded(harness) == ["r1", "r2"] and sorted(harness.runtime.objects) == ["r1", "r2"]


def test_the_journal_is_written_into_the_state_by_the_next_run(
    harness: Harness, options: Options, tmp_path: Path
) -> None:
    spec = harness.spec(chain_spec(1))
    journal = Journal(tmp_path / "journal", "demo", "default")
    journal.add(PUT, "r1", Resource("r1", FAKE, {"value": "r1"}))
    harness.runtime.objects["r1"] = {"value": "r1"}
    harness.context.journal = journal
    outcome = operations.apply(harness.context, spec, options, yes, harness.progress)
    assert outcome.status == "nothing to do"  # r1 was recorded from the journal
    assert recorded(harness) == ["r1"] and not journal.path.exists()
    assert [call for call in harness.runtime.calls if call[0] == "apply"] == []
