"""Config literals and schema expressions, checked against the expected schema.

While a config value is walked, the expected-type stack holds the type the
value must have (a schema, a dict, a list...). Each entry ``key: value`` is
checked against the top: the key must be an attribute of the schema (else the
CompileError ``Cannot add member 'k' to schema 'P'``), and the value is walked
with the attribute's type pushed, then must be assignable to it (TypeError,
with a secondary label at the attribute's declaration). Dotted keys ``a.b = v``
mean ``a: {b = v}``. Keys defined earlier in a literal are visible by name in
later values, as the reference's config scope makes them. :class:`ConfigChecker`
is the part of the checker that does this; it holds the context and the
expression, assignability, operator and call checkers it calls.
"""

from __future__ import annotations

from kclpy.diag import Code, Label
from kclpy.sema.base import CheckContext, Expect, suggestion_text
from kclpy.sema.configkeys import (
    constant_index_subscript,
    key_names,
    literal_keys,
    merge_groups,
    overridden_entries,
    part_name,
    schema_value,
    sibling_keys,
)
from kclpy.sema.relations import sup
from kclpy.sema.symbols import (
    SchemaInfo,
    SchemaType,
    SymbolKind,
    config_val_type,
    schema_val_type,
)
from kclpy.sema.types import (
    ANY,
    ANY_F,
    DICT_ANY,
    LIST,
    LITERAL,
    NONE_F,
    PRIMITIVE,
    STR_T,
    DictAttr,
    DictType,
    ListType,
    LitType,
    MergedAttr,
    Type,
    UnionType,
    config_key_type,
    is_key,
    members_all,
    str_lit,
)
from kclpy.source import Span
from kclpy.syntax import ast

TYPE_CHECKING = False
if TYPE_CHECKING:
    from kclpy.sema.shared import Assignability, Calls, Expressions, Operators, Parts


# the values whose walk reads no expected type (a literal's type is its own)
_CONTEXT_FREE = (ast.StringExpr, ast.NumberExpr, ast.ConstExpr)


class _Collect:
    """Key types, value types and literal keys gathered from a config's entries."""

    __slots__ = ("attrs", "keys", "merging", "vals")

    def __init__(self) -> None:
        self.keys: list[Type] = []
        self.vals: list[Type] = []
        self.attrs: dict[str, DictAttr] = {}
        self.merging: dict[str, MergedAttr] = {}  # the keys set more than once, so far

    def result(self) -> DictType:
        return DictType.of_entries(self.keys, self.vals, self.attrs)


class ConfigChecker:
    """Config entries, ``**`` unpacking, ``if`` entries and schema expressions."""

    exprs: Expressions
    assign: Assignability
    operators: Operators
    calls: Calls

    def __init__(self, ctx: CheckContext) -> None:
        self.ctx = ctx
        # the type of each bare key name: one literal type per name, not one per entry
        self.key_types: dict[str, Type] = {}
        # main-package unifications of one name merged into the last one: the others'
        # statements, the entries of each group's configs, the keys given beside each
        # schema expression (None: not checked for required attributes), the entries
        # a later ``=`` of the same key replaces
        self.merged: set[int] = set()
        self.group_entries: dict[int, list[ast.ConfigEntry | ast.ConfigIfEntry]] = {}
        self.required_siblings: dict[int, set[str] | None] = {}
        self.silent_entries: set[int] = set()

    def connect(self, parts: Parts) -> None:
        self.exprs = parts.exprs
        self.assign = parts.assign
        self.operators = parts.operators
        self.calls = parts.calls

    # ------------------------------------------------------------------ unifications

    def merge_unifications(self, modules: list[ast.Module]) -> None:
        """Main-package unifications of one name act as one config (the last statement):
        their entries are siblings, and the required-attribute check runs once."""
        merged = self.merged = set()
        for group in merge_groups(modules):
            values = [schema_value(stmt) for stmt in group]
            entries = [e for value in values if value for e in value.config.entries]
            keys: set[str] | None = set()
            for value in values:
                found = literal_keys(value.config.entries) if value else None
                keys = None if keys is None or found is None else keys | found
            self.silent_entries.update(overridden_entries(entries))
            for stmt, value in zip(group, values, strict=True):
                if value is not None:
                    self.group_entries[value.config.id] = entries
                    self.required_siblings[value.id] = keys if stmt is group[-1] else None
            merged.update(stmt.id for stmt in group[:-1])

    def merged_away(self, stmt: ast.Stmt) -> bool:
        """Whether a statement is merged into a later unification of its name."""
        return stmt.id in self.merged

    # ------------------------------------------------------------------ expected types

    def attr_expect(self, name: str) -> Expect | None:
        """What the value under key ``name`` of the current config is expected to be."""
        top = self.ctx.top_expect()
        if not name or top is None:
            return None
        owner = top.type
        if isinstance(owner, ListType):
            return Expect(owner.elem, top.span)
        if isinstance(owner, DictType):
            return Expect(owner.val, top.span)
        if isinstance(owner, SchemaType):
            return self._schema_attr_expect(owner.info, name, top.span)
        if isinstance(owner, UnionType):
            possible: list[Type] = []
            for member in owner.types:
                if isinstance(member, SchemaType):
                    attr = member.info.get_attr(name)
                    if attr is not None:
                        possible.append(attr.type)
                    elif member.info.index_signature is not None:
                        possible.append(member.info.index_signature.val_type)
                elif isinstance(member, DictType):
                    possible.append(member.val)
            return Expect(sup(possible), top.span)
        return None

    def _schema_attr_expect(self, info: SchemaInfo, name: str, span: Span | None) -> Expect | None:
        attr = info.get_attr(name)
        if attr is not None:
            return Expect(attr.type, attr.span)
        if info.index_signature is not None:
            return Expect(info.index_signature.val_type, span, True)
        return None

    def push_names(self, names: list[str]) -> int:
        depth = 0
        for name in names:
            depth += self.ctx.push_expect(self.attr_expect(name))
        return depth

    def push_key(self, key: ast.Expr | None) -> int:
        """Switch the expected type to the value of ``key`` (0 or more pushes)."""
        if key is None:
            return 0
        parts = key_names(key)
        if parts is not None:
            return self.push_names([part_name(part) for part in parts])
        name = constant_index_subscript(key)
        if name is not None:
            return self.push_names([name])
        if isinstance(key, ast.StringExpr):
            return self.push_names([key.value])
        if isinstance(key, ast.JoinedStringExpr):
            return self.ctx.push_expect(None)
        return 0

    # ------------------------------------------------------------------ attribute checks

    def must_check_config_attr(
        self, attr: str, owner: Type, span: Span | None, attr_span: Span | None = None
    ) -> None:
        if isinstance(owner, SchemaType):
            self.check_config_attr(attr, owner.info, span, attr_span)
        elif isinstance(owner, UnionType):
            self._check_union_attr(attr, owner, span, attr_span)

    def _check_union_attr(
        self, attr: str, owner: UnionType, span: Span | None, attr_span: Span | None
    ) -> None:
        names: list[str] = []
        hints: list[str] = []
        for member in owner.types:
            if isinstance(member, SchemaType):
                info = member.info
                if (
                    info.get_attr(attr) is None
                    and not info.is_mixin
                    and (info.index_signature is None)
                ):
                    names.append(info.name)
                    hints.extend(list(info.attrs))
                else:
                    return
            elif isinstance(member, DictType):
                return
        if not names:
            return
        target = (
            "schemas [" + ", ".join(f'"{n}"' for n in names) + "]"
            if len(names) > 1
            else f"schema {names[0]}"
        )
        hint = suggestion_text(attr, hints)
        self._config_attr_error(f"Cannot add member '{attr}' to '{target}'{hint}", span, attr_span)

    def check_config_attr(
        self, attr: str, info: SchemaInfo, span: Span | None, attr_span: Span | None
    ) -> None:
        signature = info.index_signature
        if info.get_attr(attr) is None and not info.is_mixin and signature is None:
            hint = suggestion_text(attr, list(info.attrs))
            message = f"Cannot add member '{attr}' to schema '{info.name}'{hint}"
            self._config_attr_error(message, span, attr_span)
        if signature is None or signature.any_other:
            return
        key = signature.key_type
        allowed: list[str] | None = None
        if isinstance(key, LitType):
            allowed = [str(key.value)]
        elif isinstance(key, UnionType):
            allowed = [str(m.value) for m in key.types if isinstance(m, LitType)]
        if allowed is not None and attr not in allowed:
            hint = suggestion_text(attr, allowed)
            message = f"Cannot add member '{attr}' to schema '{info.name}'{hint}"
            self._config_attr_error(message, span, attr_span)

    def _config_attr_error(self, message: str, span: Span | None, attr_span: Span | None) -> None:
        extra = [Label(attr_span, "config attribute is defined here")] if attr_span else []
        self.ctx.compile_error(message, span, *extra)

    def check_attr_key_type(self, key: Type, span: Span | None) -> None:
        if not key.flags & ANY_F and not is_key(key):
            self.ctx.report(
                Code.ILLEGAL_ATTRIBUTE_ERROR,
                f"A attribute must be string type, got '{key.ty_str()}'",
                span,
            )

    # ------------------------------------------------------------------ entries

    def config_entries(
        self,
        entries: list[ast.ConfigEntry | ast.ConfigIfEntry],
        node: ast.Node | None = None,
        typed: bool = True,
    ) -> DictType:
        """The walk of a config literal's entries; the dict type of the literal (with
        ``typed`` False, when the caller knows the type, ``DICT_ANY``: the unions of
        the key and value types are the costliest part of a schema instance)."""
        ctx = self.ctx
        saved = ctx.enter()
        collected = _Collect()
        self._note_siblings(self.group_entries.get(node.id, entries) if node else entries, entries)
        silent_entries = self.silent_entries
        try:
            if not silent_entries:  # (no merged unifications: the common case)
                for entry in entries:
                    if isinstance(entry, ast.ConfigIfEntry):
                        self._unpack_entry(entry, self.config_if_entry(entry), collected)
                    else:
                        self.config_entry(entry, collected)
                return collected.result() if typed else DICT_ANY
            for entry in entries:
                silent = entry.id in silent_entries
                ctx.suppress += silent
                try:
                    if isinstance(entry, ast.ConfigIfEntry):
                        self._unpack_entry(entry, self.config_if_entry(entry), collected)
                    else:
                        self.config_entry(entry, collected)
                finally:
                    ctx.suppress -= silent
        finally:
            ctx.leave(saved)
        return collected.result() if typed else DICT_ANY

    def _note_siblings(
        self,
        all_entries: list[ast.ConfigEntry | ast.ConfigIfEntry],
        entries: list[ast.ConfigEntry | ast.ConfigIfEntry],
    ) -> None:
        """For schema expressions written as entry values, the keys sibling entries of the
        same key give (the reference counts them when it checks required attributes)."""
        targets = [
            e
            for e in entries
            if isinstance(e, ast.ConfigEntry)
            and isinstance(e.value, ast.SchemaExpr)
            and e.key is not None
            and key_names(e.key) is not None
        ]
        if not targets:
            return
        siblings = sibling_keys(all_entries)
        for entry in targets:
            assert entry.key is not None
            parts = key_names(entry.key)
            if parts is not None and len(parts) == 1:
                self.required_siblings[entry.value.id] = siblings.get(part_name(parts[0]))

    def config_entry(self, entry: ast.ConfigEntry, collected: _Collect) -> None:
        key, value = entry.key, entry.value
        if key is None:
            self._unpack_entry(entry, self.exprs.expr(value), collected)
            return
        if type(key) is ast.NameExpr:  # most keys
            if not self._declared_entry(key, entry.op, value, collected):
                self._name_entry([key], entry.op, value, collected)
            return
        parts = key_names(key)
        if parts is not None:
            self._name_entry(parts, entry.op, value, collected)
            return
        self._other_entry(entry, key, collected)

    def _declared_entry(
        self, key: ast.NameExpr, op: str, value: ast.Expr, collected: _Collect
    ) -> bool:
        """The commonest entry: ``a = v`` in a dict, or where ``a`` is a declared
        attribute of the expected schema (one without index signature), with ``a`` no
        loop variable's read. Does what ``_name_entry`` does for it without its general
        branches; False (having done nothing) for any other entry."""
        ctx = self.ctx
        stack = ctx.expect_stack
        top = stack[-1] if stack else None
        name = key.name
        # (a key the resolver bound is a loop variable's read: ``{k = v}`` in a loop)
        if top is None or not name or key.id in ctx.resolution:
            return False
        owner = top.type
        if type(owner) is SchemaType:
            info = owner.info
            attr = info.get_attr(name) if info.index_signature is None else None
            if attr is None:
                return False
            if ctx.tool_facts:
                ctx.bind(key, attr)
            expected, def_span = attr.type, attr.span
        elif type(owner) is DictType:
            expected, def_span = owner.val, top.span
        else:
            return False
        if type(value) in _CONTEXT_FREE:
            value_type = self.exprs.expr(value)
        else:
            stack.append(Expect(expected, def_span))
            try:
                value_type = self.exprs.expr(value)
            finally:
                if stack:
                    stack.pop()
        # (a literal where its base type is expected fits: ``check_type``'s first case)
        if not (value_type.flags & LITERAL and expected.flags == value_type.flags & PRIMITIVE):
            self.assign.must_assignable_to(value_type, expected, key.span, def_span)
        attrs = collected.attrs
        if name in attrs or ctx.tool_facts or key.id in ctx.declarations:
            self._add_literal_key(name, value_type, key.span, key, collected)
        else:  # (what ``_add_literal_key`` does for a first key nothing reads)
            attrs[name] = DictAttr(value_type, key.span, wide=False)
        collected.keys.append(self.key_type(name))
        collected.vals.append(value_type)
        if op == "+=":
            self._check_insert(op, value_type, value.span)
        return True

    def _name_entry(
        self, parts: list[ast.Expr], op: str, value: ast.Expr, collected: _Collect
    ) -> None:
        """``a = v`` or ``a.b.c = v`` (which means ``a: {b: {c = v}}``)."""
        first = parts[0]
        name = part_name(first)
        rest = parts[1:] if len(parts) > 1 else None
        entry_op = op if rest is None else ":"
        key_span = first.span
        checked = self._checked_value(name, first, value, rest, op)
        variable = self.ctx.reads_loop_variable(first)  # ``{k = v}`` in a loop over k
        if checked is not None and not variable:
            val_type = checked  # walked under the attribute's type already
            key_type = self.key_type(name)
        else:
            depth = self.push_names([name])
            try:
                val_type = checked if checked is not None else self._walk(value, rest, op)
                key_type = self._key_expr(first) if variable else self.key_type(name)
                self.check_attr_key_type(key_type, key_span)
            finally:
                self.ctx.pop_expect(depth)
        self._add_literal_key(name, val_type, key_span, first, collected)
        collected.keys.append(key_type)
        collected.vals.append(val_type)
        if entry_op == "+=":
            self._check_insert(entry_op, val_type, value.span)

    def key_type(self, name: str) -> Type:
        """The type of the bare key ``name`` (a string literal type, shared)."""
        key_type = self.key_types.get(name)
        if key_type is None:
            key_type = self.key_types[name] = str_lit(name)
        return key_type

    def _nested_config(self, parts: list[ast.Expr], op: str, value: ast.Expr) -> Type:
        """The single-entry config ``{parts[0]: ...}`` a dotted key stands for."""
        saved = self.ctx.enter()
        collected = _Collect()
        try:
            self._name_entry(parts, op, value, collected)
        finally:
            self.ctx.leave(saved)
        return collected.result()

    def _walk(self, value: ast.Expr, rest: list[ast.Expr] | None, op: str) -> Type:
        """The type of an entry's value: ``value``, or the config of a dotted key's
        ``rest`` parts holding it."""
        if rest is None:
            return self.exprs.expr(value)
        return self._nested_config(rest, op, value)

    def _checked_value(
        self, name: str, key: ast.Expr, value: ast.Expr, rest: list[ast.Expr] | None, op: str
    ) -> Type | None:
        """Walk the value of key ``name`` under its attribute's type and check it fits."""
        ctx = self.ctx
        stack = ctx.expect_stack
        top = stack[-1] if stack else None
        if top is None:
            return None
        owner = top.type
        if type(owner) is DictType and name:
            # a dict: any key is fine and every value is expected to have its value type
            # (what the general way below does; an empty key is expected nothing)
            expected = owner.val
            stack.append(Expect(expected, top.span))
            try:
                value_type = self._walk(value, rest, op)
                self.assign.must_assignable_to(value_type, expected, key.span, top.span)
            finally:
                ctx.pop_expect(1)
            return value_type
        if isinstance(owner, SchemaType):
            info = owner.info
            attr = info.get_attr(name)
            if attr is not None:
                ctx.bind(key, attr)
                if info.index_signature is None:
                    # a declared attribute of a schema without index signature: the key
                    # is fine and the value is expected to have the attribute's type
                    stack.append(Expect(attr.type, attr.span))
                    try:
                        value_type = self._walk(value, rest, op)
                        self.assign.must_assignable_to(value_type, attr.type, key.span, attr.span)
                    finally:
                        ctx.pop_expect(1)
                    return value_type
        key_span = key.span
        self.must_check_config_attr(name, owner, key_span)
        depth = self.push_names([name])
        try:
            value_type = self._walk(value, rest, op)
            last = stack[-1] if stack else None
            if last is not None:
                self.assign.must_assignable_to(value_type, last.type, key_span, last.span)
        finally:
            ctx.pop_expect(depth)
        return value_type

    def _key_expr(self, key: ast.Expr) -> Type:
        depth = self.ctx.push_expect(None)
        try:
            return self.exprs.expr(key)
        finally:
            self.ctx.pop_expect(depth)

    def _add_literal_key(
        self, name: str, val_type: Type, span: Span, node: ast.Node, collected: _Collect
    ) -> None:
        """Record the literal key ``name`` of the config, and the symbol it defines there
        (a key set again merges its values' types: ``MergedAttr``)."""
        ctx = self.ctx
        previous = collected.attrs.get(name)
        merging: MergedAttr | None = None
        if previous is None:
            collected.attrs[name] = DictAttr(val_type, span, wide=False)
        elif previous is collected.merging.get(name):
            merging = collected.merging[name]
            merging.add(val_type, span)
        else:  # (an attribute of an unpacked ``**`` value is not this literal's to extend)
            merging = collected.merging[name] = MergedAttr(previous, val_type, span)
            collected.attrs[name] = merging
        declaration = ctx.declarations.get(node.id)  # a key read later in the literal
        if declaration is None and not ctx.tool_facts:
            return  # no one would see the symbol (a config's names are not a scope's)
        merged = merging.merged(merging.count) if merging is not None else val_type
        bound = ctx.is_bound(node)  # (to a schema's attribute, a loop variable)
        symbol = ctx.define(name, SymbolKind.CONFIG_KEY, merged, None if bound else span, node)
        if declaration is not None:
            declaration.symbol = symbol
        if not bound:
            ctx.defines(node, symbol)

    def _string_entry(
        self, entry: ast.ConfigEntry, key: ast.StringExpr, collected: _Collect
    ) -> None:
        """A quoted key ``"k": v`` (what ``_other_entry`` does for it, without walking
        the key under the value's expected type: a string literal reads no context)."""
        value = entry.value
        literal = key.value
        val_type = self._checked_value(literal, key, value, None, "")
        if val_type is None:  # no expected type here
            depth = self.ctx.push_expect(None)
            try:
                val_type = self.exprs.expr(value)
            finally:
                self.ctx.pop_expect(depth)
        key_type = self.exprs.expr(key)  # a string literal type: always a valid key
        self._add_literal_key(literal, val_type, key.span, key, collected)
        collected.keys.append(key_type)
        collected.vals.append(val_type)
        self._check_insert(entry.op, val_type, value.span)

    def _other_entry(self, entry: ast.ConfigEntry, key: ast.Expr, collected: _Collect) -> None:
        """Quoted, interpolated, computed ``(k)`` and index ``l[0]`` keys."""
        if type(key) is ast.StringExpr:
            self._string_entry(entry, key, collected)
            return
        value = entry.value
        checked: Type | None = None
        subscript_name = constant_index_subscript(key)
        literal = key.value if isinstance(key, ast.StringExpr) else None
        if literal is not None:
            checked = self._checked_value(literal, key, value, None, "")
        elif subscript_name is not None:
            checked = self._checked_value(subscript_name, key, value, None, "")
            self.exprs.silent_expr(key)
        depth = self.push_key(key)
        try:
            if subscript_name is not None:
                val_type = checked if checked is not None else self.exprs.expr(value)
                collected.keys.append(STR_T)
                collected.vals.append(val_type if entry.op == "+=" else ListType(val_type))
            else:
                key_type = self._key_expr(key)
                val_type = checked if checked is not None else self.exprs.expr(value)
                self.check_attr_key_type(key_type, key.span)
                if literal is not None:
                    self._add_literal_key(literal, val_type, key.span, key, collected)
                collected.keys.append(key_type)
                collected.vals.append(val_type)
            self._check_insert(entry.op, val_type, value.span)
        finally:
            self.ctx.pop_expect(depth)

    def _unpack_entry(
        self, entry: ast.ConfigEntry | ast.ConfigIfEntry, value_type: Type, collected: _Collect
    ) -> None:
        """``**value`` or an ``if`` entry: merge the value's keys into the config."""
        span = entry.value.span if isinstance(entry, ast.ConfigEntry) else entry.span
        self.check_config_value(value_type, span)
        if value_type.flags & (ANY_F | NONE_F):
            collected.vals.append(value_type)
        elif isinstance(value_type, DictType):
            collected.keys.append(value_type.key)
            collected.vals.append(value_type.val)
            collected.attrs.update(value_type.attrs or {})
        elif isinstance(value_type, SchemaType):
            collected.keys.append(STR_T)
            collected.vals.append(schema_val_type(value_type.info))
            for name, symbol in value_type.info.attrs.items():
                collected.attrs[name] = DictAttr(symbol.type, symbol.span)
        elif isinstance(value_type, UnionType) and members_all(value_type, (1 << 8) | (1 << 9)):
            collected.keys.append(sup([config_key_type(m) for m in value_type.types]))
            collected.vals.append(sup([config_val_type(m) for m in value_type.types]))
        else:
            self.ctx.compile_error(
                f"only dict and schema can be used ** unpack, got '{value_type.ty_str()}'", span
            )
        if isinstance(entry, ast.ConfigEntry):
            self._check_insert(entry.op, value_type, span)

    def _check_insert(self, op: str, val_type: Type, span: Span) -> None:
        if op == "+=" and not val_type.flags & (ANY_F | LIST):
            self.ctx.report(
                Code.ILLEGAL_ATTRIBUTE_ERROR,
                f"only list type can in inserted, got '{val_type.ty_str()}'",
                span,
            )

    def config_if_entry(self, entry: ast.ConfigIfEntry) -> Type:
        self.exprs.expr(entry.cond)
        body = self.config_entries(entry.entries, entry)
        orelse = entry.orelse
        if orelse is None:
            return body
        if isinstance(orelse, ast.ConfigIfEntry):
            other: Type = self.config_if_entry(orelse)
        else:
            other = self.config_entries(orelse, entry)
        return sup([body, other])

    # ------------------------------------------------------------------ ** and if values

    def check_config_value(self, value_type: Type, span: Span) -> None:
        """Check the keys a ``**`` or ``if`` entry adds against the expected schema."""
        if isinstance(value_type, DictType):
            for key, attr in (value_type.attrs or {}).items():
                self._check_attr_recursively(key, attr.type, attr.span, span)
        elif isinstance(value_type, SchemaType):
            for key, symbol in value_type.info.attrs.items():
                self._check_attr_recursively(key, symbol.type, symbol.span, span)

    def _check_attr_recursively(
        self, key: str, attr_type: Type, attr_span: Span | None, span: Span
    ) -> None:
        if not key:
            return
        top = self.ctx.top_expect()
        if top is not None:
            self.must_check_config_attr(key, top.type, span, attr_span)
        depth = self.push_names([key])
        try:
            last = self.ctx.top_expect()
            if last is not None:
                self.assign.must_assignable_to(attr_type, last.type, span, last.span, attr_span)
            self.check_config_value(attr_type, span)
        finally:
            self.ctx.pop_expect(depth)

    # ------------------------------------------------------------------ schema expressions

    def schema_expr(self, node: ast.SchemaExpr) -> Type:
        def_type = self.exprs.expr(node.name)
        span = node.name.span
        if isinstance(def_type, DictType):
            depth = self.ctx.push_expect(Expect(def_type))
            try:
                config_type = self.exprs.expr(node.config)
            finally:
                self.ctx.pop_expect(depth)
            self.calls.silent_arguments(node)
            return self.operators.binary(def_type, config_type, "|", span)
        if isinstance(def_type, SchemaType):
            return self._schema_instance(node, def_type)
        self.exprs.silent_expr(node.config)
        self.calls.silent_arguments(node)
        if not def_type.flags & ANY_F:
            self.ctx.compile_error(f"Invalid schema type '{def_type.ty_str()}'", span)
        return ANY

    def _schema_instance(self, node: ast.SchemaExpr, def_type: SchemaType) -> Type:
        outer = self.ctx.top_expect()
        in_signature = outer is not None and outer.from_signature
        depth = self.ctx.push_expect(Expect(def_type))
        try:  # the config's type is the schema's: no need to build its dict type
            self.config_entries(node.config.entries, node.config, typed=False)
        finally:
            self.ctx.pop_expect(depth)
        self.ctx.types[node.config.id] = def_type
        if def_type.instance:
            if node.args or node.keywords:
                self.ctx.compile_error(
                    "Arguments cannot be used in the schema modification expression",
                    node.name.span,
                )
            self.calls.silent_arguments(node)
        else:
            self.calls.check_arguments(
                node.name, node.args, node.keywords, def_type.info.func, node.name.span
            )
            if self.ctx.schema is None and not in_signature:
                self._check_required(def_type.info, node)
        return SchemaType(def_type.info, True)

    def _check_required(self, info: SchemaInfo, node: ast.SchemaExpr) -> None:
        """Required attributes a literal config visibly leaves unset (the reference's
        compile-time check, made only for plain schemas: no base, mixin, protocol or
        index signature, and a body of attribute declarations only)."""
        definition = info.node
        if not isinstance(definition, ast.SchemaStmt) or info.is_mixin or info.is_protocol:
            return
        if (
            definition.parent
            or definition.mixins
            or definition.for_host
            or definition.index_signature
        ):
            return
        if not all(isinstance(stmt, ast.SchemaAttr) for stmt in definition.body):
            return
        config = node.config
        given = literal_keys(config.entries)
        if given is None:
            return
        if node.id in self.required_siblings:
            extra = self.required_siblings[node.id]
            if extra is None:
                return
            given |= extra
        for stmt in definition.body:
            assert isinstance(stmt, ast.SchemaAttr)
            if stmt.optional or stmt.value is not None or stmt.name in given:
                continue
            if isinstance(stmt.type, ast.LiteralType):
                continue
            self.ctx.compile_error(
                f"attribute '{stmt.name}' of {info.name} is required and can't be None or "
                "Undefined",
                config.span,
            )
