"""Preview, apply and destroy as whole operations: state, lock, release and engine together.

The CLI and Python callers use these. ``apply`` and ``destroy`` first take the
release lock (``StateBackend.begin``; a second concurrent operation is refused
with ``StateLockedError``), preview under the lock, ask ``confirm``, then
execute, saving state after every resource, and finish the release as
``succeeded`` or ``failed``. A release that never got past preview (no changes,
declined, preview error) is discarded. Ctrl-C or SIGTERM lets running
resources finish, records them, and marks the release failed, so the next
apply continues.

Recovery, right after the lock is taken: a stale lock of a dead owner was
already recovered by ``begin`` (its note goes to ``notify``); outcomes left in
the local journal by a database outage are written into the release; every
intent without a recorded outcome is reconciled against the live object
(``Runtime.read``): what exists is adopted, what does not is dropped. While an
operation holds the lock a heartbeat thread refreshes its lease.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress

import attrs

from kclpy.kusion import engine
from kclpy.kusion.engine import Options, Plan, Progress, Recorder
from kclpy.kusion.faults import pause
from kclpy.kusion.journal import Journal
from kclpy.kusion.model import KusionError, LockLostError, Spec, StateUnavailableError
from kclpy.kusion.runtimes.base import Runtimes
from kclpy.kusion.sensitive import spec_record
from kclpy.kusion.state.base import (
    APPLYING,
    DESTROYING,
    FAILED,
    PREVIEWING,
    SUCCEEDED,
    Release,
    StateBackend,
)
from kclpy.kusion.state.ownership import lease_seconds
from kclpy.kusion.walker import FAILED as STEP_FAILED
from kclpy.kusion.walker import WalkResult

Confirm = Callable[[Plan], bool]


@attrs.define
class Context:
    """Where an operation runs: state backend, runtimes and the project/workspace key
    (not frozen: a caller may set ``notify`` or ``journal`` between operations)."""

    backend: StateBackend
    runtimes: Runtimes
    project: str
    workspace: str = "default"
    journal: Journal | None = None
    notify: Callable[[str], None] = lambda message: None


@attrs.frozen
class Outcome:
    """What an apply or destroy did."""

    plan: Plan | None = None
    release: Release | None = None
    result: WalkResult | None = None
    status: str = "nothing to do"  # "nothing to do" | "declined" | "dry run" | succeeded | failed
    interrupted: bool = False
    errors: list[str] = attrs.field(factory=list)

    @property
    def ok(self) -> bool:
        return self.status not in (FAILED,) and not self.interrupted


def prior_state(context: Context) -> Release | None:
    return context.backend.latest(context.project, context.workspace)


def preview(context: Context, spec: Spec, options: Options) -> Plan:
    """The change order against the latest recorded state (no lock taken)."""
    latest = prior_state(context)
    prior = latest.resource_index() if latest else {}
    return engine.preview(spec, prior, context.runtimes, options)


def apply(
    context: Context, spec: Spec, options: Options, confirm: Confirm, progress: Progress
) -> Outcome:
    if options.dry_run:
        plan = preview(context, spec, options)
        if not plan.order.has_changes() or not confirm(plan):
            return Outcome(plan, status="nothing to do")
        result = engine.execute(plan, Recorder(None, None), context.runtimes, options, progress)
        return Outcome(plan, None, result, "dry run", result.interrupted)
    release = _begin(context, "apply")

    def make_plan() -> Plan:
        return engine.preview(spec, release.resource_index(), context.runtimes, options)

    return _run(context, release, make_plan, spec, APPLYING, options, confirm, progress)


def destroy(context: Context, options: Options, confirm: Confirm, progress: Progress) -> Outcome:
    release = _begin(context, "destroy")

    def make_plan() -> Plan:
        return engine.preview_destroy(release.resource_index(), context.runtimes, options)

    return _run(context, release, make_plan, None, DESTROYING, options, confirm, progress)


def _begin(context: Context, operation: str) -> Release:
    """Take the lock (recovering a dead owner's) and bring the release up to date."""
    release = context.backend.begin(context.project, context.workspace, operation, PREVIEWING)
    for note in release.notes:
        context.notify(note)
    try:
        release.notes = [*release.notes, *_recover(context, release)]
    except BaseException:
        context.backend.discard(release)  # nothing was saved; the intents stay for next time
        raise
    try:
        pause("locked")
    except BaseException:
        _close_unused(context.backend, release)
        raise
    return release


def _recover(context: Context, release: Release) -> list[str]:
    """Replay the local journal, then reconcile unsettled intents; return what changed."""
    notes: list[str] = []
    index = release.resource_index()
    if context.journal is not None:
        notes += context.journal.replay(index)
    intents = context.backend.intents(context.project, context.workspace)
    for intent in intents:
        prior = index.get(intent.resource_id)
        runtime = context.runtimes.get(intent.resource.type)
        live = runtime.read(prior, intent.resource)
        if live is not None:
            live.depends_on = list(intent.resource.depends_on)
            if not live.extensions:
                live.extensions = dict(intent.resource.extensions)
            index[intent.resource_id] = live
            notes.append(
                f"reconciled {intent.resource_id}: its {intent.action} (release "
                f"{intent.revision}) was interrupted; the live resource exists and is adopted"
            )
        else:
            index.pop(intent.resource_id, None)
            notes.append(
                f"reconciled {intent.resource_id}: its {intent.action} (release "
                f"{intent.revision}) was interrupted; no live resource, nothing recorded"
            )
    if notes:
        release.resources = list(index.values())
        context.backend.save(release)
    for intent in intents:
        context.backend.clear_intent(release, intent.resource_id)
    if context.journal is not None:
        context.journal.clear()
    for note in notes:
        context.notify(note)
    return notes


@contextmanager
def _heartbeat(backend: StateBackend, release: Release) -> Iterator[None]:
    """Refresh the release's lease while the body runs (errors are left to the next save)."""
    stop = threading.Event()

    def beat() -> None:
        while not stop.wait(lease_seconds() / 4):
            with suppress(KusionError):
                backend.touch(release)

    thread = threading.Thread(target=beat, name="kusion-heartbeat", daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join()


def _run(
    context: Context,
    release: Release,
    make_plan: Callable[[], Plan],
    spec: Spec | None,
    phase: str,
    options: Options,
    confirm: Confirm,
    progress: Progress,
) -> Outcome:
    backend = context.backend
    with _heartbeat(backend, release):
        try:
            plan = make_plan()
            work = _needs_work(plan, release)
            if not work or not confirm(plan):
                status = "nothing to do" if not work else "declined"
                _close_unused(backend, release)
                return Outcome(plan, None, None, status)
        except BaseException:
            _close_unused(backend, release)
            raise
        release.phase = phase
        if spec is not None:
            release.spec = {**spec.to_json(), **spec_record(options.declared)}
        backend.save(release)
        result: WalkResult | None = None
        recorder = Recorder(release, backend, context.journal)
        try:
            result = engine.execute(plan, recorder, context.runtimes, options, progress)
        finally:
            problem = _finish(backend, release, result, recorder)
    errors = [f"{node}: {r.error}" for node, r in result.results.items() if r.status == STEP_FAILED]
    if problem:
        errors.append(problem)
        release.phase = FAILED
    return Outcome(plan, release, result, release.phase, result.interrupted, errors)


def _close_unused(backend: StateBackend, release: Release) -> None:
    """Drop a release that changed nothing; keep it (succeeded) if recovery changed state."""
    if release.notes:
        release.phase, release.error = SUCCEEDED, "recovered: " + "; ".join(release.notes)
        backend.save(release)
    else:
        backend.discard(release)


def _needs_work(plan: Plan, release: Release) -> bool:
    """Anything to change, or unchanged resources that state does not record yet."""
    recorded = release.resource_index()
    return plan.order.has_changes() or any(
        step.id not in recorded or step.prior is None for step in plan.order.ordered()
    )


def _finish(
    backend: StateBackend, release: Release, result: WalkResult | None, recorder: Recorder
) -> str:
    """Record the final phase; return a problem to report if it could not be recorded."""
    if result is None:
        release.phase, release.error = FAILED, "aborted by an internal error"
    elif result.interrupted:
        release.phase, release.error = FAILED, "interrupted"
    elif result.failed():
        release.phase, release.error = FAILED, f"{len(result.failed())} resource(s) failed"
    else:
        release.phase, release.error = SUCCEEDED, ""
    stopped: KeyboardInterrupt | None = None
    try:
        pause("finishing")
    except KeyboardInterrupt as interrupt:  # record the phase first, then stop
        stopped = interrupt
    if recorder.broken is not None:
        return f"state not updated: {recorder.broken}"
    try:
        backend.save(release)
    except (StateUnavailableError, LockLostError) as error:
        return f"the final state could not be saved: {error}"
    if stopped is not None:
        raise stopped
    return ""


def unlock(context: Context, force: bool = False) -> Release | None:
    return context.backend.unlock(context.project, context.workspace, force)
