"""The recursion budget: how deep a program may nest, and the stack that holds it.

The parser is a table-driven LALR automaton and the layout filter a loop, so
they take any depth (brackets stop at ``MAX_BRACKETS``, above the reference's
4,285 nested parentheses). The later stages (checker, compiler, VM, emitter,
formatter) walk the tree recursively, a few Python frames per level of syntax.
Python's defaults (1,000 frames, an 8 MiB thread stack) stopped them far short
of the reference's depths (a 6,461-term binary chain, 2,000+ nested ``if``
blocks), so the entry points run through :func:`run_deep`:

* the call runs in a thread with a ``STACK_SIZE`` stack (address space: the
  memory is only committed as deep calls touch it), and
* the interpreter's recursion limit is raised to ``RECURSION_LIMIT`` frames,
  enough for ``MAX_NESTING`` levels in every stage (tests/vm/test_depth.py
  runs each stage at the reference's depths and beyond).

Beyond the budget a stage catches ``RecursionError`` and reports a located
diagnostic through :func:`innermost_span`: the span of the innermost syntax
node on the failing call stack, where nesting went too deep.
"""

from __future__ import annotations

import functools
import os
import sys
import threading
from collections.abc import Callable
from types import TracebackType

from kclpy.source import Span

MAX_BRACKETS = 10_000
"""Deepest bracket nesting the layout filter accepts (the reference: 4,285)."""

MAX_NESTING = 10_000
"""Levels of syntax every stage handles within the budget (the reference: 6,461)."""

RECURSION_LIMIT = 24 * MAX_NESTING + 2_000
"""Python frames allowed: the deepest stage (the checker) takes up to ~20 a level."""

STACK_SIZE = 2 << 30
"""Bytes of stack for the deep thread (2 GiB of address space)."""

TOO_DEEP = "the program is nested too deeply (more than the recursion budget allows)"

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, ParamSpec, TypeVar

    Result = TypeVar("Result")
    Params = ParamSpec("Params")

_local = threading.local()
_start_lock = threading.Lock()


def in_deep_thread() -> bool:
    """Whether the running thread already holds the budget."""
    return bool(getattr(_local, "deep", False))


def run_deep(function: Callable[..., Result], *args: Any, **kwargs: Any) -> Result:
    """``function(*args, **kwargs)`` on a thread with the deep stack; its result or exception.

    Called from the deep thread itself, it simply calls ``function``.
    """
    if in_deep_thread():
        return function(*args, **kwargs)
    outcome: list[Any] = []
    failure: list[BaseException] = []
    done = threading.Event()  # (not Thread.join: an interrupted join is unreliable in 3.11)

    def body() -> None:
        _local.deep = True
        try:
            outcome.append(function(*args, **kwargs))
        except BaseException as error:  # handed to the caller's thread below
            failure.append(error)
        finally:
            done.set()

    if sys.getrecursionlimit() < RECURSION_LIMIT:
        sys.setrecursionlimit(RECURSION_LIMIT)
    worker = _start(body)
    if worker is None:  # no thread of any deep size could start: run here, within the default
        return function(*args, **kwargs)
    try:
        while not done.wait(NOTICE_SIGNALS):  # a bounded wait: a signal whose wake-up
            pass  # missed this thread is acted on at the next return (a test hung once)
    except BaseException:  # a signal's exception reaches the main thread: interrupt the
        _interrupt(worker)  # worker, whose handlers clean up (no half-written file),
        while not done.wait(RESEND_INTERRUPT):  # and report; else the caller's handlers
            _interrupt(worker)  # see the signal's exception (sent again if it was lost)
        if outcome:
            return outcome[0]  # type: ignore[no-any-return]
        raise
    if failure:
        raise failure[0].with_traceback(failure[0].__traceback__)
    return outcome[0]  # type: ignore[no-any-return]


def deep(function: Callable[Params, Result]) -> Callable[Params, Result]:
    """Decorate an entry point so that it always runs with the budget (see :func:`run_deep`)."""

    @functools.wraps(function)
    def wrapper(*args: Params.args, **kwargs: Params.kwargs) -> Result:
        return run_deep(function, *args, **kwargs)

    return wrapper


def _stack_sizes() -> list[int]:
    """The stack sizes to try, largest first: under an address-space limit (``ulimit
    -v``) none above half of the space left, so that the program has the rest."""
    sizes = [STACK_SIZE, STACK_SIZE // 4, STACK_SIZE // 16]
    try:
        import resource

        limit = resource.getrlimit(resource.RLIMIT_AS)[0]
        if limit == resource.RLIM_INFINITY or limit < 0:
            return sizes
        with open("/proc/self/statm", "rb") as handle:
            used = int(handle.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
    except (ImportError, OSError, ValueError, IndexError, AttributeError):
        return sizes
    fitting = [size for size in sizes if size <= (limit - used) // 2]
    return fitting or sizes[-1:]


def _start(body: Callable[[], None]) -> threading.Thread | None:
    """A started thread running ``body`` with the largest stack the system grants."""
    with _start_lock:
        previous = threading.stack_size()
        try:
            for size in _stack_sizes():
                try:
                    threading.stack_size(size)
                    worker = threading.Thread(target=body, name="kclpy-deep", daemon=True)
                    worker.start()
                    return worker
                except (RuntimeError, ValueError, MemoryError):
                    continue
            return None
        finally:
            threading.stack_size(previous)


def raise_in_thread(ident: int, exception: type[BaseException] | None) -> None:
    """Raise ``exception`` in the thread ``ident`` at its next Python instruction
    (None: cancel one not raised yet).

    ``ctypes`` (about 1.5 ms of start-up) is imported on the first call: by the
    limits' watchdog thread, or by the caller's thread as it handles a signal's
    exception (not in a signal handler)."""
    import ctypes

    ctypes.pythonapi.PyThreadState_SetAsyncExc(
        ctypes.c_ulong(ident), ctypes.py_object(exception) if exception else None
    )


# seconds before an interrupt the worker has not acted on is sent again: one that lands
# in a finaliser is printed and lost, and the run would go on to its end
RESEND_INTERRUPT = 5.0
# the longest the caller's thread sleeps between looks at the signals that arrived
NOTICE_SIGNALS = 0.25


def _interrupt(worker: threading.Thread) -> None:
    """Raise KeyboardInterrupt in ``worker`` (at its next Python instruction)."""
    if worker.ident is not None:
        raise_in_thread(worker.ident, KeyboardInterrupt)


def innermost_span(error: BaseException) -> Span | None:
    """The span of the innermost syntax node held by a frame on ``error``'s traceback."""
    frames: list[TracebackType] = []
    trace = error.__traceback__
    while trace is not None:
        frames.append(trace)
        trace = trace.tb_next
    for frame in reversed(frames):
        for value in frame.tb_frame.f_locals.values():
            span = getattr(value, "span", None)
            if isinstance(span, Span):
                return span
    return None


__all__ = [
    "MAX_BRACKETS",
    "MAX_NESTING",
    "RECURSION_LIMIT",
    "STACK_SIZE",
    "TOO_DEEP",
    "deep",
    "in_deep_thread",
    "innermost_span",
    "run_deep",
]
