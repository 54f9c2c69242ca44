"""Resource limits (kclpy.vm.limits) through the real ``kcl`` command and the API.

A refused allocation, a memory limit crossed by many small allocations and a time
limit all end in a located ``E3R01 ResourceLimitError`` with exit 1 and no
traceback; a run under limits leaves nothing behind for the next run or for runs in
other threads. Also the regressions of the CLI fuzz (``fuzz/test_cli_props.py``).
"""

from __future__ import annotations

import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import kclpy
from kclpy.depth import raise_in_thread
from kclpy.values.errors import KclRuntimeError
from kclpy.vm.limits import Guarded, LimitExceeded, ResourceLimits, parse_size

ENDLESS = "x = [[i, j] for i in range(100000) for j in range(100000)]\n"

Kcl = Callable[..., subprocess.CompletedProcess[str]]  # the fixture of conftest.py


def assert_limit(result: subprocess.CompletedProcess[str], where: str, words: str) -> None:
    assert result.returncode == 1, result.stdout + result.stderr
    assert result.stderr.startswith("error[E3R01]: ResourceLimitError"), result.stderr
    assert where in result.stderr
    assert words in result.stderr
    assert "Traceback" not in result.stderr


def test_huge_repetition_is_refused_before_allocating(kcl: Kcl, tmp_path: Path) -> None:
    result = kcl(tmp_path, "a = [0] * 10**10\n")
    assert_limit(result, "main.k:1:5", "left under the memory limit of ")


def test_string_doubling_stops_at_the_limit(kcl: Kcl, tmp_path: Path) -> None:
    program = 's = "ab"\nt = [s * 2 ** i for i in range(40)]\n'
    result = kcl(tmp_path, program, "--max-memory", "256M")
    assert_limit(result, "main.k:2:6", "memory limit of 256.0 MiB")


def test_many_small_allocations_cross_the_memory_limit(kcl: Kcl, tmp_path: Path) -> None:
    program = "x = [[i] * 1000 for i in range(1000000)]\n"
    result = kcl(tmp_path, program, "--max-memory", "300M")
    assert_limit(result, "main.k:1", "more than the memory limit of 300.0 MiB")


def test_writing_a_big_result_is_bounded_too(kcl: Kcl, tmp_path: Path) -> None:
    # the value fits (8 MB: one string, shared), its YAML text (300 MB) does not: the
    # output stage runs under the limit
    result = kcl(tmp_path, 'x = ["a" * 300] * 10**6\n', "--max-memory", "300M")
    assert_limit(result, "", "more than the memory limit of 300.0 MiB")
    assert result.stdout == ""


def test_the_text_of_a_big_list_takes_a_few_bytes_per_item(kcl: Kcl, tmp_path: Path) -> None:
    # 10**7 numbers: 80 MB of value, 40 MB of text; the writer once held ~70 bytes a piece
    result = kcl(tmp_path, "x = [0] * 10**7\n", "--max-memory", "300M")
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("x:\n- 0\n- 0\n")
    assert result.stdout.count("\n") == 10**7 + 1


def test_time_limit(kcl: Kcl, tmp_path: Path) -> None:
    result = kcl(tmp_path, ENDLESS, "--timeout", "1")
    assert_limit(result, "main.k:1", "longer than the time limit of 1s")


@pytest.mark.parametrize("option", [["--max-memory", "12Q"], ["--timeout", "-1"]])
def test_bad_limit_values_are_usage_errors(kcl: Kcl, tmp_path: Path, option: list[str]) -> None:
    result = kcl(tmp_path, "a = 1\n", *option)
    assert result.returncode == 2
    assert "Traceback" not in result.stderr


def test_api_limits_leave_no_trace_for_other_runs_and_threads() -> None:
    results: dict[str, kclpy.RunResult] = {}

    def run(name: str, code: str, **limits: float) -> None:
        results[name] = kclpy.run(code, **limits)  # type: ignore[arg-type]

    threads = [threading.Thread(target=run, args=("endless", ENDLESS), kwargs={"timeout": 0.5})]
    threads += [
        threading.Thread(target=run, args=(f"plain{index}", f"a = [i * {index} for i in range(3)]"))
        for index in range(4)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    (diagnostic,) = results["endless"].diagnostics
    assert diagnostic.code.id == "E3R01"
    for index in range(4):
        assert results[f"plain{index}"].text == f"a:\n- 0\n- {index}\n- {2 * index}\n"
    # the next run in this thread is not interrupted by a late signal
    assert kclpy.run("b = 1", timeout=5).text == "b: 1\n"
    refused = kclpy.run('a = "x" * 100000000', max_memory=50 << 20)
    assert refused.diagnostics[0].code.id == "E3R01"
    assert kclpy.run('a = len("x" * 100000000)', max_memory=0).text == "a: 100000000\n"


def test_parse_size() -> None:
    assert parse_size("512M") == 512 << 20
    assert parse_size("1.5GiB") == 3 << 29
    assert parse_size("100000") == 100000
    for bad in ("12Q", "-1G", "", "G"):
        with pytest.raises(ValueError):
            parse_size(bad)


def test_kcl_test_on_a_file_or_with_a_bad_pattern_is_a_usage_error(tmp_path: Path) -> None:
    (tmp_path / "main.k").write_text("a = 1\n")
    for argv in (["test", "main.k"], ["test", ".", "--run", "("]):
        result = subprocess.run(
            [sys.executable, "-m", "kclpy", *argv],
            cwd=tmp_path,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert result.returncode == 2, result.stderr
        assert result.stderr.startswith("error[E9002]: UsageError\n")


def test_a_swallowed_limit_is_raised_again() -> None:
    # the exception is asynchronous: code that happens to catch it (a library's broad
    # handler) must not leave the run going forever; the watchdog sends it again
    give_up = time.monotonic() + 20
    swallowed = 0
    limits = ResourceLimits(max_memory=0, timeout=0.1)
    with pytest.raises(KclRuntimeError, match="time limit"), Guarded(limits):
        try:
            while time.monotonic() < give_up:
                pass
        except LimitExceeded:
            swallowed += 1
        while time.monotonic() < give_up:
            pass
    assert swallowed == 1 and time.monotonic() < give_up


def test_a_limit_tripped_as_the_run_ends_does_not_replace_its_outcome(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The watchdog can trip a limit just as the guarded run leaves its body (CI saw
    the memory watchdog and an allocation check race): the exception it sends then
    arrives in the guard's cleanup, where it must not escape in place of the run's
    own error."""
    from kclpy.vm import limits

    target = threading.get_ident()

    class TrippingAsReleased(dict[int, Any]):
        """The watched runs; taking the test's run out trips its limit first, as a
        watchdog tick at that moment would."""

        def pop(self, key: int, *default: Any) -> Any:
            guard = self.get(key)
            if guard is not None and guard.thread == target and not guard.reason:
                guard.reason = "tripped as the run ended"
                raise_in_thread(target, LimitExceeded)
            return super().pop(key, *default)

    watched = TrippingAsReleased()
    monkeypatch.setattr(limits, "_active", watched)
    own_error = pytest.raises(KclRuntimeError, match="the run's own error")
    with own_error, Guarded(ResourceLimits(max_memory=1 << 40)):
        raise KclRuntimeError("the run's own error")
    time.sleep(0.05)  # nothing pending is delivered afterwards either
    assert not watched


@pytest.mark.parametrize("body_error", [False, True])
def test_a_limit_arriving_as_the_exit_is_entered_is_a_limit_error(
    monkeypatch: pytest.MonkeyPatch, body_error: bool
) -> None:
    """The watchdog's exception can arrive at the first instruction of the ``with``'s
    exit, before the exit can handle it (CI saw the traceback of a raw LimitExceeded
    writing a big output): ``within`` makes it the limit error, or lets the body's own
    error stand, and releases the guard either way."""
    from kclpy.vm import limits

    def arriving_first(self: limits.Guarded, *exc: Any) -> None:
        assert self.guard is not None  # the exit's own code never runs
        self.guard.reason = "tripped as the body ended"
        raise LimitExceeded

    monkeypatch.setattr(limits.Guarded, "__exit__", arriving_first)

    def work() -> int:
        if body_error:
            raise KclRuntimeError("the body's own error")
        return 1

    expected = "the body's own error" if body_error else "tripped as the body ended"
    with pytest.raises(KclRuntimeError, match=expected):
        limits.within(ResourceLimits(max_memory=1 << 40), work)
    assert not limits._active and getattr(limits._local, "guard", None) is None


def test_a_limit_arriving_in_the_exit_keeps_its_message(monkeypatch: pytest.MonkeyPatch) -> None:
    """The watchdog's exception can also arrive while the exit checks the memory once
    more: the error still says which limit tripped (the exit handles it, then releases)."""
    from kclpy.vm import limits

    def arriving_in_the_check(guard: Any) -> bool:
        guard.reason = "tripped during the exit's check"
        raise LimitExceeded

    monkeypatch.setattr(limits, "_over_at_end", arriving_in_the_check)
    with pytest.raises(KclRuntimeError, match="tripped during the exit's check"):
        limits.within(ResourceLimits(max_memory=1 << 40), lambda: 1)
    assert not limits._active and getattr(limits._local, "guard", None) is None
