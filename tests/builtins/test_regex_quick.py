"""The ``regex`` module's quick path: backtrack-free patterns on short texts run on
Python's engine (no RE2 to load) with the results of the linear engine."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kclpy.vm.builtins.modules import regex_module
from kclpy.vm.builtins.modules.regex_quick import SHORT_TEXT, quick_pattern

QUICK = [
    r"[A-Za-z_][A-Za-z0-9_]*",
    r"^([1-9][0-9]{0,63})(E|P|T|G|M|K|Ei|Pi|Ti|Gi|Mi|Ki)$",
    r"^([+-]?[0-9.]+)([m]*[-+]?[0-9]*)$",  # anchored: one run may give characters up
    r"^(a|aa)(a|aa)",
    r"[a-z]*X",
    r"x.*",
    r"[^a]*a",
    r"^abc$",
    r"(ab|ac|d)",
    r"a*",
    r"",
    r"v[0-9]+\.[0-9]+",
    r"\x{41}b",
]

# each would backtrack on some text: a run that may give characters up to what follows,
# alternatives that may both match, or a feature whose engines differ
NOT_QUICK = [
    r"([+-]?[0-9.]+)([m]*[-+]?[0-9]*)$",  # [0-9.]+ gives to [0-9]*, at every start
    r"^a*a*a",  # two runs giving characters up
    r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$",  # the run gives its last character back
    r"a*a",
    r".*x",
    r"(a|)(a|)c",
    r"(a|a)(a|a)b",
    r"(a|aa)(a|aa)b",
    r"(E|Ei)i",
    r"(a|b)*",
    r"(?:ab)*",
    r"^(a+)+$",
    r"\d+",
    r"\w+",
    r"\bword\b",
    r"(?i)abc",
    r"x*?",
    r"a{,5}",
    r"(a)\1",
    r"a(?=b)",
    r"(?m)^a$",
    r"a^b",
]


@pytest.mark.parametrize("pattern", QUICK)
def test_backtrack_free_patterns_take_the_quick_path(pattern: str) -> None:
    assert isinstance(regex_module._compile(pattern), regex_module.ShortOrLinear)


@pytest.mark.parametrize("pattern", NOT_QUICK)
def test_other_patterns_take_the_linear_path(pattern: str) -> None:
    translated = regex_module._Translator(pattern).run() if "\\1" not in pattern else pattern
    assert quick_pattern(pattern, translated) is None
    assert not isinstance(regex_module._compile(pattern), regex_module.ShortOrLinear)


def _results(compiled: Any, text: str) -> list[tuple[tuple[int, int], tuple[Any, ...]]]:
    return [(m.span(), m.groups()) for m in regex_module._matches(compiled, text)]


def _agree(pattern: str, text: str) -> None:
    quick = regex_module._compile(pattern)
    assert isinstance(quick, regex_module.ShortOrLinear)
    linear = regex_module._compile_linear(pattern)
    assert quick.engine(text) is quick.quick
    assert _results(quick, text) == _results(linear, text), (pattern, text)
    found = quick.search(text)
    expected = linear.search(text)
    assert (found and (found.span(), found.groups())) == (
        expected and (expected.span(), expected.groups())
    )


TEXTS = ["", "abc", "aXbX", "Ei", "12Ki", "0Mi", "99999E", "abc-def", "v1.2 v3.45", "x\ny", "AAbb"]
TEXTS += ["100m", "1.5", "-2", "12x", "aaa", "0.5m+3"]


@pytest.mark.parametrize("pattern", QUICK)
def test_quick_results_are_the_linear_engines(pattern: str) -> None:
    for text in TEXTS:
        _agree(pattern, text)


_ATOMS = st.sampled_from(["a", "b", "1", "[ab]", "[^a]", "[0-9]", ".", "\\.", "[a-b1]"])
_QUANTIFIERS = st.sampled_from(["", "", "?", "*", "+", "{2}", "{1,3}", "{0,2}"])
_ALTERNATIONS = st.lists(st.text("ab1", min_size=0, max_size=3), min_size=2, max_size=3).map(
    lambda texts: "(" + "|".join(texts) + ")"
)
_ELEMENTS = st.one_of(
    st.tuples(_ATOMS, _QUANTIFIERS).map("".join),
    _ALTERNATIONS,
    st.lists(st.tuples(_ATOMS, _QUANTIFIERS).map("".join), min_size=1, max_size=3).map(
        lambda parts: "(" + "".join(parts) + ")"
    ),
)
_PATTERNS = st.tuples(
    st.sampled_from(["", "^"]),
    st.lists(_ELEMENTS, min_size=1, max_size=5).map("".join),
    st.sampled_from(["", "$"]),
).map("".join)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.filter_too_much])
@given(_PATTERNS, st.lists(st.text("ab1.\nX", max_size=12), min_size=1, max_size=4))
def test_generated_quick_patterns_agree_with_the_linear_engine(
    pattern: str, texts: list[str]
) -> None:
    if not isinstance(regex_module._compile(pattern), regex_module.ShortOrLinear):
        return
    for text in texts:
        _agree(pattern, text)


def test_long_texts_go_to_the_linear_engine() -> None:
    compiled = regex_module._compile(r"[a-z]*X")
    assert isinstance(compiled, regex_module.ShortOrLinear)
    long_text = "a" * (SHORT_TEXT + 1)
    assert compiled.engine(long_text) is not compiled.quick
    assert compiled.engine(long_text[:SHORT_TEXT]) is compiled.quick
    assert regex_module.findall(long_text + "X", r"[a-z]*X") == [long_text + "X"]
    assert regex_module.match(long_text, r"[a-z]*X") is False


def test_a_run_matching_a_plain_pattern_does_not_load_re2(tmp_path: Path) -> None:
    program = tmp_path / "main.k"
    program.write_text(
        'import regex\n\nname = "web_1"\nok = regex.match(name, r"^[A-Za-z_][A-Za-z0-9_]*$")\n'
        'size = regex.findall("10Gi 2Mi", r"[0-9]+(Gi|Mi)")\n',
        encoding="utf-8",
    )
    probe = (
        "import sys\n"
        "from kclpy.cli import main\n"
        "code = main(['run', sys.argv[1]])\n"
        "print('re2' in sys.modules, code)\n"
    )
    completed = subprocess.run(
        [sys.executable, "-c", probe, str(program)],
        capture_output=True,
        text=True,
        timeout=120,
        env={**__import__("os").environ, "KCLPY_NO_CACHE": "1"},
    )
    assert completed.returncode == 0, completed.stderr
    assert completed.stdout.splitlines()[-1] == "False 0"
    assert "ok: true" in completed.stdout
