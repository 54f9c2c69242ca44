"""Limits that cover everything a ``kcl run`` does (issue 29).

* File builtins never block or read without end: a FIFO, a socket or a device is
  refused before it is read (``file.read``, ``file.cp``, ``file.append``,
  ``crypto.filesha256``); a file larger than the memory left under the limit is
  refused before it is read.
* Memory running out under ``ulimit -v`` (RLIMIT_AS) is E3R01 with exit 1, never a
  traceback, an abort or exit 3: the default limit follows RLIMIT_AS, and a
  MemoryError (or CPython's SystemError variants) anywhere becomes the same error.
* ``--timeout`` and ``--max-memory`` bound the front end (loading, checking,
  compiling) as they bound the VM.

Every subprocess has a generous timeout: a hang fails the test (no timing assertion).
"""

from __future__ import annotations

import os
import socket
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from tests.security.conftest import Kcl

HANG = 120  # seconds: far beyond any of these runs, so that a hang fails instead


def run(
    folder: Path, program: str, *options: str, **extra: object
) -> subprocess.CompletedProcess[str]:
    (folder / "main.k").write_text(program)
    return subprocess.run(
        [sys.executable, "-m", "kclpy", "run", "main.k", *options],
        cwd=folder,
        capture_output=True,
        text=True,
        timeout=HANG,
        check=False,
        **extra,  # type: ignore[arg-type]
    )


def assert_refused(result: subprocess.CompletedProcess[str], kind: str) -> None:
    assert result.returncode == 1, result.stdout + result.stderr
    assert result.stderr.startswith("error[E3M38]: EvaluationError"), result.stderr
    assert f"it is {kind}, not a regular file" in result.stderr
    assert "main.k:2:" in result.stderr  # at the call
    assert "Traceback" not in result.stderr


READERS = {
    "read": 'a = file.read("pipe")',
    "copy": 'a = file.cp("pipe", "copy")',
    "append": 'a = file.append("pipe", "x")',
    "digest": "a = crypto.filesha256('pipe')",
}


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this system")
@pytest.mark.parametrize("reader", sorted(READERS))
def test_a_fifo_is_refused_not_waited_for(tmp_path: Path, reader: str) -> None:
    os.mkfifo(tmp_path / "pipe")
    module = "crypto" if reader == "digest" else "file"
    program = f"import {module}\n{READERS[reader]}\n"
    result = run(tmp_path, program, "--timeout", "2")
    assert_refused(result, "a FIFO (named pipe)")
    assert not (tmp_path / "copy").exists()


def test_a_device_is_refused(tmp_path: Path) -> None:
    if not os.path.exists("/dev/zero") or not stat.S_ISCHR(os.stat("/dev/zero").st_mode):
        pytest.skip("no /dev/zero character device here")
    result = run(tmp_path, 'import file\na = file.read("/dev/zero")\n', "--allow-fs-read", "/dev")
    assert_refused(result, "a character device")


def test_a_socket_is_refused(tmp_path: Path) -> None:
    if not hasattr(socket, "AF_UNIX") or len(str(tmp_path / "pipe")) > 100:
        pytest.skip("no Unix socket can be made here")
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        listener.bind(str(tmp_path / "pipe"))
        listener.listen(1)
        result = run(tmp_path, 'import file\na = file.read("pipe")\n', "--timeout", "2")
    finally:
        listener.close()
    assert_refused(result, "a socket")


def test_a_file_bigger_than_the_memory_left_is_not_read(tmp_path: Path) -> None:
    with open(tmp_path / "huge.txt", "wb") as handle:
        handle.truncate(4 << 30)  # sparse: 4 GiB of zeros that take no disk
    result = run(tmp_path, 'import file\na = file.read("huge.txt")\n', "--max-memory", "300M")
    assert result.returncode == 1, result.stderr
    assert result.stderr.startswith("error[E3R01]: ResourceLimitError"), result.stderr
    assert "the result would need 8.0 GiB" in result.stderr
    assert "main.k:2:5" in result.stderr


def test_a_small_file_and_a_sized_zero_proc_file_are_read(tmp_path: Path, kcl: Kcl) -> None:
    (tmp_path / "data.txt").write_text("hello\n")
    result = kcl(tmp_path, 'import file\na = file.read("data.txt")\n')
    assert (result.returncode, result.stdout) == (0, "a: |\n  hello\n\n"), result.stderr
    if not os.path.isfile("/proc/self/status"):
        return
    result = kcl(
        tmp_path,
        'import file\na = "VmRSS" in file.read("/proc/self/status")\n',
        "--allow-fs-read",
        "/proc",
    )
    assert (result.returncode, result.stdout) == (0, "a: true\n"), result.stderr


BOMBS = {
    "strings": 'a = ["x${i}" * 1000 for i in range(1000000)]\n',
    "dicts": 'a = [{"k${i}x${j}": [i, j]} for i in range(20000) for j in range(20000)]\n',
}


@pytest.mark.parametrize("bomb", sorted(BOMBS))
def test_memory_bomb_under_ulimit_v_is_a_resource_limit_error(tmp_path: Path, bomb: str) -> None:
    resource = pytest.importorskip("resource")
    limit = 900 << 20

    def limit_memory() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))

    result = run(tmp_path, BOMBS[bomb], preexec_fn=limit_memory)
    assert result.returncode == 1, result.stderr[-3000:]
    assert result.stderr.startswith("error[E3R01]: ResourceLimitError"), result.stderr[-3000:]
    assert "Traceback" not in result.stderr and "InternalError" not in result.stderr
    assert result.stdout == ""


def test_the_time_limit_covers_the_front_end(tmp_path: Path) -> None:
    # 20,000 schemas to check and compile, and next to nothing to run: the time goes
    # to the front end, which the limit stopped only once the VM had started
    schemas = "".join(
        f"schema S{i}:\n    a: int = {i}\n    b: [str] = ['x']\n" for i in range(20000)
    )
    env = {**os.environ, "KCLPY_NO_CACHE": "1"}
    result = run(tmp_path, schemas + "x = 1\n", "--timeout", "0.5", env=env)
    assert result.returncode == 1, result.stdout[-500:] + result.stderr
    assert result.stderr.startswith("error[E3R01]: ResourceLimitError"), result.stderr
    assert "longer than the time limit of 0.5s" in result.stderr
    assert "-->" not in result.stderr  # stopped before any of the program ran


def test_the_memory_limit_covers_the_front_end(tmp_path: Path) -> None:
    lines = "".join(f"a{i} = [{i}, 'x{i}', {{k = {i}}}]\n" for i in range(60000))
    env = {**os.environ, "KCLPY_NO_CACHE": "1"}
    result = run(tmp_path, lines, "--max-memory", "120M", env=env)
    assert result.returncode == 1, result.stdout[-500:] + result.stderr
    assert result.stderr.startswith("error[E3R01]: ResourceLimitError"), result.stderr
    assert "memory limit of 120.0 MiB" in result.stderr
    assert "-->" not in result.stderr  # stopped before any of the program ran


def test_standard_input_that_never_ends_is_bounded_by_the_time_limit(tmp_path: Path) -> None:
    process = subprocess.Popen(
        [sys.executable, "-m", "kclpy", "run", "-", "--timeout", "1"],
        cwd=tmp_path,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert process.stdin is not None and process.stderr is not None
    try:
        process.stdin.write(b"a = 1\n")  # and the pipe stays open
        process.stdin.flush()
        assert process.wait(timeout=HANG) == 1
        errors = process.stderr.read().decode()
    finally:
        process.kill()
        process.wait()
        for stream in (process.stdin, process.stdout, process.stderr):
            if stream is not None:
                stream.close()
    assert errors.startswith("error[E3R01]: ResourceLimitError"), errors
    assert "longer than the time limit of 1s" in errors


def test_a_glob_through_symlink_loops_is_bounded_by_the_time_limit(tmp_path: Path) -> None:
    # each loop doubles the paths at every level: the walk would not end in years
    (tmp_path / "loop1").symlink_to(".")
    (tmp_path / "loop2").symlink_to(".")
    result = run(tmp_path, 'import file\na = len(file.glob("**"))\n', "--timeout", "2")
    assert result.returncode == 1, result.stdout[-500:] + result.stderr
    assert result.stderr.startswith("error[E3R01]: ResourceLimitError"), result.stderr
    assert "main.k:2:" in result.stderr
