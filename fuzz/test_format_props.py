"""Property tests of the formatter (``kclpy.tools.format``).

For every parseable ``.k`` file of the test suite (and of ``.corpus/`` when it is
there: kcl-conformance, the k8s models, konfig), and for generated programs:

1. formatting is idempotent: ``fmt(fmt(x)) == fmt(x)``;
2. the formatted text parses to the same tree (positions aside);
3. every comment survives, in order;
4. extra blanks between tokens, and comments added at the ends of lines or
   between lines, do not break 1-3 (and blanks do not change the result);
5. conformance programs (``tests/conformance``, a sample of ``.corpus``) print
   the same output before and after formatting.
"""

from __future__ import annotations

import contextlib
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
from kclpy.tools.format import FormatError, format_code

pytestmark = pytest.mark.filterwarnings("ignore::hypothesis.errors.HypothesisWarning")

ROOT = pathlib.Path(__file__).resolve().parents[1]
CORPUS = ROOT / ".corpus"  # git-ignored: present on a developer's machine only
CORPUS_PARTS = ("kcl-conformance", "k8s", "konfig", "konfig-compat")
POSITIONS = re.compile(r" \d+:\d+-\d+:\d+$", re.MULTILINE)


def _sources() -> list[pathlib.Path]:
    files = sorted((ROOT / "tests").rglob("*.k"))
    files += sorted((ROOT / "tests" / "tools" / "format_cases").glob("*.in"))
    for part in CORPUS_PARTS:
        files += sorted((CORPUS / part).rglob("*.k"))
    return files


SOURCES = _sources()
TRACKED = sum(1 for path in SOURCES if CORPUS not in path.parents)


def _read(path: pathlib.Path) -> str:
    with open(path, encoding="utf-8", newline="") as handle:
        return handle.read()


def _parse(text: str) -> tuple[str, list[str]] | None:
    """The tree (positions aside) and the comments of ``text``; None on syntax errors."""
    module, diagnostics = parse_source(text.replace("\r\n", "\n"), "main.k")
    if any(d.is_error for d in diagnostics):
        return None
    return POSITIONS.sub("", dump(module)), [c.text for c in module.comments]


def _problem(text: str) -> str | None:
    """What is wrong with formatting ``text`` (which parses), or None."""
    before = _parse(text)
    assert before is not None
    try:
        out = format_code(text)
    except FormatError as error:
        return f"refused: {error}"
    after = _parse(out)
    if after is None:
        return "the output does not parse"
    if after[0] != before[0]:
        return "the tree changed"
    if after[1] != before[1]:
        return "comments lost or reordered"
    if format_code(out) != out:
        return "not idempotent"
    return None


def test_invariants_on_every_sample_file() -> None:
    problems: list[str] = []
    checked = 0
    for path in SOURCES:
        text = _read(path)
        if _parse(text) is None:
            continue
        checked += 1
        problem = _problem(text)
        if problem is not None:
            problems.append(f"{path.relative_to(ROOT)}: {problem}")
    assert problems == []
    corpus = len(SOURCES) > TRACKED
    assert checked > (2500 if corpus else 100)


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
@given(st.integers(min_value=0, max_value=TRACKED - 1), st.randoms(use_true_random=False))
def test_extra_blanks_do_not_change_the_result(index: int, rng: random.Random) -> None:
    text = _read(SOURCES[index])
    shape = _parse(text)
    if shape is None:
        return
    respaced = _respace(text, rng)
    if _parse(respaced) != shape:
        return  # a blank that mattered (inside an interpolation, say)
    assert format_code(respaced) == format_code(text)


def _add_comments(text: str, rng: random.Random) -> str:
    """The text with comments at the ends of some lines and on lines of their own."""
    lines = text.split("\n")
    for _ in range(rng.randint(1, 6)):
        index = rng.randrange(len(lines))
        if rng.random() < 0.5:
            lines[index] += f" # added {index}"
        else:
            indent = len(lines[index]) - len(lines[index].lstrip(" "))
            lines.insert(index, " " * rng.choice([0, indent, indent + 4]) + f"# own {index}")
    return "\n".join(lines)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(min_value=0, max_value=len(SOURCES) - 1), st.randoms(use_true_random=False))
def test_comments_anywhere_stay_in_order(index: int, rng: random.Random) -> None:
    text = _add_comments(_read(SOURCES[index]), rng)
    shape = _parse(text)
    original = _parse(_read(SOURCES[index]))
    if shape is None or original is None or shape[0] != original[0]:
        return  # the comment landed in a string, or after a `\` continuation
    assert _problem(text) is None


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(programs)
def test_invariants_on_generated_programs(source: str) -> None:
    assert _problem(source) is None


def _output(folder: pathlib.Path, formatted: bool) -> tuple[str, str, list[str]]:
    """What running the case folder prints (its ``.k`` files formatted or not)."""
    main = folder / "main.k"
    sources = {}
    if formatted:
        for path in folder.rglob("*.k"):
            with contextlib.suppress(FormatError):  # a file with syntax errors runs as is
                sources[str(path)] = format_code(_read(path), filename=str(path))
    result = kclpy.run_files([str(main)], sources=sources, work_dir=str(folder))
    errors = [f"{d.code.id} {d.message}" for d in result.diagnostics if d.is_error]
    return result.text, result.log, errors


def _run_cases() -> list[pathlib.Path]:
    cases = sorted(
        golden.parent for golden in (ROOT / "tests" / "conformance").rglob("stdout.golden")
    )
    corpus = sorted(
        golden.parent
        for golden in (CORPUS / "kcl-conformance").rglob("stdout.golden")
        if not (golden.parent / "settings.yaml").exists()
    )
    return cases + random.Random(7).sample(corpus, min(len(corpus), 150))


@pytest.mark.parametrize("folder", _run_cases(), ids=lambda folder: str(folder.relative_to(ROOT)))
def test_programs_run_the_same_after_formatting(folder: pathlib.Path) -> None:
    if not (folder / "main.k").exists():
        pytest.skip("no main.k")
    assert _output(folder, formatted=True) == _output(folder, formatted=False)
