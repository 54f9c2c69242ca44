"""Depth limits (kclpy.depth): every stage takes the reference's depths and more.

End to end through the installed ``kcl`` (``python -m kclpy``) in a subprocess:
nesting as deep as the reference's limits runs and gives the reference's output
(the reference's own limits, measured with kcl-lib 0.13.2: 4,285 parentheses,
a 6,461-term binary chain, 2,000+ nested ``if`` blocks; it panics on output
nested more than ~128 deep, where kclpy goes on). Beyond the budget a stage
reports a coded, located diagnostic, never an internal error.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from kclpy.depth import MAX_BRACKETS, MAX_NESTING, innermost_span, run_deep
from kclpy.loader import Loader
from kclpy.sema import check_program


def nested_ifs(depth: int) -> str:
    lines = ["    " * level + "if True:" for level in range(depth)]
    return "\n".join([*lines, "    " * depth + "x = 1"]) + "\n"


PROGRAMS = {
    "parentheses": lambda n: "x = " + "(" * n + "1" + ")" * n + "\n",
    "binary chain": lambda n: "x = " + " + ".join(["1"] * n) + "\n",
    "if blocks": nested_ifs,
    "if-else expressions": lambda n: "x = " + "1 if True else " * n + "2\n",
    "lambdas": lambda n: "f = " + "lambda { " * n + "1" + " }" * n + "\nx = 1\n",
    "dicts": lambda n: "x = " + "{a = " * n + "1" + "}" * n + "\nz = 1\n",
    "lists": lambda n: "x = " + "[" * n + "1" + "]" * n + "\nz = 1\n",
}

# the reference's depth or more; the last value of each row is where it is printed
DEPTHS = {
    "parentheses": (4_285, "x: 1"),
    "binary chain": (6_461, "x: 6461"),
    "if blocks": (2_000, "x: 1"),
    "if-else expressions": (2_000, "x: 1"),
    "lambdas": (2_000, "x: 1"),
    "dicts": (2_000, "z: 1"),
    "lists": (2_000, "z: 1"),
}


def kcl(folder: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "kclpy", *args],
        cwd=folder,
        capture_output=True,
        text=True,
        timeout=600,
        env={**os.environ, "KCLPY_NO_CACHE": "1"},
    )


@pytest.mark.parametrize("kind", sorted(DEPTHS))
def test_the_reference_depths_run(kind: str, tmp_path: Path) -> None:
    depth, expected = DEPTHS[kind]
    (tmp_path / "main.k").write_text(PROGRAMS[kind](depth), encoding="utf-8")
    result = kcl(tmp_path, "run", "main.k")
    assert result.returncode == 0, result.stderr[-2000:]
    assert expected in result.stdout.splitlines()
    assert "Traceback" not in result.stderr


def test_formatting_and_linting_deep_programs(tmp_path: Path) -> None:
    source = PROGRAMS["binary chain"](6_461) + PROGRAMS["parentheses"](4_285).replace("x", "y")
    (tmp_path / "main.k").write_text(source, encoding="utf-8")
    assert kcl(tmp_path, "fmt", "main.k").returncode == 0
    assert (tmp_path / "main.k").read_text(encoding="utf-8") == source
    linted = kcl(tmp_path, "lint", "main.k")
    assert "E9999" not in linted.stdout + linted.stderr


def test_brackets_beyond_the_limit_are_a_located_syntax_error(tmp_path: Path) -> None:
    depth = MAX_BRACKETS + 1
    (tmp_path / "main.k").write_text(PROGRAMS["parentheses"](depth), encoding="utf-8")
    result = kcl(tmp_path, "run", "main.k")
    assert result.returncode == 1
    assert result.stderr.startswith("error[E1001]: InvalidSyntax")
    assert f"main.k:1:{4 + depth}" in result.stderr
    assert f"too many nested brackets (more than {MAX_BRACKETS})" in result.stderr


def check_with_limit(source: str, folder: Path, limit: int) -> list[str]:
    """Check ``source`` on a plain thread whose recursion limit is ``limit``."""
    (folder / "main.k").write_text(source, encoding="utf-8")
    program = Loader(str(folder)).load([str(folder / "main.k")])
    found: list[str] = []

    def body() -> None:
        saved = sys.getrecursionlimit()
        sys.setrecursionlimit(limit)
        try:
            model = check_program(program)
        finally:
            sys.setrecursionlimit(saved)
        for diagnostic in model.diagnostics:
            span = diagnostic.span
            where = "" if span is None else f"{span.file.path}:{span.begin_pos[0]}"
            found.append(f"{diagnostic.code.id} {where} {diagnostic.message}")

    worker = threading.Thread(target=body)
    worker.start()
    worker.join()
    return found


def test_beyond_the_budget_the_checker_says_where(tmp_path: Path) -> None:
    # the budget scaled down (a limit of 1,500 frames) so that the test stays small
    source = "a = 1\n" + PROGRAMS["binary chain"](3_000)
    found = check_with_limit(source, tmp_path, 1_500)
    assert len(found) == 1
    assert found[0].startswith(f"E2L23 {tmp_path / 'main.k'}:2 the program is nested too deeply")


def test_run_deep_gives_results_and_exceptions() -> None:
    def depth(level: int) -> int:
        return level if level >= MAX_NESTING * 4 else depth(level + 1)

    assert run_deep(depth, 0) == MAX_NESTING * 4
    with pytest.raises(ValueError, match="bad"):
        run_deep(int, "bad")


def test_innermost_span_without_a_node_is_none() -> None:
    try:
        raise RecursionError("deep")
    except RecursionError as error:
        assert innermost_span(error) is None


def _waiting(thread_id: int) -> bool:
    """Whether the thread ``thread_id`` is blocked in threading's waits (run_deep's)."""
    frame = sys._current_frames().get(thread_id)
    names = []
    while frame is not None and len(names) < 3:
        names.append(frame.f_code.co_name)
        frame = frame.f_back
    return names == ["wait", "wait", "run_deep"]


@pytest.fixture
def default_sigint() -> Iterator[None]:
    """SIGINT raises KeyboardInterrupt in this process for the test (whatever handler
    another test of this worker left behind)."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


@pytest.mark.usefixtures("default_sigint")
def test_an_interrupt_reaches_the_deep_thread() -> None:
    """SIGINT goes to the main thread; run_deep hands it to the deep one, whose
    handlers run (the CLI's reports "interrupted" and exits 130)."""
    started = threading.Event()
    main = threading.get_ident()

    def work() -> str:
        started.set()
        try:
            while True:
                sum(range(100))
        except KeyboardInterrupt:  # delivered by run_deep from the main thread
            return "stopped"

    def interrupt() -> None:
        started.wait()
        while not _waiting(main):
            threading.Event().wait(0.01)
        os.kill(os.getpid(), signal.SIGINT)

    helper = threading.Thread(target=interrupt)
    helper.start()
    try:
        assert run_deep(work) == "stopped"
    finally:
        helper.join()


@pytest.mark.usefixtures("default_sigint")
def test_an_unhandled_interrupt_is_raised_to_the_caller() -> None:
    """A worker that does not handle the interrupt stops; the caller's handlers
    (the CLI's signal handling) then see the main thread's own exception."""
    started = threading.Event()
    main = threading.get_ident()

    def work() -> None:
        started.set()
        while True:
            sum(range(100))

    def interrupt() -> None:
        started.wait()
        while not _waiting(main):
            threading.Event().wait(0.01)
        os.kill(os.getpid(), signal.SIGINT)

    helper = threading.Thread(target=interrupt)
    helper.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            run_deep(work)
    finally:
        helper.join()
