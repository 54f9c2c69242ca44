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
starts plus the least headroom the host leaves it (:mod:`kclpy.vm.host_memory`: the
smaller of 8 GiB and three quarters of the memory available, and three quarters of
what ``ulimit -v``/``ulimit -d`` and the cgroup's memory limit leave): a runaway
program stops before it takes the machine down, and a big legitimate one (kclpy's
largest benchmarks stay well under it) runs. The time limit is off unless given.

Where memory runs out all the same (an allocation refused by the system before the
watchdog's next look), CPython raises ``MemoryError`` or, from deep in C code,
``SystemError`` variants (:func:`out_of_memory` knows them): :func:`limit_error`
makes them the same E3R01 error. Each guarded run keeps a small reserve of memory,
given back at the first failed allocation so that the error can still be reported,
and the failure's traceback is dropped so that the frames holding the runaway values
are freed at once.
"""

from __future__ import annotations

import errno
import os
import sys
import threading
import time
from collections.abc import Callable
from contextlib import suppress

from kclpy.depth import raise_in_thread
from kclpy.records import Record
from kclpy.values.errors import KclRuntimeError

KIND: Final = "ResourceLimitError"
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Final, TypeVar

    Result = TypeVar("Result")
_TICK: Final = 0.02
_RESEND: Final = 1.0  # a tripped run still running after this long gets the exception again
CHECK_ABOVE: Final = 1 << 16
_PAGE: Final = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096


AUTO: Final = -1
# given back when an allocation fails, to report the error (the runaway frames are dropped
# too; a report needs some 100 KB). Held as ``bytes``, which CPython allocates with calloc:
# fresh pages, not touched (a bytearray is zero-filled page by page, 0.45 ms of every
# run's start), yet counted against RLIMIT_AS, RLIMIT_DATA and the commit charge, the
# bounds whose crossing makes an allocation fail
_RESERVE: Final = 1 << 20
_OUT_OF_MEMORY_TEXTS: Final = (
    "error return without exception set",
    "without setting an exception",
    "out of memory",
    "cannot allocate memory",
)


def automatic_limit() -> int:
    """The default memory limit, computed now (see the module docstring)."""
    return automatic_limit_and_source()[0]


def automatic_limit_and_source() -> tuple[int, str]:
    """The default memory limit and the bound that sets it ("": the machine's memory)."""
    from kclpy.vm import host_memory

    return host_memory.default_limit(host_memory.read())


class ResourceLimits(Record):
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
    """One guarded run: its thread, limits, deadline and, once tripped, the reason.

    A guard entered inside another of the same thread and limits (the VM's inside
    ``kcl run``'s) is a part of it: it shares its memory limit and deadline, and the
    outer one rests while the part runs. A part that trips leaves the outer guard
    ``spent``: the part reported the limit, what follows only reports it."""

    def __init__(self, limits: ResourceLimits, parent: _Guard | None = None) -> None:
        self.limits = limits
        self.parent = parent
        self.spent = False
        self.max_memory: int
        self.source: str
        self.deadline: float
        self.released = False
        if parent is not None:
            self.max_memory, self.source = parent.max_memory, parent.source
            self.deadline = parent.deadline
        else:
            self.source = ""  # the bound of a default memory limit ("": the machine's)
            if limits.max_memory == AUTO:
                self.max_memory, self.source = automatic_limit_and_source()
            else:
                self.max_memory = limits.max_memory
            self.deadline = time.monotonic() + limits.timeout if limits.timeout > 0 else 0.0
        self.thread = threading.get_ident()
        self.reason = ""
        self.tripped_at = 0.0

    def message(self) -> str:
        return self.reason or "the run exceeded a resource limit"


_local = threading.local()
_lock = threading.Lock()
_active: dict[int, _Guard] = {}
_watchdog: threading.Thread | None = None


def _watch() -> None:
    """The watchdog's loop: a look every tick; a look that fails to allocate is taken
    again at the next tick."""
    while True:
        time.sleep(_TICK)
        with suppress(MemoryError, ImportError, OSError):
            _look()


_preloaded: list[bool] = [False]


def _preload(memory: int, limit: int) -> None:
    """Load what an interruption needs (``raise_in_thread``'s ctypes) once a run holds
    half its memory limit: the watchdog must outlive memory running out, and a short run
    never pays for it (an interruption for time imports it then, with room to spare)."""
    if not _preloaded[0] and memory * 2 > limit:
        with suppress(ImportError, MemoryError):
            import ctypes  # noqa: F401

            _preloaded[0] = True


def _look() -> None:
    """Trip every guarded run past its deadline or, with the process, its memory limit."""
    with _lock:
        if not _active:
            return
        memory = resident_memory()
        now = time.monotonic()
        for guard in list(_active.values()):
            if guard.reason:  # delivered, but the run goes on: something swallowed it
                if now - guard.tripped_at >= _RESEND:
                    _deliver(guard, now)
                continue
            limit = guard.max_memory
            if limit:
                _preload(memory, limit)
            if limit and memory > limit:
                guard.reason = _memory_message(limit, memory, guard.source)
            elif guard.deadline and now > guard.deadline:
                guard.reason = (
                    f"the program ran longer than the time limit of "
                    f"{guard.limits.timeout:g}s; raise it with --timeout"
                )
            else:
                continue
            _deliver(guard, now)


def _deliver(guard: _Guard, now: float) -> None:
    """Raise the limit in the guarded thread, unless it is importing a module (an
    import cut halfway would leave the module broken for every later run of the
    process): then at the watchdog's next look."""
    if _importing(guard.thread):
        guard.tripped_at = now - _RESEND
        return
    guard.tripped_at = now
    raise_in_thread(guard.thread, LimitExceeded)


def _importing(thread: int) -> bool:
    """Whether ``thread`` is running the import system."""
    frame = sys._current_frames().get(thread)
    while frame is not None:
        if frame.f_code.co_filename.startswith("<frozen importlib"):
            return True
        frame = frame.f_back
    return False


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
        keep_reserve()
        outer: _Guard | None = getattr(_local, "guard", None)
        guard = _Guard(limits, outer if outer is not None and outer.limits == limits else None)
        self.outer = outer
        with _lock:
            if _watchdog is None:
                _watchdog = _start_watchdog()
            if guard.parent is not None:
                _active.pop(id(guard.parent), None)  # it rests while its part runs
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


def _start_watchdog() -> threading.Thread | None:
    """The watchdog thread, started; None when no thread can start (the address space
    is full: the run goes on with the checks before big allocations alone, and its
    memory running out is still E3R01)."""
    _load_thread_exit()
    _quiet_unraisable()
    watchdog = threading.Thread(target=_watch, name="kclpy-limits", daemon=True)
    try:
        watchdog.start()
    except RuntimeError:
        return None
    return watchdog


def _quiet_unraisable() -> None:
    """A limit the watchdog raises may land in a finaliser (``__del__``, a weakref
    callback), where Python prints it as "Exception ignored in ..." with a traceback;
    the watchdog sends it again at its next look, so that print is noise: drop it (and
    a MemoryError there), hand any other unraisable error to the previous hook."""
    previous = sys.unraisablehook
    if getattr(previous, "_kclpy_limits", False):
        return

    def hook(unraisable: sys.UnraisableHookArgs) -> None:
        if not isinstance(unraisable.exc_value, LimitExceeded | MemoryError):
            previous(unraisable)

    hook._kclpy_limits = True  # type: ignore[attr-defined]
    sys.unraisablehook = hook


def _load_thread_exit() -> None:
    """End a thread once, so that glibc loads what a thread's exit needs (its unwinder,
    libgcc_s) now: loading it once memory has run out fails and aborts the process."""
    finisher = threading.Thread(target=int, name="kclpy-first-exit", daemon=True)
    try:
        finisher.start()
    except RuntimeError:  # no thread can start: nothing to load it for
        return
    finisher.join()


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
    if guard.spent:  # a part of its run tripped and reported it
        return False
    limit = guard.max_memory
    memory = resident_memory() if limit else 0
    with _lock:  # as the watchdog trips (it must not send this one again at once)
        if limit and memory > limit and not guard.reason:
            guard.reason = _memory_message(limit, memory, guard.source)
            guard.tripped_at = time.monotonic()
        return bool(guard.reason)


def _memory_message(limit: int, memory: int, source: str = "") -> str:
    raise_it = f"set by {source}" if source else "raise it with --max-memory"
    return (
        f"the program uses more than the memory limit of {_size(limit)} "
        f"({_size(memory)} in use); {raise_it}"
    )


def _release(guard: _Guard) -> None:
    """Stop watching ``guard``'s run; cancel a tripped limit not delivered yet. The
    guard it is a part of watches again, or is spent if this one tripped."""
    with _lock:  # (each step can be done again: a limit arriving here calls it twice)
        if guard.released:
            return
        parent = guard.parent
        if parent is not None and (guard.reason or guard.spent):
            parent.reason, parent.spent = guard.reason, True
        elif parent is not None:
            _active[id(parent)] = parent
        _active.pop(id(guard), None)
        if guard.reason:
            raise_in_thread(guard.thread, None)
        guard.released = True


def limit_error(error: BaseException) -> KclRuntimeError:
    """The error for a tripped limit (or memory running out, :func:`out_of_memory`) in
    this thread. Memory running out gives the reserve back and drops the failure's
    traceback (its frames hold what filled the memory)."""
    guard: _Guard | None = getattr(_local, "guard", None)
    if out_of_memory(error):
        release_reserve()
        error.with_traceback(None)
        return KclRuntimeError(OUT_OF_MEMORY, KIND)
    return KclRuntimeError(guard.message() if guard else str(error), KIND)


OUT_OF_MEMORY: Final = "out of memory: the program needs more than is available"


def out_of_memory(error: BaseException) -> bool:
    """Whether ``error`` is memory running out: a MemoryError, an allocation that
    failed in C code and surfaced as a SystemError (``error return without exception
    set``) or an OSError ENOMEM, or any error raised while handling one of these."""
    seen: set[int] = set()
    current: BaseException | None = error
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        if isinstance(current, MemoryError):
            return True
        if isinstance(current, OSError) and current.errno == errno.ENOMEM:
            return True
        if isinstance(current, SystemError):
            text = str(current).lower()
            if any(words in text for words in _OUT_OF_MEMORY_TEXTS):
                return True
        current = current.__cause__ or current.__context__
    return False


_reserve: list[bytes] = []


def keep_reserve() -> None:
    """Hold the reserve (once; an allocation failing here leaves none)."""
    if not _reserve:
        with suppress(MemoryError):
            _reserve.append(bytes(_RESERVE))


def release_reserve() -> None:
    """Give the reserve back (memory ran out: reporting it needs some)."""
    _reserve.clear()


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


def size_argument(text: str) -> int:
    """:func:`parse_size` as an argparse type (``--max-memory``): a bad size is a usage
    error."""
    import argparse

    try:
        return parse_size(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"invalid size '{text}' (e.g. 512M, 2G)") from None


def seconds_argument(text: str) -> float:
    """A finite number of seconds, 0 or more, as an argparse type (``--timeout``)."""
    import argparse

    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not value >= 0 or value == float("inf"):
        raise argparse.ArgumentTypeError(f"invalid number of seconds '{text}'")
    return value
