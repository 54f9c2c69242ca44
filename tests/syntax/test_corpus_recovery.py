"""The syntax-error cases of the conformance corpus (``.corpus/kcl-conformance``,
built locally by ``../shared/conformance/build_corpus.py``; skipped when absent):
after a syntax error kclpy reports the error kinds of the case's ``stderr.golden``,
the follow-on errors of the recovered program included.

``NOT_YET`` lists the cases whose golden names a kind kclpy does not report, with
the reason; the test fails when one of them starts to agree (so the list shrinks).
``CASCADES`` are the reference's follow-on errors of no problem in the program.
"""

from __future__ import annotations

import pathlib
import re

import pytest

from kclpy import api

ROOT = pathlib.Path(__file__).resolve().parents[2] / ".corpus" / "kcl-conformance"

pytestmark = pytest.mark.skipif(not ROOT.is_dir(), reason=".corpus/kcl-conformance is not built")

_KIND = re.compile(r"error\[\w+\]: (\w+)")

# Cascades of the reference's own recovery, listed in docs/differences.md: `[i for i()
# in data]` takes `(` for `in`, then reads the keyword `in` as a variable ("name 'in' is
# not defined"); kclpy reports the one syntax error.
CASCADES = {
    "grammar/comprehension/dict/invalid_loop_var_fail_1",
    "grammar/comprehension/list/invalid_loop_var_fail_2",
    "grammar/comprehension/str/invalid_loop_var_fail_2",
}

NOT_YET: dict[str, str] = {}


def _cases() -> list[str]:
    if not ROOT.is_dir():
        return []
    found = []
    for golden in sorted(ROOT.rglob("stderr.golden")):
        if "InvalidSyntax" in golden.read_text(encoding="utf-8", errors="replace"):
            case = golden.parent
            if (case / "main.k").exists() and not (case / "settings.yaml").exists():
                found.append(str(case.relative_to(ROOT)))
    return found


@pytest.mark.parametrize("name", _cases())
def test_syntax_error_case_kinds(name: str) -> None:
    case = ROOT / name
    golden = set(_KIND.findall((case / "stderr.golden").read_text(encoding="utf-8")))
    result = api.run_files([str(case / "main.k")], work_dir=str(case))
    ours = {d.code.kind for d in result.diagnostics if d.is_error}
    missing = golden - ours
    if name in CASCADES:
        assert (ours, missing) == ({"InvalidSyntax"}, {"CompileError"})
        return
    if name in NOT_YET:
        assert missing, f"{name} agrees now: drop it from NOT_YET"
        return
    assert not missing, f"{name}: the golden's {sorted(missing)} not reported; got {sorted(ours)}"
