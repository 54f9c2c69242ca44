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

from kclpy.diag import Code
from kclpy.sema.base import CheckContext, name_span, suggestion_text
from kclpy.sema.symbols import SchemaType, SymbolKind
from kclpy.sema.types import ANY, ANY_F, VARIADIC, FuncType, Param, Type
from kclpy.source import Span
from kclpy.syntax import ast
from kclpy.syntax.targets import dotted_name

TYPE_CHECKING = False
if TYPE_CHECKING:
    from kclpy.sema.shared import Annotations, Assignability, Expressions, Parts, Statements

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

    exprs: Expressions
    annotations: Annotations
    assign: Assignability
    statements: Statements

    def __init__(self, ctx: CheckContext) -> None:
        self.ctx = ctx
        # the current package's top-level lambdas assigned once, without annotation
        self.signatures: dict[str, FuncType] = {}

    def connect(self, parts: Parts) -> None:
        self.exprs = parts.exprs
        self.annotations = parts.annotations
        self.assign = parts.assign
        self.statements = parts.statements

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
        symbol = self.ctx.package_symbol(func.name)
        if symbol is None or self.ctx.symbol_of(func, func.name) is not symbol:
            return None
        return self.signatures.get(func.name)

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

    def declare_lambdas(self, modules: list[ast.Module]) -> None:
        """The signatures of the package's lambdas assigned once, without annotation."""
        signatures = self.signatures = {}
        if not any(
            type(stmt) is ast.AssignStmt and type(stmt.value) is ast.LambdaExpr
            for module in modules
            for stmt in module.body
        ):
            return  # (most packages: no walk keeping every assigned name)
        seen: set[str] = set()
        for module in modules:
            for stmt in module.body:
                if type(stmt) is not ast.AssignStmt or len(stmt.targets) != 1:
                    continue
                target = stmt.targets[0]
                if type(target) is not ast.NameExpr:
                    continue
                name = target.name
                if name in seen:  # assigned again: no signature
                    signatures.pop(name, None)
                    continue
                seen.add(name)
                value = stmt.value
                if stmt.type is None and type(value) is ast.LambdaExpr:
                    self.ctx.suppress += 1
                    try:
                        params = self.parameter_types(value.params)
                    finally:
                        self.ctx.suppress -= 1
                    signatures[name] = FuncType(params, ANY)

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
        saved = self.ctx.enter()
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
            self.ctx.leave(saved)
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
