"""Differential tests of ``kcl vet`` on kcl-lang/kcl's own vet cases (corpus mode).

The 50 validations of ``crates/tools/src/vet/tests.rs`` (see ``vet_upstream.py``) run
through kclpy (``kclpy.validate`` / ``kclpy.validate_code``) and through the reference
kcl-lib (``validate_code``, in one subprocess); each must meet the upstream
expectation, and both must agree on success, the error's kind and where it points
(the data file's line and column, or the code's). Skipped without the git-ignored
corpus (``benchmarks/prepare_corpus.py`` writes ``.corpus/kcl-vet``); the comparison
is skipped without the reference.
"""

from __future__ import annotations

import os

import pytest
from tools_helpers import HAVE_REFERENCE
from vet_upstream import CORPUS, Outcome, VetCase, cases, meets, run_kclpy, run_reference_cases

pytestmark = pytest.mark.skipif(
    not CORPUS.is_dir(), reason=".corpus/kcl-vet is not present (benchmarks/prepare_corpus.py)"
)

CASES = cases() if CORPUS.is_dir() else []

# Where kclpy deliberately points elsewhere (docs/differences.md, "kcl vet"): the real
# vet places a YAML mapping at its first colon; kclpy at the mapping's first key.
YAML_MAPPING_STARTS = {
    "yaml_pos/test.k": (1, 1),
    "yaml_pos/lambda_check.k": (1, 1),
    "only_code/test.k.yaml": (1, 1),
}


@pytest.fixture(scope="module")
def reference_outcomes() -> dict[str, Outcome]:
    if not HAVE_REFERENCE:
        pytest.skip("the reference (kcl_lib) is not installed")
    return {
        case.name: outcome for case, outcome in zip(CASES, run_reference_cases(CASES), strict=True)
    }


def test_the_corpus_holds_every_upstream_case() -> None:
    assert len(CASES) == 50
    assert all(case.data.is_file() for case in CASES)


@pytest.mark.parametrize("case", CASES, ids=lambda case: case.name)
def test_kclpy_meets_the_upstream_expectation(case: VetCase) -> None:
    outcome = run_kclpy(case)
    assert meets(case, outcome), outcome.text


@pytest.mark.parametrize("case", CASES, ids=lambda case: case.name)
def test_kclpy_agrees_with_the_reference(
    case: VetCase, reference_outcomes: dict[str, Outcome]
) -> None:
    mine, theirs = run_kclpy(case), reference_outcomes[case.name]
    assert meets(case, theirs), theirs.text  # the reference still does what tests.rs says
    assert mine.ok == theirs.ok, mine.text or theirs.text
    if mine.ok:
        return
    assert mine.kind == theirs.kind, (mine.text, theirs.text)
    if theirs.file is None:  # the reference names no place ("File <temp>.k:2")
        assert mine.file is not None
        return
    if case.name in YAML_MAPPING_STARTS:
        assert _place(case, theirs)[0] == _place(case, mine)[0] == "data"
        assert (theirs.line, theirs.column) != YAML_MAPPING_STARTS[case.name]
        assert (mine.line, mine.column) == YAML_MAPPING_STARTS[case.name]
        return
    assert _place(case, mine) == _place(case, theirs), (mine.text, theirs.text)


def _place(case: VetCase, outcome: Outcome) -> tuple[str, int, int]:
    """Where an error points: ``data`` or ``code`` (a temporary file of the reference
    and kclpy's ``main.k`` alike when the code is a text only), line and column."""
    assert outcome.file is not None
    path = os.path.realpath(outcome.file)
    if path == os.path.realpath(case.data):
        where = "data"
    elif case.code_file is None or path == os.path.realpath(case.code_file):
        where = "code"
    else:
        where = outcome.file
    return (where, outcome.line, outcome.column)
