"""Copies of syntax trees with node ids of their own.

The checker and the compiler key their facts by node id (types, bindings,
declarations), so a tree is checked in one package only. A file that two packages of
one program hold (a folder imported as a package and one of its files imported as a
module of its own) gets, for the second package, :func:`renumbered` of its tree: the
same shape, fresh nodes with fresh ids and lists of their own (a rewrite of the copy,
such as the editor's ``-O`` overrides, never reaches the original), sharing what is
immutable (the file, spans, strings, comments). Copying is about a fifth of the cost
of parsing the text again.
"""

from __future__ import annotations

from kclpy.syntax import ast

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import TypeVar

    Tree = TypeVar("Tree", bound=ast.Node)

_SLOTS: dict[type, tuple[str, ...]] = {}


def _slots(kind: type) -> tuple[str, ...]:
    """Every slot of a node class but ``id`` (its own and its bases')."""
    found = _SLOTS.get(kind)
    if found is None:
        names: list[str] = []
        for base in reversed(kind.__mro__):
            for name in base.__dict__.get("__slots__", ()):
                if name != "id" and name not in names:
                    names.append(name)
        found = _SLOTS[kind] = tuple(names)
    return found


class _Copier:
    """One tree's copy: each node copied once (a node reached twice stays shared)."""

    __slots__ = ("copies", "pending")

    def __init__(self) -> None:
        self.copies: dict[int, ast.Node] = {}
        self.pending: list[ast.Node] = []

    def node(self, old: ast.Node) -> ast.Node:
        found = self.copies.get(id(old))
        if found is not None:
            return found
        kind = type(old)
        new: ast.Node = object.__new__(kind)
        for name in _slots(kind):
            try:
                setattr(new, name, getattr(old, name))
            except AttributeError:  # (a slot never set)
                continue
        new.id = next(ast._ids)
        self.copies[id(old)] = new
        self.pending.append(new)
        return new

    def children(self, new: ast.Node) -> None:
        """Replace the children ``new`` still shares with its original by copies."""
        for field in type(new)._fields:
            value = getattr(new, field, None)
            if isinstance(value, ast.Node):
                setattr(new, field, self.node(value))
            elif type(value) is list:  # (a list of its own, even empty: rewrites append)
                copied = [self.node(item) if isinstance(item, ast.Node) else item for item in value]
                setattr(new, field, copied)


def renumbered(tree: Tree) -> Tree:
    """A copy of ``tree`` whose every node is new, with an id of its own (walked with
    an explicit stack: no depth limit)."""
    copier = _Copier()
    top = copier.node(tree)
    pending = copier.pending
    while pending:
        copier.children(pending.pop())
    assert isinstance(top, type(tree))
    return top
