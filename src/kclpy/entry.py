"""The ``kcl`` command's entry point (the console script and ``python -m kclpy``).

The cycle collector is paused while the command line's modules load: importing
them creates many objects and no garbage cycles, and the collections their
allocations trigger cost about 4 M instructions of every start (the commands
then decide: ``kcl run`` keeps it paused, see ``kclpy.cli.run``).

When the command is done, the process leaves at once (as mypy does): the
standard streams are flushed and the exit handlers run, then ``os._exit`` spares
the interpreter's tear-down, which frees every object the run still holds (the
parsed packages, their interfaces, the parser's tables: ~4 ms of a cold konfig
run). Every file a command writes is written whole and closed before it returns
(kclpy.atomic), so nothing is left to flush but the streams. Where that cannot be
known (another thread that is no daemon still runs, a stream fails to flush, or
``KCLPY_CLEAN_EXIT`` is set) the interpreter ends as usual.
"""

from __future__ import annotations

import gc
import os
import sys
import threading


def main() -> int:
    """Load the command line with the collector paused, then run ``kclpy.cli.main``;
    leave at once with its exit code (see the module's notes) or return it."""
    collecting = gc.isenabled()
    gc.disable()
    try:
        from kclpy.cli import main as command_line
    finally:
        if collecting:
            gc.enable()
    code = command_line()
    if _may_leave_at_once():
        _leave(code)
    return code


def _may_leave_at_once() -> bool:
    """Whether only the streams and the exit handlers are left to finish."""
    if os.environ.get("KCLPY_CLEAN_EXIT"):
        return False
    main_thread = threading.main_thread()
    if threading.current_thread() is not main_thread:
        return False
    return all(t is main_thread or t.daemon for t in threading.enumerate())


def _leave(code: int) -> None:
    """Flush the streams, run the exit handlers and end the process with ``code``;
    returns (for the usual exit) when a stream cannot be flushed."""
    try:
        for stream in (sys.stdout, sys.stderr):
            if stream is not None:
                stream.flush()
    except (OSError, ValueError):
        return  # (a broken pipe: the usual exit reports it as it always has)
    import atexit

    atexit._run_exitfuncs()
    os._exit(code & 0xFF)
