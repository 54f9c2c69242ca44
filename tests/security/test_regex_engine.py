"""The ``regex`` module's engines: RE2 (linear time) first, a bounded backtracker only
for look-around and backreferences; results equal to the reference's.

* A generated pattern set (classes, Unicode properties, anchors, groups, alternation,
  greedy and lazy quantifiers, inline flags) over ASCII and non-ASCII texts runs
  through kclpy and through kcl-lib in one program each: ``findall`` and ``match``
  must agree.
* Catastrophic patterns: on RE2 they finish (the run has a time limit, so a
  regression fails with E3R01 instead of hanging); the backtracking engine stops
  with the reference's error name instead of running on.
"""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

import kclpy
from kclpy.vm.builtins.modules import regex_module

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from reference import reference_available, run_reference

ATOMS = [
    "a", "b", "é", "x", "1", ".", "\\d", "\\D", "\\w", "\\W", "\\s", "\\S", "[a-c]", "[^a1]",
    "[\\d\\s]", "[[:alpha:]]", "[[:digit:]x]", "\\pL", "\\p{Lu}", "\\PL", "\\p{Nd}", "\\x{e9}",
    "\\.", "[é-ü]", "\\n",
]  # fmt: skip
QUANTIFIERS = ["", "", "*", "+", "?", "{2}", "{1,3}", "*?", "+?", "??"]
TEXTS = [
    "abc 123 éÉ",
    "Straße ÀB x1_y2\nline two",
    "٣٤ 𝟘 a\u00a0b\u2003c",
    "aaa bbb\taaa",
    "",
]


def _pattern(chooser: random.Random) -> str:
    parts: list[str] = []
    for _ in range(chooser.randint(1, 4)):
        atom = chooser.choice(ATOMS) + chooser.choice(QUANTIFIERS)
        if chooser.random() < 0.2:
            atom = f"({atom}|{chooser.choice(ATOMS)})"
        elif chooser.random() < 0.1:
            atom = f"(?P<g{len(parts)}>{atom})"
        parts.append(atom)
    pattern = "".join(parts)
    roll = chooser.random()
    if roll < 0.15:
        pattern = "^" + pattern
    elif roll < 0.3:
        pattern += "$"
    elif roll < 0.4:
        pattern = "\\b" + pattern
    flag = chooser.choice(["", "", "", "(?i)", "(?m)", "(?s)", "(?is)"])
    return flag + pattern


def _program(patterns: list[str]) -> str:
    cases = json.dumps([[text, pattern] for pattern in patterns for text in TEXTS])
    return (
        "import regex\n"
        f"cases = {cases}\n"
        "found = [regex.findall(c[0], c[1]) for c in cases]\n"
        "matched = [regex.match(c[0], c[1]) for c in cases]\n"
        "replaced = [regex.replace(c[0], c[1], '<$0>') for c in cases]\n"
    )


@pytest.mark.skipif(not reference_available(), reason="kcl_lib is not installed")
def test_generated_patterns_match_the_reference() -> None:
    chooser = random.Random(14)
    patterns = sorted({_pattern(chooser) for _ in range(160)})
    program = _program(patterns)
    ours = kclpy.run(program)
    assert ours.ok, [str(d) for d in ours.diagnostics]
    theirs = run_reference(program)
    assert theirs.returncode == 0, theirs.stderr
    ours_values, their_values = yaml.safe_load(ours.text), yaml.safe_load(theirs.stdout)
    cases = ours_values["cases"]
    differences = [
        (key, *cases[index], mine, reference)
        for key in ("found", "matched", "replaced")
        for index, (mine, reference) in enumerate(
            zip(ours_values[key], their_values[key], strict=True)
        )
        if mine != reference
    ]
    assert not differences


def test_plain_patterns_use_re2_and_fancy_ones_the_bounded_engine() -> None:
    assert type(regex_module._compile("^(a+)+$")).__module__.startswith("re2")
    assert type(regex_module._compile("(\\w+)\\s\\1")) is regex_module.Bounded
    assert type(regex_module._compile("a(?=b)")) is regex_module.Bounded
    assert regex_module.findall("ab ab ac", "(\\w)(?=b)") == ["a", "a"]
    assert regex_module.match("hello hello", "(\\w+) \\1")


def test_catastrophic_pattern_finishes(tmp_path: Path) -> None:
    program = f'import regex\na = regex.match("{"a" * 34}!", "^(a+)+$")\n'
    (tmp_path / "main.k").write_text(program)
    result = subprocess.run(
        [sys.executable, "-m", "kclpy", "run", "main.k", "--timeout", "60"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert (result.returncode, result.stdout) == (0, "a: false\n"), result.stderr


def test_backtracking_is_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(regex_module, "BACKTRACK_SECONDS", 0.05)
    result = kclpy.run(f'import regex\na = regex.match("{"x" * 40}", "(?=x*)((x|xx|xxx)+)+y")\n')
    assert not result.ok
    (diagnostic,) = result.diagnostics
    assert diagnostic.code.id == "E3M38"
    assert "BacktrackLimitExceeded" in diagnostic.message
