"""Names and members: the types of identifiers, attribute loads, subscripts, targets.

A name read takes its symbol, and so its type, from its binding (``sema.resolve``,
through ``CheckContext.symbol_of``); the checker never looks a name up. Inside a
schema body the schema's attribute (declared, in a base, or in a mixin) gives the
type first, as the binding's ``ATTRIBUTE`` kind says. A store the resolver made a
declaration of (a lambda local's first assignment) defines a symbol for it, which
later reads find through their ``LOCAL`` binding; another store sets the symbol its
binding's declaration has. Module members are the imported package's declarations
the checker decorated. Attribute access is checked by the type of the value: a
schema instance must declare the attribute (TypeError ``attribute 'x' not found in
'P'``), a module must define it (and not as a private ``_name``), a string must have
the method; dicts, unions and ``any`` accept every name.
:class:`NameResolver` is the part of the checker that does this; it holds the
context and the expression, assignability and config checkers it calls.
``sema.resolve`` also owns the syntactic facts both read (the root and path of a
target).
"""

from __future__ import annotations

from kclpy.diag import Code, Label
from kclpy.sema.base import CheckContext, is_private, suggestion_text
from kclpy.sema.builtins import SCHEMA_MEMBER_FUNCTIONS, STRING_METHODS, module_member_types
from kclpy.sema.symbols import SchemaType, Symbol, SymbolKind, schema_val_type
from kclpy.sema.types import (
    ANY,
    ANY_F,
    INT_T,
    MODULE_PLUGIN,
    MODULE_SYSTEM,
    NONE_F,
    STR,
    STR_T,
    DictType,
    ListType,
    LitType,
    ModuleType,
    Type,
    UnionType,
    is_key,
)
from kclpy.source import Span
from kclpy.syntax import ast
from kclpy.syntax.targets import target_parts

TYPE_CHECKING = False
if TYPE_CHECKING:
    from kclpy.sema.shared import Assignability, Configs, Expressions, Parts


class NameResolver:
    """Identifier resolution, attribute loads, subscripts and assignment targets."""

    exprs: Expressions
    assign: Assignability
    config: Configs

    def __init__(self, ctx: CheckContext) -> None:
        self.ctx = ctx

    def connect(self, parts: Parts) -> None:
        self.exprs = parts.exprs
        self.assign = parts.assign
        self.config = parts.config

    # ------------------------------------------------------------------ identifiers

    def resolve_name(self, name: str, node: ast.Node) -> Type:
        """The type of a name use (or store target when ``l_value`` is set)."""
        ctx = self.ctx
        if ctx.schema is not None:
            return self._resolve_in_schema(name, node)
        if not ctx.l_value:
            symbol = ctx.symbol_of(node, name)
            if symbol is None:
                ctx.report_undefined(name, node)
                return ANY
            ctx.bind(node, symbol)
            return symbol.type
        symbol = None if node.id in ctx.declarations else ctx.stored_symbol(node)
        if symbol is None:  # a lambda local's first assignment
            ctx.stored = ctx.declare(
                node, ctx.define(name, SymbolKind.VARIABLE, ANY, node.span, node)
            )
            return ANY
        ctx.stored = symbol
        ctx.bind(node, symbol)
        return symbol.type

    def _resolve_in_schema(self, name: str, node: ast.Node) -> Type:
        ctx = self.ctx
        schema = ctx.schema
        assert schema is not None
        attr_type = schema.attr_type(name)
        if ctx.l_value:
            symbol = None if node.id in ctx.declarations else ctx.stored_symbol(node)
            if symbol is None or attr_type is None:
                symbol = ctx.define(name, SymbolKind.VARIABLE, ANY, node.span, node)
                ctx.stored = ctx.declare(node, symbol)
                if attr_type is None:
                    schema.local_types[name] = ANY
                return ANY
            ctx.stored = symbol
            ctx.bind(node, symbol)
            return attr_type
        symbol = ctx.symbol_of(node, name)
        if ctx.reads_loop_variable(node):
            ctx.bind(node, symbol)
            return symbol.type if symbol is not None else ANY
        if attr_type is not None and not attr_type.flags & ANY_F:
            ctx.bind(node, symbol or schema.info.get_attr(name))
            return attr_type
        info = schema.info
        if attr_type is None and not info.is_mixin:
            for mixin in info.mixins:
                found = mixin.get_attr(name)
                if found is not None:
                    ctx.bind(node, found)
                    return found.type
        is_type_ref = name[:1].isupper()
        if attr_type is None and symbol is None and (not info.is_mixin or is_type_ref):
            if not info.is_rule:
                ctx.report_undefined(name, node)
            return ANY
        ctx.bind(node, symbol)
        return symbol.type if symbol is not None else ANY

    # ------------------------------------------------------------------ attributes

    def load_attr(self, obj: Type, attr: str, span: Span | None, node: ast.Node | None) -> Type:
        found, result, symbol = self._attr_of(obj, attr, span)
        if node is not None and symbol is not None:
            self.ctx.bind(node, symbol)
        if not found:
            self.ctx.type_error(
                f"attribute '{attr}' not found in '{obj.ty_str()}'{self._attr_hint(obj, attr)}",
                span,
            )
        return result

    def _attr_of(self, obj: Type, attr: str, span: Span | None) -> tuple[bool, Type, Symbol | None]:
        if obj.flags & ANY_F or isinstance(obj, UnionType):
            return True, ANY, None
        if isinstance(obj, DictType):
            known = obj.attrs.get(attr) if obj.attrs else None
            return True, (known.type if known is not None else obj.val), None
        if isinstance(obj, SchemaType):
            return self._schema_attr(obj, attr)
        if isinstance(obj, ModuleType):
            return self._module_attr(obj, attr, span)
        if obj.flags & STR:
            method = STRING_METHODS.get(attr)
            return method is not None, (method or ANY), None
        return False, ANY, None

    def _schema_attr(self, obj: SchemaType, attr: str) -> tuple[bool, Type, Symbol | None]:
        info = obj.info
        symbol = info.get_attr(attr)
        if symbol is not None:
            return True, symbol.type, symbol
        if info.is_mixin or info.index_signature is not None:
            return True, ANY, None
        if not obj.instance and attr in SCHEMA_MEMBER_FUNCTIONS:
            return True, SCHEMA_MEMBER_FUNCTIONS[attr], None
        return False, ANY, None

    def _module_attr(
        self, obj: ModuleType, attr: str, span: Span | None
    ) -> tuple[bool, Type, Symbol | None]:
        if obj.kind == MODULE_PLUGIN:
            return True, ANY, None
        if obj.kind == MODULE_SYSTEM:
            members = module_member_types(obj.pkgpath)
            if members is None:
                return True, ANY, None
            member = members.get(attr)
            return member is not None, (member or ANY), None
        names = self.ctx.model.packages_names.get(obj.pkgpath)
        if names is None:
            return True, ANY, None
        declaration = names.get(attr)
        symbol = declaration.symbol if declaration is not None else None
        if symbol is None:
            return False, ANY, None
        if is_private(attr):
            self.ctx.compile_error(
                f"cannot reference private member '{attr}' from module '{obj.pkgpath}'", span
            )
        elif isinstance(symbol.type, ModuleType):
            self.ctx.compile_error(
                f"can not import the attribute '{attr}' from the module '{obj.pkgpath}'", span
            )
        return True, symbol.type, symbol

    def _attr_hint(self, obj: Type, attr: str) -> str:
        if not isinstance(obj, SchemaType):
            return ""
        if obj.instance:
            return suggestion_text(attr, list(obj.info.attrs))
        return suggestion_text(attr, list(SCHEMA_MEMBER_FUNCTIONS))

    # ------------------------------------------------------------------ subscripts

    def subscript(self, node: ast.SubscriptExpr, value: Type) -> Type:
        span = node.value.span
        if value.flags & ANY_F:
            self.walk_subscript_parts(node)
            return value
        if isinstance(value, ListType) or value.flags & STR:
            if node.index is not None and not node.is_slice:
                return self.subscript_index(value, node.index, span)
            for part in (node.lower, node.upper, node.step):
                if part is not None:
                    self.assign.must_assignable_to(self.exprs.expr(part), INT_T, part.span)
            return value if isinstance(value, ListType) else STR_T
        if isinstance(value, (DictType, SchemaType)):
            if node.index is not None and not node.is_slice:
                return self.subscript_index(value, node.index, span)
            self.walk_subscript_parts(node)
            self.ctx.compile_error("unhashable type: 'slice'", span)
            return ANY
        self.walk_subscript_parts(node)
        self.ctx.compile_error(f"'{value.ty_str()}' object is not subscriptable", span)
        return ANY

    def walk_subscript_parts(self, node: ast.SubscriptExpr) -> None:
        for part in (node.index, node.lower, node.upper, node.step):
            if part is not None:
                self.exprs.silent_expr(part)

    def subscript_index(self, value: Type, index: ast.Expr, span: Span | None) -> Type:
        if value.flags & ANY_F:
            self.exprs.expr(index)
            return value
        if isinstance(value, ListType) or value.flags & STR:
            self.assign.must_assignable_to(self.exprs.expr(index), INT_T, index.span)
            return value.elem if isinstance(value, ListType) else STR_T
        if isinstance(value, (DictType, SchemaType)):
            key = self.exprs.expr(index)
            fallback = value.val if isinstance(value, DictType) else schema_val_type(value.info)
            if key.flags & (ANY_F | NONE_F):
                return fallback
            if not is_key(key):
                self.ctx.compile_error(f"invalid dict/schema key type: '{key.ty_str()}'", span)
                return ANY
            if isinstance(key, LitType):
                return self.load_attr(value, str(key.value), span, None)
            return fallback
        self.exprs.expr(index)
        self.ctx.compile_error(f"'{value.ty_str()}' object is not subscriptable", span)
        return ANY

    # ------------------------------------------------------------------ targets

    def resolve_target(self, target: ast.Expr) -> Type:
        """The type expected of an assignment target (``a``, ``a.b``, ``a[0]``)."""
        if type(target) is ast.NameExpr:  # most targets
            result = self.resolve_name(target.name, target)
        else:
            root, path = target_parts(target)
            if root is None:
                self.exprs.silent_expr(target)
                return ANY
            result = self.resolve_name(root.name, root)
            saved = self.ctx.l_value
            self.ctx.l_value = False
            try:
                for step in path:
                    result = self._target_step(step, result, target.span)
            finally:
                self.ctx.l_value = saved
        if self.ctx.tool_facts:
            self.ctx.types[target.id] = result
        return result

    def _target_step(self, step: ast.Expr, current: Type, span: Span) -> Type:
        if isinstance(step, ast.SelectorExpr):
            self.config.must_check_config_attr(step.attr, current, span)
            return self.load_attr(current, step.attr, span, step)
        assert isinstance(step, ast.SubscriptExpr)
        if step.index is None:
            return ANY
        if isinstance(step.index, ast.StringExpr):
            self.config.must_check_config_attr(step.index.value, current, span)
        return self.subscript_index(current, step.index, span)

    # ------------------------------------------------------------------ unique names

    def resolve_unique_key(self, name: str, span: Span) -> None:
        names = self.ctx.globals_of_package()
        if name not in names and self.ctx.nesting == 0:
            names[name] = span
            return
        extra: list[Label] = []
        first = names.get(name)
        if first is not None:
            extra.append(Label(first, f"The variable '{name}' is declared here"))
        self.ctx.report(Code.UNIQUE_KEY_ERROR, f"Unique key error name '{name}'", span, *extra)
