"""How the ``kcl`` process ends (kclpy.entry): at once after the command, streams flushed
and exit handlers run, with the command's exit code; the usual interpreter exit where a
thread that is no daemon still runs or KCLPY_CLEAN_EXIT is set."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

# A driver process: os._exit reports its call, an exit handler reports it ran, a thread
# that is no daemon (mode "thread") reports when it ends, after the main thread; then
# the `kcl` entry point.
_DRIVER = """
import atexit, os, sys, threading, time

leave = os._exit

def reported_exit(code):
    os.write(2, b"leaving at once\\n")
    leave(code)

os._exit = reported_exit
atexit.register(lambda: sys.stderr.write("exit handler\\n"))
if sys.argv[1] == "thread":  # a thread that ends after the main thread (however long)
    def outlive():
        while threading.main_thread().is_alive():
            time.sleep(0.01)
        os.write(2, b"thread done\\n")
    threading.Thread(target=outlive).start()
sys.argv = ["kcl", *sys.argv[2:]]
from kclpy.entry import main
raise SystemExit(main())
"""


def _drive(
    mode: str, *args: str, cwd: Path, clean: bool = False
) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ)
    env.pop("KCLPY_CLEAN_EXIT", None)
    if clean:
        env["KCLPY_CLEAN_EXIT"] = "1"
    return subprocess.run(
        [sys.executable, "-c", _DRIVER, mode, *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


@pytest.fixture
def program(tmp_path: Path) -> Path:
    # a result longer than any stream buffer: all of it must reach the reader
    (tmp_path / "main.k").write_text("items = [i for i in range(20000)]\nname = 'end'\n")
    return tmp_path


def test_the_process_leaves_at_once_with_streams_and_exit_handlers_done(program: Path) -> None:
    done = _drive("plain", "run", "main.k", cwd=program)
    assert done.returncode == 0, done.stderr
    assert done.stdout.endswith("- 19999\nname: end\n")
    assert "exit handler" in done.stderr
    assert done.stderr.endswith("leaving at once\n")


def test_the_exit_code_of_a_failing_program_is_kept(program: Path) -> None:
    (program / "bad.k").write_text("a = 1 + 'x'\n")
    done = _drive("plain", "run", "bad.k", cwd=program)
    assert done.returncode == 1
    assert "error[" in done.stderr
    assert done.stderr.endswith("exit handler\nleaving at once\n")
    usage = _drive("plain", "run", "--no-such-option", cwd=program)
    assert usage.returncode == 2


@pytest.mark.parametrize("mode, clean", [("thread", False), ("plain", True)])
def test_the_usual_exit_where_it_cannot_be_known_that_nothing_is_left(
    program: Path, mode: str, clean: bool
) -> None:
    done = _drive(mode, "run", "main.k", cwd=program, clean=clean)
    assert done.returncode == 0, done.stderr
    assert done.stdout.endswith("name: end\n")
    assert "exit handler" in done.stderr
    assert "leaving at once" not in done.stderr
    assert ("thread done" in done.stderr) == (mode == "thread")
