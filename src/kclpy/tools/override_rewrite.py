"""One spec applied to the modules of a package: which statements and entries it
changes, as the reference decides (see :mod:`kclpy.tools.override`).

The tree is changed in place; with :class:`~kclpy.tools.override_edits.Edits` (one
module, a file being rewritten) every change is also made in the text. Without them
(a run) new nodes get the span of the place they are put, so that errors in a value
point into the program.
"""

from __future__ import annotations

from kclpy.source import Span
from kclpy.syntax import ast, parse_expr
from kclpy.syntax.walk import walk
from kclpy.tools.override_edits import Edits, dotted_names, stmt_binds
from kclpy.tools.override_layout import line_of
from kclpy.tools.override_spec import OverrideSpec, key_text

__all__ = ["Rewriter"]

Binding = ast.AssignStmt | ast.AugAssignStmt | ast.UnificationStmt
Holder = Binding | ast.ConfigEntry


def _config_of(expr: ast.Expr | None) -> ast.ConfigExpr | None:
    if isinstance(expr, ast.ConfigExpr):
        return expr
    if isinstance(expr, ast.SchemaExpr):
        return expr.config
    return None


def _key_path(key: ast.Expr | None) -> str:
    """The reference's path of a config key: ``a.b`` for a bare dotted key, the value
    of a string key, "" for anything else."""
    names = dotted_names(key)
    if names is not None:
        return ".".join(names)
    if isinstance(key, ast.StringExpr):
        return key.value
    return ""


def _key_parts(key: ast.Expr | None) -> list[str]:
    names = dotted_names(key)
    if names is not None:
        return names
    return [key.value] if isinstance(key, ast.StringExpr) else []


def _schema_name(expr: ast.SchemaExpr) -> str:
    names = dotted_names(expr.name)
    return ".".join(names) if names else ""


def _entry_source(parts: list[str], op: str, value: str) -> str:
    """``a: {b: {c op value}}`` on one first line."""
    head = "".join(f"{key_text(part)}: {{" for part in parts[:-1])
    return f"{head}{key_text(parts[-1])} {op} {value}" + "}" * (len(parts) - 1)


class Rewriter:
    """Applies one spec (its value given as KCL source) to a package's modules."""

    def __init__(
        self, modules: list[ast.Module], spec: OverrideSpec, value: str, edits: Edits | None
    ) -> None:
        self.modules = modules
        self.spec = spec
        self.value = value
        self.edits = edits

    def fresh(self) -> ast.Expr:
        """A new tree of the value (its spans in the value's own text)."""
        expr, _ = parse_expr(self.value, "<override>")
        assert expr is not None  # value_source made sure it parses
        return expr

    def place(self, node: ast.Node, span: Span) -> None:
        """In a run, give a new subtree the span of the place it is put."""
        if self.edits is None:
            for item in walk(node):
                item.span = span

    def run(self) -> bool:
        """Apply the spec; whether anything changed."""
        name, rest = self.spec.path[0], list(self.spec.path[1:])
        found = [
            (m, s)
            for m in self.modules
            for s in m.body
            if isinstance(s, Binding) and stmt_binds(s, name)
        ]
        if self.spec.is_delete:
            return self.delete(found, rest)
        if not rest:
            changed = False
            for _, stmt in found:
                changed = self.set_statement(stmt) or changed
            if not changed:
                self.append_statement(name, rest)
            return True
        for _, stmt in found:
            if isinstance(stmt, ast.AugAssignStmt):
                continue
            config = _config_of(stmt.value)
            if config is not None:
                self.replace_in(config, rest, self.spec.op, self.fresh)
                return True
        self.append_statement(name, rest)
        return True

    # ------------------------------------------------------------------ top level

    def delete(self, found: list[tuple[ast.Module, Binding]], rest: list[str]) -> bool:
        if not rest:
            changed = False
            for module, stmt in found:
                if isinstance(stmt, ast.AugAssignStmt):
                    continue
                module.body.remove(stmt)
                if self.edits is not None:
                    self.edits.delete_node(stmt)
                changed = True
            return changed
        for _, stmt in found:
            config = None if isinstance(stmt, ast.AugAssignStmt) else _config_of(stmt.value)
            if config is not None and self.replace_in(config, rest, None, None):
                return True
        return False

    def set_statement(self, stmt: Binding) -> bool:
        """Change one statement binding the variable; whether it changed."""
        value, op = self.fresh(), self.spec.op
        if isinstance(stmt, ast.UnificationStmt):
            if op == ast.OP_UNION:
                return self.union(stmt.value, value, stmt)
            if isinstance(value, ast.SchemaExpr):
                self.set_value(stmt, value, stmt.value)
                return True
            return False
        return self.update(stmt, op, value, stmt.value)

    def update(self, holder: Holder, op: str, value: ast.Expr, at: ast.Node) -> bool:
        """Change the value of a statement or entry with ``op``; whether it changed."""
        old = holder.value
        if op == ast.OP_UNION and isinstance(value, ast.ConfigExpr | ast.SchemaExpr):
            return self.union(old, value, at)
        if op == ast.OP_INSERT:
            if isinstance(value, ast.ListExpr) and isinstance(old, ast.ListExpr):
                if self.edits is not None:
                    self.edits.extend_list(old, value)
                for item in value.items:
                    self.place(item, at.span)
                old.items.extend(value.items)
                return True
            return False
        self.set_value(holder, value, at)
        return True

    def union(self, old: ast.Expr, value: ast.Expr, at: ast.Node) -> bool:
        """``old : value`` for a config or schema value: merged into ``old``'s config
        (a schema only into one of the same name); False when it cannot be."""
        if isinstance(value, ast.ConfigExpr):
            config = _config_of(old)
            return config is not None and self.merge(config, value, at)
        assert isinstance(value, ast.SchemaExpr)
        if isinstance(old, ast.SchemaExpr) and _schema_name(old) == _schema_name(value):
            return self.merge(old.config, value.config, at)
        return False

    def set_value(self, holder: Holder, value: ast.Expr, at: ast.Node) -> None:
        if self.edits is not None:
            self.edits.replace_value(holder.value, value, at)
        self.place(value, at.span)
        if isinstance(holder, ast.UnificationStmt):
            assert isinstance(value, ast.SchemaExpr)
            holder.value = value
        else:
            holder.value = value

    def append_statement(self, name: str, rest: list[str]) -> None:
        module = self.modules[-1]
        end = len(module.file.text)
        span = Span(module.file, end, end)
        op, value = self.spec.op, self.fresh()
        target = ast.NameExpr(span, name)
        stmt: ast.Stmt
        if rest:
            source = f"{key_text(name)} = {{{_entry_source(rest, op, self.value)}}}"
            stmt = ast.AssignStmt(
                span, [target], ast.ConfigExpr(span, [self.entry(rest, op, value, span)])
            )
        elif op == ast.OP_INSERT:
            source = f"{key_text(name)} += {self.value}"
            stmt = ast.AugAssignStmt(span, target, "+", value)
        elif op == ast.OP_UNION and isinstance(value, ast.SchemaExpr):
            source = f"{key_text(name)}: {self.value}"
            stmt = ast.UnificationStmt(span, target, value)
        else:
            source = f"{key_text(name)} = {self.value}"
            stmt = ast.AssignStmt(span, [target], value)
        self.place(stmt, span)
        if self.edits is not None:
            self.edits.append_statement(source)
        module.body.append(stmt)

    # ------------------------------------------------------------------ configs

    def replace_in(
        self, config: ast.ConfigExpr, parts: list[str], op: str | None, make: object
    ) -> bool:
        """Set (``op``; ``make()`` gives the value) or delete (``op`` None) the path
        ``parts`` in a config: every matching entry; a new entry where none changed."""
        changed = False
        doomed: list[ast.ConfigEntry] = []
        for entry in list(config.entries):
            if not isinstance(entry, ast.ConfigEntry) or _key_path(entry.key) != parts[0]:
                continue
            if len(parts) == 1:
                if op is None:
                    doomed.append(entry)
                    changed = True
                else:
                    assert callable(make)
                    changed = self.update(entry, op, make(), entry) or changed
            else:
                inner = _config_of(entry.value)
                if inner is not None:
                    changed = self.replace_in(inner, parts[1:], op, make)
        for entry in doomed:
            config.entries.remove(entry)
            if self.edits is not None:
                self.edits.delete_node(entry)
        if op is not None and not changed:
            assert callable(make)
            value = make()
            span = config.span
            if self.edits is not None:
                source = value.span.file.text[value.span.start : value.span.end]
                self.edits.insert_entry(config, _entry_source(parts, op, source), line_of(value))
            config.entries.append(self.entry(parts, op, value, span))
            changed = True
        return changed

    def merge(self, config: ast.ConfigExpr, new: ast.ConfigExpr, at: ast.Node) -> bool:
        """Union a config literal into another, entry by entry; whether it changed."""
        changed = False
        for item in new.entries:
            parts = _key_parts(item.key) if isinstance(item, ast.ConfigEntry) else []
            if isinstance(item, ast.ConfigEntry) and parts:
                value = item.value
                changed = self.replace_in(config, parts, item.op, lambda v=value: v) or changed
                continue
            if self.edits is not None:
                text = item.span.file.text[item.span.start : item.span.end]
                self.edits.insert_entry(config, text, line_of(item))
            self.place(item, at.span)
            config.entries.append(item)
            changed = True
        return changed

    def entry(self, parts: list[str], op: str, value: ast.Expr, span: Span) -> ast.ConfigEntry:
        """A new entry ``a: {b: {c op value}}`` for ``parts`` ``a, b, c``."""
        self.place(value, span)
        text = key_text(parts[0])
        key: ast.Expr = ast.NameExpr(span, parts[0])
        if text != parts[0]:
            key = ast.StringExpr(span, parts[0], text)
        if len(parts) == 1:
            return ast.ConfigEntry(span, key, op, value)
        inner = ast.ConfigExpr(span, [self.entry(parts[1:], op, value, span)])
        return ast.ConfigEntry(span, key, ast.OP_UNION, inner)
