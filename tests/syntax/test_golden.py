"""Golden AST dumps: every ``cases/*.k`` parses without diagnostics and dumps
exactly as its ``*.ast.golden`` (``pytest --update-goldens`` rewrites them)."""

from __future__ import annotations

import pathlib

import pytest

from kclpy.syntax import parse_source
from kclpy.syntax.dump import dump

CASES = pathlib.Path(__file__).parent / "cases"
NAMES = sorted(path.stem for path in CASES.glob("*.k"))


@pytest.mark.parametrize("name", NAMES)
def test_golden(name: str, update_goldens: bool) -> None:
    source = CASES / f"{name}.k"
    golden = CASES / f"{name}.ast.golden"
    module, diagnostics = parse_source(source.read_text(encoding="utf-8"), f"{name}.k")
    assert [d.message for d in diagnostics] == []
    text = dump(module, comments=True)
    if update_goldens:
        golden.write_text(text, encoding="utf-8")
    assert text == golden.read_text(encoding="utf-8")


def test_every_case_has_a_golden() -> None:
    goldens = sorted(path.name.removesuffix(".ast.golden") for path in CASES.glob("*.ast.golden"))
    assert goldens == NAMES
