"""The keys of config literals, read off the syntax tree (no types): the name parts
of a bare dotted key, the literal keys a config sets, the keys sibling entries of one
key give, and the main-package unifications the reference folds into one config
(``merge_groups``) with the entries a later ``=`` replaces there. Takes AST nodes,
returns names and node ids; ``sema.config`` checks configs with them.
"""

from __future__ import annotations

from kclpy.sema.base import is_private
from kclpy.syntax import ast
from kclpy.syntax.targets import dotted_name


def key_names(key: ast.Expr) -> list[ast.Expr] | None:
    """The name parts of a bare (dotted) key ``a.b.c``, outermost first; else None."""
    parts: list[ast.Expr] = []
    node = key
    while isinstance(node, ast.SelectorExpr) and not node.optional:
        parts.append(node)
        node = node.value
    if not isinstance(node, ast.NameExpr):
        return None
    parts.append(node)
    parts.reverse()
    return parts


def part_name(part: ast.Expr) -> str:
    if isinstance(part, ast.NameExpr):
        return part.name
    assert isinstance(part, ast.SelectorExpr)
    return part.attr


def constant_index_subscript(key: ast.Expr) -> str | None:
    """``l`` for a key ``l[0]`` or ``l[-1]`` (a name and a constant index)."""
    if not isinstance(key, ast.SubscriptExpr) or not isinstance(key.value, ast.NameExpr):
        return None
    index = key.index
    if isinstance(index, ast.UnaryExpr):
        index = index.operand
    return key.value.name if isinstance(index, ast.NumberExpr) else None


def literal_keys(entries: list[ast.ConfigEntry | ast.ConfigIfEntry]) -> set[str] | None:
    """The keys a config literal sets (through ``if`` entries), or None when some key
    cannot be known statically (``**x``, a computed or interpolated key)."""
    keys: set[str] = set()
    for entry in entries:
        if isinstance(entry, ast.ConfigIfEntry):
            branches: list[list[ast.ConfigEntry | ast.ConfigIfEntry]] = [entry.entries]
            orelse = entry.orelse
            if isinstance(orelse, ast.ConfigIfEntry):
                branches.append([orelse])
            elif orelse is not None:
                branches.append(orelse)
            for branch in branches:
                inner = literal_keys(branch)
                if inner is None:
                    return None
                keys |= inner
            continue
        key = entry.key
        parts = key_names(key) if key is not None else None
        if parts is not None:
            keys.add(part_name(parts[0]))
        elif isinstance(key, ast.StringExpr):
            keys.add(key.value)
        else:
            return None
    return keys


def value_keys(value: ast.Expr) -> set[str] | None:
    """The literal keys of a config or schema expression value (None if not literal)."""
    if isinstance(value, ast.ConfigExpr):
        return literal_keys(value.entries)
    if isinstance(value, ast.SchemaExpr):
        return literal_keys(value.config.entries)
    return None


def sibling_keys(
    entries: list[ast.ConfigEntry | ast.ConfigIfEntry],
) -> dict[str, set[str] | None]:
    """For each key of a config, the literal keys all its entries' values set (None if
    some entry's value is not a literal config)."""
    result: dict[str, set[str] | None] = {}

    def add(name: str, keys: set[str] | None) -> None:
        if name in result:
            known = result[name]
            result[name] = None if known is None or keys is None else known | keys
        else:
            result[name] = keys

    for entry in entries:
        if isinstance(entry, ast.ConfigIfEntry):
            branches = [entry.entries]
            if isinstance(entry.orelse, ast.ConfigIfEntry):
                branches.append([entry.orelse])
            elif entry.orelse is not None:
                branches.append(entry.orelse)
            for branch in branches:
                for name, keys in sibling_keys(branch).items():
                    add(name, keys)
            continue
        parts = key_names(entry.key) if entry.key is not None else None
        if parts is None:
            continue
        if len(parts) > 1:
            add(part_name(parts[0]), {part_name(parts[1])})
        else:
            add(part_name(parts[0]), value_keys(entry.value))
    return result


def overridden_entries(entries: list[ast.ConfigEntry | ast.ConfigIfEntry]) -> set[int]:
    """Entries of merged unifications that a later ``=`` entry of the same key replaces
    (the reference drops them before checking)."""
    buckets: dict[str, list[ast.ConfigEntry | ast.ConfigIfEntry]] = {}
    for entry in entries:
        name = "$none"
        if isinstance(entry, ast.ConfigEntry) and entry.key is not None:
            dotted = dotted_name(entry.key)
            if dotted is not None:
                name = dotted
            elif isinstance(entry.key, ast.StringExpr):
                name = entry.key.value
        bucket = buckets.setdefault(name, [])
        if isinstance(entry, ast.ConfigEntry) and entry.op == "=":
            bucket.clear()
        bucket.append(entry)
    kept = {id(entry) for bucket in buckets.values() for entry in bucket}
    return {entry.id for entry in entries if id(entry) not in kept}


def schema_value(stmt: ast.Stmt) -> ast.SchemaExpr | None:
    value = stmt.value if isinstance(stmt, (ast.AssignStmt, ast.UnificationStmt)) else None
    return value if isinstance(value, ast.SchemaExpr) else None


def merge_groups(modules: list[ast.Module]) -> list[list[ast.Stmt]]:
    """Statements the reference folds into the last unification of the same name."""
    groups: dict[str, list[ast.Stmt]] = {}
    for module in modules:
        for stmt in module.body:
            if isinstance(stmt, ast.UnificationStmt):
                groups.setdefault(stmt.target.name, []).append(stmt)
            elif isinstance(stmt, ast.AssignStmt) and isinstance(stmt.value, ast.SchemaExpr):
                for target in stmt.targets:
                    if not isinstance(target, ast.NameExpr):
                        continue
                    group = groups.get(target.name)
                    if group is None:
                        groups[target.name] = [stmt]
                    elif is_private(target.name):
                        group.clear()
                        group.append(stmt)
    return [group for group in groups.values() if len(group) > 1]
