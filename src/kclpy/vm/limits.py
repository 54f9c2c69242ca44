"""Resource limits of a run: a memory bound and a time bound, enforced in-process.

Takes :class:`ResourceLimits` (``--max-memory``, ``--timeout`` or the API's
arguments); raises :class:`KclRuntimeError` of kind ``ResourceLimitError`` (code
E3R01) at the offending expression (the output stage runs under the same limits,
through ``Runner.under_limits``: a result can fit and its text not). Two mechanisms,
neither in the dispatch loop:

* **Checks before big allocations**: repetition (``s * n``), concatenation of long
  strings and lists and ``range()`` ask :func:`check_allocation` before building a
  result larger than ``CHECK_ABOVE`` items; it refuses what would not fit in the
  memory left under the limit.
* **A watchdog thread** (one for the process) looks at every guarded run every
  ``_TICK`` seconds: past its deadline, or with the process's resident memory above
  its limit, the run's thread gets an asynchronous exception (raised at its next
  Python instruction), which the interpreter turns into the located error; should
  something swallow it, it is sent again every ``_RESEND`` seconds until the run ends.

The memory measured is the process's resident set (on Linux, ``/proc/self/statm``):
exact for ``kcl run``; in a host running several API calls at once, it bounds the
process. The default memory limit (``AUTO``) is what the process holds when the run
starts plus the smaller of 8 GiB and three quarters of the memory the machine has
available then (``MemAvailable``; of all its memory where that is unknown): a
runaway program stops before it takes the machine down, and a big legitimate one
(kclpy's largest benchmarks stay well under it) runs. The time limit is off unless
given.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable
from typing import Final, NamedTuple, TypeVar

from kclpy.depth import raise_in_thread
from kclpy.values.errors import KclRuntimeError

KIND: Final = "ResourceLimitError"
Result = TypeVar("Result")
_TICK: Final = 0.02
_RESEND: Final = 1.0  # a tripped run still running after this long gets the exception again
CHECK_ABOVE: Final = 1 << 16
_PAGE: Final = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096


AUTO: Final = -1


def available_memory() -> int:
    """What the machine can still give (``MemAvailable``), else all its memory."""
    try:
        with open("/proc/meminfo", "rb") as handle:
            for line in handle:
                if line.startswith(b"MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    try:
        return int(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES"))
    except (AttributeError, ValueError, OSError):
        return 8 << 30


def automatic_limit() -> int:
    """The default memory limit, computed now (see the module docstring)."""
    return resident_memory() + min(8 << 30, available_memory() * 3 // 4)


class ResourceLimits(NamedTuple):
    """``max_memory`` in bytes (0: none, AUTO: the default), ``timeout`` in seconds
    (0: none)."""

    max_memory: int = AUTO
    timeout: float = 0.0


DEFAULT_LIMITS: Final = ResourceLimits()


class LimitExceeded(BaseException):
    """Raised asynchronously in a run's thread by the watchdog (not an Exception,
    so that no ``except Exception`` in a builtin swallows it)."""


def resident_memory() -> int:
    """The process's resident memory in bytes (its peak where /proc is missing)."""
    try:
        with open("/proc/self/statm", "rb") as handle:
            return int(handle.read().split()[1]) * _PAGE
    except (OSError, ValueError, IndexError):
        import resource

        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


class _Guard:
    """One guarded run: its thread, limits, deadline and, once tripped, the reason."""

    def __init__(self, limits: ResourceLimits) -> None:
        self.limits = limits
        self.max_memory = automatic_limit() if limits.max_memory == AUTO else limits.max_memory
        self.thread = threading.get_ident()
        self.deadline = time.monotonic() + limits.timeout if limits.timeout > 0 else 0.0
        self.reason = ""
        self.tripped_at = 0.0

    def message(self) -> str:
        return self.reason or "the run exceeded a resource limit"


_local = threading.local()
_lock = threading.Lock()
_active: dict[int, _Guard] = {}
_watchdog: threading.Thread | None = None


def _watch() -> None:
    while True:
        time.sleep(_TICK)
        with _lock:
            if not _active:
                continue
            memory = resident_memory()
            now = time.monotonic()
            for guard in _active.values():
                if guard.reason:  # delivered, but the run goes on: something swallowed it
                    if now - guard.tripped_at >= _RESEND:
                        guard.tripped_at = now
                        raise_in_thread(guard.thread, LimitExceeded)
                    continue
                limit = guard.max_memory
                if limit and memory > limit:
                    guard.reason = _memory_message(limit, memory)
                elif guard.deadline and now > guard.deadline:
                    guard.reason = (
                        f"the program ran longer than the time limit of "
                        f"{guard.limits.timeout:g}s; raise it with --timeout"
                    )
                else:
                    continue
                guard.tripped_at = now
                raise_in_thread(guard.thread, LimitExceeded)


class Guarded:
    """The body of a ``with`` under ``limits``; a tripped limit leaves
    as a KclRuntimeError. :func:`within` also covers the one moment a ``with`` cannot:
    a limit sent just as the body ends may arrive as the exit is entered."""

    def __init__(self, limits: ResourceLimits) -> None:
        self.limits = limits
        self.guard: _Guard | None = None
        self.outer: _Guard | None = None

    def __enter__(self) -> None:
        global _watchdog
        limits = self.limits
        if not limits.max_memory and limits.timeout <= 0:
            return
        guard = _Guard(limits)
        self.outer = getattr(_local, "guard", None)
        with _lock:
            if _watchdog is None:
                _watchdog = threading.Thread(target=_watch, name="kclpy-limits", daemon=True)
                _watchdog.start()
            _active[id(guard)] = guard
        _local.guard = self.guard = guard

    def __exit__(self, kind: type[BaseException] | None, error: object, trace: object) -> None:
        guard = self.guard
        if guard is None:
            return
        try:
            try:
                tripped = _over_at_end(guard) if kind is None else issubclass(kind, LimitExceeded)
            except LimitExceeded:  # the watchdog's, arriving in this exit
                tripped = True
            if tripped:
                raise KclRuntimeError(guard.message(), KIND) from None
        finally:
            self.close()

    def close(self) -> None:
        """Stop watching (once): cancel a limit tripped and not delivered yet."""
        guard = self.guard
        if guard is None:
            return
        try:
            _release(guard)
        except LimitExceeded:  # tripped as the run ended and delivered in the cleanup:
            _release(guard)  # the run's own outcome stands (one is sent at a time)
        self.guard = None  # (after: a limit arriving before is released by within)
        _local.guard = self.outer


def within(limits: ResourceLimits, work: Callable[[], Result]) -> Result:
    """``work()`` under ``limits``: a tripped limit leaves as a KclRuntimeError, also one
    that arrives as the ``with``'s exit is entered (before the exit can handle it; an
    error of the body's own then stands, as one arriving in the cleanup does)."""
    manager = Guarded(limits)
    try:
        with manager:
            return work()
    except LimitExceeded as stray:
        guard = manager.guard  # (not released yet: the exit did not run, or not to its end)
        error = KclRuntimeError(guard.message(), KIND) if guard else limit_error(stray)
        manager.close()
        own = stray.__context__
        raise (own if isinstance(own, KclRuntimeError) else error) from None


def _over_at_end(guard: _Guard) -> bool:
    """The memory limit once more as the body ends (the watchdog looks every tick, and
    a body that crosses the limit just before it ends, writing a big output's text,
    may finish between two looks); whether it is crossed (the reason set)."""
    limit = guard.max_memory
    memory = resident_memory() if limit else 0
    with _lock:  # as the watchdog trips (it must not send this one again at once)
        if limit and memory > limit and not guard.reason:
            guard.reason = _memory_message(limit, memory)
            guard.tripped_at = time.monotonic()
        return bool(guard.reason)


def _memory_message(limit: int, memory: int) -> str:
    return (
        f"the program uses more than the memory limit of {_size(limit)} "
        f"({_size(memory)} in use); raise it with --max-memory"
    )


def _release(guard: _Guard) -> None:
    """Stop watching ``guard``'s run; cancel a tripped limit not delivered yet."""
    with _lock:
        _active.pop(id(guard), None)
        if guard.reason:
            raise_in_thread(guard.thread, None)


def limit_error(error: BaseException) -> KclRuntimeError:
    """The located error for a tripped limit (or a MemoryError) in this thread."""
    guard: _Guard | None = getattr(_local, "guard", None)
    if isinstance(error, MemoryError):
        return KclRuntimeError("out of memory: the program needs more than is available", KIND)
    return KclRuntimeError(guard.message() if guard else str(error), KIND)


def check_allocation(items: int, item_size: int = 8) -> None:
    """Refuse to build a result of ``items`` items that would break the memory limit."""
    if items <= CHECK_ABOVE:
        return
    guard: _Guard | None = getattr(_local, "guard", None)
    limit = guard.max_memory if guard else automatic_limit()
    if not limit:
        return
    needed = items * item_size
    free = limit - resident_memory()
    if needed > free:
        raise KclRuntimeError(
            f"the result would need {_size(needed)}, more than the {_size(max(free, 0))} "
            f"left under the memory limit of {_size(limit)}; raise it with --max-memory",
            KIND,
        )


def _size(count: int) -> str:
    for unit in ("B", "KiB", "MiB", "GiB"):
        if count < 1024 or unit == "GiB":
            return f"{count:.0f} {unit}" if unit == "B" else f"{count:.1f} {unit}"
        count /= 1024  # type: ignore[assignment]
    return f"{count} B"


def parse_size(text: str) -> int:
    """``512M``, ``2G``, ``1.5GiB``, ``100000`` (bytes) -> bytes; ValueError otherwise."""
    cleaned = text.strip().upper().removesuffix("IB").removesuffix("B")
    scale = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}.get(cleaned[-1:], 1)
    number = cleaned[:-1] if scale > 1 else cleaned
    value = float(number)
    if value < 0 or value != value:
        raise ValueError(text)
    return int(value * scale)
