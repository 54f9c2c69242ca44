"""Preview, apply and destroy as whole operations: state, lock, release and engine together.

The CLI and Python callers use these. ``apply`` and ``destroy`` first take the
release lock (``StateBackend.begin``; a second concurrent operation is refused
with ``StateLockedError``), preview under the lock, ask ``confirm``, then
execute, saving state after every resource, and finish the release as
``succeeded`` or ``failed``. A release that never got past preview (no changes,
declined, preview error) is discarded. Ctrl-C lets running resources finish,
records them, and marks the release failed, so the next apply continues.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from kclpy.kusion import engine
from kclpy.kusion.engine import Options, Plan, Progress, Recorder
from kclpy.kusion.model import Spec
from kclpy.kusion.runtimes.base import Runtimes
from kclpy.kusion.state.base import (
    APPLYING,
    DESTROYING,
    FAILED,
    PREVIEWING,
    SUCCEEDED,
    Release,
    StateBackend,
)
from kclpy.kusion.walker import FAILED as STEP_FAILED
from kclpy.kusion.walker import WalkResult

Confirm = Callable[[Plan], bool]


@dataclass
class Context:
    """Where an operation runs: state backend, runtimes and the project/workspace key."""

    backend: StateBackend
    runtimes: Runtimes
    project: str
    workspace: str = "default"


@dataclass
class Outcome:
    """What an apply or destroy did."""

    plan: Plan | None = None
    release: Release | None = None
    result: WalkResult | None = None
    status: str = "nothing to do"  # "nothing to do" | "declined" | "dry run" | succeeded | failed
    interrupted: bool = False
    errors: list[str] = field(default_factory=list)

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
    release = context.backend.begin(context.project, context.workspace, "apply", PREVIEWING)

    def make_plan() -> Plan:
        return engine.preview(spec, release.resource_index(), context.runtimes, options)

    return _run(context, release, make_plan, spec, APPLYING, options, confirm, progress)


def destroy(context: Context, options: Options, confirm: Confirm, progress: Progress) -> Outcome:
    release = context.backend.begin(context.project, context.workspace, "destroy", PREVIEWING)

    def make_plan() -> Plan:
        return engine.preview_destroy(release.resource_index(), context.runtimes, options)

    return _run(context, release, make_plan, None, DESTROYING, options, confirm, progress)


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
    try:
        plan = make_plan()
        if not _needs_work(plan, release) or not confirm(plan):
            backend.discard(release)
            status = "nothing to do" if not _needs_work(plan, release) else "declined"
            return Outcome(plan, None, None, status)
    except BaseException:
        backend.discard(release)
        raise
    release.phase = phase
    if spec is not None:
        release.spec = spec.to_json()
    backend.save(release)
    result: WalkResult | None = None
    try:
        recorder = Recorder(release, backend)
        result = engine.execute(plan, recorder, context.runtimes, options, progress)
    finally:
        _finish(backend, release, result)
    errors = [f"{node}: {r.error}" for node, r in result.results.items() if r.status == STEP_FAILED]
    return Outcome(plan, release, result, release.phase, result.interrupted, errors)


def _needs_work(plan: Plan, release: Release) -> bool:
    """Anything to change, or unchanged resources that state does not record yet."""
    recorded = release.resource_index()
    return plan.order.has_changes() or any(
        step.id not in recorded or step.prior is None for step in plan.order.ordered()
    )


def _finish(backend: StateBackend, release: Release, result: WalkResult | None) -> None:
    if result is None:
        release.phase, release.error = FAILED, "aborted by an internal error"
    elif result.interrupted:
        release.phase, release.error = FAILED, "interrupted"
    elif result.failed():
        release.phase, release.error = FAILED, f"{len(result.failed())} resource(s) failed"
    else:
        release.phase, release.error = SUCCEEDED, ""
    backend.save(release)


def unlock(context: Context) -> Release | None:
    return context.backend.unlock(context.project, context.workspace)
