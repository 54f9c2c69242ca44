"""The output of bare top-level expressions, as the reference plans it: values of
expressions (calls excepted) unify into the output document; None and Undefined give
way; lists unify item by item and conflict with visible variables; an empty list prints
nothing. Each case is checked against the reference when it is installed."""

from __future__ import annotations

import pytest

import kclpy
from tests.reference import reference_available, run_reference

SCHEMA = "schema P:\n    n: int = 1\n"

# (program, the text printed, or the error message)
CASES = [
    ("None\n", "null\n"),
    ("Undefined\n", "null\n"),
    ("None if True else 1\n", "null\n"),
    ("_a = 1\nNone\n", "null\n"),
    ("None\na = 1\n", "a: 1\n"),
    ("a = 1\nNone\n", "a: 1\n"),
    ("x = None\nx\n", "x: null\n"),
    ("{}\nNone\n", "{}\n"),
    ("None\n{a = 1}\n", "a: 1\n"),
    ('None\n"s"\n', "s\n"),
    ('Undefined\n"s"\n', "s\n"),
    ("[1]\nNone\n", "- 1\n"),
    ("f = lambda { 1 }\nf()\n", "{}\n"),
    ('print("x")\n', "x\n{}\n"),
    ("[]\n", ""),
    ("[]\n_a = 1\n", ""),
    ("[{b = 1}, {c = 2}]\n", "b: 1\n---\nc: 2\n"),
    ("[{a = 1}]\n[{b = 1}]\n", "a: 1\nb: 1\n"),
    ("1\n1\n", "1\n"),
    ("1\n2\n", "conflicting values between 2 and 1"),
    ("1\n[{a = 1}]\n", "conflicting values between [...] and 1"),
    ("[]\n[{a = 1}]\n", "conflicting values between [...] and [...]"),
    ("[]\na = 1\n", "conflicting values between {...} and [...]"),
    ("a = 1\n[{b = 1}, {c = 2}]\n", "conflicting values between {...} and [...]"),
    (SCHEMA + "P {}\nP {n = 2}\n", "'n': 2\n"),
    (SCHEMA + "P {}\n{a = 1}\n", "'n': 1\na: 1\n"),
    # a schema expression takes the place of the previous one, or of the first value
    (SCHEMA + "{a = 1}\nP {}\n", "'n': 1\n"),
    (SCHEMA + "{a = 1}\n{b = 2}\nP {}\n", "b: 2\n'n': 1\n"),
    (SCHEMA + "p = P {}\n{a = 1}\np\n", "a: 1\n'n': 1\np:\n  'n': 1\n"),
    (SCHEMA + "P {}\n{a = 1}\nP {n = 3}\n", "a: 1\n'n': 3\n"),
]
IDS = [program.replace("\n", "; ") for program, _ in CASES]


def printed(program: str) -> str:
    result = kclpy.run(program)
    errors = [d.message for d in result.diagnostics if d.severity.name == "ERROR"]
    return errors[0] if errors else result.log + result.text


@pytest.mark.parametrize(("program", "expected"), CASES, ids=IDS)
def test_bare_expressions(program: str, expected: str) -> None:
    assert printed(program) == expected


@pytest.mark.skipif(not reference_available(), reason="kcl-lib (the reference) is not installed")
@pytest.mark.parametrize(("program", "expected"), CASES, ids=IDS)
def test_the_reference_agrees(program: str, expected: str) -> None:
    reference = run_reference(program)
    if expected.startswith("conflicting values"):
        assert reference.returncode == 1
        assert expected in reference.stderr
    else:
        assert reference.returncode == 0, reference.stderr
        assert reference.stdout.strip("\n") == expected.strip("\n")
