"""Overrides (``kcl run -O`` and the API's ``override_file``).

A spec is ``path op value`` or ``path-``: the path is ``a.b.c`` or
``a["dot.key"]``, the op ``=`` (override), ``:`` (union) or ``+=`` (insert), and
the value KCL source. ``parse_override_spec`` reads one spec.

``apply_overrides(program, specs)`` rewrites the ASTs of the main package in
place, before type checking, as the reference does: ``a.b.c = v`` sets the entry
``b.c`` inside the config (or schema) value of the first top-level statement
binding ``a`` (creating missing entries as ``b: {c = v}``); a missing variable is
appended as a new statement; ``a.b-`` deletes the entry, ``a-`` the statements.
New nodes get the span of the entry or statement they change (the file end for
appended statements), so errors in override values point into the program.

``override_file(path, specs)`` applies the same edits to a file's text on disk.
There is no formatter yet, so it edits the affected source ranges minimally
(values keep the text they were given) instead of reprinting the whole file.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass

from kclpy.diag import Code, Diagnostic, make_error
from kclpy.loader import MAIN, Program
from kclpy.source import SourceFile, Span, read_source, write_atomically
from kclpy.syntax import ast, parse_expr, parse_source
from kclpy.syntax.walk import walk

__all__ = [
    "OP_DELETE",
    "OverrideError",
    "OverrideSpec",
    "apply_overrides",
    "override_file",
    "override_files",
    "override_source",
    "parse_override_spec",
]

OP_DELETE = "-"
INDENT = "    "
_IDENT = re.compile(r"\$?[^\W\d]\w*")
_KEYWORDS = frozenset(
    {"True", "False", "None", "Undefined", "and", "or", "not", "in", "is", "if", "elif"}
    | {"else", "for", "import", "as", "schema", "mixin", "protocol", "rule", "check"}
    | {"assert", "lambda", "type", "all", "any", "map", "filter"}
)
_SPEC_FORMAT = (
    "Invalid spec format '{}', expected <field_path>=<filed_value>, "
    "<field_path>:<filed_value>, <field_path>+=<filed_value> or <field_path>-"
)


@dataclass(frozen=True)
class OverrideSpec:
    """One parsed ``-O`` spec; ``op`` is ``=``, ``:``, ``+=`` or ``-`` (delete)."""

    text: str
    path: tuple[str, ...]
    op: str
    value: str = ""

    @property
    def is_delete(self) -> bool:
        return self.op == OP_DELETE


class OverrideError(Exception):
    """A spec that cannot be applied (bad format, bad value, unparsable file)."""

    def __init__(self, diagnostics: list[Diagnostic]) -> None:
        super().__init__("; ".join(d.message for d in diagnostics))
        self.diagnostics = diagnostics


def _format_error(text: str) -> OverrideError:
    return OverrideError([make_error(Code.INVALID_SYNTAX, _SPEC_FORMAT.format(text), None)])


# --------------------------------------------------------------------------- spec parsing


def parse_override_spec(text: str) -> OverrideSpec:
    """Parse ``a.b["c.d"]=value`` / ``a:v`` / ``a+=v`` / ``a.b-``; raises OverrideError."""
    parts, index = _parse_path(text)
    if parts is None:
        raise _format_error(text)
    rest = text[index:].strip()
    if rest == OP_DELETE:
        return OverrideSpec(text, parts, OP_DELETE)
    for op in ("+=", "=", ":"):
        if rest.startswith(op):
            value = rest[len(op) :].strip()
            if value:
                return OverrideSpec(text, parts, op, value)
    raise _format_error(text)


def _parse_path(text: str) -> tuple[tuple[str, ...] | None, int]:
    parts: list[str] = []
    index = len(text) - len(text.lstrip())
    while True:
        if text.startswith("[", index):
            part, index = _parse_bracket(text, index)
            if part is None:
                return None, index
            parts.append(part)
        else:
            match = _IDENT.match(text, index)
            if match is None or (parts and text[index - 1] != "."):
                return None, index
            parts.append(match.group().lstrip("$"))
            index = match.end()
        if text.startswith(".", index):
            index += 1
        elif not text.startswith("[", index):
            return tuple(parts), index


def _parse_bracket(text: str, index: int) -> tuple[str | None, int]:
    """``["key"]`` or ``['key']`` at ``index``: the key and the index after ``]``."""
    quote = text[index + 1 : index + 2]
    if quote not in ('"', "'"):
        return None, index
    position = index + 2
    chars: list[str] = []
    while position < len(text) and text[position] != quote:
        if text[position] == "\\" and position + 1 < len(text):
            position += 1
        chars.append(text[position])
        position += 1
    if not text.startswith(quote + "]", position):
        return None, index
    return "".join(chars), position + 2


# --------------------------------------------------------------------------- text edits


class _Edits:
    """Text replacements in original-file offsets (inactive when rewriting only ASTs)."""

    def __init__(self, text: str, active: bool) -> None:
        self.text = text
        self.active = active
        self.items: list[tuple[int, int, int, str]] = []

    def replace(self, start: int, end: int, new: str) -> None:
        if self.active:
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

    # ------------------------------------------------------------------ positions

    def line_start(self, offset: int) -> int:
        return self.text.rfind("\n", 0, offset) + 1

    def line_end(self, offset: int) -> int:
        found = self.text.find("\n", offset)
        return len(self.text) if found < 0 else found

    def indent_at(self, offset: int) -> str:
        line = self.text[self.line_start(offset) : self.line_end(offset)]
        return line[: len(line) - len(line.lstrip())]

    # ------------------------------------------------------------------ edits

    def replace_node(self, node: ast.Node, new: str) -> None:
        self.replace(node.span.start, node.span.end, new)

    def delete_node(self, node: ast.Node) -> None:
        """Delete a statement or config entry with its line when it is alone on it."""
        if not self.active:
            return
        text, start, end = self.text, node.span.start, node.span.end
        before = text[self.line_start(start) : start]
        after = text[end : self.line_end(end)].strip()
        if not before.strip() and (not after or after == "," or after.startswith("#")):
            self.replace(self.line_start(start), min(self.line_end(end) + 1, len(text)), "")
            return
        following = re.compile(r"[ \t]*,[ \t]*").match(text, end)
        if following is not None:
            self.replace(start, following.end(), "")
            return
        preceding = re.search(r",[ \t]*$", text[:start])
        self.replace(preceding.start() if preceding else start, end, "")

    def insert_entry(self, config: ast.ConfigExpr, block: list[str], inline: str) -> None:
        """Add an entry before the closing brace of a config literal."""
        close = config.span.end - 1
        if not self.active or self.text[close : close + 1] != "}":
            return
        if "\n" not in self.text[config.span.start : close]:
            if config.entries:
                self.replace(
                    config.entries[-1].span.end, config.entries[-1].span.end, ", " + inline
                )
            else:
                self.replace(close, close, inline)
            return
        if config.entries:
            indent = self.indent_at(config.entries[-1].span.start)
        else:
            indent = self.indent_at(close) + INDENT
        lines = "".join(indent + line + "\n" for line in block)
        if self.text[self.line_start(close) : close].strip():
            self.replace(close, close, "\n" + lines + self.indent_at(close))
        else:
            self.replace(self.line_start(close), self.line_start(close), lines)

    def extend_list(self, target: ast.ListExpr, items: list[str]) -> None:
        close = target.span.end - 1
        if not self.active or not items or self.text[close : close + 1] != "]":
            return
        if not target.items:
            self.replace(close, close, ", ".join(items))
        elif "\n" not in self.text[target.span.start : close]:
            self.replace(
                target.items[-1].span.end, target.items[-1].span.end, ", " + ", ".join(items)
            )
        else:
            indent = self.indent_at(target.items[-1].span.start)
            position = self.line_start(close)
            if self.text[position:close].strip():
                self.replace(close, close, "".join(f"\n{indent}{item}" for item in items) + "\n")
            else:
                self.replace(position, position, "".join(f"{indent}{item}\n" for item in items))

    def append_statement(self, lines: list[str]) -> None:
        end = len(self.text)
        prefix = "\n" if self.text and not self.text.endswith("\n") else ""
        self.replace(end, end, prefix + "".join(line + "\n" for line in lines))


# --------------------------------------------------------------------------- helpers


def _source(node: ast.Node) -> str:
    return node.span.file.text[node.span.start : node.span.end]


def _place(node: ast.Node, span: Span) -> None:
    """Give a new subtree the span of the place it is put (its own text is elsewhere)."""
    for item in walk(node):
        item.span = span


def _config_of(expr: ast.Expr | None) -> ast.ConfigExpr | None:
    if isinstance(expr, ast.ConfigExpr):
        return expr
    if isinstance(expr, ast.SchemaExpr):
        return expr.config
    return None


def _key_parts(key: ast.Expr | None) -> tuple[str, ...] | None:
    """The literal path of a config key (``a``, ``a.b``, ``"a.b"``), None if computed."""
    if isinstance(key, ast.NameExpr):
        return (key.name,)
    if isinstance(key, ast.StringExpr):
        return (key.value,)
    if isinstance(key, ast.SelectorExpr) and not key.optional:
        head = _key_parts(key.value)
        if head is not None and isinstance(key.value, ast.NameExpr | ast.SelectorExpr):
            return (*head, key.attr)
    return None


def _key_text(name: str) -> str:
    if _IDENT.fullmatch(name) and not name.startswith("$") and name not in _KEYWORDS:
        return name
    return json.dumps(name, ensure_ascii=False)


def _key_node(name: str, span: Span) -> ast.Expr:
    text = _key_text(name)
    if text == name:
        return ast.NameExpr(span, name)
    return ast.StringExpr(span, name, text)


def _binds(stmt: ast.Stmt, name: str) -> bool:
    if isinstance(stmt, ast.AssignStmt):
        return any(isinstance(t, ast.NameExpr) and t.name == name for t in stmt.targets)
    return isinstance(stmt, ast.UnificationStmt) and stmt.target.name == name


def _stmt_value(stmt: ast.Stmt) -> ast.Expr | None:
    if isinstance(stmt, ast.AssignStmt | ast.UnificationStmt):
        return stmt.value
    return None


def _entry_block(parts: tuple[str, ...], op: str, value: str) -> list[str]:
    """The lines of a new (nested) entry, as the reference prints them."""
    if len(parts) == 1:
        return f"{_key_text(parts[0])} {op} {value}".split("\n")
    inner = _entry_block(parts[1:], op, value)
    return [f"{_key_text(parts[0])}: {{", *(INDENT + line for line in inner), "}"]


def _entry_inline(parts: tuple[str, ...], op: str, value: str) -> str:
    if len(parts) == 1:
        return f"{_key_text(parts[0])} {op} {value}"
    return f"{_key_text(parts[0])}: {{{_entry_inline(parts[1:], op, value)}}}"


# --------------------------------------------------------------------------- the rewrite


class _Rewriter:
    """Applies one spec to the modules of a package (AST in place, text edits aside)."""

    def __init__(
        self,
        modules: list[ast.Module],
        edits: _Edits,
        spec: OverrideSpec,
        parse_value: Callable[[], ast.Expr],
    ) -> None:
        self.modules = modules
        self.edits = edits
        self.spec = spec
        self.parse_value = parse_value

    def run(self) -> bool:
        """Apply the spec; whether anything changed."""
        name, rest = self.spec.path[0], self.spec.path[1:]
        found = [(m, s) for m in self.modules for s in m.body if _binds(s, name)]
        if self.spec.is_delete:
            return self.delete(found, rest)
        if not rest:
            return self.set_variable(name, found)
        for _, stmt in found:
            config = _config_of(_stmt_value(stmt))
            if config is not None:
                self.set_in(config, rest, self.spec.op, self.parse_value(), stmt.span)
                return True
        self.append_statement(name, rest)
        return True

    # ------------------------------------------------------------------ top level

    def delete(self, found: list[tuple[ast.Module, ast.Stmt]], rest: tuple[str, ...]) -> bool:
        changed = False
        for module, stmt in found:
            if not rest:
                module.body.remove(stmt)
                self.edits.delete_node(stmt)
                changed = True
                continue
            config = _config_of(_stmt_value(stmt))
            if config is not None:
                changed = self.delete_in(config, rest) or changed
        return changed

    def set_variable(self, name: str, found: list[tuple[ast.Module, ast.Stmt]]) -> bool:
        op = self.spec.op
        value = self.parse_value()
        for _, stmt in found:
            if isinstance(stmt, ast.UnificationStmt):
                if op == ast.OP_UNION and isinstance(value, ast.ConfigExpr):
                    self.merge_into(stmt.value.config, value, stmt.span)
                    return True
                continue
            assert isinstance(stmt, ast.AssignStmt)
            old = stmt.value
            if op == ast.OP_INSERT:
                if isinstance(old, ast.ListExpr) and isinstance(value, ast.ListExpr):
                    self.extend(old, value, stmt.span)
                    return True
                continue
            config = _config_of(old)
            if op == ast.OP_UNION and isinstance(value, ast.ConfigExpr):
                if config is None:
                    continue  # a config unified with a non-config: a new statement
                self.merge_into(config, value, stmt.span)
                return True
            self.edits.replace_node(old, _source(value))
            _place(value, stmt.span)
            stmt.value = value
            return True
        self.append_statement(name, ())
        return True

    def append_statement(self, name: str, rest: tuple[str, ...]) -> None:
        module = self.modules[-1]
        end = len(module.file.text)
        span = Span(module.file, end, end)
        value = self.parse_value()
        value_text = _source(value)
        _place(value, span)
        op = self.spec.op
        target = ast.NameExpr(span, name)
        stmt: ast.Stmt
        if rest:
            lines = _entry_block(rest, op, value_text)
            config = ast.ConfigExpr(span, [self.new_entry(rest, op, value, span)])
            stmt = ast.AssignStmt(span, [target], config)
            block = [f"{_key_text(name)} = {{", *(INDENT + line for line in lines), "}"]
        elif op == ast.OP_INSERT:
            stmt = ast.AugAssignStmt(span, target, "+", value)
            block = f"{name} += {value_text}".split("\n")
        else:
            stmt = ast.AssignStmt(span, [target], value)
            block = f"{name} = {value_text}".split("\n")
        module.body.append(stmt)
        self.edits.append_statement(block)

    # ------------------------------------------------------------------ configs

    def set_in(
        self, config: ast.ConfigExpr, parts: tuple[str, ...], op: str, value: ast.Expr, span: Span
    ) -> None:
        """Set ``parts`` inside a config literal: change the entry or add one."""
        for entry in config.entries:
            if not isinstance(entry, ast.ConfigEntry):
                continue
            key = _key_parts(entry.key)
            if key is None or parts[: len(key)] != key:
                continue
            if len(key) == len(parts):
                if self.set_entry(entry, op, value):
                    return
                break
            inner = _config_of(entry.value)
            if inner is not None:
                self.set_in(inner, parts[len(key) :], op, value, entry.span)
                return
        value_text = _source(value)
        _place(value, span)
        self.edits.insert_entry(
            config, _entry_block(parts, op, value_text), _entry_inline(parts, op, value_text)
        )
        config.entries.append(self.new_entry(parts, op, value, span))

    def set_entry(self, entry: ast.ConfigEntry, op: str, value: ast.Expr) -> bool:
        """Change an existing entry; False when a new entry must be added instead."""
        old = entry.value
        if op == ast.OP_INSERT:
            if isinstance(old, ast.ListExpr) and isinstance(value, ast.ListExpr):
                self.extend(old, value, entry.span)
                return True
            return False
        config = _config_of(old)
        if op == ast.OP_UNION and isinstance(value, ast.ConfigExpr):
            if config is None:
                return False  # a config unified with a non-config: a new entry (a conflict)
            self.merge_into(config, value, entry.span)
            return True
        value_text = _source(value)
        if entry.op == ast.OP_INSERT and entry.key is not None:
            self.edits.replace(
                entry.span.start, entry.span.end, f"{_source(entry.key)} {op} {value_text}"
            )
            entry.op = op
        else:
            self.edits.replace_node(old, value_text)
        _place(value, entry.span)
        entry.value = value
        return True

    def merge_into(self, config: ast.ConfigExpr, new: ast.ConfigExpr, span: Span) -> None:
        """Union a config literal into another, entry by entry."""
        for item in new.entries:
            parts = _key_parts(item.key) if isinstance(item, ast.ConfigEntry) else None
            if isinstance(item, ast.ConfigEntry) and parts is not None:
                self.set_in(config, parts, item.op, item.value, span)
                continue
            text = _source(item)
            _place(item, span)
            self.edits.insert_entry(config, text.split("\n"), text)
            config.entries.append(item)

    def extend(self, target: ast.ListExpr, new: ast.ListExpr, span: Span) -> None:
        texts = [_source(item) for item in new.items]
        for item in new.items:
            _place(item, span)
        self.edits.extend_list(target, texts)
        target.items.extend(new.items)

    def new_entry(
        self, parts: tuple[str, ...], op: str, value: ast.Expr, span: Span
    ) -> ast.ConfigEntry:
        if len(parts) == 1:
            return ast.ConfigEntry(span, _key_node(parts[0], span), op, value)
        inner = ast.ConfigExpr(span, [self.new_entry(parts[1:], op, value, span)])
        return ast.ConfigEntry(span, _key_node(parts[0], span), ast.OP_UNION, inner)

    def delete_in(self, config: ast.ConfigExpr, parts: tuple[str, ...]) -> bool:
        changed = False
        for entry in list(config.entries):
            if not isinstance(entry, ast.ConfigEntry):
                continue
            key = _key_parts(entry.key)
            if key is None:
                continue
            size = min(len(key), len(parts))
            if key[:size] != parts[:size]:
                continue
            if len(key) >= len(parts):
                config.entries.remove(entry)
                self.edits.delete_node(entry)
                changed = True
                continue
            inner = _config_of(entry.value)
            if inner is not None:
                changed = self.delete_in(inner, parts[len(key) :]) or changed
        return changed


# --------------------------------------------------------------------------- entry points


def _value_parser(spec: OverrideSpec) -> Callable[[], ast.Expr]:
    """A function returning a fresh parse of the spec's value; raises OverrideError."""
    if spec.is_delete:
        return lambda: ast.ConstExpr(Span(SourceFile("<override>", ""), 0, 0), None)
    expr, diagnostics = parse_expr(spec.value, "<override>")
    if expr is None:
        detail = diagnostics[0].message if diagnostics else "invalid expression"
        message = f"invalid value in override '{spec.text}': {detail}"
        raise OverrideError([make_error(Code.INVALID_SYNTAX, message, None)])

    def parse() -> ast.Expr:
        fresh, _ = parse_expr(spec.value, "<override>")
        assert fresh is not None
        return fresh

    return parse


def apply_overrides(program: Program, specs: list[str]) -> list[Diagnostic]:
    """Rewrite the main package's ASTs with ``-O`` specs; returns the spec errors."""
    diagnostics: list[Diagnostic] = []
    modules = program.packages.get(MAIN, [])
    if not modules:
        return diagnostics
    for text in specs:
        try:
            spec = parse_override_spec(text)
            parse_value = _value_parser(spec)
        except OverrideError as error:
            diagnostics.extend(error.diagnostics)
            continue
        _Rewriter(modules, _Edits("", active=False), spec, parse_value).run()
    return diagnostics


def override_source(text: str, specs: list[str], path: str = "<string>") -> tuple[str, bool]:
    """Apply specs to one file's source text: the new text and whether it changed.

    Raises OverrideError for a bad spec, a bad value or a file with syntax errors.
    """
    changed = False
    for spec_text in specs:
        spec = parse_override_spec(spec_text)
        parse_value = _value_parser(spec)
        module, diagnostics = parse_source(text, path)
        errors = [d for d in diagnostics if d.is_error]
        if errors:
            raise OverrideError(errors)
        edits = _Edits(text, active=True)
        if _Rewriter([module], edits, spec, parse_value).run():
            changed = True
            text = edits.apply()
    return text, changed


def override_file(path: str, specs: list[str]) -> bool:
    """Apply specs to a file on disk (written atomically); whether it changed.

    Raises OverrideError for a bad spec or value, an unreadable or unparsable file.
    """
    text = _read(path)
    new, changed = override_source(text, specs, path)
    if changed and new != text:
        write_atomically(path, new)
    return changed


def override_files(paths: list[str], specs: list[str]) -> list[str]:
    """``kcl run -d -O``: write the specs into the files of the main package; returns
    the paths that changed. A spec goes to the first file binding its variable at the
    top level; a new variable is appended to the last file. (The reference applies
    every spec to every file, so a multi-file package gets duplicate statements.)

    Raises OverrideError like :func:`override_file`; then no file is written.
    """
    texts = {path: _read(path) for path in paths}
    changed: list[str] = []
    for spec_text in specs:
        name = parse_override_spec(spec_text).path[0]
        target = next((p for p in paths if _file_binds(texts[p], p, name)), paths[-1])
        new, did = override_source(texts[target], [spec_text], target)
        if did and new != texts[target]:
            texts[target] = new
            if target not in changed:
                changed.append(target)
    for path in changed:
        write_atomically(path, texts[path])
    return changed


def _file_binds(text: str, path: str, name: str) -> bool:
    module, _ = parse_source(text, path)
    return any(_binds(stmt, name) for stmt in module.body)


def _read(path: str) -> str:
    file, problem = read_source(path)
    if problem is not None:
        raise OverrideError([make_error(Code.IO_ERROR, problem, None)])
    return file.text
