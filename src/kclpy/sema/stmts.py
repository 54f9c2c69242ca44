"""Statements: assignments, unification, aliases, ``if``, ``assert``, schema bodies.

A variable's type is its annotation, or the (widened) type of its first
assignment in walk order; a later assignment must fit it (``_a = 1`` then
``_a = "s"`` is ``expected int, got str(s)``). An augmented assignment of an
exported name that already has a value is the ImmutableError ``Immutable
variable 'a' is modified during compiling``. In a schema body the schema's
members (the names the body sets: the resolver's declarations) take the attributes'
symbols, and the body's own assignments' (``CheckContext.names``).

:class:`StatementChecker` is the part of the checker that owns this walk; it
holds the context and the expression, name, annotation, assignability, operator
and call checkers it calls.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from kclpy.diag import Code, Label
from kclpy.sema.annotations import RESERVED_TYPE_LIST, RESERVED_TYPE_NAMES
from kclpy.sema.assign import expect_for_value
from kclpy.sema.base import CheckContext, Expect, SchemaContext, is_private, name_span
from kclpy.sema.relations import is_upper_bound, sup, widen
from kclpy.sema.resolve import schema_assigned
from kclpy.sema.symbols import SchemaInfo, SchemaType, Symbol, SymbolKind
from kclpy.sema.types import ANY, ANY_F, STR_T, Type
from kclpy.syntax import ast
from kclpy.syntax.targets import target_parts

TYPE_CHECKING = False
if TYPE_CHECKING:
    from kclpy.sema.shared import (
        Annotations,
        Assignability,
        Calls,
        Configs,
        Expressions,
        Names,
        Operators,
        Parts,
    )

StmtHandler = Callable[[ast.Stmt], Type]


class StatementChecker:
    """Statement walking."""

    exprs: Expressions
    names: Names
    annotations: Annotations
    assign: Assignability
    operators: Operators
    calls: Calls
    config: Configs

    def __init__(self, ctx: CheckContext) -> None:
        self.ctx = ctx
        self.handlers = self.handler_table()

    def connect(self, parts: Parts) -> None:
        self.exprs = parts.exprs
        self.names = parts.names
        self.annotations = parts.annotations
        self.assign = parts.assign
        self.operators = parts.operators
        self.calls = parts.calls
        self.config = parts.config

    def handler_table(self) -> dict[type, StmtHandler]:
        """The rule of each statement node type."""
        table: dict[type, Callable[..., Type]] = {
            ast.ExprStmt: self.expr_stmt,
            ast.AssignStmt: self.assign_stmt,
            ast.AugAssignStmt: self.aug_assign_stmt,
            ast.UnificationStmt: self.unification_stmt,
            ast.TypeAliasStmt: self.type_alias_stmt,
            ast.IfStmt: self.if_stmt,
            ast.AssertStmt: self.assert_stmt,
            ast.ImportStmt: self.import_stmt,
            ast.SchemaStmt: self.schema_stmt,
            ast.RuleStmt: self.rule_stmt,
            ast.SchemaAttr: self.schema_attr,
        }
        return table

    def stmt(self, node: ast.Stmt) -> Type:
        result = self.handlers[type(node)](node)
        if self.ctx.tool_facts:  # (a run reads no statement's type)
            self.ctx.types[node.id] = result
        return result

    def stmts(self, nodes: Iterable[ast.Stmt]) -> Type:
        result: Type = ANY
        stmt = self.stmt
        for node in nodes:
            result = stmt(node)
        return result

    # ------------------------------------------------------------------ simple statements

    def expr_stmt(self, node: ast.ExprStmt) -> Type:
        return self.exprs.expr(node.expr)

    def import_stmt(self, node: ast.ImportStmt) -> Type:
        return ANY

    def assert_stmt(self, node: ast.AssertStmt) -> Type:
        self.exprs.expr(node.test)
        self.exprs.expr_or_any(node.cond)
        if node.msg is not None:
            self.assign.must_assignable_to(self.exprs.expr(node.msg), STR_T, node.msg.span)
        return ANY

    def if_stmt(self, node: ast.IfStmt) -> Type:
        self.exprs.expr(node.cond)
        return sup([self.stmts(node.body), self.stmts(node.orelse)])

    def type_alias_stmt(self, node: ast.TypeAliasStmt) -> Type:
        aliased = self.annotations.resolve_type(node.type)
        if isinstance(aliased, SchemaType) and aliased.instance:
            aliased = SchemaType(aliased.info, False)
        name = node.name.name
        if name in RESERVED_TYPE_NAMES:
            self.ctx.type_error(
                f"type alias '{name}' cannot be the same as the built-in types "
                f"({RESERVED_TYPE_LIST})",
                node.name.span,
            )
        existing = self.ctx.package_symbol(name)
        if existing is not None and existing.kind == SymbolKind.TYPE_ALIAS:
            existing.type = aliased
            self.ctx.defines(node.name, existing)
        else:
            symbol = self.ctx.define(name, SymbolKind.TYPE_ALIAS, aliased, node.name.span, node)
            self.ctx.defines(node.name, symbol)
        self.ctx.types[node.name.id] = aliased
        return aliased

    # ------------------------------------------------------------------ assignments

    def assign_stmt(self, node: ast.AssignStmt) -> Type:
        value_type: Type = ANY
        is_config = isinstance(node.value, ast.SchemaExpr)
        names = self.ctx.globals_of_package()
        root: ast.NameExpr | None
        path: list[ast.Expr] | None
        for target in node.targets:
            if type(target) is ast.NameExpr:  # most targets
                root, path = target, None
            else:
                root, path = target_parts(target)
                if root is None:
                    self.exprs.silent_expr(target)
                    value_type = self.exprs.expr(node.value)
                    continue
            name = root.name
            fresh = name not in names or is_config or is_private(name)
            if fresh and self.ctx.nesting == 0 and not self.config.merged_away(node):
                names[name] = target.span
            if not path:
                value_type = self._assign_name(node, target, root)
            else:
                value_type = self._assign_path(node, target, name)
        return value_type

    def _assign_name(self, node: ast.AssignStmt, target: ast.Expr, root: ast.NameExpr) -> Type:
        self.ctx.l_value = True
        self.ctx.stored = None
        expected = self.names.resolve_target(target)
        self.ctx.l_value = False
        stored = self.ctx.stored
        expect = expect_for_value(expected, node.span)
        if expect is not None:
            depth = self.ctx.push_expect(expect)
            try:
                value_type = self.exprs.expr(node.value)
                if not isinstance(expected, SchemaType):
                    self.check_annotation(node, value_type)
            finally:
                self.ctx.pop_expect(depth)
        else:
            value_type = self.exprs.expr(node.value)
            if node.type is not None:
                self.check_annotation(node, value_type)
        self.assign.must_assignable_to(value_type, expected, target.span)
        if not value_type.flags & ANY_F and expected.flags & ANY_F and node.type is None:
            self._infer_variable(root, stored, value_type)
        return value_type

    def _infer_variable(self, root: ast.NameExpr, symbol: Symbol | None, value_type: Type) -> None:
        """Give the symbol the store at ``root`` set the type of the value stored."""
        inferred = widen(value_type)
        if symbol is None:
            self.ctx.compile_error(f"name '{root.name}' is not defined", root.span)
            return
        symbol.type = inferred
        self.ctx.types[root.id] = inferred
        if self.ctx.schema is not None:
            self.ctx.schema.local_types[root.name] = inferred

    def _assign_path(self, node: ast.AssignStmt, target: ast.Expr, name: str) -> Type:
        root, _ = target_parts(target)
        if self.ctx.schema is None and root is not None and self.ctx.symbol_of(root, name) is None:
            self.ctx.report_undefined(name, root)
        self.ctx.l_value = True
        expected = self.names.resolve_target(target)
        self.ctx.l_value = False
        value_type = self.exprs.expr(node.value)
        self.check_annotation(node, value_type)
        self.assign.must_assignable_to(value_type, expected, target.span)
        return value_type

    def check_annotation(self, node: ast.AssignStmt, value_type: Type) -> None:
        """``x: T = v``: the annotation must not change the variable's type; v must fit."""
        if node.type is None:
            return
        for target in node.targets:
            root, _ = target_parts(target)
            if root is None:
                continue
            annotation = self.annotations.resolve_type(node.type)
            symbol = self.ctx.stored_symbol(root)
            target_type = annotation
            if symbol is not None and not symbol.type.flags & ANY_F:
                if not is_upper_bound(annotation, symbol.type):
                    self.ctx.type_error(
                        f"can not change the type of '{root.name}' to {annotation.ty_str()}",
                        target.span,
                        Label(symbol.span, f"expected {symbol.type.ty_str()}"),
                    )
                target_type = symbol.type
            if symbol is not None:
                symbol.type = target_type
            self.assign.must_assignable_to(value_type, target_type, target.span)

    def aug_assign_stmt(self, node: ast.AugAssignStmt) -> Type:
        self.ctx.l_value = False
        root, _ = target_parts(node.target)
        name = root.name if root is not None else ""
        is_config = isinstance(node.value, ast.SchemaExpr)
        names = self.ctx.globals_of_package()
        if is_private(name) or is_config or name not in names:
            if self.ctx.nesting == 0 and name:
                names[name] = node.target.span
        else:
            extra = [
                Label(
                    names[name],
                    f"The variable '{name}' is declared here firstly",
                )
            ]
            self.ctx.report(
                Code.IMMUTABLE_ERROR,
                f"Immutable variable '{name}' is modified during compiling",
                node.target.span,
                *extra,
            )
        left = self.names.resolve_target(node.target)
        right = self.exprs.expr(node.value)
        result = self.operators.binary(left, right, node.op, node.target.span)
        self.ctx.l_value = True
        expected = self.names.resolve_target(node.target)
        self.assign.must_assignable_to(result, expected, node.target.span)
        self.ctx.l_value = False
        return result

    def unification_stmt(self, node: ast.UnificationStmt) -> Type:
        self.ctx.l_value = True
        self.ctx.stored = None
        expected = self.names.resolve_name(node.target.name, node.target)
        self.ctx.l_value = False
        stored = self.ctx.stored
        depth = self.ctx.push_expect(Expect(expected, node.value.span))
        try:
            value_type = self.exprs.expr(node.value)
        finally:
            self.ctx.pop_expect(depth)
        self.assign.must_assignable_to(value_type, expected, node.target.span)
        if not value_type.flags & ANY_F and expected.flags & ANY_F:
            self._infer_variable(node.target, stored, value_type)
        return expected

    # ------------------------------------------------------------------ schemas and rules

    def schema_stmt(self, node: ast.SchemaStmt) -> Type:
        self.names.resolve_unique_key(node.name, node.name_span)
        symbol = self.ctx.package_symbol(node.name)
        found = symbol.type if symbol is not None else ANY
        if not isinstance(found, SchemaType) or found.info.node is not node:
            return found
        info = found.info
        saved = self.ctx.schema
        self.ctx.schema = SchemaContext(info)
        try:
            for param in node.params:
                self.annotations.resolve_type(param.type)
            self.calls.check_parameters(node.params)
            saved_names = self.ctx.enter(self.ctx.model.schema_members.get(node.id, {}))
            try:
                self._schema_scope(node, info)
                self.stmts(node.body)
                for check in node.checks:
                    self.check_expr(check)
            finally:
                self.ctx.leave(saved_names)
        finally:
            self.ctx.schema = saved
        return found

    def _schema_scope(self, node: ast.SchemaStmt, info: SchemaInfo) -> None:
        for param, param_node in zip(info.params, node.params, strict=False):
            symbol = self.ctx.define(
                param.name,
                SymbolKind.PARAMETER,
                param.type,
                name_span(param_node, param.name),
                param_node,
            )
            self.ctx.declare(param_node, symbol)
        signature = info.index_signature
        signature_node = node.index_signature
        if signature is not None and signature_node is not None:
            if signature.key_name:
                symbol = self.ctx.define(
                    signature.key_name,
                    SymbolKind.INDEX_KEY,
                    signature.key_type,
                    signature_node.span,
                    signature_node,
                )
                self.ctx.declare(signature_node, symbol)
            if signature_node.value is not None:
                self.exprs.upgrade_type_for_expr(
                    signature.val_type, signature_node.value, signature_node.span
                )
        members = self.ctx.names or {}
        for name, name_node in schema_assigned(self.ctx.model, node).items():
            member = members.get(name)  # (a parameter's name has the parameter's symbol)
            if member is not None and member.symbol is None:
                attr = info.attrs.get(name)
                if attr is not None:
                    member.symbol = attr
                else:
                    self.ctx.define(name, SymbolKind.VARIABLE, ANY, name_node.span, name_node)

    def check_expr(self, node: ast.CheckExpr) -> Type:
        if node.msg is not None:
            self.assign.must_assignable_to(self.exprs.expr(node.msg), STR_T, node.msg.span)
        self.exprs.expr_or_any(node.cond)
        return self.exprs.expr(node.test)

    def rule_stmt(self, node: ast.RuleStmt) -> Type:
        self.names.resolve_unique_key(node.name, node.name_span)
        symbol = self.ctx.package_symbol(node.name)
        found = symbol.type if symbol is not None else ANY
        if not isinstance(found, SchemaType) or found.info.node is not node:
            return found
        saved = self.ctx.schema
        self.ctx.schema = SchemaContext(found.info)
        try:
            self.calls.check_parameters(node.params)
            saved_names = self.ctx.enter(None)  # (a rule body has no members)
            try:
                for param, param_node in zip(found.info.params, node.params, strict=False):
                    symbol = self.ctx.define(
                        param.name,
                        SymbolKind.PARAMETER,
                        param.type,
                        name_span(param_node, param.name),
                    )
                    self.ctx.declare(param_node, symbol)
                for check in node.checks:
                    self.check_expr(check)
            finally:
                self.ctx.leave(saved_names)
        finally:
            self.ctx.schema = saved
        return found

    def schema_attr(self, node: ast.SchemaAttr) -> Type:
        ctx = self.ctx
        schema = ctx.schema
        name = node.name
        symbol = None
        expected: Type | None = None
        if schema is not None:  # (``SchemaContext.attr_type``, the schema's own symbol read once)
            symbol = schema.info.attrs.get(name)
            expected = schema.local_types.get(name)
            if expected is None:
                expected = symbol.type if symbol is not None else schema.attr_type(name)
        if expected is None:
            expected = ANY
        if symbol is not None:
            member = ctx.names.get(name) if ctx.names is not None else None
            if member is not None:
                member.symbol = symbol
        else:
            symbol = ctx.define(name, SymbolKind.ATTRIBUTE, expected, node.name_span, node)
        if ctx.tool_facts:  # (``ctx.defines``; a run reads no statement's type)
            ctx.completed[node.id] = symbol
            ctx.types[node.id] = expected
        value = node.value
        if value is None:
            return ANY
        depth = ctx.push_expect(expect_for_value(expected, value.span))
        try:
            value_type = self.exprs.expr(value)
        finally:
            ctx.pop_expect(depth)
        if node.op in ("|=", "|"):
            value_type = self.operators.binary(value_type, expected, "|", node.name_span)
        self.assign.must_assignable_to(value_type, expected, node.name_span)
        return ANY
