"""Tokens and literals: keywords, numbers, strings, layout tokens."""

from __future__ import annotations

import pytest

from kclpy.source import SourceFile
from kclpy.syntax import ast, parse_expr, parse_source, parser
from kclpy.syntax.layout import LayoutResult, layout
from kclpy.syntax.lexer import raw_tokens
from kclpy.syntax.literals import decode_number, decode_string, dedent_string
from kclpy.syntax.scan import fused_layout


def _no_interpolation(start: int, end: int) -> tuple[ast.Expr | None, str | None]:
    return None, None


def kinds(text: str, expression: bool = False) -> list[str]:
    """The parser's token kinds of ``text``, checking that the fused pass (where it
    takes the text) gives the two-pass route's tokens, offsets and diagnostics."""
    file = SourceFile("t.k", text)
    result = layout(file, raw_tokens(text), _no_interpolation, expression)
    fused = fused_layout(file, _no_interpolation, expression=expression)
    if fused is not None:
        assert _positions(fused) == _positions(result)
    return [tok.type for tok in result.tokens]


def _positions(laid: LayoutResult) -> list[tuple[object, ...]]:
    tokens = [(tok.type, tok.lexpos, tok.end) for tok in laid.tokens]
    comments = [(comment.span.start, comment.text) for comment in laid.comments]
    return [*tokens, *comments, *((item.message,) for item in laid.diagnostics)]


def test_keywords_and_merged_tokens() -> None:
    assert kinds("a not in b is not c ?. d ?[ e") == [
        "NAME",
        "NOTIN",
        "NAME",
        "ISNOT",
        "NAME",
        "QDOT",
        "NAME",
        "QLBRACKET",
        "NAME",
        "NEWLINE",
    ]
    assert kinds("$if if type") == ["NAME", "IF", "TYPE", "NEWLINE"]
    # keywords stay keywords (the parser reads one it cannot take as a name), but
    # before `?` (an optional attribute) and first in brackets before a colon
    assert kinds("{in = 1, if: 2}")[:4] == ["LBRACE", "IN", "ASSIGN", "NUMBER"]
    assert kinds("else?: str")[:2] == ["NAME", "QUESTION"]
    assert kinds("if?: str")[:2] == ["IF", "QUESTION"]
    assert kinds("[for: str]: str")[:3] == ["LBRACKET", "NAME", "COLON"]


def test_layout_tokens() -> None:
    text = "if a:\n    b = 1\n\n    # comment\n    c = 2\nd = 3\n"
    assert kinds(text) == [
        "IF",
        "NAME",
        "COLON",
        "NEWLINE",
        "INDENT",
        "NAME",
        "ASSIGN",
        "NUMBER",
        "NEWLINE",
        "NAME",
        "ASSIGN",
        "NUMBER",
        "NEWLINE",
        "DEDENT",
        "NAME",
        "ASSIGN",
        "NUMBER",
        "NEWLINE",
    ]


def test_first_line_indentation_is_ignored_and_continuations_join() -> None:
    assert kinds("  a = 1 + \\\n      2\n") == [
        "NAME",
        "ASSIGN",
        "NUMBER",
        "PLUS",
        "NUMBER",
        "NEWLINE",
    ]


def test_newline_before_else_is_dropped() -> None:
    assert "NEWLINE" not in kinds("if a: b = 1\nelse: b = 2")[:-1]


@pytest.mark.parametrize(
    "text",
    [
        "a?.b ?[c] ? . d",  # `?.`/`?[` merge across blanks; `? .` too
        "x = a not in b is not c not is d",
        "if a: 1\nelse if b: 2\nelse: 3\n",
        "if?: int\nelse?: str\nschema A[for: int]:\n  [if: str]: str\n",
        "f = lambda {x: int} -> int {x}\ng = lambda x {x}\n",
        "f(  # only a comment left\n  1,\n  2)\ng(1,\n  2)\n",
        "x = 1 if a\n  else 2\ny = [1 if a else 2\n  for a in b]\n",
        "a = {\n  b = 1\n    c = 2\n d = 3\n}\n",
        "if a:\n\tb = 1\n        c = 2\n",
        "a = 1;\nb = !c\n\n\n   # c\n\n\\\n  d = 0x\n",
        "  a\n  b\n",
        "x = " + "[" * 10_001 + "]\n",  # the depth limit
    ],
)
@pytest.mark.parametrize("expression", [False, True])
def test_fused_pass_agrees_with_the_two_passes(text: str, expression: bool) -> None:
    assert fused_layout(SourceFile("t.k", text), _no_interpolation) is not None
    kinds(text, expression)  # (compares the routes)


@pytest.mark.parametrize("text", ["a é", "a = `b`", "$ = 1", "a \\ b", "名 = 1"])
def test_general_rules_take_the_two_pass_route(text: str) -> None:
    file = SourceFile("t.k", text)
    assert fused_layout(file, _no_interpolation) is None
    taken = parser._laid_out(file, 0, None, [], 0, False)  # what the parser reads
    assert _positions(taken) == _positions(layout(file, raw_tokens(text), _no_interpolation))


@pytest.mark.parametrize(
    ("text", "value", "suffix"),
    [
        ("0", 0, None),
        ("1_000", 1000, None),
        ("0x1F", 31, None),
        ("0o17", 15, None),
        ("0b101", 5, None),
        ("010", 8, None),
        ("0_0", 0, None),
        ("0x_1", 1, None),
        ("18446744073709551615", 18446744073709551615, None),
        ("1.5", 1.5, None),
        ("5.", 5.0, None),
        ("1e3", 1000.0, None),
        ("1E2", 100.0, None),
        ("1.5e-3", 0.0015, None),
        ("1e400", float("inf"), None),
        ("1Ki", 1, "Ki"),
        ("1_0Ki", 10, "Ki"),
        ("2.5Ki", 2.5, None),
        ("3m", 3, "m"),
    ],
)
def test_numbers(text: str, value: float, suffix: str | None) -> None:
    got, got_suffix, error, _ = decode_number(text)
    assert error is None
    assert got == value and type(got) is type(value)
    assert got_suffix == suffix


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("01", "no valid digits found for number"),
        ("00", "no valid digits found for number"),
        ("0x", "no valid digits found for number"),
        ("0X1F", "invalid int binary suffix"),
        ("1abc", "invalid int binary suffix"),
        ("0b102", "invalid digit for a base 2 literal"),
        ("018", "invalid digit for a base 8 literal"),
        ("1__0", 'expected one of ["int"] got 1__0'),
        ("18446744073709551616", 'expected one of ["int"]'),
        ("1_000.5", 'expected one of ["float"] got 1_000.5'),
        ("1e", "expected at least one digit in exponent"),
        ("0x1.5", "hexadecimal float literal is not supported"),
    ],
)
def test_bad_numbers(text: str, message: str) -> None:
    _, _, error, _ = decode_number(text)
    assert error is not None and error.startswith(message)


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ('"abc"', "abc"),
        ("'it\\'s'", "it's"),
        ('"\\n\\t\\\\\\"\\x41\\u00e9\\101"', '\n\t\\"AéA'),
        ('"\\N{EN DASH}"', "\u2013"),
        ('"\\q"', "\\q"),
        ('r"a\\nb"', "a\\nb"),
        ('"""a\nb"""', "a\nb"),
        ('"""\n    a\n      b\n    """', "a\n  b\n"),
        ("'''x'''", "x"),
    ],
)
def test_strings(text: str, value: str) -> None:
    info = decode_string(text)
    assert info.error is None and info.terminated
    assert info.value == value


def test_dedent() -> None:
    assert dedent_string("\n    foo\n    bar\n    ") == "foo\nbar\n"
    assert dedent_string("    foo\n    bar") == "foo\nbar"
    assert dedent_string("  foo  ") == "foo  "
    # space-indented (the fast path), its last line blank, a shorter blank line inside
    assert dedent_string("\n    a\n      b\n\n    ") == "a\n  b\n\n"
    assert dedent_string("\n    a\n  \n    b") == "a\n\nb"
    assert dedent_string(" \n x") == "\nx"  # a blank first line is kept, dedented
    assert dedent_string("\n    a\n  b") == "  a\nb"  # a shallower line sets the width
    assert dedent_string("\n\ta\n\t\tb") == "a\n\tb"  # tabs: line by line


def test_unterminated_and_invalid_strings() -> None:
    assert not decode_string('"abc').terminated
    assert not decode_string('"""abc').terminated
    assert not decode_string('"abc\\"').terminated
    assert decode_string('"\\u12"').error == "invalid string syntax"


def test_adjacent_strings_are_two_statements() -> None:
    module, diagnostics = parse_source('h = "a" "b"\n')
    assert diagnostics == []
    assert [type(s).__name__ for s in module.body] == ["AssignStmt", "ExprStmt"]


def test_number_node() -> None:
    expr, _ = parse_expr("1Gi")
    assert isinstance(expr, ast.NumberExpr)
    assert (expr.value, expr.suffix) == (1, "Gi")
