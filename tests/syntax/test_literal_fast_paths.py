"""Plain literals take fast paths in the layout filter; the values and the
diagnostics must be those of the general decoders (``kclpy.syntax.literals``)."""

from __future__ import annotations

import pytest

from kclpy.syntax import ast, parse_source
from kclpy.syntax.literals import decode_string


@pytest.mark.parametrize(
    "literal",
    ['"a"', "''", '""', "'x\"y'", '"a\\nb"', '"$a"', "r'\\d'", '"""q"""', "'''a'b'''"],
)
def test_string_values_match_the_general_decoder(literal: str) -> None:
    module, diagnostics = parse_source(f"v = {literal}\n")
    assert diagnostics == []
    value = module.body[0].value
    assert isinstance(value, ast.StringExpr)
    assert value.value == decode_string(literal).value
    assert value.raw == literal


@pytest.mark.parametrize(
    ("literal", "expected"),
    [
        ("0", 0),
        ("7", 7),
        ("123456789012345678", 123456789012345678),
        ("1_000", 1000),
        ("0o17", 15),
        ("0x1F", 31),
        ("007", 7),
        ("1Ki", 1),
    ],
)
def test_int_values(literal: str, expected: int) -> None:
    module, diagnostics = parse_source(f"v = {literal}\n")
    assert diagnostics == []
    value = module.body[0].value
    assert isinstance(value, ast.NumberExpr) and value.value == expected


@pytest.mark.parametrize("literal", ["99999999999999999999", "0_"])
def test_bad_ints_are_still_reported(literal: str) -> None:
    _, diagnostics = parse_source(f"v = {literal}\n")
    assert diagnostics and all(d.is_error for d in diagnostics)


def test_interpolated_and_unterminated_strings_keep_their_paths() -> None:
    module, diagnostics = parse_source('a = 1\nv = "n${a}"\n')
    assert diagnostics == []
    assert isinstance(module.body[1].value, ast.JoinedStringExpr)
    _, diagnostics = parse_source('v = "abc\n')
    assert any("unterminated string" in d.message for d in diagnostics)
