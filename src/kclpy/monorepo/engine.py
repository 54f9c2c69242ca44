"""A build from options to report: discover the stacks, narrow them to the ones a
change reaches, compile them (in process, on local workers or on a Dask cluster),
settle each against its golden, and report.

The compile function is handed in by the caller: ``kclpy.monorepo.pipeline.
compile_stack`` (the driver, with the process's in-memory cache tier) from ``kcl
build`` and ``kclpy.build``, another one from tests. Takes ``BuildOptions``; returns
a ``BuildReport`` with one result per selected stack, in stack order.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable, Sequence
from typing import Any

import attrs

from kclpy.monorepo import goldens, impact, stacks
from kclpy.monorepo.report import BuildReport, CompileStack, StackJob, StackOutput, StackResult
from kclpy.monorepo.workers import compile_guarded


class BuildError(Exception):
    """A build that cannot start (bad paths, git failure, unreachable cluster)."""


@attrs.frozen
class BuildOptions:
    """What to build and how (the options of ``kcl build``)."""

    paths: Sequence[str] = (".",)
    mode: goldens.Mode = "build"
    diff: bool = False
    jobs: int | None = None  # None: the core count; 0: in this process
    since: str | None = None
    changed: Sequence[str] | None = None
    cluster: str | None = None
    batch_size: int = 8
    ship: bool = False
    progress: bool = False
    root: str | None = None  # stack names are relative to it (default: the current folder)
    locked: bool = False  # a stack whose kcl.mod.lock would change fails (it is not written)
    on_result: Callable[[StackResult], None] | None = attrs.field(default=None, repr=False)


def select(options: BuildOptions) -> tuple[list[stacks.Stack], bool]:
    """The stacks to build, and whether they were narrowed by a change set. Discovery
    resolves each stack's packages (and writes its lock, unless ``options.locked``)."""
    from kclpy.mod.settings import locked

    try:
        with locked(options.locked):
            found = stacks.discover(options.paths, options.root)
    except stacks.StackError as error:
        raise BuildError(str(error)) from None
    if options.since is None and options.changed is None:
        return found, False
    changed = list(options.changed or [])
    if options.since is not None:
        try:
            changed += impact.changed_since(options.since, options.paths[0])
        except impact.ImpactError as error:
            raise BuildError(str(error)) from None
    return impact.affected(found, changed), True


def build(options: BuildOptions, compile_stack: CompileStack) -> BuildReport:
    """Build the selected stacks; one result per stack, and the ``kcl.mod.lock`` files
    written (by discovery, in this process, and by local workers)."""
    from kclpy.mod.settings import recording_lock_writes

    with recording_lock_writes() as written:
        report = _build(options, compile_stack)
    report.locks_written = list(dict.fromkeys([*written, *report.locks_written]))
    return report


def _build(options: BuildOptions, compile_stack: CompileStack) -> BuildReport:
    start = time.perf_counter()
    selected, narrowed = select(options)
    report = BuildReport(affected_only=narrowed)
    by_path = {stack.path: stack for stack in selected}
    results: dict[str, StackResult] = {}
    for stack in selected:
        if stack.error:
            results[stack.path] = StackResult(stack.name, "failed", 0.0, diagnostics=stack.error)
    jobs = [_job(stack) for stack in selected if not stack.error]
    bar = _progress(len(selected), options.progress)

    def receive(job: StackJob, output: StackOutput) -> None:
        stack = by_path[job.path]
        result = goldens.settle(output, stack.golden_path, options.mode, options.diff)
        results[stack.path] = result
        if not options.cluster:  # a cluster's workers write their own copies
            report.locks_written.extend(output.locks)
        if options.on_result is not None:
            options.on_result(result)
        if bar is not None:
            bar.update(1)

    try:
        _execute(jobs, compile_stack, options, receive)
    finally:
        if bar is not None:
            bar.close()
    report.results = [results[stack.path] for stack in selected if stack.path in results]
    report.seconds = time.perf_counter() - start
    return report


def _execute(
    jobs: list[StackJob],
    compile_stack: CompileStack,
    options: BuildOptions,
    receive: Callable[[StackJob, StackOutput], None],
) -> None:
    if not jobs:
        return
    if options.cluster:
        from kclpy.monorepo.cluster import ClusterError, run_cluster

        root = _ship_root(jobs) if options.ship else None
        try:
            run_cluster(jobs, compile_stack, options.cluster, receive, options.batch_size, root)
        except ClusterError as error:
            raise BuildError(str(error)) from None
        return
    count = options.jobs if options.jobs is not None else (os.cpu_count() or 1)
    if count <= 0:
        for job in jobs:
            receive(job, compile_guarded(compile_stack, job))
        return
    from kclpy.monorepo.workers import run_local

    run_local(jobs, compile_stack, count, receive)


def _ship_root(jobs: Sequence[StackJob]) -> str:
    """The folder holding every stack and every external package of the jobs."""
    paths = [path for job in jobs for path in (job.path, *(p for _, p in job.externals))]
    return os.path.commonpath([os.path.abspath(path) for path in paths])


def _job(stack: stacks.Stack) -> StackJob:
    return StackJob(
        name=stack.name,
        path=stack.path,
        files=stack.files,
        options=stack.options,
        externals=stack.externals,
        flags=stack.flags,
    )


def _progress(total: int, wanted: bool) -> Any:
    """A tqdm bar on stderr when ``wanted`` and stderr is a terminal, else None."""
    if not wanted or total < 2 or not sys.stderr.isatty():
        return None
    from tqdm import tqdm

    return tqdm(total=total, unit="stack", file=sys.stderr, leave=False, dynamic_ncols=True)
