"""Property tests of the formatter (``kclpy.tools.format``).

For every parseable ``.k`` file of the test suite (and of ``.corpus/`` when it is
there), and for generated programs:

1. formatting is idempotent;
2. the formatted text parses to the same tree (positions aside);
3. every comment survives, in order;
4. extra blanks between tokens do not change the result;
5. programs of the conformance cases print the same YAML before and after.
"""

from __future__ import annotations

import pathlib
import random
import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_syntax_props import programs

import kclpy
from kclpy.syntax import parse_source
from kclpy.syntax.dump import dump
from kclpy.syntax.lexer import raw_tokens
from kclpy.tools.format import format_code

pytestmark = pytest.mark.filterwarnings("ignore::hypothesis.errors.HypothesisWarning")

ROOT = pathlib.Path(__file__).resolve().parents[1]
POSITIONS = re.compile(r" \d+:\d+-\d+:\d+$", re.MULTILINE)


def _sources() -> list[pathlib.Path]:
    files = sorted((ROOT / "tests").rglob("*.k"))
    files += sorted((ROOT / "tests" / "tools" / "format_cases").glob("*.in"))
    corpus = ROOT / ".corpus" / "kcl-conformance"
    if corpus.is_dir():  # git-ignored: present on a developer's machine only
        files += sorted(corpus.rglob("*.k"))
    return files


SOURCES = _sources()


def _shape(text: str) -> str | None:
    module, diagnostics = parse_source(text, "main.k")
    if any(d.is_error for d in diagnostics):
        return None
    return POSITIONS.sub("", dump(module))


def _check(text: str) -> str:
    shape = _shape(text)
    assert shape is not None
    out = format_code(text)
    assert _shape(out) == shape
    assert format_code(out) == out
    before = [c.text for c in parse_source(text)[0].comments]
    assert [c.text for c in parse_source(out)[0].comments] == before
    return out


def test_invariants_on_every_sample_file() -> None:
    checked = 0
    for path in SOURCES:
        text = path.read_text(encoding="utf-8")
        if _shape(text) is None:
            continue
        _check(text)
        checked += 1
    assert checked > 90


def _respace(text: str, rng: random.Random) -> str:
    """The text with 1-3 spaces wherever two tokens of a line were apart."""
    tokens = [t for t in raw_tokens(text) if t.type not in ("NEWLINE",)]
    out: list[str] = []
    last = 0
    for token in tokens:
        gap = text[last : token.lexpos]
        if gap and gap.strip(" ") == "" and last > 0 and text[last - 1] != "\n":
            gap = " " * rng.randint(1, 3)
        out.append(gap)
        out.append(text[token.lexpos : token.end])
        last = token.end
    out.append(text[last:])
    return "".join(out)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(min_value=0, max_value=len(SOURCES) - 1), st.randoms(use_true_random=False))
def test_extra_blanks_do_not_change_the_result(index: int, rng: random.Random) -> None:
    text = SOURCES[index].read_text(encoding="utf-8")
    if _shape(text) is None:
        return
    respaced = _respace(text, rng)
    if _shape(respaced) != _shape(text):
        return  # a blank that mattered (inside an interpolation, say)
    assert format_code(respaced) == format_code(text)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(programs)
def test_invariants_on_generated_programs(source: str) -> None:
    _check(source)


def test_conformance_programs_run_the_same() -> None:
    cases = sorted((ROOT / "tests" / "conformance").glob("*/*/stdout.golden"))
    assert cases
    for golden in cases:
        folder = golden.parent
        text = (folder / "main.k").read_text(encoding="utf-8")
        before = kclpy.run(text, filename=str(folder / "main.k"))
        after = kclpy.run(format_code(text), filename=str(folder / "main.k"))
        assert (after.log, after.text) == (before.log, before.text), folder.name
