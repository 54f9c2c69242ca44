"""The default memory limit (kclpy.vm.host_memory): the least headroom of the machine's
memory, RLIMIT_AS, RLIMIT_DATA and the cgroup's limit, from given readings and from
fake cgroup trees (v2 and v1), and read on this machine."""

from __future__ import annotations

import resource
import subprocess
import sys
from pathlib import Path

import pytest

from kclpy.vm import host_memory
from kclpy.vm.host_memory import DEFAULT_CAP, Readings, default_limit, group_room, headroom

GIB = 1 << 30
MIB = 1 << 20


def readings(**changes: int | None) -> Readings:
    base = Readings(resident=100 * MIB, address_space=3 * GIB, data=2 * GIB, available=64 * GIB)
    return base._replace(**changes)


def test_without_bounds_the_default_is_8_gib_or_three_quarters_of_what_is_free() -> None:
    assert headroom(readings()) == (DEFAULT_CAP, "")
    assert headroom(readings(available=4 * GIB)) == (3 * GIB, "")
    assert default_limit(readings(available=4 * GIB)) == (100 * MIB + 3 * GIB, "")


def test_rlimit_as_counts_from_the_address_space_in_use() -> None:
    # ulimit -v 4 GiB with 3 GiB mapped (the deep stack, libraries): 3/4 of 1 GiB left
    room, source = headroom(readings(address_limit=4 * GIB))
    assert (room, source) == (768 * MIB, "RLIMIT_AS, ulimit -v")
    assert default_limit(readings(address_limit=4 * GIB))[0] == 100 * MIB + 768 * MIB


def test_rlimit_data_counts_from_the_data_segment() -> None:
    assert headroom(readings(data_limit=2 * GIB + 400 * MIB)) == (
        300 * MIB,
        "RLIMIT_DATA, ulimit -d",
    )


def test_the_least_bound_wins_and_a_bound_already_passed_leaves_nothing() -> None:
    both = readings(address_limit=20 * GIB, data_limit=10 * GIB, group_room=2 * GIB)
    assert headroom(both) == (3 * 512 * MIB, "the cgroup's memory limit")
    assert headroom(readings(address_limit=2 * GIB)) == (0, "RLIMIT_AS, ulimit -v")


def _mountinfo(tmp_path: Path, v2: Path | None, v1: Path | None) -> Path:
    lines = ["22 1 8:1 / / rw,relatime - ext4 /dev/sda1 rw"]
    if v2 is not None:
        lines.append(f"30 22 0:26 / {v2} rw,nosuid - cgroup2 cgroup2 rw,nsdelegate")
    if v1 is not None:
        lines.append(f"31 22 0:27 / {v1} rw,nosuid - cgroup cgroup rw,memory")
    path = tmp_path / "mountinfo"
    path.write_text("\n".join(lines) + "\n")
    return path


def _files(folder: Path, files: dict[str, str]) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    for name, text in files.items():
        (folder / name).write_text(text)


def test_cgroup_v2_limit_of_the_group_or_a_group_above_it(tmp_path: Path) -> None:
    mount = tmp_path / "unified"
    group = mount / "user.slice" / "run.scope"
    _files(mount / "user.slice", {"memory.max": str(3 * GIB), "memory.current": str(GIB)})
    _files(
        group,
        {
            "memory.max": "max",
            "memory.current": str(200 * MIB),
            "memory.stat": f"anon 1\ninactive_file {100 * MIB}\n",
        },
    )
    membership = tmp_path / "cgroup"
    membership.write_text("0::/user.slice/run.scope\n")
    mounts = _mountinfo(tmp_path, mount, None)
    assert group_room(str(membership), str(mounts)) == 2 * GIB  # the slice's 3 GiB - 1 GiB
    _files(mount / "user.slice", {"memory.current": str(2 * GIB)})  # read every time
    assert group_room(str(membership), str(mounts)) == GIB
    _files(group, {"memory.max": str(500 * MIB), "memory.current": str(200 * MIB)})
    host_memory.limited_groups.cache_clear()  # (limits are read once per process)
    assert group_room(str(membership), str(mounts)) == 500 * MIB - 200 * MIB + 100 * MIB


def test_cgroup_v1_memory_controller(tmp_path: Path) -> None:
    mount = tmp_path / "memory"
    group = mount / "docker" / "abc"
    _files(mount, {"memory.limit_in_bytes": "9223372036854771712"})  # unlimited
    _files(
        group,
        {
            "memory.limit_in_bytes": str(GIB),
            "memory.usage_in_bytes": str(300 * MIB),
            "memory.stat": f"cache 5\ntotal_inactive_file {50 * MIB}\n",
        },
    )
    membership = tmp_path / "cgroup"
    membership.write_text("5:cpu,cpuacct:/docker/abc\n4:memory:/docker/abc\n0::/\n")
    mounts = _mountinfo(tmp_path, None, mount)
    assert group_room(str(membership), str(mounts)) == GIB - 300 * MIB + 50 * MIB


def test_no_limit_or_nothing_readable_is_no_bound(tmp_path: Path) -> None:
    membership = tmp_path / "cgroup"
    membership.write_text("0::/a\n")
    mounts = _mountinfo(tmp_path, tmp_path / "none", None)
    assert group_room(str(membership), str(mounts)) is None
    assert group_room(str(tmp_path / "missing"), str(mounts)) is None


def test_the_readings_of_this_machine() -> None:
    now = host_memory.read()
    assert 0 < now.resident <= now.address_space
    assert now.available > 0
    soft = resource.getrlimit(resource.RLIMIT_AS)[0]
    assert now.address_limit == (None if soft == resource.RLIM_INFINITY else soft)
    limit, _ = default_limit(now)
    assert now.resident < limit <= now.resident + DEFAULT_CAP


def test_a_process_under_ulimit_v_takes_its_default_from_it() -> None:
    script = (
        "import resource\n"
        "resource.setrlimit(resource.RLIMIT_AS, (3 << 30, 3 << 30))\n"
        "from kclpy.vm import host_memory\n"
        "now = host_memory.read()\n"
        "limit, source = host_memory.default_limit(now)\n"
        "print(source)\n"
        "assert limit - now.resident == ((3 << 30) - now.address_space) * 3 // 4, limit\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=120, check=False
    )
    if "RLIMIT_AS" not in done.stdout and done.returncode == 0:
        pytest.skip("this machine's memory leaves less room than the address-space limit")
    assert done.returncode == 0, done.stderr
    assert done.stdout == "RLIMIT_AS, ulimit -v\n"
