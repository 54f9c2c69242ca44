"""Expressions: the dispatch and the rules of each expression form.

``expr`` walks one expression, records its type in the model (a dict literal
walked where a schema is expected is recorded as that schema) and returns the
type. The loop variables of comprehensions and quantifiers (declared by the resolver) get the
element types of the iterated value; iterating something that is not a list,
dict, schema or string is a CompileError.

:class:`ExpressionChecker` is the part of the checker that owns this walk: it
holds the context and dispatches each node to its rule, here or in the part that
owns it (names, operators, configs and schema expressions, calls and lambdas).
"""

from __future__ import annotations

from collections.abc import Callable

from kclpy.sema.assign import expect_for_value
from kclpy.sema.base import CheckContext
from kclpy.sema.relations import SUP_LIMIT, sup, widen
from kclpy.sema.symbols import SchemaType, SymbolKind, schema_val_type
from kclpy.sema.types import (
    ANY,
    ANY_F,
    BOOL_T,
    DICT,
    INT_T,
    ITERABLE,
    LIST,
    NONE,
    NONE_F,
    STR,
    STR_T,
    VOID_T,
    DictType,
    ListType,
    ModuleType,
    NumMulType,
    Type,
    UnionType,
    bool_lit,
    float_lit,
    int_lit,
    str_lit,
)
from kclpy.source import Span
from kclpy.syntax import ast

TYPE_CHECKING = False
if TYPE_CHECKING:
    from kclpy.sema.shared import (
        Annotations,
        Assignability,
        Calls,
        Configs,
        Names,
        Operators,
        Parts,
    )

VALID_FORMAT_SPECS = ("#json", "#yaml")
Handler = Callable[[ast.Expr], Type]


class ExpressionChecker:
    """Expression walking."""

    names: Names
    operators: Operators
    annotations: Annotations
    assign: Assignability
    config: Configs
    calls: Calls

    def __init__(self, ctx: CheckContext) -> None:
        self.ctx = ctx
        # the two containers every node touches, held directly (never rebound)
        self.types = ctx.types
        self.expected = ctx.model.expected
        self.expect_stack = ctx.expect_stack
        self.handlers: dict[type, Handler] = {}

    def connect(self, parts: Parts) -> None:
        self.names = parts.names
        self.operators = parts.operators
        self.annotations = parts.annotations
        self.assign = parts.assign
        self.config = parts.config
        self.calls = parts.calls
        self.handlers = self.handler_table()
        if not self.ctx.tool_facts:  # a run: nothing reads the per-node types
            self.expr = self._expr_untracked  # type: ignore[method-assign]

    def handler_table(self) -> dict[type, Handler]:
        """The rule of each expression node type (some owned by other parts)."""
        table: dict[type, Callable[..., Type]] = {
            ast.NameExpr: self.name_expr,
            ast.ConstExpr: self.const_expr,
            ast.NumberExpr: self.number_expr,
            ast.StringExpr: self.string_expr,
            ast.JoinedStringExpr: self.joined_string,
            ast.FormattedValue: self.formatted_value,
            ast.ParenExpr: self.paren_expr,
            ast.SelectorExpr: self.selector_expr,
            ast.SubscriptExpr: self.subscript_expr,
            ast.CallExpr: self.calls.call_expr,
            ast.UnaryExpr: self.unary_expr,
            ast.BinaryExpr: self.binary_expr,
            ast.CompareExpr: self.compare_expr,
            ast.IfExpr: self.if_expr,
            ast.AsExpr: self.as_expr,
            ast.StarredExpr: self.starred_expr,
            ast.DoubleStarredExpr: self.double_starred_expr,
            ast.ListIfItem: self.list_if_item,
            ast.ListExpr: self.list_expr,
            ast.ConfigExpr: self.config_expr,
            ast.SchemaExpr: self.config.schema_expr,
            ast.ListCompExpr: self.list_comp,
            ast.DictCompExpr: self.dict_comp,
            ast.QuantExpr: self.quant_expr,
            ast.LambdaExpr: self.calls.lambda_expr,
        }
        return table

    def expr(self, node: ast.Expr) -> Type:
        top = self.expect_stack[-1] if self.expect_stack else None
        result = self.handlers[type(node)](node)
        self.types[node.id] = result
        if top is not None and result.flags & (DICT | LIST):
            self.expected[node.id] = top.type
        return result

    def _expr_untracked(self, node: ast.Expr) -> Type:
        """``expr`` without the per-node records only tools read (``Model.type_of``)."""
        return self.handlers[type(node)](node)

    def expr_or_any(self, node: ast.Expr | None) -> Type:
        if node is None:
            return ANY
        result = self.handlers[type(node)](node)
        self.types[node.id] = result
        return result

    def silent_expr(self, node: ast.Expr | None) -> Type:
        """Walk an expression the reference does not check: bind names, report nothing."""
        if node is None:
            return ANY
        self.ctx.suppress += 1
        try:
            return self.expr(node)
        finally:
            self.ctx.suppress -= 1

    def upgrade_type_for_expr(
        self,
        expected: Type,
        node: ast.Expr,
        target_span: Span | None,
        def_span: Span | None = None,
    ) -> Type:
        """Walk ``node`` expecting ``expected`` and check the value fits it."""
        ctx = self.ctx
        depth = ctx.push_expect(expect_for_value(expected, node.span))
        try:
            value = self.expr(node)
        finally:
            ctx.pop_expect(depth)
        self.assign.must_assignable_to(value, expected, target_span, def_span)
        return value

    # ------------------------------------------------------------------ leaves

    def name_expr(self, node: ast.NameExpr) -> Type:
        return self.names.resolve_name(node.name, node)

    def const_expr(self, node: ast.ConstExpr) -> Type:
        value = node.value
        if isinstance(value, bool):
            return bool_lit(value)
        return NONE

    def number_expr(self, node: ast.NumberExpr) -> Type:
        value = node.value
        if type(value) is int and not node.suffix:
            return int_lit(value)  # most numbers
        if node.suffix and isinstance(value, int):
            return NumMulType(value, node.suffix)
        if isinstance(value, bool):
            return bool_lit(value)
        if isinstance(value, int):
            return int_lit(value)
        return float_lit(value)

    def string_expr(self, node: ast.StringExpr) -> Type:
        return str_lit(node.value)

    def joined_string(self, node: ast.JoinedStringExpr) -> Type:
        self.ctx.l_value = False
        for part in node.parts:
            if isinstance(part, ast.FormattedValue):
                self.expr(part)
        return STR_T

    def formatted_value(self, node: ast.FormattedValue) -> Type:
        spec = node.format_spec
        if spec is not None:
            spec = spec.split("}", 1)[0].strip()
            if spec.lower() not in VALID_FORMAT_SPECS:
                self.ctx.compile_error(f"{spec} is a invalid format spec", node.value.span)
        return self.expr(node.value)

    def paren_expr(self, node: ast.ParenExpr) -> Type:
        return self.expr(node.value)

    # ------------------------------------------------------------------ selections

    def selector_expr(self, node: ast.SelectorExpr) -> Type:
        value = self.expr(node.value)
        if isinstance(value, ModuleType) and node.optional:
            self.ctx.compile_error(
                f"For the module type, the use of '?.{node.attr}' is unnecessary and it can be "
                f"modified as '.{node.attr}'",
                node.span,
            )
        return self.names.load_attr(value, node.attr, node.span, node)

    def subscript_expr(self, node: ast.SubscriptExpr) -> Type:
        return self.names.subscript(node, self.expr(node.value))

    # ------------------------------------------------------------------ operators

    def unary_expr(self, node: ast.UnaryExpr) -> Type:
        return self.operators.unary(self.expr(node.operand), node.op, node.operand.span)

    def binary_expr(self, node: ast.BinaryExpr) -> Type:
        left = self.expr(node.left)
        right = self.expr(node.right)
        return self.operators.binary(left, right, node.op, node.span)

    def compare_expr(self, node: ast.CompareExpr) -> Type:
        left = self.expr(node.left)
        comparators = node.comparators
        first = self.expr(comparators[0])
        self.operators.compare(left, first, node.ops[0], node.left.span.to(comparators[0].span))
        count = len(comparators)
        for index in range(1, count - 1):
            right = self.expr(comparators[index])
            self.operators.compare(left, right, node.ops[index + 1], comparators[index].span)
        if count > 1:
            self.silent_expr(comparators[-1])
        return BOOL_T

    def if_expr(self, node: ast.IfExpr) -> Type:
        self.expr(node.cond)
        return sup([self.expr(node.body), self.expr(node.orelse)])

    def as_expr(self, node: ast.AsExpr) -> Type:
        value = self.expr(node.value)
        target = self.annotations.resolve_type(node.type)
        return self.operators.cast(value, target, node.span)

    # ------------------------------------------------------------------ collections

    def starred_expr(self, node: ast.StarredExpr) -> Type:
        value = self.expr(node.value)
        result, ok = _unpacked(value)
        if not ok:
            self.ctx.compile_error(
                f"only list, dict, schema object can be used * unpacked, got {result.ty_str()}",
                node.value.span,
            )
        return result

    def double_starred_expr(self, node: ast.DoubleStarredExpr) -> Type:
        return self.expr(node.value)

    def list_if_item(self, node: ast.ListIfItem) -> Type:
        self.expr(node.cond)
        orelse = node.orelse
        if orelse is None:
            other: Type = ANY
        elif isinstance(orelse, ast.ListIfItem):
            other = self.expr(orelse)
        else:
            other = sup([self.expr(item) for item in orelse])
        if isinstance(other, ListType):
            other = other.elem
        items = sup([self.expr(item) for item in node.items])
        return sup([other, items])

    def list_expr(self, node: ast.ListExpr) -> Type:
        walked = node.items
        if not self.ctx.tool_facts and len(walked) > SUP_LIMIT:
            # a long list of literals (no tool reads their types): one item per
            # distinct literal type gives the same supremum
            walked = literal_representatives(walked) or walked
        depth = self.config.push_names(["[]"])
        try:
            items = [self.expr(item) for item in walked]
        finally:
            self.ctx.pop_expect(depth)
        return ListType(sup(items))

    def config_expr(self, node: ast.ConfigExpr) -> Type:
        return self.config.config_entries(node.entries, node)

    # ------------------------------------------------------------------ comprehensions

    def list_comp(self, node: ast.ListCompExpr) -> Type:
        depth = self.config.push_names(["[]"])
        saved = self.ctx.enter()
        try:
            for clause in node.generators:
                self.comp_clause(clause)
            if isinstance(node.elt, ast.StarredExpr):
                self.ctx.compile_error(
                    "list unpacking cannot be used in list comprehension", node.elt.span
                )
            item = self.expr(node.elt)
        finally:
            self.ctx.leave(saved)
            self.ctx.pop_expect(depth)
        return ListType(item)

    def dict_comp(self, node: ast.DictCompExpr) -> Type:
        entry = node.entry
        saved = self.ctx.enter()
        try:
            for clause in node.generators:
                self.comp_clause(clause)
            if entry.key is None:
                self.ctx.compile_error(
                    "dict unpacking cannot be used in dict comprehension", entry.value.span
                )
                return DictType(ANY, self.expr(entry.value))
            key = self.expr(entry.key)
            self.config.check_attr_key_type(key, entry.key.span)
            depth = self.config.push_key(entry.key)
            try:
                value = self.expr(entry.value)
            finally:
                self.ctx.pop_expect(depth)
        finally:
            self.ctx.leave(saved)
        return DictType(key, value)

    def comp_clause(self, clause: ast.CompClause) -> None:
        iterated = self.expr(clause.iter)
        names = self.loop_variables(clause.targets)
        if not iterated.flags & ANY_F:
            self.loop_types(names, iterated, clause.iter)
        for condition in clause.ifs:
            self.expr(condition)

    def quant_expr(self, node: ast.QuantExpr) -> Type:
        iterated = self.expr(node.target)
        saved = self.ctx.enter()
        try:
            names = self.loop_variables(node.variables)
            self.loop_types(names, iterated, node.target)
            self.expr_or_any(node.cond)
            item = self.expr(node.test)
        finally:
            self.ctx.leave(saved)
        if node.op in ("all", "any"):
            return BOOL_T
        if node.op == "filter":
            return iterated
        return ListType(item)

    def loop_variables(self, targets: list[ast.NameExpr]) -> list[ast.NameExpr]:
        names: list[ast.NameExpr] = []
        for index, target in enumerate(targets):
            if "." in target.name:
                self.ctx.compile_error(
                    "loop variables can only be ordinary identifiers", target.span
                )
            if index >= 2:
                self.ctx.compile_error(
                    f"the number of loop variables is {len(targets)}, which can only be 1 or 2",
                    target.span,
                )
                break
            name = target.name.split(".")[0]
            symbol = self.ctx.define(name, SymbolKind.LOOP_VARIABLE, ANY, target.span, target)
            self.ctx.declare(target, symbol)
            names.append(target)
        return names

    def loop_types(self, names: list[ast.NameExpr], iterated: Type, node: ast.Expr) -> None:
        """Check ``iterated`` can be iterated and give the loop variables its element types."""
        if not names:
            return
        members = iterated.types if isinstance(iterated, UnionType) else (iterated,)
        first: Type = VOID_T
        second: Type = VOID_T
        for member in members:
            if not member.flags & (ITERABLE | ANY_F):
                self.ctx.compile_error(f"'{member.ty_str()}' object is not iterable", node.span)
            pair = _element_types(member, len(names) > 1)
            if pair is None:
                continue
            first = sup([pair[0], first])
            self._set_loop_type(names[0], first)
            if len(names) > 1:
                second = sup([pair[1], second])
                self._set_loop_type(names[1], second)

    def _set_loop_type(self, target: ast.NameExpr, element: Type) -> None:
        declaration = self.ctx.declarations.get(target.id)
        symbol = declaration.symbol if declaration is not None else None
        if symbol is not None:
            symbol.type = widen(element)
            self.ctx.types[target.id] = symbol.type


def _element_types(member: Type, two: bool) -> tuple[Type, Type] | None:
    """(first, second) loop variable types for iterating ``member``."""
    if isinstance(member, ListType):
        return (INT_T, member.elem) if two else (member.elem, VOID_T)
    if isinstance(member, DictType):
        return member.key, member.val
    if isinstance(member, SchemaType):
        return STR_T, schema_val_type(member.info)
    if member.flags & STR:
        return (INT_T, STR_T) if two else (STR_T, VOID_T)
    return None


def _unpacked(value: Type) -> tuple[Type, bool]:
    """The element type ``*value`` yields, and whether ``value`` can be unpacked."""
    if value.flags & (NONE_F | ANY_F):
        return value, True
    if isinstance(value, ListType):
        return value.elem, True
    if isinstance(value, DictType):
        return value.key, True
    if isinstance(value, SchemaType):
        return STR_T, True
    if isinstance(value, UnionType):
        results = [_unpacked(member) for member in value.types]
        return sup([item for item, _ in results]), all(ok for _, ok in results)
    return ANY, False


def literal_representatives(items: list[ast.Expr]) -> list[ast.Expr] | None:
    """The first item of each distinct literal (by node kind, value type and value;
    at most ``SUP_LIMIT + 1`` of them, past which a supremum is ``any``) when every
    item is an ``ast.plain_literal`` (whose type its value decides); else None."""
    distinct: dict[tuple[type, type, object], ast.Expr] = {}
    for item in items:
        value = ast.plain_literal(item)
        if value is ast.NOT_LITERAL:
            return None
        key = (type(item), type(value), value)
        if key not in distinct and len(distinct) <= SUP_LIMIT:
            distinct[key] = item
    return list(distinct.values())
