"""Preview and execution of the resource graph (no locking, no printing).

``preview`` walks the apply graph and classifies each resource from the
three-way comparison of prior state, planned spec and live object:
planned absent -> Delete; live absent -> Create; otherwise the runtime's
dry run of the planned resource (three-way merge against prior and live) is
compared with live -> UnChanged or Update. References to upstream resources
are resolved from the upstream preview results when they are known.

Before anything is read, every planned resource goes through its runtime's
``check`` (what its apply would refuse), and again once its references are
resolved, so preview reports as errors what apply would reject.

``execute`` carries a ``ChangeOrder`` out on the same graph with bounded
parallelism: references are resolved from the *applied* upstream resources,
and the release state is saved after every resource that succeeds, through a
``Recorder``, which first records each resource's intent (see ``Recorder``).
``operations`` wraps both with the release lock. Previews only read, so on
Ctrl-C or SIGTERM their walk returns at once (the walker abandons the reads
still waiting); an execution lets the running resources finish.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import attrs

from kclpy.kusion.diff import differences, remove_fields
from kclpy.kusion.faults import pause
from kclpy.kusion.graph import Graph, apply_graph, dependencies_of, destroy_graph
from kclpy.kusion.journal import PUT, REMOVE, Journal
from kclpy.kusion.model import (
    Action,
    ChangeOrder,
    ChangeStep,
    JsonObject,
    KusionError,
    LockLostError,
    Resource,
    Spec,
    StateUnavailableError,
)
from kclpy.kusion.references import substitute
from kclpy.kusion.runtimes.base import Runtimes, refuse, rejections
from kclpy.kusion.sensitive import SensitivePath, remember
from kclpy.kusion.state.base import Release, StateBackend
from kclpy.kusion.validation import check
from kclpy.kusion.walker import SUCCEEDED, NodeResult, WalkResult, walk


@attrs.define
class Options:
    """Knobs shared by preview, apply and destroy."""

    max_concurrent: int = 10
    ignore_fields: tuple[str, ...] = ()
    watch: bool = True
    watch_timeout: float = 600.0
    dry_run: bool = False
    # What the runtimes declared sensitive, by id (``sensitive.declare``): recorded with
    # each resource in state, so later commands mask it without asking the runtimes.
    declared: Mapping[str, Sequence[SensitivePath]] = attrs.field(factory=dict)


@attrs.frozen
class StepOutcome:
    """One finished step, as reported to the progress callback."""

    id: str
    action: Action
    status: str
    seconds: float = 0.0
    error: str = ""
    done: int = 0
    total: int = 0


Progress = Callable[[StepOutcome], None]


@attrs.frozen
class Plan:
    """What to do and in which graph."""

    order: ChangeOrder
    graph: Graph
    dependencies: dict[str, list[str]] = attrs.field(factory=dict)


def preview(
    spec: Spec, prior: Mapping[str, Resource], runtimes: Runtimes, options: Options
) -> Plan:
    """The change order for applying ``spec`` on top of ``prior``; what a runtime would
    refuse to apply is refused here first (``validation.check``), all of it at once."""
    check(spec, runtimes)
    graph, deletions = apply_graph(spec, prior)
    planned = spec.by_id()
    known = list(planned)
    context: dict[str, JsonObject] = {key: value.attributes for key, value in prior.items()}
    lock = threading.Lock()
    steps: dict[str, ChangeStep] = {}

    def lookup(resource_id: str) -> JsonObject | None:
        with lock:
            return context.get(resource_id)

    def visit(node: str) -> None:
        if node in deletions:
            step = _delete_step(prior[node], runtimes)
        else:
            resolved = planned[node].copy()
            resolved.attributes = substitute(resolved.attributes, known, lookup, strict=False)
            step = _planned_step(planned[node], resolved, prior.get(node), runtimes, options)
        with lock:
            steps[node] = step
            if step.after is not None:
                context[node] = step.after

    result = walk(graph, visit, options.max_concurrent, lambda node, outcome: None, abandon=True)
    _raise_failures("preview", result)
    dependencies = {r.id: dependencies_of(r, known) for r in spec.resources}
    return Plan(_ordered(graph, steps), graph, dependencies)


def preview_destroy(prior: Mapping[str, Resource], runtimes: Runtimes, options: Options) -> Plan:
    """Every recorded resource as a Delete step, in reverse dependency order."""
    graph = destroy_graph(prior)
    steps: dict[str, ChangeStep] = {}
    lock = threading.Lock()

    def visit(node: str) -> None:
        step = _delete_step(prior[node], runtimes)
        with lock:
            steps[node] = step

    result = walk(graph, visit, options.max_concurrent, lambda n, r: None, abandon=True)
    _raise_failures("preview", result)
    return Plan(_ordered(graph, steps), graph)


def _planned_step(
    planned: Resource,
    resolved: Resource,
    prior: Resource | None,
    runtimes: Runtimes,
    options: Options,
) -> ChangeStep:
    runtime = runtimes.get(planned.type)
    refuse(rejections(runtime, resolved))  # with the reference values known by now
    live = runtime.read(prior, resolved)
    if live is None:
        return ChangeStep(
            planned.id, Action.CREATE, None, resolved.attributes, planned.type, planned, prior, None
        )
    dry_run = runtime.apply(prior, resolved, dry_run=True)
    before = remove_fields(live.attributes, options.ignore_fields)
    after = remove_fields(dry_run.attributes, options.ignore_fields)
    action = Action.UPDATE if differences(before, after) else Action.UNCHANGED
    step = ChangeStep(
        planned.id, action, live.attributes, dry_run.attributes, planned.type, planned, prior, live
    )
    step.sensitive = _sensitive(live, dry_run)
    return step


def _delete_step(prior: Resource, runtimes: Runtimes) -> ChangeStep:
    live = runtimes.get(prior.type).read(prior, None)
    before = (live or prior).attributes
    step = ChangeStep(prior.id, Action.DELETE, before, None, prior.type, None, prior, live)
    step.sensitive = _sensitive(live or prior, None)
    return step


def _sensitive(before: Resource | None, after: Resource | None) -> tuple[Any, Any]:
    return (
        before.runtime_data.get("sensitive") if before else None,
        after.runtime_data.get("sensitive") if after else None,
    )


def _ordered(graph: Graph, steps: Mapping[str, ChangeStep]) -> ChangeOrder:
    order = ChangeOrder()
    for node in graph.topological_order():
        order.add(steps[node])
    return order


def _raise_failures(what: str, result: WalkResult) -> None:
    if result.interrupted:
        raise KeyboardInterrupt
    problems = [
        f"{node}: {outcome.error}" for node, outcome in result.results.items() if outcome.error
    ]
    if problems:
        raise KusionError(f"{what} failed:\n  " + "\n  ".join(problems))


class Recorder:
    """The release state being built; saved after every change. Thread-safe.

    ``intend`` records (durably, in the backend) what is about to happen to a
    resource before a runtime is called, ``put`` / ``remove`` record the
    outcome and settle the intent. When the backend cannot be written (a
    database outage, a lock taken by ``state unlock --force``), the outcome
    goes to the local ``journal`` instead and the recorder is ``broken``: no
    further resource is started.
    """

    def __init__(
        self,
        release: Release | None,
        backend: StateBackend | None,
        journal: Journal | None = None,
    ) -> None:
        self.release = release
        self.backend = backend
        self.journal = journal
        self.index = {r.id: r for r in release.resources} if release else {}
        self.lock = threading.Lock()
        self.broken: KusionError | None = None

    def attributes_of(self, resource_id: str) -> JsonObject | None:
        with self.lock:
            record = self.index.get(resource_id)
            return record.attributes if record else None

    def check(self) -> None:
        """Refuse to start another resource once state can no longer be written."""
        if self.broken is not None:
            raise KusionError(f"not started: {self.broken}")

    def intend(self, action: Action, resource: Resource) -> None:
        self.check()
        if self.release is None or self.backend is None:
            return
        try:
            self.backend.record_intent(self.release, action.value, resource)
        except (StateUnavailableError, LockLostError) as error:
            self.broken = error
            raise

    def put(self, resource: Resource) -> None:
        with self.lock:
            if self.index.get(resource.id) == resource:
                return
            self.index[resource.id] = resource
            self._save(PUT, resource.id, resource)

    def remove(self, resource_id: str) -> None:
        with self.lock:
            if self.index.pop(resource_id, None) is not None:
                self._save(REMOVE, resource_id, None)

    def settle(self, resource_id: str) -> None:
        """The outcome is recorded: forget the intent (a failure here only costs a reconcile)."""
        if self.release is None or self.backend is None or self.broken is not None:
            return
        try:
            self.backend.clear_intent(self.release, resource_id)
        except (StateUnavailableError, LockLostError) as error:
            self.broken = error

    def _save(self, operation: str, resource_id: str, resource: Resource | None) -> None:
        if self.release is None or self.backend is None:
            return
        self.release.resources = list(self.index.values())
        try:
            if self.broken is not None:
                raise self.broken
            self.backend.save(self.release)
        except (StateUnavailableError, LockLostError) as error:
            self.broken = error
            if self.journal is None:
                raise
            self.journal.add(operation, resource_id, resource)
            raise KusionError(
                f"{error}; the outcome of {resource_id} is kept in {self.journal.path} "
                "and is written to the state by the next run"
            ) from None


def execute(
    plan: Plan,
    recorder: Recorder,
    runtimes: Runtimes,
    options: Options,
    progress: Progress,
) -> WalkResult:
    """Carry out ``plan.order``; with ``options.dry_run`` nothing is called or saved."""
    order = plan.order
    known = [step.id for step in order.ordered() if step.planned is not None]

    def visit(node: str) -> None:
        if not options.dry_run:
            _carry_out(order.steps[node], plan, recorder, runtimes, options, known)

    counter = {"done": 0}

    def on_done(node: str, result: NodeResult) -> None:
        counter["done"] += 1
        error = "" if result.error is None else str(result.error) or type(result.error).__name__
        progress(
            StepOutcome(
                node,
                order.steps[node].action,
                result.status,
                result.seconds,
                error or result.reason,
                counter["done"],
                len(order.steps),
            )
        )

    return walk(plan.graph, visit, options.max_concurrent, on_done)


def _carry_out(
    step: ChangeStep,
    plan: Plan,
    recorder: Recorder,
    runtimes: Runtimes,
    options: Options,
    known: list[str],
) -> None:
    recorder.check()
    if step.action is Action.DELETE:
        assert step.prior is not None
        recorder.intend(step.action, step.prior)
        pause(f"intent:{step.id}")
        runtimes.get(step.prior.type).delete(step.prior)
        pause(f"applied:{step.id}")
        recorder.remove(step.id)
        recorder.settle(step.id)
        pause(f"recorded:{step.id}")
        return
    assert step.planned is not None
    resolved = step.planned.copy()
    resolved.attributes = substitute(resolved.attributes, known, recorder.attributes_of, True)
    resolved.depends_on = list(plan.dependencies.get(step.id, step.planned.depends_on))
    if step.action is Action.UNCHANGED:
        record = step.prior.copy() if step.prior is not None else resolved
        if step.prior is None and step.live is not None:
            record = step.live.copy()  # adopt what exists, with what the runtime reports
        record.depends_on = resolved.depends_on
        record.extensions = resolved.extensions
        recorder.put(remember(record, options.declared))
        return
    runtime = runtimes.get(step.planned.type)
    recorder.intend(step.action, resolved)
    pause(f"intent:{step.id}")
    applied = runtime.apply(step.prior, resolved, dry_run=False)
    applied.depends_on = resolved.depends_on
    pause(f"applied:{step.id}")
    recorder.put(remember(applied, options.declared))
    recorder.settle(step.id)
    pause(f"recorded:{step.id}")
    if options.watch:
        runtime.watch(applied, options.watch_timeout)


def succeeded(result: WalkResult) -> bool:
    return not result.interrupted and all(r.status == SUCCEEDED for r in result.results.values())
