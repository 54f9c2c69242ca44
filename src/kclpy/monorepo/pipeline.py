"""The compile function of a build: one stack through the driver (``kclpy.pipeline``).

``compile_stack(job)`` runs the stack's entry files as ``kcl run`` would in its folder
and returns its YAML text (after what the program printed) or its rendered
diagnostics. It is module level, so that local worker processes and Dask workers
receive it by reference, and every call in one process shares the process's
query database (``kclpy.pipeline.queries``): a shared model package is parsed,
checked, compiled and read back from the on-disk cache once per process, not once per
stack.
"""

from __future__ import annotations

import time

from kclpy.depth import deep
from kclpy.emit import EmitOptions
from kclpy.monorepo.report import StackJob, StackOutput
from kclpy.pipeline import driver
from kclpy.pipeline.inputs import Settings
from kclpy.pipeline.queries import Database

MEMORY_LIMIT = 512  # parsed files / compiled packages each process keeps
_database: Database | None = None


def process_memory() -> Database:
    """This process's query database, shared by the stacks it compiles (made on
    first use)."""
    global _database
    if _database is None:
        _database = Database(Settings(tool_facts=False, shared=True), limit=MEMORY_LIMIT)
    return _database


def compile_stack(job: StackJob) -> StackOutput:
    """Compile one stack of a monorepo build (what ``kcl run`` would print in its
    folder, or its rendered diagnostics), and the ``kcl.mod.lock`` files it wrote."""
    from kclpy.diag.render import render_all
    from kclpy.mod.settings import recording_lock_writes

    start = time.perf_counter()
    with recording_lock_writes() as written:
        result = _run(job)
    seconds = time.perf_counter() - start
    if not result.ok:
        errors = result.log + render_all(result.diagnostics, "human", False)
        return StackOutput(job.name, False, "", errors, seconds, tuple(written))
    return StackOutput(job.name, True, result.log + result.text, "", seconds, tuple(written))


@deep
def _run(job: StackJob) -> driver.RunResult:
    flags = set(job.flags)
    try:
        options = driver.options_dict(job.options)
    except ValueError as error:
        return driver.RunResult(diagnostics=[driver.option_error(error)])
    inputs = driver.Inputs(list(job.files), job.path, dict(job.externals))
    settings = driver.RunSettings(options, strict_range_check="strict_range_check" in flags)
    emit_options = EmitOptions(
        sort_keys="sort_keys" in flags,
        disable_none="disable_none" in flags,
        show_hidden="show_hidden" in flags,
    )
    return driver.run(inputs, settings, emit_options, process_memory())
