"""Who holds a release lock, and whether that holder is still there.

An owner is written into every release as ``user@host pid N start S`` (``S``
is the process start time in clock ticks since boot, from ``/proc``, so a
recycled pid is not mistaken for the owner). ``owner_alive`` decides whether
a lock may be recovered:

- same host: the process must exist with the same start time;
- another host: the owner's lease must not have expired: the owner refreshes
  ``modified_at`` (a heartbeat) every ``lease_seconds() / 4`` seconds while
  it works, and a lock not refreshed for ``lease_seconds()`` is stale.

The lease is ``$KCLPY_KUSION_LEASE_SECONDS`` (default 120).
"""

from __future__ import annotations

import datetime
import getpass
import os
import re
import socket

import attrs

DEFAULT_LEASE_SECONDS = 120.0
_OWNER = re.compile(r"^(?P<user>.*)@(?P<host>[^@ ]+) pid (?P<pid>\d+)(?: start (?P<start>\d+))?$")


@attrs.frozen
class Owner:
    """The parsed owner of a release."""

    user: str
    host: str
    pid: int
    start: str = ""


def lease_seconds() -> float:
    try:
        return max(1.0, float(os.environ.get("KCLPY_KUSION_LEASE_SECONDS", "")))
    except ValueError:
        return DEFAULT_LEASE_SECONDS


def process_start(pid: int) -> str:
    """The start time of process ``pid`` (clock ticks since boot), or "" when unknown."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii", errors="replace") as handle:
            text = handle.read()
    except OSError:
        return ""
    # The command name (field 2) may contain spaces; fields after it are plain.
    fields = text[text.rfind(")") + 2 :].split()
    return fields[19] if len(fields) > 19 else ""


def current_owner() -> str:
    try:
        user = getpass.getuser()
    except (KeyError, OSError):
        user = "unknown"
    pid = os.getpid()
    start = process_start(pid)
    suffix = f" start {start}" if start else ""
    return f"{user}@{socket.gethostname()} pid {pid}{suffix}"


def parse_owner(text: str) -> Owner | None:
    match = _OWNER.match(text)
    if match is None:
        return None
    return Owner(match["user"], match["host"], int(match["pid"]), match["start"] or "")


def process_alive(pid: int, start: str) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass  # exists, owned by someone else
    if start and process_start(pid) not in ("", start):
        return False  # the pid was reused by another process
    return _not_zombie(pid)


def _not_zombie(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii", errors="replace") as handle:
            text = handle.read()
    except OSError:
        return True
    return text[text.rfind(")") + 2 :][:1] != "Z"


def owner_alive(owner_text: str, modified_at: str) -> bool:
    """Whether the owner of a lock may still be working (see the module docstring)."""
    owner = parse_owner(owner_text)
    if owner is not None and owner.host == socket.gethostname():
        return process_alive(owner.pid, owner.start)
    try:
        touched = datetime.datetime.fromisoformat(modified_at)
    except ValueError:
        return True  # unknown format: never take a lock we cannot judge
    age = datetime.datetime.now(datetime.UTC) - touched
    return age.total_seconds() < lease_seconds()
