"""Names take the characters the reference's lexer takes (Unicode XID), not Python's
``\\w``: combining marks, vowel signs and ``‿`` continue a name, ``℘`` starts one,
``²`` and ``½`` are not part of one."""

from __future__ import annotations

import pytest

import kclpy
from kclpy.syntax.lexer import raw_tokens
from tests.reference import reference_available, run_reference

XID_NAMES = ["नाम", "cafe\u0301", "x\u0301", "x‿y", "℘", "名字", "_x", "$if", "aⅠ", "ᢅx"]


@pytest.mark.parametrize("name", [*XID_NAMES, "r\u0301", "$नाम"])
def test_xid_names_are_one_token(name: str) -> None:
    assert [(t.type, t.value) for t in raw_tokens(f"{name} = 1")[:2]] == [
        ("NAME", name),
        ("ASSIGN", "="),
    ]


@pytest.mark.parametrize(
    ("text", "name"), [("a² = 1", "a"), ("a½b = 1", "a"), ("²a = 1", ""), ("r² = 1", "r")]
)
def test_a_name_stops_at_a_character_that_is_not_xid(text: str, name: str) -> None:
    tokens = [(t.type, t.value) for t in raw_tokens(text)]
    bad = text[len(name)]
    assert tokens[: 2 if name else 1] == ([("NAME", name)] if name else []) + [("ERRORCHAR", bad)]


# (program, what it prints or the start of its error)
PROGRAMS = [
    ("नाम = 1\n", "नाम: 1\n"),
    ("cafe\u0301 = 1\n", "cafe\u0301: 1\n"),
    ("x‿y = 1\n", "x‿y: 1\n"),
    ("℘ = 1\n", "℘: 1\n"),
    ("a² = 1\n", "error"),
    ("½ = 1\n", "error"),
]


@pytest.mark.parametrize(("program", "expected"), PROGRAMS)
def test_programs(program: str, expected: str) -> None:
    result = kclpy.run(program)
    if expected == "error":
        assert [d.code.value[0] for d in result.diagnostics][:1] == ["E1001"]
    else:
        assert not result.diagnostics and result.text == expected


@pytest.mark.skipif(not reference_available(), reason="kcl-lib (the reference) is not installed")
@pytest.mark.parametrize(("program", "expected"), PROGRAMS)
def test_the_reference_agrees(program: str, expected: str) -> None:
    reference = run_reference(program)
    if expected == "error":
        assert reference.returncode == 1 and "unknown start of token" in reference.stderr
    else:
        assert reference.returncode == 0, reference.stderr
        assert reference.stdout == expected
