"""Helpers the grammar actions use to build AST nodes and report syntax errors.

The parser sets :data:`FILE` and :data:`DIAGNOSTICS` before each parse (under
its lock); actions create spans in that file and append diagnostics there.
Everything here is small and iterative: no helper recurses on the tree depth.
"""

from __future__ import annotations

from kclpy.diag import Code, Diagnostic, make_error
from kclpy.source import SourceFile, Span
from kclpy.syntax import ast

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

FILE: SourceFile = SourceFile("<string>", "")
DIAGNOSTICS: list[Diagnostic] = []

EXPR_NAMES: dict[type, str] = {
    ast.NameExpr: "IdentifierExpression",
    ast.UnaryExpr: "UnaryExpression",
    ast.BinaryExpr: "BinaryExpression",
    ast.IfExpr: "IfExpression",
    ast.SelectorExpr: "SelectorExpression",
    ast.CallExpr: "CallExpression",
    ast.ParenExpr: "ParenExpression",
    ast.QuantExpr: "QuantExpression",
    ast.ListExpr: "ListExpression",
    ast.ListIfItem: "ListIfItemExpression",
    ast.ListCompExpr: "ListCompExpression",
    ast.StarredExpr: "StarredExpression",
    ast.DictCompExpr: "DictCompExpression",
    ast.SchemaExpr: "SchemaExpression",
    ast.ConfigExpr: "ConfigExpression",
    ast.LambdaExpr: "LambdaExpression",
    ast.SubscriptExpr: "SubscriptExpression",
    ast.CompareExpr: "CompareExpression",
    ast.NumberExpr: "NumberLitExpression",
    ast.StringExpr: "StringLitExpression",
    ast.ConstExpr: "NameConstantLitExpression",
    ast.JoinedStringExpr: "JoinedStringExpression",
    ast.FormattedValue: "FormattedValueExpression",
    ast.AsExpr: "BinaryExpression",
}


def span(start: int, end: int) -> Span:
    return Span(FILE, start, end)


def error(message: str, start: int, end: int, code: Code = Code.INVALID_SYNTAX) -> None:
    DIAGNOSTICS.append(make_error(code, message, Span(FILE, start, end)))


def dotted_name(expr: ast.Expr) -> str:
    """``a.b.c`` for a NameExpr/SelectorExpr chain (iteratively)."""
    if type(expr) is ast.NameExpr:  # (most: a type or attribute name)
        return expr.name
    parts: list[str] = []
    while isinstance(expr, ast.SelectorExpr):
        parts.append(expr.attr)
        expr = expr.value
    if isinstance(expr, ast.NameExpr):
        parts.append(expr.name)
    return ".".join(reversed(parts))


def comparison(left: ast.Expr, op: str, right: ast.Expr) -> ast.CompareExpr:
    """``left op right``; a comparison left operand is extended into one chain.

    With every operator left-associative, the left operand of a comparison is a
    CompareExpr exactly when the reference's loop would still be adding to its
    current chain (a parenthesised one is a ParenExpr), so chaining here gives
    its trees: ``1 < 2 == x`` is one chain, ``x == 2 < 3`` nests.
    """
    sp = Span(FILE, left.span.start, right.span.end)
    if isinstance(left, ast.CompareExpr):
        return ast.CompareExpr(sp, left.left, [*left.ops, op], [*left.comparators, right])
    return ast.CompareExpr(sp, left, [op], [right])


def check_target(expr: ast.Expr) -> bool:
    """Whether ``expr`` may be assigned to; reports the reference's error if not."""
    node = expr
    while True:
        if isinstance(node, ast.NameExpr):
            return True
        if isinstance(node, ast.SelectorExpr):
            if node.optional:
                return _bad_target(
                    expr,
                    node,
                    "because the left-hand side of an assignment expression may not be "
                    "an optional attribute access.",
                )
            node = node.value
            continue
        if isinstance(node, ast.SubscriptExpr):
            if node.optional:
                return _bad_target(
                    expr,
                    node,
                    "because the left-hand side of an assignment expression may not be "
                    "an optional subscript access.",
                )
            if node.is_slice:
                return _bad_target(
                    expr,
                    node,
                    "because the left-hand side of an assignment expression may not be "
                    "a slice access.",
                )
            node = node.value
            continue
        return _bad_target(expr, node, "")


def _bad_target(expr: ast.Expr, node: ast.Expr, reason: str) -> bool:
    name = EXPR_NAMES.get(type(node if reason else expr), type(expr).__name__)
    message = f"'{name}' is an illegal expression for assignment"
    if reason:
        message = f"{message}, {reason}"
    error(message, expr.span.start, expr.span.end)
    return False


def targets_of(exprs: list[ast.Expr]) -> list[ast.Expr]:
    return [expr for expr in exprs if check_target(expr)]


def call_parts(
    items: list[tuple[ast.Expr | None, ast.Expr, int]],
) -> tuple[list[ast.Expr], list[ast.Keyword]]:
    """Split parsed arguments into positional ones and keywords, checking their order."""
    args: list[ast.Expr] = []
    keywords: list[ast.Keyword] = []
    for key, value, start in items:
        if key is None:
            if keywords:
                error("positional argument follows keyword argument", start, value.span.end)
            args.append(value)
            continue
        if not isinstance(key, ast.NameExpr):
            error('expected one of ["identifier"] got =', key.span.start, key.span.end)
            continue
        keywords.append(ast.Keyword(Span(FILE, start, value.span.end), key.name, value))
    return args, keywords


def is_docstring(stmt: ast.Stmt | ast.CheckExpr | None) -> bool:
    """A leading triple-quoted string statement, taken as the docstring."""
    expr = stmt.expr if isinstance(stmt, ast.ExprStmt) else None
    if isinstance(stmt, ast.CheckExpr) and stmt.cond is None and stmt.msg is None:
        expr = stmt.test
    if isinstance(expr, ast.StringExpr | ast.JoinedStringExpr):
        raw = expr.raw.lstrip("rR")
        return raw.startswith(('"""', "'''"))
    return False


def docstring_value(stmt: ast.Stmt | ast.CheckExpr) -> str:
    expr = stmt.expr if isinstance(stmt, ast.ExprStmt) else stmt.test  # type: ignore[union-attr]
    if isinstance(expr, ast.StringExpr):
        return expr.value
    if isinstance(expr, ast.JoinedStringExpr):
        return "".join(part for part in expr.parts if isinstance(part, str))
    return ""


def set_end(node: ast.Node, end: int) -> None:
    node.span = Span(FILE, node.span.start, end)


def plain_statement(stmt: Any) -> ast.Stmt | None:
    """A statement outside a schema body: schema attribute forms are errors there."""
    if isinstance(stmt, ast.SchemaAttr):
        if stmt.value is None:
            end = stmt.type.span.end
            error('expected one of ["="] got newline', end, end)
        elif stmt.op == "=":
            error(
                "'StringLitExpression' is an illegal expression for assignment",
                stmt.span.start,
                stmt.span.end,
            )
        else:
            error(f'expected one of ["="] got {stmt.op}=', stmt.span.start, stmt.span.end)
        return None
    if isinstance(stmt, ast.IndexSignature):
        error(
            "'ListExpression' is an illegal expression for assignment",
            stmt.span.start,
            stmt.span.end,
        )
        return None
    return stmt  # type: ignore[no-any-return]


def loop_variable(expr: ast.Expr) -> ast.NameExpr:
    """A comprehension or quantifier variable; a dotted name is a (compile) error."""
    if isinstance(expr, ast.NameExpr):
        return expr
    DIAGNOSTICS.append(
        make_error(
            Code.COMPILE_ERROR,
            "loop variables can only be ordinary identifiers",
            Span(FILE, expr.span.start, expr.span.end),
        )
    )
    return ast.NameExpr(expr.span, dotted_name(expr))
