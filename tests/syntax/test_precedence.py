"""Operator precedence and associativity as the reference parses them (kcl-features §1.4)."""

from __future__ import annotations

import pytest

from kclpy.syntax import ast, parse_expr


def shape(expr: ast.Expr) -> str:
    """A fully parenthesised rendering of an expression (recursion is fine in tests)."""
    if isinstance(expr, ast.NameExpr):
        return expr.name
    if isinstance(expr, ast.NumberExpr):
        return str(expr.value)
    if isinstance(expr, ast.ConstExpr):
        return str(expr.value)
    if isinstance(expr, ast.ParenExpr):
        return shape(expr.value)
    if isinstance(expr, ast.UnaryExpr):
        space = " " if expr.op == "not" else ""
        return f"({expr.op}{space}{shape(expr.operand)})"
    if isinstance(expr, ast.BinaryExpr):
        return f"({shape(expr.left)} {expr.op} {shape(expr.right)})"
    if isinstance(expr, ast.CompareExpr):
        parts = [shape(expr.left)]
        for op, right in zip(expr.ops, expr.comparators, strict=True):
            parts += [op, shape(right)]
        return "<" + " ".join(parts) + ">"
    if isinstance(expr, ast.IfExpr):
        return f"({shape(expr.body)} if {shape(expr.cond)} else {shape(expr.orelse)})"
    if isinstance(expr, ast.AsExpr):
        assert isinstance(expr.type, ast.NamedType | ast.UnionType)
        return f"({shape(expr.value)} as T)"
    if isinstance(expr, ast.SelectorExpr):
        return f"{shape(expr.value)}.{expr.attr}"
    if isinstance(expr, ast.CallExpr):
        return f"{shape(expr.func)}()"
    raise AssertionError(type(expr).__name__)


CASES = [
    ("-2 ** 2", "((-2) ** 2)"),
    ("~1 ** 2", "((~1) ** 2)"),
    ("2 ** 3 ** 2", "((2 ** 3) ** 2)"),
    ("not 0 == 1", "<(not 0) == 1>"),
    ("not 1 in [2]".replace("[2]", "b"), "<(not 1) in b>"),
    ("-a.b", "(-a.b)"),
    ("-f()", "(-f())"),
    ("1 + 2 * 3", "(1 + (2 * 3))"),
    ("1 - 2 - 3", "((1 - 2) - 3)"),
    ("a / b // c % d", "(((a / b) // c) % d)"),
    ("a << 1 + 2", "(a << (1 + 2))"),
    ("a & b << c", "(a & (b << c))"),
    ("a ^ b & c", "(a ^ (b & c))"),
    ("a | b ^ c", "(a | (b ^ c))"),
    ("a | b < c", "<(a | b) < c>"),
    ("1 < 2 < 3 < 4", "<1 < 2 < 3 < 4>"),
    ("1 < 2 == True", "<1 < 2 == True>"),
    ("True == 2 < 3", "<True == <2 < 3>>"),
    ("a == b < c == d", "<a == <b < c> == d>"),
    ("a is b < c", "<a is <b < c>>"),
    ("a in b is c", "<a in <b is c>>"),
    ("a == b in c", "<a == <b in c>>"),
    ("(a < b) < c", "<<a < b> < c>"),
    ("a not in b", "<a not in b>"),
    ("a is not b", "<a is not b>"),
    ("a and b or c and d", "((a and b) or (c and d))"),
    ("a or b and c", "(a or (b and c))"),
    ("not a and b", "((not a) and b)"),
    ("a == b and c", "(<a == b> and c)"),
    ("a + 1 as int", "((a + 1) as T)"),
    ("a or b as int", "((a or b) as T)"),
    ("a as A | B", "(a as T)"),
    ("1 + 1 if False else 5 + 5", "((1 + 1) if False else (5 + 5))"),
    ("a if b else c if d else e", "(a if b else (c if d else e))"),
    ("0 or 2 and 3", "(0 or (2 and 3))"),
]


@pytest.mark.parametrize(("source", "expected"), CASES)
def test_precedence(source: str, expected: str) -> None:
    expr, diagnostics = parse_expr(source)
    assert diagnostics == []
    assert expr is not None
    assert shape(expr) == expected


def test_as_union_type() -> None:
    expr, _ = parse_expr("a as A | B")
    assert isinstance(expr, ast.AsExpr)
    assert isinstance(expr.type, ast.UnionType)
    assert [t.name for t in expr.type.types if isinstance(t, ast.NamedType)] == ["A", "B"]


def test_double_unary_is_an_error() -> None:
    expr, diagnostics = parse_expr("--1")
    assert expr is None
    assert diagnostics and diagnostics[0].code.id == "E1001"
