"""kcl test / kclpy.test: test_* lambdas of a package, pass unless they raise."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import kclpy


def _package(folder: Path) -> Path:
    (folder / "main.k").write_text("schema P:\n    n: int = 1\n    check:\n        n > 0\n")
    (folder / "main_test.k").write_text(
        "test_ok = lambda {\n    assert P {}.n == 1\n}\n"
        'test_bad = lambda {\n    assert 1 == 2, "boom"\n}\n'
        "helper = lambda { 1 }\n"
    )
    return folder


def test_results_per_lambda(tmp_path: Path) -> None:
    cases = kclpy.test(str(_package(tmp_path)))
    assert [(case.name, case.passed) for case in cases] == [("test_ok", True), ("test_bad", False)]
    bad = cases[1].error
    assert bad is not None and bad.message == "boom"
    assert [case.name for case in kclpy.test(str(tmp_path), run_regexp="ok$")] == ["test_ok"]


def test_a_broken_package_fails_every_test(tmp_path: Path) -> None:
    _package(tmp_path)
    (tmp_path / "broken.k").write_text("x = [1][5]\n")
    cases = kclpy.test(str(tmp_path))
    assert cases and not any(case.passed for case in cases)


def test_cli_summary_and_exit_code(tmp_path: Path) -> None:
    _package(tmp_path)
    done = subprocess.run(
        [sys.executable, "-m", "kclpy", "test", str(tmp_path)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 1
    assert "test_ok: PASS" in done.stdout and done.stdout.rstrip().endswith("FAIL: 1/2")
