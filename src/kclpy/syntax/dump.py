"""A readable dump of a syntax tree: the golden format of the AST tests.

One line per node, indented two spaces per level::

    Module 1:1-3:1
      body[0]: AssignStmt 1:1-1:6
        targets[0]: NameExpr name='a' 1:1-1:2
        value: NumberExpr value=1 1:5-1:6

Scalar fields follow the class name as ``key=repr`` (None omitted except as
the value of a constant or literal type, a
non-empty docstring shown as ``doc=``);
child nodes and lists of them come on the following lines, labelled with the
field name (and index). Strings inside interpolated strings are listed as
``parts[i]: 'text'``. Iterative, so any depth is fine.
"""

from __future__ import annotations

from typing import Any

from kclpy.syntax.ast import Comment, ConstExpr, LiteralType, Module, Node

_Entry = tuple[str, Any, int]  # (label, node or text, depth)


def _position(node: Node) -> str:
    file = node.span.file
    line, col = file.pos(node.span.start)
    end_line, end_col = file.pos(node.span.end)
    return f"{line}:{col}-{end_line}:{end_col}"


def _scalar(value: object) -> bool:
    return value is None or isinstance(value, str | int | float | bool)


def _header(node: Node) -> str:
    parts = [type(node).__name__]
    keep_none = isinstance(node, ConstExpr | LiteralType)
    for field in node._fields:
        value = getattr(node, field, None)
        if (value is None and not keep_none) or isinstance(value, Node):
            continue
        if isinstance(value, list):
            if value and all(_scalar(item) for item in value):
                parts.append(f"{field}={value!r}")
            continue
        parts.append(f"{field}={value!r}")
    doc = getattr(node, "doc", "")
    if doc:
        parts.append(f"doc={doc!r}")
    parts.append(_position(node))
    return " ".join(parts)


def _children(node: Node, depth: int) -> list[_Entry]:
    entries: list[_Entry] = []
    for field in node._fields:
        value = getattr(node, field, None)
        if isinstance(value, Node):
            entries.append((field, value, depth))
        elif isinstance(value, list) and not all(_scalar(item) for item in value):
            for index, item in enumerate(value):
                entries.append((f"{field}[{index}]", item, depth))
    return entries


def dump(node: Node, comments: bool = False) -> str:
    """The tree under ``node`` as text (with a module's comments when ``comments``)."""
    lines: list[str] = []
    stack: list[_Entry] = [("", node, 0)]
    while stack:
        label, item, depth = stack.pop()
        prefix = "  " * depth + (f"{label}: " if label else "")
        if not isinstance(item, Node):
            lines.append(f"{prefix}{item!r}")
            continue
        lines.append(prefix + _header(item))
        children = _children(item, depth + 1)
        children.reverse()
        stack.extend(children)
    if comments and isinstance(node, Module):
        lines.extend(_comment_line(comment) for comment in node.comments)
    return "\n".join(lines) + "\n"


def _comment_line(comment: Comment) -> str:
    line, col = comment.span.file.pos(comment.span.start)
    return f"# comment {line}:{col} {comment.text!r}"
