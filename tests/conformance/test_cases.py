"""Run every conformance case of ours through kclpy (in process) and compare."""

from __future__ import annotations

import os

import pytest

from kclpy.api import run_files
from tests.reference import reference_available, run_reference

from .cases import ROOT, Case, all_cases

# Cases that need a stage not built yet: name -> reason. Strict xfail, so a case
# that starts passing fails here until it is removed from this list.
PENDING = {}

CASES = all_cases()


def _param(case: Case) -> object:
    marks = []
    if case.name in PENDING:
        marks.append(pytest.mark.xfail(reason=PENDING[case.name], strict=True))
    return pytest.param(case, id=case.name, marks=marks)


def record_golden(case: Case) -> None:
    """Rewrite the case's ``stdout.golden`` with what the reference prints
    (``--update-goldens``); a case with a ``differs.md`` keeps kclpy's own golden."""
    if case.differs:
        return
    if not reference_available():
        pytest.skip("--update-goldens records conformance goldens from kcl_lib: not installed")
    result = run_reference(files=["main.k"], cwd=str(case.folder))
    assert result.ok, f"the reference fails on {case.name}: {result.stderr[:300]}"
    case.golden.write_text(result.stdout, encoding="utf-8")


@pytest.mark.parametrize("case", [_param(case) for case in CASES])
def test_case(case: Case, update_goldens: bool) -> None:
    if update_goldens and not case.expected_errors():
        record_golden(case)
    cwd = os.getcwd()
    os.chdir(case.folder)
    try:
        result = run_files(["main.k"], work_dir=str(case.folder))
    finally:
        os.chdir(cwd)
    expected = case.expected_errors()
    if expected:
        assert not result.ok, f"expected an error, got:\n{result.text}"
        errors = [d for d in result.diagnostics if d.is_error]
        first = errors[0]
        line, code, kind = expected[0]
        assert (first.code.id, first.code.kind) == (code, kind), first
        assert first.span is not None and first.span.begin_pos.line == line, first
        return
    assert result.ok, [str(d) for d in result.diagnostics]
    assert result.log + result.text == case.golden.read_text(encoding="utf-8")


def test_cases_exist() -> None:
    assert len(CASES) >= 40
    assert all((c.folder / "stdout.golden").exists() or c.expected_errors() for c in CASES), ROOT
