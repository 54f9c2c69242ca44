"""Local worker processes for ``kcl build --jobs N``.

Each worker is a process that compiles one stack at a time, handed to it over its
own pipe, so that when a worker dies (a crash, the OOM killer) the stack it was
compiling is known: it is retried once on a fresh worker, then reported as failed;
the other stacks go on. Workers ignore SIGINT (the parent stops them) and share
the on-disk compiled-module cache; each keeps its own in-memory tier of it between
stacks (``kclpy.monorepo.pipeline``). Results are handed to a callback as they arrive.

Takes jobs, the compile function and a worker count; calls ``on_output`` once per
job, in completion order.
"""

from __future__ import annotations

import multiprocessing
import signal
from collections import deque
from collections.abc import Callable, Sequence
from multiprocessing.connection import Connection, wait
from multiprocessing.process import BaseProcess

from kclpy.monorepo.report import CompileStack, StackJob, StackOutput, crashed

OnOutput = Callable[[StackJob, StackOutput], None]
RETRIES = 1


def compile_guarded(compile_stack: CompileStack, job: StackJob) -> StackOutput:
    """``compile_stack(job)``; an exception (a bug in kclpy) becomes the stack's error."""
    try:
        return compile_stack(job)
    except Exception as error:
        message = f"error[E9999]: InternalError\n  {type(error).__name__}: {error}\n"
        return StackOutput(job.name, False, "", message, 0.0)


def _serve(connection: Connection, compile_stack: CompileStack) -> None:
    """A worker's loop: receive a job, send its output; None ends it."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    while True:
        job = connection.recv()
        if job is None:
            return
        connection.send(compile_guarded(compile_stack, job))


class _Worker:
    def __init__(self, context: multiprocessing.context.SpawnContext, compile_stack: CompileStack):
        self.connection, child = context.Pipe()
        self.process: BaseProcess = context.Process(
            target=_serve, args=(child, compile_stack), daemon=True
        )
        self.process.start()
        child.close()
        self.job: StackJob | None = None

    def give(self, job: StackJob) -> None:
        self.job = job
        self.connection.send(job)

    def stop(self) -> None:
        try:
            if self.process.is_alive():
                self.connection.send(None)
        except OSError:
            pass
        self.process.join(timeout=2)
        if self.process.is_alive():
            self.process.kill()
            self.process.join()
        self.connection.close()


def run_local(
    jobs: Sequence[StackJob], compile_stack: CompileStack, count: int, on_output: OnOutput
) -> None:
    """Compile ``jobs`` on ``count`` worker processes."""
    context = multiprocessing.get_context("spawn")
    pending = deque(jobs)
    attempts: dict[str, int] = {}
    workers = [_Worker(context, compile_stack) for _ in range(min(count, len(pending)))]
    try:
        for worker in workers:
            if pending:
                worker.give(pending.popleft())
        while any(worker.job is not None for worker in workers):
            busy = [worker for worker in workers if worker.job is not None]
            ready = wait([w.connection for w in busy] + [w.process.sentinel for w in busy])
            for index, worker in enumerate(workers):
                job = worker.job
                if job is None or not (
                    worker.connection in ready or worker.process.sentinel in ready
                ):
                    continue
                output = _receive(worker)
                if output is None:  # the worker died with the job
                    attempts[job.name] = attempts.get(job.name, 0) + 1
                    if attempts[job.name] <= RETRIES:
                        pending.appendleft(job)
                    else:
                        worker.process.join(timeout=5)  # the pipe can close before the exit
                        code = worker.process.exitcode
                        on_output(job, crashed(job, f"exit code {code}"))
                    worker.stop()
                    worker = workers[index] = _Worker(context, compile_stack)
                else:
                    on_output(job, output)
                worker.job = None
                if pending:
                    worker.give(pending.popleft())
    finally:
        for worker in workers:
            worker.stop()


def _receive(worker: _Worker) -> StackOutput | None:
    try:
        if worker.connection.poll():
            output: StackOutput = worker.connection.recv()
            return output
    except (EOFError, OSError):
        return None
    return None
