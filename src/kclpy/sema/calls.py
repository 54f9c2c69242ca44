"""Calls and lambdas: argument counts, keyword names, argument types, parameters.

A call is checked against the callee's function type (a builtin, a system
module member, a lambda, a schema's parameters): too many positional
arguments, unknown or repeated keywords and too few required arguments are
CompileErrors with the reference's wording; each argument is walked expecting
its parameter's type. A call of a top-level lambda defined later in the file
is checked against the lambda's declared parameters. :class:`CallChecker` is
the part of the checker that does this; it holds the context and the
expression, annotation, assignability and statement checkers it calls.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from kclpy.diag import Code
from kclpy.sema.base import CheckContext, name_span, suggestion_text
from kclpy.sema.resolve import dotted_name
from kclpy.sema.symbols import ScopeKind, SymbolKind
from kclpy.sema.types import (
    ANY,
    ANY_F,
    VARIADIC,
    FuncType,
    Param,
    SchemaType,
    Type,
)
from kclpy.source import Span
from kclpy.syntax import ast

if TYPE_CHECKING:
    from kclpy.sema.annotations import AnnotationResolver
    from kclpy.sema.assign import AssignabilityChecker
    from kclpy.sema.checker import Checker
    from kclpy.sema.exprs import ExpressionChecker
    from kclpy.sema.stmts import StatementChecker

LAMBDA_LAST_STMT = (ast.ExprStmt, ast.AssignStmt, ast.AugAssignStmt, ast.AssertStmt)


def count_text(count: int, noun: str = "positional argument") -> str:
    return f"{count} {noun}{'s' if count > 1 else ''}"


def callee_name(func: ast.Expr) -> str:
    """How the reference names a callee in messages: ``"f"``, ``"pkg.f"``, ``"attr"``."""
    node = func
    while isinstance(node, ast.ParenExpr):
        node = node.value
    name = dotted_name(node)
    if name is not None:
        return f'"{name}"'
    if isinstance(node, ast.SelectorExpr):
        return f'"{node.attr}"'
    return "anonymous function"


class CallChecker:
    """Call expressions, argument checks, lambdas and parameter lists."""

    exprs: ExpressionChecker
    annotations: AnnotationResolver
    assign: AssignabilityChecker
    statements: StatementChecker

    def __init__(self, ctx: CheckContext) -> None:
        self.ctx = ctx

    def connect(self, checker: Checker) -> None:
        self.exprs = checker.exprs
        self.annotations = checker.annotations
        self.assign = checker.assign
        self.statements = checker.statements

    def call_expr(self, node: ast.CallExpr) -> Type:
        callee = self.exprs.expr(node.func)
        span = node.func.span
        if callee.flags & ANY_F:
            signature = self._forward_lambda(node.func)
            self.check_arguments(node.func, node.args, node.keywords, signature or VARIADIC, span)
            return ANY
        if isinstance(callee, FuncType):
            self.check_arguments(node.func, node.args, node.keywords, callee, span)
            return callee.ret
        if isinstance(callee, SchemaType):
            if callee.instance:
                self.ctx.compile_error(f"schema '{callee.ty_str()}' instance is not callable", span)
                self.silent_arguments(node)
                return ANY
            self.check_arguments(node.func, node.args, node.keywords, callee.info.func, span)
            return SchemaType(callee.info, True)
        self.ctx.compile_error(f"'{callee.ty_str()}' object is not callable", span)
        self.silent_arguments(node)
        return ANY

    def _forward_lambda(self, func: ast.Expr) -> FuncType | None:
        """The declared signature of a top-level lambda called before its definition."""
        if not isinstance(func, ast.NameExpr):
            return None
        package = self.ctx.package_scopes.get(self.ctx.pkgpath)
        if package is None:
            return None
        symbol = package.symbols.get(func.name)
        if symbol is None or self.ctx.symbol_of(func, func.name) is not symbol:
            return None
        return self.ctx.lambda_sigs.get(self.ctx.pkgpath, {}).get(func.name)

    def check_arguments(
        self,
        func: ast.Expr,
        args: list[ast.Expr],
        keywords: list[ast.Keyword],
        func_type: Type,
        span: Span,
    ) -> None:
        """The reference's argument check of a call against a function type."""
        assert isinstance(func_type, FuncType)
        params = func_type.params
        if (  # most schema instances: nothing to check unless a parameter is required
            not args
            and not keywords
            and (func_type.variadic or all(param.has_default for param in params))
        ):
            return
        name = callee_name(func)
        variadic = func_type.variadic or any(
            isinstance(arg, (ast.StarredExpr, ast.DoubleStarredExpr)) for arg in args
        )
        for index, arg in enumerate(args):
            if index < len(params):
                param = params[index]
                self.exprs.upgrade_type_for_expr(param.type, arg, arg.span, param.span)
                continue
            self.exprs.expr(arg)
            if not variadic:
                self.ctx.compile_error(
                    f"{name} takes {count_text(len(params))} but {len(args)} were given",
                    arg.span,
                )
                for rest in args[index + 1 :]:
                    self.exprs.silent_expr(rest)
                break
        given = self._check_keywords(name, keywords, func_type, variadic)
        if variadic:
            return
        required = [param for param in params if not param.has_default]
        got = len(args) + sum(1 for param in required if param.name in given)
        if got < len(required):
            self.ctx.compile_error(f"expected {count_text(len(required))}, found {got}", span)

    def _check_keywords(
        self, name: str, keywords: list[ast.Keyword], func_type: FuncType, variadic: bool
    ) -> set[str]:
        given: set[str] = set()
        params = func_type.params
        for keyword in keywords:
            arg_name = keyword.name
            if arg_name in given:
                self.ctx.compile_error(
                    f"{name} has duplicated keyword argument {arg_name}", keyword.span
                )
            given.add(arg_name)
            param = next((p for p in params if p.name == arg_name), None)
            if param is None and not variadic:
                hint = suggestion_text(arg_name, [p.name for p in params])
                hint = hint.replace("'[", "'").replace("]'", "'").replace('"', "")
                self.ctx.compile_error(
                    f"{name} got an unexpected keyword argument '{arg_name}'{hint}",
                    keyword.span,
                )
            if param is not None:
                self.exprs.upgrade_type_for_expr(
                    param.type, keyword.value, keyword.value.span, param.span
                )
            else:
                self.exprs.expr(keyword.value)
        return given

    def silent_arguments(self, node: ast.SchemaExpr | ast.CallExpr) -> None:
        """Visit call arguments for their bindings only (no argument checks)."""
        for arg in node.args:
            self.exprs.silent_expr(arg)
        for keyword in node.keywords:
            self.exprs.silent_expr(keyword.value)

    # ------------------------------------------------------------------ parameters and lambdas

    def check_parameters(self, params: list[ast.Param]) -> None:
        """A parameter without a default after one with a default is an error."""
        seen_required = False
        for param in reversed(params):
            if param.default is None:
                seen_required = True
            elif seen_required:
                self.ctx.report(
                    Code.ILLEGAL_PARAMETER_ERROR,
                    "non-default argument follows default argument",
                    param.default.span,
                )

    def parameter_types(self, params: list[ast.Param]) -> list[Param]:
        result: list[Param] = []
        for param in params:
            param_type = self.annotations.resolve_type(param.type)
            if isinstance(param_type, SchemaType):
                param_type = SchemaType(param_type.info, True)
            result.append(Param(param.name, param_type, param.default is not None, param.span))
        return result

    def lambda_expr(self, node: ast.LambdaExpr) -> Type:
        self.check_parameters(node.params)
        params = self.parameter_types(node.params)
        for param_node in node.params:
            self.exprs.expr_or_any(param_node.default)
        ret = (
            self.annotations.resolve_type(node.return_type) if node.return_type is not None else ANY
        )
        self.ctx.enter_scope(ScopeKind.LAMBDA, node)
        try:
            for typed, param_node in zip(params, node.params, strict=True):
                symbol = self.ctx.define(
                    typed.name,
                    SymbolKind.PARAMETER,
                    typed.type,
                    name_span(param_node, typed.name),
                    param_node,
                )
                self.ctx.declare(param_node, symbol)
            real = self._lambda_body(node, ret)
        finally:
            self.ctx.leave_scope()
        if node.return_type is None and not real.flags & ANY_F:
            ret = real
        return FuncType(params, ret)

    def _lambda_body(self, node: ast.LambdaExpr, ret: Type) -> Type:
        body = node.body
        if not body:
            return ANY
        last = body[-1]
        if not isinstance(last, LAMBDA_LAST_STMT):
            self.ctx.compile_error(
                "The last statement of the lambda body must be a expression e.g., x, 1, etc.",
                last.span,
            )
        self.statements.stmts(body[:-1])
        if isinstance(last, ast.ExprStmt):
            ret_span = node.return_type.span if node.return_type is not None else None
            real = self.exprs.upgrade_type_for_expr(ret, last.expr, last.expr.span, ret_span)
            self.ctx.types[last.id] = real
            return real
        real = self.statements.stmt(last)
        self.assign.must_assignable_to(real, ret, node.span)
        return real
