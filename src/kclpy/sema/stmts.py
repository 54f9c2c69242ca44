"""Statements: assignments, unification, aliases, ``if``, ``assert``, schema bodies.

A variable's type is its annotation, or the (widened) type of its first
assignment in walk order; a later assignment must fit it (``_a = 1`` then
``_a = "s"`` is ``expected int, got str(s)``). An augmented assignment of an
exported name that already has a value is the ImmutableError ``Immutable
variable 'a' is modified during compiling``. Schema bodies are walked in a
schema scope where the attributes (and the body's own assignments) are visible.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from kclpy.diag import Code, Label
from kclpy.sema.annotations import RESERVED_TYPE_NAMES
from kclpy.sema.base import Expect, SchemaContext, is_private, name_span
from kclpy.sema.exprs import ExprsMixin
from kclpy.sema.names import target_parts
from kclpy.sema.relations import is_upper_bound, sup, widen
from kclpy.sema.symbols import SchemaInfo, ScopeKind, SymbolKind
from kclpy.sema.types import ANY, ANY_F, STR_T, SchemaType, Type
from kclpy.syntax import ast

StmtHandler = Callable[[ast.Stmt], Type]
_RESERVED_LIST = "[" + ", ".join(f'"{name}"' for name in RESERVED_TYPE_NAMES) + "]"


def left_identifiers(body: Iterable[ast.Stmt]) -> list[tuple[str, ast.Node]]:
    """The names a schema body assigns or declares, in order (through ``if`` blocks)."""
    found: list[tuple[str, ast.Node]] = []
    for stmt in body:
        if isinstance(stmt, ast.SchemaAttr):
            found.append((stmt.name, stmt))
        elif isinstance(stmt, ast.UnificationStmt):
            found.append((stmt.target.name, stmt.target))
        elif isinstance(stmt, ast.AssignStmt):
            for target in stmt.targets:
                root, _ = target_parts(target)
                if root is not None:
                    found.append((root.name, root))
        elif isinstance(stmt, ast.AugAssignStmt):
            root, _ = target_parts(stmt.target)
            if root is not None:
                found.append((root.name, root))
        elif isinstance(stmt, ast.IfStmt):
            found.extend(left_identifiers(stmt.body))
            found.extend(left_identifiers(stmt.orelse))
    return found


class StmtsMixin(ExprsMixin):
    """Statement walking."""

    stmt_handlers: dict[type, StmtHandler]

    def init_stmt_handlers(self) -> dict[type, StmtHandler]:
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
        result = self.stmt_handlers[type(node)](node)
        self.types[node.id] = result
        return result

    def stmts(self, nodes: Iterable[ast.Stmt]) -> Type:
        result: Type = ANY
        for node in nodes:
            result = self.stmt(node)
        return result

    # ------------------------------------------------------------------ simple statements

    def expr_stmt(self, node: ast.ExprStmt) -> Type:
        return self.expr(node.expr)

    def import_stmt(self, node: ast.ImportStmt) -> Type:
        return ANY

    def assert_stmt(self, node: ast.AssertStmt) -> Type:
        self.expr(node.test)
        self.expr_or_any(node.cond)
        if node.msg is not None:
            self.must_assignable_to(self.expr(node.msg), STR_T, node.msg.span)
        return ANY

    def if_stmt(self, node: ast.IfStmt) -> Type:
        self.expr(node.cond)
        return sup([self.stmts(node.body), self.stmts(node.orelse)])

    def type_alias_stmt(self, node: ast.TypeAliasStmt) -> Type:
        aliased = self.resolve_type(node.type)
        if isinstance(aliased, SchemaType) and aliased.instance:
            aliased = SchemaType(aliased.info, False)
        name = node.name.name
        if name in RESERVED_TYPE_NAMES:
            self.type_error(
                f"type alias '{name}' cannot be the same as the built-in types ({_RESERVED_LIST})",
                node.name.span,
            )
        existing = self.scope.symbols.get(name)
        if existing is not None and existing.kind == SymbolKind.TYPE_ALIAS:
            existing.type = aliased
            self.bindings[node.name.id] = existing
        else:
            symbol = self.define(name, SymbolKind.TYPE_ALIAS, aliased, node.name.span, node)
            self.bindings[node.name.id] = symbol
        self.types[node.name.id] = aliased
        return aliased

    # ------------------------------------------------------------------ assignments

    def assign_stmt(self, node: ast.AssignStmt) -> Type:
        self.local_vars.clear()
        value_type: Type = ANY
        is_config = isinstance(node.value, ast.SchemaExpr)
        names = self.globals_of_package()
        for target in node.targets:
            root, path = target_parts(target)
            if root is None:
                self.silent_expr(target)
                value_type = self.expr(node.value)
                continue
            name = root.name
            fresh = is_private(name) or is_config or name not in names
            if fresh and self.scope_level == 0 and node.id not in self.merged_away:
                names[name] = target.span
            if not path:
                value_type = self._assign_name(node, target, root)
            else:
                value_type = self._assign_path(node, target, name)
        return value_type

    def _assign_name(self, node: ast.AssignStmt, target: ast.Expr, root: ast.NameExpr) -> Type:
        self.l_value = True
        expected = self.resolve_target(target)
        self.l_value = False
        expect = self.expect_for_value(expected, node.span)
        if expect is not None:
            depth = self.push_expect(expect)
            try:
                value_type = self.expr(node.value)
                if not isinstance(expected, SchemaType):
                    self.check_annotation(node, value_type)
            finally:
                self.pop_expect(depth)
        else:
            value_type = self.expr(node.value)
            self.check_annotation(node, value_type)
        self.must_assignable_to(value_type, expected, target.span)
        if not value_type.flags & ANY_F and expected.flags & ANY_F and node.type is None:
            self._infer_variable(root, value_type)
        return value_type

    def _infer_variable(self, root: ast.NameExpr, value_type: Type) -> None:
        inferred = widen(value_type)
        symbol = self.scope.symbols.get(root.name)
        if symbol is None:
            self.compile_error(f"name '{root.name}' is not defined", root.span)
            return
        symbol.type = inferred
        self.types[root.id] = inferred
        if self.schema is not None:
            self.schema.local_types[root.name] = inferred

    def _assign_path(self, node: ast.AssignStmt, target: ast.Expr, name: str) -> Type:
        root, _ = target_parts(target)
        if self.schema is None and self.scope.lookup(name) is None:
            self.lookup_or_report(name, root.span if root is not None else target.span)
        self.l_value = True
        expected = self.resolve_target(target)
        self.l_value = False
        value_type = self.expr(node.value)
        self.check_annotation(node, value_type)
        self.must_assignable_to(value_type, expected, target.span)
        return value_type

    def check_annotation(self, node: ast.AssignStmt, value_type: Type) -> None:
        """``x: T = v``: the annotation must not change the variable's type; v must fit."""
        if node.type is None:
            return
        for target in node.targets:
            root, _ = target_parts(target)
            if root is None:
                continue
            annotation = self.resolve_type(node.type)
            symbol = self.scope.symbols.get(root.name)
            target_type = annotation
            if symbol is not None and not symbol.type.flags & ANY_F:
                if not is_upper_bound(annotation, symbol.type):
                    self.type_error(
                        f"can not change the type of '{root.name}' to {annotation.ty_str()}",
                        target.span,
                        Label(symbol.span, f"expected {symbol.type.ty_str()}"),
                    )
                target_type = symbol.type
            if symbol is not None:
                symbol.type = target_type
            self.must_assignable_to(value_type, target_type, target.span)

    def aug_assign_stmt(self, node: ast.AugAssignStmt) -> Type:
        self.l_value = False
        root, _ = target_parts(node.target)
        name = root.name if root is not None else ""
        is_config = isinstance(node.value, ast.SchemaExpr)
        names = self.globals_of_package()
        if is_private(name) or is_config or name not in names:
            if self.scope_level == 0 and name:
                names[name] = node.target.span
        else:
            extra = [
                Label(
                    names[name],
                    f"The variable '{name}' is declared here firstly",
                )
            ]
            self.report(
                Code.IMMUTABLE_ERROR,
                f"Immutable variable '{name}' is modified during compiling",
                node.target.span,
                *extra,
            )
        left = self.resolve_target(node.target)
        right = self.expr(node.value)
        result = self.binary(left, right, node.op, node.target.span)
        self.l_value = True
        expected = self.resolve_target(node.target)
        self.must_assignable_to(result, expected, node.target.span)
        self.l_value = False
        return result

    def unification_stmt(self, node: ast.UnificationStmt) -> Type:
        self.l_value = True
        expected = self.resolve_name(node.target.name, node.target)
        self.l_value = False
        depth = self.push_expect(Expect(expected, node.value.span))
        try:
            value_type = self.expr(node.value)
        finally:
            self.pop_expect(depth)
        self.must_assignable_to(value_type, expected, node.target.span)
        if not value_type.flags & ANY_F and expected.flags & ANY_F:
            self._infer_variable(node.target, value_type)
        return expected

    # ------------------------------------------------------------------ schemas and rules

    def schema_stmt(self, node: ast.SchemaStmt) -> Type:
        self.resolve_unique_key(node.name, node.name_span)
        symbol = self.scope.lookup(node.name)
        found = symbol.type if symbol is not None else ANY
        if not isinstance(found, SchemaType) or found.info.node is not node:
            return found
        info = found.info
        saved = self.schema
        self.schema = SchemaContext(info)
        try:
            for param in node.params:
                self.resolve_type(param.type)
            self.check_parameters(node.params)
            self.enter_scope(ScopeKind.SCHEMA, node)
            try:
                self._schema_scope(node, info)
                self.stmts(node.body)
                for check in node.checks:
                    self.check_expr(check)
            finally:
                self.leave_scope()
        finally:
            self.schema = saved
        return found

    def _schema_scope(self, node: ast.SchemaStmt, info: SchemaInfo) -> None:
        for param, param_node in zip(info.params, node.params, strict=False):
            self.define(
                param.name,
                SymbolKind.PARAMETER,
                param.type,
                name_span(param_node, param.name),
                param_node,
            )
        signature = info.index_signature
        signature_node = node.index_signature
        if signature is not None and signature_node is not None:
            if signature.key_name:
                self.define(
                    signature.key_name,
                    SymbolKind.INDEX_KEY,
                    signature.key_type,
                    signature_node.span,
                    signature_node,
                )
            if signature_node.value is not None:
                self.upgrade_type_for_expr(
                    signature.val_type, signature_node.value, signature_node.span
                )
        for name, name_node in left_identifiers(node.body):
            if name not in self.scope.symbols:
                attr = info.attrs.get(name)
                if attr is not None:
                    self.scope.symbols[name] = attr
                else:
                    self.define(name, SymbolKind.VARIABLE, ANY, name_node.span, name_node)

    def check_expr(self, node: ast.CheckExpr) -> Type:
        if node.msg is not None:
            self.must_assignable_to(self.expr(node.msg), STR_T, node.msg.span)
        self.expr_or_any(node.cond)
        return self.expr(node.test)

    def rule_stmt(self, node: ast.RuleStmt) -> Type:
        self.resolve_unique_key(node.name, node.name_span)
        symbol = self.scope.lookup(node.name)
        found = symbol.type if symbol is not None else ANY
        if not isinstance(found, SchemaType) or found.info.node is not node:
            return found
        saved = self.schema
        self.schema = SchemaContext(found.info)
        try:
            self.check_parameters(node.params)
            self.enter_scope(ScopeKind.SCHEMA, node)
            try:
                for param, param_node in zip(found.info.params, node.params, strict=False):
                    self.define(
                        param.name,
                        SymbolKind.PARAMETER,
                        param.type,
                        name_span(param_node, param.name),
                    )
                for check in node.checks:
                    self.check_expr(check)
            finally:
                self.leave_scope()
        finally:
            self.schema = saved
        return found

    def schema_attr(self, node: ast.SchemaAttr) -> Type:
        self.local_vars.clear()
        schema = self.schema
        name = node.name
        expected = schema.attr_type(name) if schema is not None else None
        if expected is None:
            expected = ANY
        symbol = schema.info.attrs.get(name) if schema is not None else None
        if symbol is not None:
            self.scope.symbols[name] = symbol
            self.bindings[node.id] = symbol
        else:
            symbol = self.define(name, SymbolKind.ATTRIBUTE, expected, node.name_span, node)
        self.types[node.id] = expected
        if node.value is None:
            return ANY
        depth = self.push_expect(self.expect_for_value(expected, node.value.span))
        try:
            value_type = self.expr(node.value)
        finally:
            self.pop_expect(depth)
        if node.op in ("|=", "|"):
            value_type = self.binary(value_type, expected, "|", node.name_span)
        self.must_assignable_to(value_type, expected, node.name_span)
        return ANY
