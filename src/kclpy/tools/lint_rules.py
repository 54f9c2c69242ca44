"""The rules of ``kcl lint``: what each one checks, on the syntax trees and the Model.

Every check takes one file (or one package) and returns :class:`Finding` objects: a
warning diagnostic and, for the fixable rules, the edit that fixes it. The driver
(:mod:`kclpy.tools.lint`) loads the program, runs them and filters the results.

Usage of a name is syntactic, file by file, as the reference checks imports: a
name is used where it appears as an identifier or the head of an attribute chain
in an expression, a type annotation, a schema's base or mixins, a decorator or a
``${...}`` interpolation, unless a lambda parameter or a comprehension or
quantifier variable of the same name hides it there. Config keys (``{name: 1}``)
and assignment targets are not uses.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence

import attrs

from kclpy.diag import Code, Diagnostic, Label
from kclpy.diag.diagnostic import Severity
from kclpy.sema import Model
from kclpy.source import Span
from kclpy.syntax import ast
from kclpy.syntax.walk import iter_children, walk


@attrs.frozen
class Rule:
    """A lint rule: its code, a short name usable in ``--select``, and what it finds."""

    code: Code
    name: str
    summary: str
    fixable: bool = False

    @property
    def id(self) -> str:
        return self.code.id


RULES: tuple[Rule, ...] = (
    Rule(Code.LINT_REIMPORT, "reimport", "a module imported more than once in a file", True),
    Rule(Code.LINT_UNUSED_IMPORT, "unused-import", "an import its file never uses", True),
    Rule(Code.LINT_IMPORT_POSITION, "import-position", "an import after other statements"),
    Rule(Code.LINT_SELF_IMPORT, "self-import", "a file importing its own package"),
    Rule(Code.LINT_LINE_TOO_LONG, "line-too-long", "a line longer than max_line_length"),
    Rule(Code.LINT_INVALID_NAME, "invalid-name", "a schema, mixin or protocol name off style"),
    Rule(Code.LINT_DISALLOWED_NAME, "disallowed-name", "a name from the bad_names list"),
    Rule(
        Code.LINT_UNUSED_PRIVATE,
        "unused-private-variable",
        "a top-level _private variable nothing reads",
    ),
    Rule(Code.LINT_DEPRECATED_USE, "deprecated-use", "a use of a @deprecated schema or attribute"),
)
RULES_BY_ID = {rule.id: rule for rule in RULES}

DEFAULT_MAX_LINE_LENGTH = 200
DEFAULT_BAD_NAMES = frozenset(["foo", "bar", "baz", "toto", "tata", "tutu", "I", "l", "O"])
REMOVE_NOTE = "Consider removing this statement"


@attrs.frozen
class Edit:
    """Replace ``[start, end)`` of a file's text with ``text``."""

    path: str
    start: int
    end: int
    text: str = ""


@attrs.define
class Finding:
    diagnostic: Diagnostic
    edit: Edit | None = None


def warning(code: Code, message: str, span: Span | None, *notes: str) -> Diagnostic:
    return Diagnostic(code, message, [Label(span, message)], list(notes), Severity.WARNING)


# --------------------------------------------------------------------------- name uses

_EMPTY: frozenset[str] = frozenset()
_Item = tuple[ast.Node, frozenset[str]]


def _root(dotted: str) -> str:
    return dotted.split(".", 1)[0]


def used_names(nodes: Iterable[ast.Node]) -> set[str]:
    """Every name read somewhere in ``nodes`` (see the module docstring)."""
    used: set[str] = set()
    stack: list[_Item] = [(node, _EMPTY) for node in nodes]
    while stack:
        node, hidden = stack.pop()
        if isinstance(node, ast.NameExpr):
            if node.name not in hidden:
                used.add(node.name)
            continue
        if isinstance(node, ast.NamedType):
            used.add(_root(node.name))
            continue
        handler = _HANDLERS.get(type(node))
        if handler is not None:
            handler(node, hidden, stack)
            continue
        if isinstance(node, ast.Decorator):
            used.add(_root(node.name))
        stack.extend((child, hidden) for child in iter_children(node))
    return used


def _push(stack: list[_Item], nodes: Iterable[ast.Node | None], hidden: frozenset[str]) -> None:
    stack.extend((node, hidden) for node in nodes if node is not None)


def _assign(node: ast.Node, hidden: frozenset[str], stack: list[_Item]) -> None:
    assert isinstance(node, ast.AssignStmt)
    _push(stack, [t for t in node.targets if not isinstance(t, ast.NameExpr)], hidden)
    _push(stack, [node.type, node.value], hidden)


def _unification(node: ast.Node, hidden: frozenset[str], stack: list[_Item]) -> None:
    assert isinstance(node, ast.UnificationStmt)
    _push(stack, [node.value], hidden)


def _type_alias(node: ast.Node, hidden: frozenset[str], stack: list[_Item]) -> None:
    assert isinstance(node, ast.TypeAliasStmt)
    _push(stack, [node.type], hidden)


def _config_entry(node: ast.Node, hidden: frozenset[str], stack: list[_Item]) -> None:
    assert isinstance(node, ast.ConfigEntry)
    key = node.key
    while isinstance(key, ast.SubscriptExpr):  # `l[i] = v`: the indices are uses
        _push(stack, [key.index, key.lower, key.upper, key.step], hidden)
        key = key.value
    while isinstance(key, ast.SelectorExpr):
        key = key.value
    if key is not None and not isinstance(key, ast.NameExpr):
        _push(stack, [key], hidden)
    _push(stack, [node.value], hidden)


def _lambda(node: ast.Node, hidden: frozenset[str], stack: list[_Item]) -> None:
    assert isinstance(node, ast.LambdaExpr)
    _push(stack, node.params, hidden)
    _push(stack, [node.return_type], hidden)
    _push(stack, node.body, hidden | {param.name for param in node.params})


def _comprehension(node: ast.Node, hidden: frozenset[str], stack: list[_Item]) -> None:
    assert isinstance(node, ast.ListCompExpr | ast.DictCompExpr)
    inner = hidden
    for clause in node.generators:
        _push(stack, [clause.iter], inner)
        inner = inner | {target.name for target in clause.targets}
        _push(stack, clause.ifs, inner)
    _push(stack, [node.elt if isinstance(node, ast.ListCompExpr) else node.entry], inner)


def _quantifier(node: ast.Node, hidden: frozenset[str], stack: list[_Item]) -> None:
    assert isinstance(node, ast.QuantExpr)
    _push(stack, [node.target], hidden)
    _push(stack, [node.test, node.cond], hidden | {v.name for v in node.variables})


def _schema(node: ast.Node, hidden: frozenset[str], stack: list[_Item]) -> None:
    assert isinstance(node, ast.SchemaStmt | ast.RuleStmt)
    inner = hidden | {param.name for param in node.params}
    _push(stack, [*node.decorators, *node.params, node.for_host], hidden)
    if isinstance(node, ast.SchemaStmt):
        _push(stack, [node.parent, *node.mixins], hidden)
        # in its body and checks, a schema's own attributes hide outer names
        inner = inner | {name for stmt in node.body for name, _ in _defined_names(stmt)}
        _push(stack, [node.index_signature, *node.body, *node.checks], inner)
    else:
        _push(stack, node.parents, hidden)
        _push(stack, node.checks, inner)


_Handler = Callable[[ast.Node, frozenset[str], list[_Item]], None]
_HANDLERS: dict[type, _Handler] = {
    ast.AssignStmt: _assign,
    ast.UnificationStmt: _unification,
    ast.TypeAliasStmt: _type_alias,
    ast.ConfigEntry: _config_entry,
    ast.LambdaExpr: _lambda,
    ast.ListCompExpr: _comprehension,
    ast.DictCompExpr: _comprehension,
    ast.QuantExpr: _quantifier,
    ast.SchemaStmt: _schema,
    ast.RuleStmt: _schema,
}


# --------------------------------------------------------------------------- imports


def top_level_imports(module: ast.Module) -> list[ast.ImportStmt]:
    """The imports of a file: top-level ones and those in top-level ``if`` blocks."""
    found: list[ast.ImportStmt] = []
    stack: list[ast.Stmt] = list(reversed(module.body))
    while stack:
        stmt = stack.pop()
        if isinstance(stmt, ast.ImportStmt):
            found.append(stmt)
        elif isinstance(stmt, ast.IfStmt):
            stack.extend(reversed([*stmt.body, *stmt.orelse]))
    found.sort(key=lambda stmt: stmt.span.start)
    return found


def check_imports(
    module: ast.Module,
    targets: dict[str, str],
    is_self_import: Callable[[ast.ImportStmt], bool],
) -> list[Finding]:
    """W0413 import position, W0404 reimport, W0411 unused import, E0406 self-import."""
    findings: list[Finding] = []
    seen_other = False
    for stmt in module.body:
        if not isinstance(stmt, ast.ImportStmt):
            seen_other = True
        elif seen_other:
            findings.append(
                Finding(
                    warning(
                        Code.LINT_IMPORT_POSITION,
                        "The import stmt should be placed at the top of the module",
                        stmt.span,
                        "Consider moving this statement to the top of the file",
                    )
                )
            )
    imports = top_level_imports(module)
    top_level = {stmt.id for stmt in module.body if isinstance(stmt, ast.ImportStmt)}
    first_by_key: dict[str, ast.ImportStmt] = {}
    for stmt in imports:
        key = targets.get(stmt.name, stmt.path) if stmt.path.startswith(".") else stmt.path
        first = first_by_key.setdefault(key, stmt)
        if first is not stmt:
            same_binding = first.name == stmt.name and stmt.id in top_level
            findings.append(
                Finding(
                    warning(
                        Code.LINT_REIMPORT,
                        f"Module '{stmt.name}' is reimported multiple times",
                        stmt.span,
                        REMOVE_NOTE,
                    ),
                    removal_edit(stmt) if same_binding else None,
                )
            )
    if imports:
        used = used_names(stmt for stmt in module.body if not isinstance(stmt, ast.ImportStmt))
        for stmt in imports:
            if stmt.name not in used:
                findings.append(
                    Finding(
                        warning(
                            Code.LINT_UNUSED_IMPORT,
                            f"Module '{stmt.name}' imported but unused",
                            stmt.span,
                            REMOVE_NOTE,
                        ),
                        removal_edit(stmt) if stmt.id in top_level else None,
                    )
                )
    for stmt in imports:
        if is_self_import(stmt):
            findings.append(
                Finding(
                    warning(
                        Code.LINT_SELF_IMPORT,
                        f"Module '{stmt.path}' imports itself",
                        stmt.span,
                        REMOVE_NOTE,
                    )
                )
            )
    return findings


def removal_edit(stmt: ast.Stmt) -> Edit | None:
    """Delete a statement with its line, when it is alone on its line (a trailing comment
    goes with it); None otherwise."""
    file = stmt.span.file
    text = file.text
    start = text.rfind("\n", 0, stmt.span.start) + 1
    if text[start : stmt.span.start].strip():
        return None
    newline = text.find("\n", stmt.span.end)
    end = len(text) if newline < 0 else newline + 1
    rest = text[stmt.span.end : end].strip()
    if rest and not rest.startswith("#"):
        return None
    return Edit(file.path, start, end)


# --------------------------------------------------------------------------- lines


def check_lines(module: ast.Module, max_length: int) -> list[Finding]:
    """E0501: lines longer than ``max_length`` code points."""
    findings: list[Finding] = []
    file = module.file
    starts = file.line_starts
    for number in range(1, len(starts) + 1):
        line = file.line_text(number)
        if len(line) > max_length:
            start = starts[number - 1]
            span = Span(file, start + max_length, start + len(line))
            message = f"Line too long ({len(line)} > {max_length} characters)"
            findings.append(Finding(warning(Code.LINT_LINE_TOO_LONG, message, span)))
    return findings


# --------------------------------------------------------------------------- names

_PASCAL = re.compile(r"^_?[A-Z][A-Za-z0-9]*$")
_STYLES = {
    "schema": ("Schema", ""),
    "mixin": ("Mixin", "Mixin"),
    "protocol": ("Protocol", "Protocol"),
}


def check_names(module: ast.Module, bad_names: frozenset[str]) -> list[Finding]:
    """C0103 schema/mixin/protocol naming styles and C0104 disallowed names."""
    findings: list[Finding] = []
    for node in walk(module):
        if isinstance(node, ast.SchemaStmt) and node.kind in _STYLES:
            kind, suffix = _STYLES[node.kind]
            if not _PASCAL.match(node.name) or not node.name.endswith(suffix):
                style = "PascalCase naming style"
                if suffix:
                    style += f" with the suffix '{suffix}'"
                message = f'{kind} name "{node.name}" doesn\'t conform to {style}'
                findings.append(Finding(warning(Code.LINT_INVALID_NAME, message, node.name_span)))
        if bad_names:
            for name, span in _defined_names(node):
                if name in bad_names:
                    findings.append(
                        Finding(
                            warning(Code.LINT_DISALLOWED_NAME, f'Disallowed name "{name}"', span)
                        )
                    )
    return findings


def _defined_names(node: ast.Node) -> list[tuple[str, Span]]:
    """The names a node defines, with where."""
    if isinstance(node, ast.AssignStmt):
        return [(t.name, t.span) for t in node.targets if isinstance(t, ast.NameExpr)]
    if isinstance(node, ast.UnificationStmt):
        return [(node.target.name, node.target.span)]
    if isinstance(node, ast.TypeAliasStmt):
        return [(node.name.name, node.name.span)]
    if isinstance(node, ast.SchemaStmt | ast.RuleStmt | ast.SchemaAttr):
        return [(node.name, node.name_span)]
    if isinstance(node, ast.Param):
        return [(node.name, node.span)]
    if isinstance(node, ast.CompClause):
        return [(t.name, t.span) for t in node.targets]
    if isinstance(node, ast.QuantExpr):
        return [(v.name, v.span) for v in node.variables]
    return []


# --------------------------------------------------------------------------- private variables


def check_private_variables(modules: Sequence[ast.Module]) -> list[Finding]:
    """W0612: top-level ``_name`` variables that no file of the package reads."""
    defined: dict[str, Span] = {}
    for module in modules:
        stack: list[ast.Stmt] = list(reversed(module.body))
        while stack:
            stmt = stack.pop()
            if isinstance(stmt, ast.IfStmt):
                stack.extend(reversed([*stmt.body, *stmt.orelse]))
                continue
            if not isinstance(stmt, ast.AssignStmt | ast.UnificationStmt):
                continue
            for name, span in _defined_names(stmt):
                if name.startswith("_") and name != "_":
                    defined.setdefault(name, span)
    if not defined:
        return []
    used: set[str] = set()
    for module in modules:
        used |= used_names(module.body)
    return [
        Finding(
            warning(
                Code.LINT_UNUSED_PRIVATE,
                f"Private variable '{name}' is assigned but never used",
                span,
            )
        )
        for name, span in defined.items()
        if name not in used
    ]


# --------------------------------------------------------------------------- deprecation


def check_deprecated(model: Model, paths: set[str]) -> list[Finding]:
    """W1505: uses, in the files ``paths``, of schemas and attributes marked ``@deprecated``."""
    findings: list[Finding] = []
    for info in model.schemas.values():
        node = info.node
        targets = []
        schema_decorator = _deprecation(node.decorators)
        if schema_decorator is not None and info.symbol is not None:
            uses = model.references(info.symbol, include_definition=False)
            targets.append((info.name, uses, schema_decorator))
        for name, symbol in info.attrs.items():
            decorator = _deprecation(symbol.decorators)
            if decorator is not None:
                targets.append((name, model.references(symbol, False), decorator))
        for name, references, decorator in targets:
            message = _deprecation_message(name, decorator)
            seen: set[tuple[str, int]] = set()
            for span in references:
                key = (span.file.path, span.start)
                if span.file.path not in paths or key in seen:
                    continue
                seen.add(key)
                inside = span.file is node.span.file and (
                    node.span.start <= span.start < node.span.end
                )
                if not inside:
                    findings.append(Finding(warning(Code.LINT_DEPRECATED_USE, message, span)))
    return findings


def _deprecation(decorators: Sequence[ast.Decorator]) -> ast.Decorator | None:
    for decorator in decorators:
        if decorator.name == "deprecated":
            return decorator
    return None


def _deprecation_message(name: str, decorator: ast.Decorator) -> str:
    values: dict[str, str] = {}
    for key, arg in zip(("version", "reason"), decorator.args, strict=False):
        if isinstance(arg, ast.StringExpr):
            values[key] = arg.value
    for keyword in decorator.keywords:
        if isinstance(keyword.value, ast.StringExpr):
            values[keyword.name] = keyword.value.value
    message = f"{name} was deprecated"
    if values.get("version"):
        message += f" since version {values['version']}"
    if values.get("reason"):
        message += f", {values['reason']}"
    return message
