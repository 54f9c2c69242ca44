"""A bounded-parallel walk of a dependency graph.

Takes a ``Graph`` and a ``visit(node)`` function and runs every node once all
the nodes before it have succeeded, at most ``max_concurrent`` at a time, in
worker threads. A node whose visit raises is ``failed`` and everything
downstream of it is ``skipped``; independent branches go on. On Ctrl-C or
SIGTERM (while walking in the main thread; else ``KeyboardInterrupt``) no new
node starts and the rest are ``cancelled``; the running ones are allowed to
finish (so their results are recorded) - unless the walk ``abandons`` them
(preview: its visits only read, so the walk returns at once and the workers,
daemon threads, end with the process). Completion callbacks run in the
calling thread, in order.
"""

from __future__ import annotations

import signal
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import FIRST_COMPLETED, Future, wait
from contextlib import contextmanager
from types import FrameType

import attrs

from kclpy.kusion import faults
from kclpy.kusion.graph import Graph

SUCCEEDED = "succeeded"
FAILED = "failed"
SKIPPED = "skipped"
CANCELLED = "cancelled"
POLL_SECONDS = 0.1


@attrs.frozen
class NodeResult:
    """How one node ended."""

    status: str
    error: BaseException | None = None
    seconds: float = 0.0
    reason: str = ""


@attrs.define
class WalkResult:
    results: dict[str, NodeResult] = attrs.field(factory=dict)
    interrupted: bool = False

    def failed(self) -> list[str]:
        return [node for node, result in self.results.items() if result.status == FAILED]

    def ok(self) -> bool:
        return not self.interrupted and all(r.status == SUCCEEDED for r in self.results.values())


Visit = Callable[[str], None]
OnDone = Callable[[str, NodeResult], None]


class Walker:
    """One walk; create a new one per graph."""

    def __init__(
        self,
        graph: Graph,
        visit: Visit,
        max_concurrent: int,
        on_done: OnDone,
        abandon: bool = False,
    ) -> None:
        if max_concurrent < 1:
            raise ValueError("max_concurrent must be at least 1")
        self.graph = graph
        self.visit = visit
        self.max_concurrent = max_concurrent
        self.on_done = on_done
        self.waiting = graph.after()
        self.remaining = {node: len(graph.before[node]) for node in graph.nodes}
        self.ready = [node for node in graph.nodes if self.remaining[node] == 0]
        self.running: dict[Future[float], str] = {}
        self.result = WalkResult()
        self.stop = threading.Event()
        self.abandon = abandon

    def run(self) -> WalkResult:
        with _sigint_sets(self.stop):
            try:
                self._loop()
            except KeyboardInterrupt:
                self.stop.set()
            if self.stop.is_set():
                self.result.interrupted = True
                if not self.abandon:
                    self._drain()
        for node in self.graph.nodes:
            if node not in self.result.results:
                self._finish(node, NodeResult(CANCELLED, reason="interrupted"))
        return self.result

    def _loop(self) -> None:
        while (self.ready or self.running) and not self.stop.is_set():
            while self.ready and len(self.running) < self.max_concurrent:
                node = self.ready.pop(0)
                self.running[_start(self.visit, node)] = node
            done, _ = wait(list(self.running), timeout=POLL_SECONDS, return_when=FIRST_COMPLETED)
            for future in sorted(done, key=lambda item: self.graph.nodes.index(self.running[item])):
                self._complete(self.running.pop(future), future)

    def _drain(self) -> None:
        """After Ctrl-C: let the running nodes finish and record them."""
        while self.running:
            try:
                done, _ = wait(list(self.running), timeout=POLL_SECONDS)
            except KeyboardInterrupt:
                continue
            for future in done:
                self._complete(self.running.pop(future), future, schedule=False)

    def _complete(self, node: str, future: Future[float], schedule: bool = True) -> None:
        error = future.exception()
        if isinstance(error, KeyboardInterrupt):
            self.result.interrupted = True
            self._finish(node, NodeResult(CANCELLED, error, reason="interrupted"))
            if schedule:
                raise KeyboardInterrupt
            return
        if error is not None:
            self._finish(node, NodeResult(FAILED, error))
            for descendant in sorted(self.graph.descendants(node), key=self.graph.nodes.index):
                if descendant not in self.result.results:
                    reason = f"depends on {node}, which failed"
                    self._finish(descendant, NodeResult(SKIPPED, reason=reason))
            return
        self._finish(node, NodeResult(SUCCEEDED, seconds=future.result()))
        for child in self.waiting[node]:
            self.remaining[child] -= 1
            if self.remaining[child] == 0 and child not in self.result.results and schedule:
                self.ready.append(child)

    def _finish(self, node: str, result: NodeResult) -> None:
        self.result.results[node] = result
        self.on_done(node, result)


STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)


@contextmanager
def _sigint_sets(stop: threading.Event) -> Iterator[None]:
    """While walking in the main thread, Ctrl-C and SIGTERM only set ``stop``.

    A ``KeyboardInterrupt`` raised at an arbitrary point could leave a future's
    lock held (and the walk hung); a flag the loop polls cannot.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def handler(signum: int, frame: FrameType | None) -> None:
        faults.received(signum)
        stop.set()

    previous = {number: signal.signal(number, handler) for number in STOP_SIGNALS}
    try:
        yield
    finally:
        for number, action in previous.items():
            signal.signal(number, action)


def _start(visit: Visit, node: str) -> Future[float]:
    """Run ``visit(node)`` in a new daemon thread; the future gets its duration or error.

    Daemon threads, not a pool: a visit stuck in a call that cannot be
    interrupted must not keep the process alive once the walk was abandoned.
    """
    future: Future[float] = Future()
    future.set_running_or_notify_cancel()

    def work() -> None:
        start = time.monotonic()
        try:
            visit(node)
        except BaseException as error:
            future.set_exception(error)
        else:
            future.set_result(time.monotonic() - start)

    threading.Thread(target=work, name=f"kusion-{node}", daemon=True).start()
    return future


def walk(
    graph: Graph, visit: Visit, max_concurrent: int, on_done: OnDone, abandon: bool = False
) -> WalkResult:
    """Run ``visit`` over ``graph``; see the module docstring."""
    return Walker(graph, visit, max_concurrent, on_done, abandon).run()
