"""What the checker's parts ask of one another: one narrow protocol per part.

A part (``exprs.ExpressionChecker``, ``config.ConfigChecker``...) names its
collaborators by these protocols, never by their classes, so the parts import this
module and ``base`` only; ``checker.Checker`` builds the concrete parts and hands each
the :class:`Parts` it connects to (mypy's ``checker_shared`` is the model). A
protocol lists the calls other parts make, nothing a part keeps to itself.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Protocol, runtime_checkable

from kclpy.sema.symbols import SchemaInfo
from kclpy.sema.types import DictType, Param, Type
from kclpy.source import Span
from kclpy.syntax import ast


@runtime_checkable
class Annotations(Protocol):
    def resolve_type(self, node: ast.TypeNode | None) -> Type: ...


@runtime_checkable
class Assignability(Protocol):
    def must_assignable_to(
        self,
        value: Type,
        expected: Type,
        span: Span | None,
        def_span: Span | None = None,
        attr_span: Span | None = None,
    ) -> None: ...


@runtime_checkable
class Operators(Protocol):
    def binary(self, left: Type, right: Type, op: str, span: Span | None) -> Type: ...

    def unary(self, operand: Type, op: str, span: Span | None) -> Type: ...

    def compare(self, left: Type, right: Type, op: str, span: Span | None) -> Type: ...

    def cast(self, left: Type, right: Type, span: Span | None) -> Type: ...


@runtime_checkable
class Expressions(Protocol):
    def expr(self, node: ast.Expr) -> Type: ...

    def expr_or_any(self, node: ast.Expr | None) -> Type: ...

    def silent_expr(self, node: ast.Expr | None) -> Type: ...

    def upgrade_type_for_expr(
        self,
        expected: Type,
        node: ast.Expr,
        target_span: Span | None,
        def_span: Span | None = None,
    ) -> Type: ...


@runtime_checkable
class Names(Protocol):
    def resolve_name(self, name: str, node: ast.Node) -> Type: ...

    def load_attr(self, obj: Type, attr: str, span: Span | None, node: ast.Node | None) -> Type: ...

    def subscript(self, node: ast.SubscriptExpr, value: Type) -> Type: ...

    def resolve_target(self, target: ast.Expr) -> Type: ...

    def resolve_unique_key(self, name: str, span: Span) -> None: ...


@runtime_checkable
class Configs(Protocol):
    def push_names(self, names: list[str]) -> int: ...

    def push_key(self, key: ast.Expr | None) -> int: ...

    def must_check_config_attr(
        self, attr: str, owner: Type, span: Span | None, attr_span: Span | None = None
    ) -> None: ...

    def check_attr_key_type(self, key: Type, span: Span | None) -> None: ...

    def config_entries(
        self,
        entries: list[ast.ConfigEntry | ast.ConfigIfEntry],
        node: ast.Node | None = None,
        typed: bool = True,
    ) -> DictType: ...

    def schema_expr(self, node: ast.SchemaExpr) -> Type: ...

    def merge_unifications(self, modules: list[ast.Module]) -> None: ...

    def merged_away(self, stmt: ast.Stmt) -> bool: ...


@runtime_checkable
class Calls(Protocol):
    def call_expr(self, node: ast.CallExpr) -> Type: ...

    def check_arguments(
        self,
        func: ast.Expr,
        args: list[ast.Expr],
        keywords: list[ast.Keyword],
        func_type: Type,
        span: Span,
    ) -> None: ...

    def silent_arguments(self, node: ast.SchemaExpr | ast.CallExpr) -> None: ...

    def check_parameters(self, params: list[ast.Param]) -> None: ...

    def parameter_types(self, params: list[ast.Param]) -> list[Param]: ...

    def lambda_expr(self, node: ast.LambdaExpr) -> Type: ...

    def declare_lambdas(self, modules: list[ast.Module]) -> None: ...


@runtime_checkable
class Statements(Protocol):
    def stmt(self, node: ast.Stmt) -> Type: ...

    def stmts(self, nodes: Iterable[ast.Stmt]) -> Type: ...


@runtime_checkable
class Schemas(Protocol):
    def declare_schemas(self, modules: list[ast.Module]) -> list[SchemaInfo]: ...

    def build_schemas(self, infos: list[SchemaInfo]) -> None: ...


class Parts(Protocol):
    """The parts one checker connects (``checker.Checker``)."""

    @property
    def annotations(self) -> Annotations: ...

    @property
    def assign(self) -> Assignability: ...

    @property
    def operators(self) -> Operators: ...

    @property
    def exprs(self) -> Expressions: ...

    @property
    def names(self) -> Names: ...

    @property
    def config(self) -> Configs: ...

    @property
    def calls(self) -> Calls: ...

    @property
    def statements(self) -> Statements: ...

    @property
    def schemas(self) -> Schemas: ...
