"""How much memory the host lets this process take: the default memory limit of a run.

Takes the process's own readings (``/proc/self/statm``), the machine's
(``MemAvailable`` in ``/proc/meminfo``), its resource limits (``RLIMIT_AS``,
``RLIMIT_DATA``: ``ulimit -v``, ``ulimit -d``) and its control group's memory limit
(cgroup v2 ``memory.max``, v1 ``memory.limit_in_bytes``, on the group of
``/proc/self/cgroup`` and every group above it, found through
``/proc/self/mountinfo``); returns the headroom of each and the default limit:

    default = resident memory now + the least of
              min(8 GiB, 3/4 of the memory available),
              3/4 of (RLIMIT_AS - address space in use),
              3/4 of (RLIMIT_DATA - data segment in use),
              3/4 of (memory.max - the group's usage, less its inactive file pages)

Where a bound is past, allocation fails (``MemoryError``) or the kernel kills the
process (a cgroup's OOM killer): a quarter of each headroom is kept back, so that
the run's limit (compared with the resident memory by ``kclpy.vm.limits``) trips
first and reports ``E3R01`` at the expression. A bound that cannot be read, or is
unlimited, is left out. :func:`headroom` is pure (tests give it readings).
"""

from __future__ import annotations

import functools
import os
import re
from collections.abc import Iterator

from kclpy.records import Record

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Final

DEFAULT_CAP: Final = 8 << 30
UNLIMITED_ABOVE: Final = 1 << 62  # cgroup v1 writes "unlimited" as a page-rounded 2**63 - 1
_PAGE: Final = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096


class Readings(Record):
    """One look at the process and its host, in bytes (None: no such bound)."""

    resident: int
    address_space: int  # VmSize
    data: int  # the data segment and stacks (statm's data)
    available: int  # MemAvailable, else all memory
    address_limit: int | None = None  # RLIMIT_AS
    data_limit: int | None = None  # RLIMIT_DATA
    group_room: int | None = None  # what the cgroups above the process can still give


def headroom(readings: Readings) -> tuple[int, str]:
    """How much more the run may take, and the bound that sets it."""
    bounds = [(min(DEFAULT_CAP, readings.available * 3 // 4), "")]
    if readings.address_limit is not None:
        room = readings.address_limit - readings.address_space
        bounds.append((room * 3 // 4, "RLIMIT_AS, ulimit -v"))
    if readings.data_limit is not None:
        room = readings.data_limit - readings.data
        bounds.append((room * 3 // 4, "RLIMIT_DATA, ulimit -d"))
    if readings.group_room is not None:
        bounds.append((readings.group_room * 3 // 4, "the cgroup's memory limit"))
    room, source = min(bounds, key=lambda bound: bound[0])
    return max(room, 0), source


def default_limit(readings: Readings) -> tuple[int, str]:
    """The default memory limit (compared with the resident memory) and its source
    ("" for the machine's memory)."""
    room, source = headroom(readings)
    return readings.resident + room, source


def read() -> Readings:
    """The readings now."""
    address_space, resident, data = _statm()
    return Readings(
        resident,
        address_space,
        data,
        available_memory(),
        _rlimit("RLIMIT_AS"),
        _rlimit("RLIMIT_DATA"),
        group_room(),
    )


def _statm() -> tuple[int, int, int]:
    """(address space, resident, data) of this process."""
    try:
        with open("/proc/self/statm", "rb") as handle:
            fields = handle.read().split()
        return int(fields[0]) * _PAGE, int(fields[1]) * _PAGE, int(fields[5]) * _PAGE
    except (OSError, ValueError, IndexError):
        import resource

        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
        return peak, peak, peak


def _rlimit(name: str) -> int | None:
    try:
        import resource

        soft, _ = resource.getrlimit(getattr(resource, name))
    except (ImportError, AttributeError, OSError, ValueError):
        return None
    return None if soft < 0 or soft == getattr(resource, "RLIM_INFINITY", -1) else int(soft)


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
        return DEFAULT_CAP


# --------------------------------------------------------------------------- cgroups


def group_room(
    cgroup_file: str = "/proc/self/cgroup", mountinfo_file: str = "/proc/self/mountinfo"
) -> int | None:
    """The least room (limit - usage + inactive file pages) of the memory cgroups that
    hold this process, each from its own group up to the hierarchy's mount; None when
    none is limited or nothing can be read."""
    rooms = [_room(*group) for group in limited_groups(cgroup_file, mountinfo_file)]
    return min(rooms) if rooms else None


@functools.lru_cache(maxsize=4)
def limited_groups(cgroup_file: str, mountinfo_file: str) -> tuple[tuple[str, int, int], ...]:
    """(folder, version, limit) of each memory cgroup above this process that has a
    limit; found once per process (reading /proc's mount table is slow on some
    systems, and a process does not move between groups while it runs KCL)."""
    try:
        with open(cgroup_file, encoding="utf-8") as handle:
            membership = handle.read()
        with open(mountinfo_file, encoding="utf-8") as handle:
            mounts = handle.read()
    except (OSError, UnicodeDecodeError):
        return ()
    found = []
    for folder, version in _group_folders(membership, mounts):
        limit = _number(os.path.join(folder, _FILES[version][0]))
        if limit is not None and limit < UNLIMITED_ABOVE:
            found.append((folder, version, limit))
    return tuple(found)


def _group_folders(membership: str, mounts: str) -> Iterator[tuple[str, int]]:
    """(folder, cgroup version) of each group on the path of this process's memory
    cgroup, the process's own first, up to the mount point of its hierarchy."""
    for line in membership.splitlines():
        number, _, rest = line.partition(":")
        controllers, _, path = rest.partition(":")
        if number == "0" and not controllers:
            version = 2
        elif "memory" in controllers.split(","):
            version = 1
        else:
            continue
        for mount_root, mount_point in _mounts(mounts, version):
            if path != mount_root and not path.startswith(mount_root.rstrip("/") + "/"):
                continue
            relative = path[len(mount_root) :].strip("/")
            parts = relative.split("/") if relative else []
            while True:
                yield os.path.join(mount_point, *parts), version
                if not parts:
                    break
                parts.pop()
            break


def _mounts(mounts: str, version: int) -> Iterator[tuple[str, str]]:
    """(root inside the hierarchy, mount point) of each cgroup mount of ``version``
    (v1: the memory controller's)."""
    for line in mounts.splitlines():
        if " - cgroup" not in line:
            continue
        head, separator, tail = line.partition(" - ")
        fields, kinds = head.split(), tail.split()
        if not separator or len(fields) < 5 or len(kinds) < 3:
            continue
        root, point = _unescape(fields[3]), _unescape(fields[4])
        wanted = "cgroup2" if version == 2 else "cgroup"
        if kinds[0] == wanted and (version == 2 or "memory" in kinds[2].split(",")):
            yield root, point


def _unescape(text: str) -> str:
    """mountinfo's octal escapes (``\\040`` for a space)."""
    if "\\" not in text:
        return text
    return re.sub(r"\\([0-7]{3})", lambda match: chr(int(match.group(1), 8)), text)


_FILES: Final = {
    2: ("memory.max", "memory.current", "inactive_file"),
    1: ("memory.limit_in_bytes", "memory.usage_in_bytes", "total_inactive_file"),
}


def _room(folder: str, version: int, limit: int) -> int:
    """What the group in ``folder``, limited to ``limit``, can still give."""
    _, usage_file, inactive = _FILES[version]
    usage = _number(os.path.join(folder, usage_file)) or 0
    return max(limit - usage + _stat(os.path.join(folder, "memory.stat"), inactive), 0)


def _number(path: str) -> int | None:
    try:
        with open(path, "rb") as handle:
            return int(handle.read().strip())
    except (OSError, ValueError):  # missing, or "max"
        return None


def _stat(path: str, key: str) -> int:
    try:
        with open(path, "rb") as handle:
            for line in handle:
                name, _, value = line.partition(b" ")
                if name.decode("ascii", "replace") == key:
                    return int(value)
    except (OSError, ValueError):
        pass
    return 0
