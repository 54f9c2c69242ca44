"""Compile functions that kill their worker process, for the crash-isolation tests
(module level, so spawned workers can import them)."""

from __future__ import annotations

import os

from kclpy.api import compile_stack
from kclpy.monorepo import StackJob, StackOutput


def crash_on_d(job: StackJob) -> StackOutput:
    """Always dies on stack ``d``."""
    if job.path.endswith(os.sep + "d"):
        os._exit(17)
    return compile_stack(job)


def crash_once_on_d(job: StackJob) -> StackOutput:
    """Dies on stack ``d`` the first time only (a marker file remembers)."""
    marker = os.path.join(job.path, ".crashed-once")
    if job.path.endswith(os.sep + "d") and not os.path.exists(marker):
        open(marker, "w").close()
        os._exit(17)
    return compile_stack(job)
