"""Syntactic facts about statements and targets, which the resolver, the checker and
the compiler all read: which names a statement sets (:func:`walk_setters`, with the
``if`` conditions that guard it; :func:`assigned_names`), the root and path of an
assignment target (:func:`target_parts`), the literal path of a config key
(:func:`key_path`) and the dotted name of a reference (:func:`dotted_name`).

Takes AST nodes; returns names, nodes and strings. Reads nothing but the tree.
"""

from __future__ import annotations

from collections.abc import Callable

from kclpy.syntax import ast

# a condition and whether it must hold (``if``: True, ``else``: False)
Guard = tuple[ast.Expr, bool]


def walk_setters(
    stmts: list[ast.Stmt],
    guards: list[Guard],
    on_setter: Callable[[str, ast.Stmt, list[Guard]], None],
) -> None:
    """Call ``on_setter(name, stmt, guards)`` for each assignment, through if/elif/else."""
    for stmt in stmts:
        if type(stmt) is ast.AssignStmt:
            targets = stmt.targets
            if len(targets) == 1 and type(targets[0]) is ast.NameExpr:
                on_setter(targets[0].name, stmt, guards)  # most statements
                continue
        if isinstance(stmt, ast.IfStmt):
            walk_setters(stmt.body, [*guards, (stmt.cond, True)], on_setter)
            walk_setters(stmt.orelse, [*guards, (stmt.cond, False)], on_setter)
        else:
            for name in assigned_names(stmt):
                on_setter(name, stmt, guards)


def assigned_names(stmt: ast.Stmt) -> list[str]:
    """The names a statement sets (a package variable, a schema attribute)."""
    if isinstance(stmt, ast.AssignStmt):
        targets = stmt.targets
        if len(targets) == 1 and type(targets[0]) is ast.NameExpr:
            return [targets[0].name]  # most statements
        return [root for target in targets if (root := target_root(target)) is not None]
    if isinstance(stmt, ast.AugAssignStmt):
        root = target_root(stmt.target)
        return [root] if root is not None else []
    if isinstance(stmt, ast.UnificationStmt):
        return [stmt.target.name]
    if isinstance(stmt, (ast.SchemaStmt, ast.RuleStmt)):
        return [stmt.name]
    if isinstance(stmt, ast.TypeAliasStmt):
        return [stmt.name.name]
    if isinstance(stmt, ast.SchemaAttr):
        return [stmt.name]
    return []


_PATH_NODES = (ast.SelectorExpr, ast.SubscriptExpr)


def target_parts(target: ast.Expr) -> tuple[ast.NameExpr | None, list[ast.Expr]]:
    """The root name of an assignment target and its path (selectors and subscripts)."""
    if type(target) is ast.NameExpr:
        return target, []  # most targets: checked and compiled once per statement each
    path: list[ast.Expr] = []
    node = target
    while isinstance(node, _PATH_NODES):
        path.append(node)
        node = node.value
    path.reverse()
    return (node if isinstance(node, ast.NameExpr) else None), path


def target_root_node(target: ast.Expr) -> ast.NameExpr | None:
    """The name at the root of an assignment target (``a`` of ``a.b[0]``), if any."""
    return target_parts(target)[0]


def target_root(target: ast.Expr) -> str | None:
    if type(target) is ast.NameExpr:
        return target.name
    root = target_parts(target)[0]
    return root.name if root is not None else None


def is_int_literal(node: ast.Expr | None) -> bool:
    """``3`` or ``-3``: the index of a list-index config entry ``l[3] = v``."""
    if isinstance(node, ast.UnaryExpr) and node.op == "-":
        node = node.operand
    return isinstance(node, ast.NumberExpr) and type(node.value) is int


def key_path(key: ast.Expr) -> tuple[str, ...] | None:
    """The literal key path of a config key (``a.b.c`` or ``"a.b"``), or None if computed."""
    if isinstance(key, ast.NameExpr):
        return (key.name,)
    if isinstance(key, ast.StringExpr):
        return (key.value,)
    if isinstance(key, ast.SelectorExpr) and not key.optional:
        parts: list[str] = []
        node: ast.Expr = key
        while isinstance(node, ast.SelectorExpr) and not node.optional:
            parts.append(node.attr)
            node = node.value
        if isinstance(node, ast.NameExpr):
            parts.append(node.name)
            return tuple(reversed(parts))
    return None


def dotted_name(node: ast.Expr) -> str | None:
    """``a.b.c`` for a chain of plain names, else None."""
    path = key_path(node) if not isinstance(node, ast.StringExpr) else None
    return ".".join(path) if path is not None else None
