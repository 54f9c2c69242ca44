"""Hostile programs through the type checker and the VM (hypothesis).

Strategies build well-typed and ill-typed programs that stress what the parser
fuzzing cannot reach: deep nesting (brackets, configs, if blocks, lambdas), schemas
that refer to each other or inherit in a cycle, variables defined in a cycle, huge
literals (ints past 64 bits, long strings and lists), unusual Unicode (non-Latin
names, combining marks, joiners, line separators) and operations on the wrong types.

Properties:
* ``kclpy.run`` never raises and reports every problem as a coded diagnostic; no
  internal error (E9999) except the documented nesting limit of the checker.
* On a sample, a program is accepted by kclpy exactly when the reference accepts it
  (skipped without kcl-lib; programs that crash the reference are left out).

``KCLPY_FUZZ_EXAMPLES`` raises the number of examples.
"""

from __future__ import annotations

import os
import sys

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import kclpy
from kclpy.diag import Code

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tests"))
from reference import reference_available
from test_programs_reference import reference_batch

pytestmark = pytest.mark.filterwarnings("ignore::hypothesis.errors.HypothesisWarning")

EXAMPLES = int(os.environ.get("KCLPY_FUZZ_EXAMPLES", "60"))
ACCEPTED_INTERNAL = ("nested too deeply",)

scalars = st.sampled_from(
    ["1", "-7", "3.5", "True", "None", "Undefined", '"s"', "[]", "{}", "[1, 2]", "{a = 1}"]
)
operators = st.sampled_from(["+", "-", "*", "/", "//", "%", "**", "|", "&", "<<", "and", "in"])
strange_text = st.text(
    st.characters(blacklist_categories=["Cs", "Cc"], blacklist_characters='"\\{}$'),
    max_size=12,
)
# x\u0301 (a combining mark in a name): the reference accepts it, kclpy's lexer does
# not (reported to the language core; only the no-crash property uses it)
KNOWN_DIFFERENT = ("x\u0301",)
unicode_names = st.sampled_from(["名字", "café", "αβγ", "ид", "ñ_1", *KNOWN_DIFFERENT])


@st.composite
def deep_nesting(draw: st.DrawFn) -> str:
    depth = draw(st.integers(1, 120))
    shape = draw(st.sampled_from(["list", "paren", "config", "if", "lambda", "unary"]))
    if shape == "list":
        return f"a = {'[' * depth}1{']' * depth}\n"
    if shape == "paren":
        return f"a = {'(' * depth}1{')' * depth}\n"
    if shape == "config":
        return f"a = {'{b = ' * depth}1{'}' * depth}\n"
    if shape == "unary":
        return f"a = {'-' * depth}1\n"
    if shape == "lambda":
        depth = min(depth, 40)
        return f"f = {'lambda x { ' * depth}x{' }' * depth}\n"
    depth = min(depth, 40)
    lines = [f"{'    ' * level}if True:" for level in range(depth)]
    return "\n".join(lines) + f"\n{'    ' * depth}a = 1\n"


@st.composite
def schema_cycles(draw: st.DrawFn) -> str:
    kind = draw(st.sampled_from(["mutual", "self", "inherit", "variables", "check"]))
    if kind == "mutual":
        nest = draw(st.integers(0, 5))
        value = "A {}"
        for level in range(nest):
            value = f"B {{a = {value}}}" if level % 2 == 0 else f"A {{b = {value}}}"
        return f"schema A:\n    b?: B\nschema B:\n    a?: A\nx = {value}\n"
    if kind == "self":
        nest = draw(st.integers(0, 30))
        value = f"{'N {next = ' * nest}N {{}}{'}' * nest}"
        return f"schema N:\n    next?: N\n    v: int = 1\nn = {value}\n"
    if kind == "inherit":
        return "schema A(B):\n    a: int = 1\nschema B(A):\n    b: int = 2\nx = A {}\n"
    if kind == "variables":
        return "a = b + 1\nb = c + 1\nc = a + 1\n"
    return "schema S:\n    a: int = 1\n    check:\n        S {}.a == 1\ns = S {}\n"


@st.composite
def huge_literals(draw: st.DrawFn) -> str:
    kind = draw(st.sampled_from(["int", "float", "string", "list", "dict", "repeat"]))
    size = draw(st.integers(1, 5000))
    if kind == "int":
        return f"a = {draw(st.integers(2**62, 2**70))}\nb = -{'9' * size}\n"
    if kind == "float":
        return f"a = 1e{draw(st.integers(300, 400))}\nb = 0.{'1' * size}\n"
    if kind == "string":
        return f'a = "{"x" * size * 20}"\nb = a + a\n'
    if kind == "list":
        return f"a = [{', '.join(['1'] * size)}]\nb = len(a)\n"
    if kind == "dict":
        return "a = {" + ", ".join(f"k{index} = {index}" for index in range(size)) + "}\n"
    return f'a = "ab" * {draw(st.integers(0, 10**6))}\nb = len(a)\n'


@st.composite
def unusual_unicode(draw: st.DrawFn) -> str:
    name = draw(unicode_names)
    text = draw(strange_text)
    return f'{name} = "{text}"\nb = {name} + "\u2028"\nc = len({name})\nd = "{text}".upper()\n'


@st.composite
def ill_typed(draw: st.DrawFn) -> str:
    lines = []
    for index in range(draw(st.integers(1, 4))):
        form = draw(st.integers(0, 5))
        left, right = draw(scalars), draw(scalars)
        if form == 0:
            lines.append(f"v{index} = {left} {draw(operators)} {right}")
        elif form == 1:
            lines.append(f"v{index}: int = {left}")
        elif form == 2:
            lines.append(f"v{index} = {left}.attribute")
        elif form == 3:
            lines.append(f"v{index} = {left}[{right}]")
        elif form == 4:
            lines.append(f"v{index} = {left}({right})")
        else:
            lines.append(f"assert {left}, {right}")
    return "\n".join(lines) + "\n"


hostile_programs = st.one_of(
    deep_nesting(), schema_cycles(), huge_literals(), unusual_unicode(), ill_typed()
)


def check_clean(source: str) -> kclpy.RunResult:
    """Run ``source``; fail on an exception or an internal error."""
    result = kclpy.run(source)
    assert isinstance(result.text, str)
    for diagnostic in result.diagnostics:
        assert isinstance(diagnostic.code, Code)
        if diagnostic.code is Code.INTERNAL_ERROR:
            assert any(text in diagnostic.message for text in ACCEPTED_INTERNAL), (
                source,
                diagnostic.message,
            )
    return result


@settings(
    max_examples=EXAMPLES,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(hostile_programs)
def test_hostile_programs_give_diagnostics_only(source: str) -> None:
    check_clean(source)


@pytest.mark.skipif(not reference_available(), reason="kcl_lib is not installed")
@settings(
    max_examples=3,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(
    st.lists(st.one_of(schema_cycles(), unusual_unicode(), ill_typed()), min_size=10, max_size=10)
)
def test_acceptance_matches_the_reference(sources: list[str]) -> None:
    answers = reference_batch(sources)
    for source, answer in zip(sources, answers, strict=True):
        if answer.get("error") == "crash" or any(name in source for name in KNOWN_DIFFERENT):
            continue
        ours = check_clean(source)
        assert ours.ok == answer["ok"], (source, answer, [str(d) for d in ours.diagnostics])


def _outcome(source: str) -> tuple[str, list[str]]:
    result = check_clean(source)
    return result.text, [f"{d.code.id} {d.message}" for d in result.diagnostics]


@settings(
    max_examples=max(3, EXAMPLES // 20),
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(st.lists(hostile_programs, min_size=8, max_size=16))
def test_threads_give_the_sequential_results(sources: list[str]) -> None:
    """The same hostile programs from 8 threads at once: each result as run alone."""
    from concurrent.futures import ThreadPoolExecutor

    alone = [_outcome(source) for source in sources]
    with ThreadPoolExecutor(max_workers=8) as pool:
        together = list(pool.map(_outcome, sources * 2))
    assert together == alone * 2
