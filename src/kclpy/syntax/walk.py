"""Generic traversal of the syntax tree, driven by each node class's ``_fields``.

``iter_children(node)`` yields the direct child nodes in source order (list
fields flattened, strings of interpolated strings skipped); ``walk(node)``
yields every node in pre-order; ``Visitor`` dispatches ``visit_Xxx`` methods.
All three use explicit stacks, so arbitrarily deep trees are fine.
"""

from __future__ import annotations

from collections.abc import Iterator

from kclpy.syntax.ast import Node


def iter_children(node: Node) -> Iterator[Node]:
    """The direct child nodes of ``node``, in field order."""
    for field in node._fields:
        value = getattr(node, field, None)
        if isinstance(value, Node):
            yield value
        elif isinstance(value, list):
            for item in value:
                if isinstance(item, Node):
                    yield item


def walk(node: Node) -> Iterator[Node]:
    """``node`` and all its descendants, parents before children, in source order."""
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        children = list(iter_children(current))
        children.reverse()
        stack.extend(children)


class Visitor:
    """Pre-order visitor: ``visit(tree)`` calls ``visit_<ClassName>(node)`` (or
    ``generic_visit``) for every node; a method returning ``False`` skips that
    node's children."""

    def visit(self, node: Node) -> None:
        stack = [node]
        while stack:
            current = stack.pop()
            method = getattr(self, "visit_" + type(current).__name__, None)
            descend = method(current) if method is not None else self.generic_visit(current)
            if descend is False:
                continue
            children = list(iter_children(current))
            children.reverse()
            stack.extend(children)

    def generic_visit(self, node: Node) -> bool | None:
        """Called for nodes without a ``visit_Xxx`` method; visits the children."""
        return None
