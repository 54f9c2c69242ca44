"""The text side of an override: edits in a file's text, kept beside the syntax tree
the rewrite changes, with new values laid out as the reference lays them out.

:class:`Edits` collects replacements in original-text offsets and applies them at
once; its methods put a new value, entry, list item or statement in place (one
item per line or on one line as :mod:`kclpy.tools.override_layout` decides) and take
entries and statements out. The formatter runs over the result afterwards, so the
text only needs the right line structure, not the right indentation.

:func:`nest_dotted_entries` turns ``a.b.c = 1`` entries into ``a: {b: {c = 1}}`` in
a tree (and in the text, given edits), as the reference does before it matches
paths.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Sequence

from kclpy.source import Span
from kclpy.syntax import ast, parse_expr, parse_source
from kclpy.syntax.walk import walk
from kclpy.tools.override_layout import decide, last_line_before, line_of, relayout
from kclpy.tools.override_spec import key_text

__all__ = ["Edits", "dotted_names", "nest_dotted_entries", "normalize", "stmt_binds"]

_SEPARATOR = re.compile(r"[ \t]*,[ \t]*")


class Edits:
    """Text replacements in one module's original text."""

    def __init__(self, module: ast.Module) -> None:
        self.module = module
        self.text = module.file.text
        self.items: list[tuple[int, int, int, str]] = []

    def replace(self, start: int, end: int, new: str) -> None:
        self.items.append((start, end, len(self.items), new))

    def apply(self) -> str:
        text = self.text
        limit = len(text) + 1
        for start, end, _, new in sorted(self.items, reverse=True):
            if end > limit:
                continue  # overlaps an edit already made
            text = text[:start] + new + text[end:]
            limit = start
        return text

    def is_original(self, node: ast.Node) -> bool:
        """Whether a node is in this module's text (not a value put in by an edit)."""
        return node.span.file is self.module.file

    # ------------------------------------------------------------------ positions

    def line_start(self, offset: int) -> int:
        return self.text.rfind("\n", 0, offset) + 1

    def line_end(self, offset: int) -> int:
        found = self.text.find("\n", offset)
        return len(self.text) if found < 0 else found

    def last(self, offset: int) -> int:
        return last_line_before(self.module, offset)

    # ------------------------------------------------------------------ values

    def value_text(self, value: ast.Expr, at: ast.Node | None) -> str:
        """The text of a value put where ``at`` is (None: a new place, line 1)."""
        source = value.span.file.text[value.span.start : value.span.end]
        if at is None:
            decisions, _ = decide([value], self.last(len(self.text)))
        else:
            decisions, _ = decide([value], self.last(at.span.start + 1), value, line_of(at))
        return relayout(source, [value], decisions)

    def replace_value(self, old: ast.Expr, value: ast.Expr, at: ast.Node) -> None:
        if self.is_original(old):
            self.replace(old.span.start, old.span.end, self.value_text(value, at))

    # ------------------------------------------------------------------ configs and lists

    def insert_entry(self, config: ast.ConfigExpr, source: str, line: int = 1) -> None:
        """Add the entry ``source`` (a first line of keys, then the value's text, which
        starts on ``line`` of the spec's value) at the end of a config literal."""
        wrapper = "{" + "\n" * (line - 1) + source + "}"
        wrapped, _ = parse_expr(wrapper, "<override>")
        if not isinstance(wrapped, ast.ConfigExpr) or not self.is_original(config):
            return
        close = config.span.end - 1
        decisions, _ = decide(wrapped.entries, self.last(close))
        text = relayout(wrapper, wrapped.entries, decisions)[1:-1].lstrip("\n")
        originals = [e for e in config.entries if self.is_original(e)]
        lines = {line_of(e) for e in originals} | {1, self.last(config.span.start + 1)}
        self._add(config, originals, [text], len(lines) > 1, len(config.entries) > 0)

    def extend_list(self, target: ast.ListExpr, value: ast.ListExpr) -> None:
        """Append the items of ``value`` (a list put in by a spec) to a list literal."""
        if not value.items or not self.is_original(target):
            return
        close = target.span.end - 1
        originals = [i for i in target.items if self.is_original(i)]
        lines = {line_of(i) for i in originals} | {line_of(i) for i in value.items}
        multi = len(lines | {self.last(target.span.start + 1)}) > 1
        decisions, _ = decide(value.items, self.last(close))
        source = value.span.file.text
        relaid, _ = parse_expr(relayout(source, value.items, decisions), "<override>")
        assert isinstance(relaid, ast.ListExpr)
        texts = [relaid.span.file.text[i.span.start : i.span.end] for i in relaid.items]
        self._add(target, originals, texts, multi, len(target.items) > 0)

    def _add(
        self,
        container: ast.ListExpr | ast.ConfigExpr,
        originals: Sequence[ast.Node],
        texts: list[str],
        multi: bool,
        has_items: bool,
    ) -> None:
        """Put item texts before the closing bracket: on lines of their own
        (``multi``) or after a comma on the same line."""
        close = container.span.end - 1
        if multi:
            if self.text[self.line_start(close) : close].strip():
                self.replace(close, close, "".join("\n" + text for text in texts))
            else:
                position = self.line_start(close)
                self.replace(position, position, "".join(text + "\n" for text in texts))
            return
        anchor = originals[-1].span.end if originals else close
        prefix = ", " if has_items else ""
        self.replace(anchor, anchor, prefix + ", ".join(texts))

    # ------------------------------------------------------------------ statements

    def append_statement(self, source: str) -> None:
        """Add a statement (its source on a first line, then the value's text) after
        the module's last statement."""
        module, _ = parse_source(source, "<override>")
        decisions, _ = decide(module.body, self.last(len(self.text)))
        text = relayout(source, module.body, decisions)
        body = self.module.body
        if body:
            position = self.line_end(self.text_end(body[-1]))
            self.replace(position, position, "\n" + text)
        else:
            end = len(self.text)
            prefix = "\n" if self.text and not self.text.endswith("\n") else ""
            self.replace(end, end, prefix + text + "\n")

    def insert_statement_before(self, stmt: ast.Stmt | None, source: str) -> None:
        """Add a one-line statement before ``stmt`` (None: at the end)."""
        if stmt is None:
            end = len(self.text)
            prefix = "\n" if self.text and not self.text.endswith("\n") else ""
            self.replace(end, end, prefix + source + "\n")
        else:
            position = self.line_start(stmt.span.start)
            self.replace(position, position, source + "\n")

    def insert_statement_after(self, stmt: ast.Stmt, source: str) -> None:
        """Add a one-line statement on the line after ``stmt``."""
        position = self.line_end(self.text_end(stmt))
        self.replace(position, position, "\n" + source)

    def text_end(self, node: ast.Node) -> int:
        """Where a node's text ends, trailing white space left out."""
        end = node.span.end
        while end > node.span.start and self.text[end - 1] in " \t\r\n":
            end -= 1
        return end

    def delete_node(self, node: ast.Node) -> None:
        """Delete a statement or config entry, with its line when it is alone on it."""
        if not self.is_original(node):
            return
        text, start, end = self.text, node.span.start, node.span.end
        before = text[self.line_start(start) : start]
        after = text[end : self.line_end(end)].strip()
        if not before.strip() and (not after or after == "," or after.startswith("#")):
            self.replace(self.line_start(start), min(self.line_end(end) + 1, len(text)), "")
            return
        following = _SEPARATOR.match(text, end)
        if following is not None:
            self.replace(start, following.end(), "")
            return
        preceding = re.search(r",[ \t]*$", text[:start])
        self.replace(preceding.start() if preceding else start, end, "")


# --------------------------------------------------------------------------- helpers


def stmt_binds(stmt: ast.Stmt, name: str) -> bool:
    """Whether a top-level statement is ``name = ...`` (one target), ``name += ...``
    or ``name: S {...}``."""
    if isinstance(stmt, ast.AssignStmt):
        return len(stmt.targets) == 1 and _is_name(stmt.targets[0], name)
    if isinstance(stmt, ast.AugAssignStmt):
        return _is_name(stmt.target, name)
    return isinstance(stmt, ast.UnificationStmt) and stmt.target.name == name


def _is_name(target: ast.Expr, name: str) -> bool:
    return isinstance(target, ast.NameExpr) and target.name == name


def dotted_names(key: ast.Expr | None) -> list[str] | None:
    """The names of a bare dotted key ``a.b.c``; None for other keys."""
    if isinstance(key, ast.NameExpr):
        return [key.name]
    if isinstance(key, ast.SelectorExpr) and not key.optional:
        head = dotted_names(key.value)
        if head is not None:
            return [*head, key.attr]
    return None


def name_text(name: str) -> str:
    """A name as a bare key: itself, or ``$name`` for a keyword."""
    return name if key_text(name) == name else "$" + name


def nest_dotted_entries(module: ast.Module, edits: Edits | None) -> bool:
    """Turn every ``a.b.c op v`` entry into ``a: {b: {c op v}}`` (in the tree, and in
    the text when ``edits`` is given); whether there was one."""
    found = False
    for node in list(walk(module)):
        if not isinstance(node, ast.ConfigEntry):
            continue
        names = dotted_names(node.key)
        if names is None or len(names) < 2:
            continue
        found = True
        if edits is not None and node.key is not None:
            head = ": {".join(name_text(name) for name in names)
            edits.replace(node.key.span.start, node.key.span.end, head)
            edits.replace(node.value.span.end, node.value.span.end, "}" * (len(names) - 1))
        _nest(node, names)
    return found


def _nest(entry: ast.ConfigEntry, names: list[str]) -> None:
    span: Span = entry.span
    value: ast.Expr = entry.value
    op = entry.op
    for name in reversed(names[1:]):
        inner = ast.ConfigEntry(span, ast.NameExpr(span, name), op, value)
        value = ast.ConfigExpr(span, [inner])
        op = ast.OP_UNION
    entry.key = ast.NameExpr(span, names[0])
    entry.op = ast.OP_UNION
    entry.value = value


def split_assignments(module: ast.Module, edits: Edits | None) -> bool:
    """Turn every top-level ``a = b = v`` into ``a = v`` and ``b = v`` (in the tree,
    and in the text when ``edits`` is given), as the reference does before it looks
    for a variable; whether there was one."""
    found = False
    body: list[ast.Stmt] = []
    for stmt in module.body:
        if not isinstance(stmt, ast.AssignStmt) or len(stmt.targets) < 2:
            body.append(stmt)
            continue
        found = True
        text = stmt.span.file.text
        value = text[stmt.value.span.start : stmt.value.span.end]
        if edits is not None:
            lines = [f"{text[t.span.start : t.span.end]} = {value}" for t in stmt.targets]
            edits.replace(stmt.span.start, stmt.value.span.end, "\n".join(lines))
        for index, target in enumerate(stmt.targets):
            copy = stmt.value if index == 0 else _copy(stmt.value)
            body.append(ast.AssignStmt(stmt.span, [target], copy, stmt.type))
    module.body[:] = body
    return found


def _copy(node: ast.Expr) -> ast.Expr:
    """A copy of a subtree (same spans, new node ids)."""
    copied: ast.Expr = copy.deepcopy(node, {id(node.span.file): node.span.file})
    for item in walk(copied):
        item.id = next(ast._ids)
    return copied


def normalize(module: ast.Module, edits: Edits | None) -> bool:
    """Dotted entries nested and multiple targets split, as the reference reads a
    module before each spec."""
    nested = nest_dotted_entries(module, edits)
    return split_assignments(module, edits) or nested
