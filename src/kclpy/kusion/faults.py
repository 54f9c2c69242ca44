"""Interruption bookkeeping, and pause points for fault-injection tests.

``received(signum)`` is called by the SIGINT/SIGTERM handlers; ``signals``
tells the CLI which signal stopped the run (its exit code is 128 + signal).

The engine calls ``pause("intent:<id>")`` and the like at each step of an
apply. Normally nothing happens. When ``$KCLPY_KUSION_PAUSE_AT`` names the
point, the process writes its pid to ``$KCLPY_KUSION_PAUSE_FILE`` and waits
until that file is removed, a SIGINT/SIGTERM arrives (``interrupted``), or
``$KCLPY_KUSION_PAUSE_SECONDS`` (default 120) pass; so a test can kill the
process exactly there. Points: ``locked``, ``intent:<id>``, ``applied:<id>``,
``recorded:<id>``, ``finishing``.
"""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path

# Set by the signal handlers of the walker and the CLI; ``signals`` lists what arrived.
interrupted = threading.Event()
signals: list[int] = []


def received(signum: int) -> None:
    signals.append(signum)
    interrupted.set()


def pause(point: str) -> None:
    if os.environ.get("KCLPY_KUSION_PAUSE_AT") != point:
        return
    marker = Path(os.environ.get("KCLPY_KUSION_PAUSE_FILE", "kusion-paused"))
    marker.write_text(str(os.getpid()), encoding="ascii")
    try:
        limit = float(os.environ.get("KCLPY_KUSION_PAUSE_SECONDS", "120"))
    except ValueError:
        limit = 120.0
    deadline = time.monotonic() + limit
    while marker.exists() and not interrupted.is_set() and time.monotonic() < deadline:
        time.sleep(0.02)
