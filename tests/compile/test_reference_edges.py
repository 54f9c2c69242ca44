"""The language's last mile against the reference (kcl-lib, in a subprocess).

Bare call statements, the reference's stricter syntax rules and the dict
``filter`` order: each program runs through kclpy and the reference; the
outputs (or the fact and kind of an error) must agree. Skipped without kcl-lib.
"""

from __future__ import annotations

import pytest

from kclpy.api import run

try:
    from reference import reference_available, run_reference
except ImportError:  # tests/ imported as a package
    from tests.reference import reference_available, run_reference  # type: ignore[no-redef]

needs_reference = pytest.mark.skipif(not reference_available(), reason="kcl_lib not installed")

SAME_OUTPUT = {
    "call statement emits nothing": "make = lambda {{a = 1}}\nmake()\nb = 1\n",
    "call after an expression": "f = lambda {{a = 1}}\nx = 1\n{a = 2}\nf()\n",
    "schema call statement": "schema S:\n    a: int = 1\nS()\nz = 2\n",
    "parenthesized call is an expression": "f = lambda {{a = 1}}\n(f())\nz = 2\n",
    "print statement": 'print("hello")\nz = 2\n',
    "dict filter": "x = filter k, v in {a = 1, b = 2, c = 3} {v >= 2}\n",
    "dict filter keeps the keys": "x = filter k, v in {a = 1, b = 2, c = 3, d = 4} {k != 'b'}\n",
    "call arguments on their own lines": "f = lambda a, b {a}\nx = f(\n    1,\n    2\n)\n",
}

SAME_REJECTION = {
    "else on a new line": ("x = 1 if True\nelse 2\n", "InvalidSyntax"),
    "call arguments broken after a comma": (
        "f = lambda a, b {a}\nx = f(1,\n2)\n",
        "InvalidSyntax",
    ),
    "a second mixin clause": (
        "schema AMixin:\n    a: int = 1\nschema BMixin:\n    b: int = 2\n"
        "schema S:\n    mixin [AMixin]\n    mixin [BMixin]\n    c: int = 1\ns = S{}\n",
        "CompileError",
    ),
}


@needs_reference
@pytest.mark.parametrize("name", sorted(SAME_OUTPUT))
def test_same_output_as_the_reference(name: str) -> None:
    code = SAME_OUTPUT[name]
    reference = run_reference(code)
    assert reference.returncode == 0, reference.stderr
    mine = run(code)
    assert mine.ok, mine.diagnostics
    assert mine.log + mine.text == reference.stdout


@needs_reference
@pytest.mark.parametrize("name", sorted(SAME_REJECTION))
def test_same_rejection_as_the_reference(name: str) -> None:
    code, kind = SAME_REJECTION[name]
    reference = run_reference(code)
    assert reference.returncode != 0
    assert kind in reference.stderr
    mine = run(code)
    assert not mine.ok
    assert mine.diagnostics[0].code.kind == kind
    assert mine.diagnostics[0].span is not None
