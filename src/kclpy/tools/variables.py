"""Listing a program's variables and options (the API's ``list_variables`` and
``list_options``).

``list_variables(files)`` parses the files and returns, for every top-level
assignment or unification, the value's source text, the type annotation, the
operator and, for config and list literals, the nested entries and items (the
shape of the reference's ``ListVariables``). ``list_options(program)`` finds every
``option("key", type=..., required=..., default=..., help=...)`` call.

Values are the source text as written (the reference reprints them through its
formatter, so spacing and line breaks can differ).
"""

from __future__ import annotations

import attrs

from kclpy.diag import Diagnostic
from kclpy.loader import Program
from kclpy.syntax import ast, parse_file
from kclpy.syntax.walk import walk

__all__ = ["DictEntryInfo", "OptionInfo", "VariableInfo", "list_options", "list_variables"]


@attrs.define
class VariableInfo:
    """One binding of a variable (or one nested value)."""

    name: str
    value: str
    type_name: str = ""  # the schema of a schema expression (``P`` in ``p = P {}``)
    annotation: str = ""  # the declared type (``int`` in ``n: int = 1``)
    op: str = ""  # "=" or ":" (top level), the entry's operator for nested values
    entries: list[DictEntryInfo] = attrs.field(factory=list)
    items: list[VariableInfo] = attrs.field(factory=list)
    file: str = ""
    line: int = 0
    column: int = 0


@attrs.frozen
class DictEntryInfo:
    """``key op value`` in a config literal; ``key`` is "" for ``**value`` and ``if`` entries."""

    key: str
    value: VariableInfo


@attrs.define
class OptionInfo:
    """One ``option(...)`` call; ``default`` is the KCL source of the default ("" if none)."""

    name: str
    type: str = ""
    required: bool = False
    default: str = ""
    help: str = ""
    file: str = ""
    line: int = 0
    column: int = 0


# --------------------------------------------------------------------------- variables


def _text(node: ast.Node) -> str:
    return node.span.file.text[node.span.start : node.span.end]


def _describe(name: str, expr: ast.Expr, op: str) -> VariableInfo:
    line, column = expr.span.begin_pos
    info = VariableInfo(
        name, _text(expr), op=op, file=expr.span.file.path, line=line, column=column
    )
    config: ast.ConfigExpr | None = None
    if isinstance(expr, ast.SchemaExpr):
        info.type_name = _text(expr.name)
        config = expr.config
    elif isinstance(expr, ast.ConfigExpr):
        config = expr
    elif isinstance(expr, ast.ListExpr):
        info.items = [_describe("", item, "") for item in expr.items]
    if config is not None:
        info.entries = [_entry(entry) for entry in config.entries]
    return info


def _entry(entry: ast.ConfigEntry | ast.ConfigIfEntry) -> DictEntryInfo:
    if isinstance(entry, ast.ConfigIfEntry):
        line, column = entry.span.begin_pos
        value = VariableInfo("", _text(entry), op=":", file=entry.span.file.path, line=line)
        value.column = column
        return DictEntryInfo("", value)
    key = _key_parts(entry.key)
    if key is None:
        name = "" if entry.key is None else _text(entry.key)
        return DictEntryInfo(name, _describe(name, entry.value, entry.op))
    # a dotted key ``a.b = v`` is ``a: {b = v}``, as the reference reports it
    inner = DictEntryInfo(key[-1], _describe(key[-1], entry.value, entry.op))
    for part in reversed(key[:-1]):
        value = VariableInfo(part, _text(entry), op=ast.OP_UNION, entries=[inner])
        value.file, (value.line, value.column) = entry.span.file.path, entry.span.begin_pos
        inner = DictEntryInfo(part, value)
    return inner


def _key_parts(key: ast.Expr | None) -> list[str] | None:
    if isinstance(key, ast.NameExpr):
        return [key.name]
    if isinstance(key, ast.StringExpr):
        return [key.value]
    if isinstance(key, ast.SelectorExpr) and isinstance(key.value, ast.NameExpr | ast.SelectorExpr):
        head = _key_parts(key.value)
        return None if head is None else [*head, key.attr]
    return None


def _annotation(stmt: ast.AssignStmt) -> str:
    return _text(stmt.type) if stmt.type is not None else ""


def module_variables(module: ast.Module) -> dict[str, list[VariableInfo]]:
    """The top-level bindings of one parsed file, in source order."""
    found: dict[str, list[VariableInfo]] = {}
    for stmt in module.body:
        if isinstance(stmt, ast.AssignStmt):
            for target in stmt.targets:
                if isinstance(target, ast.NameExpr):
                    info = _describe(target.name, stmt.value, ast.OP_OVERRIDE)
                    info.annotation = _annotation(stmt)
                    found.setdefault(target.name, []).append(info)
        elif isinstance(stmt, ast.UnificationStmt):
            info = _describe(stmt.target.name, stmt.value, ast.OP_UNION)
            found.setdefault(stmt.target.name, []).append(info)
    return found


def _select(infos: list[VariableInfo], path: list[str]) -> list[VariableInfo]:
    """The nested values at ``path`` (config keys) below the given values."""
    for part in path:
        infos = [entry.value for info in infos for entry in info.entries if entry.key == part]
    return infos


def list_variables(
    files: list[str],
    names: list[str] | None = None,
    errors: list[Diagnostic] | None = None,
) -> dict[str, list[VariableInfo]]:
    """Top-level variables of the files: ``{name: [one VariableInfo per binding]}``.

    ``names`` keeps only those variables; a dotted name (``c.x``) selects a
    nested config entry, reported under the dotted name. Syntax errors of the
    files go to ``errors`` when given (the variables of the rest are listed).
    """
    variables: dict[str, list[VariableInfo]] = {}
    for path in files:
        module, diagnostics = parse_file(path)
        if errors is not None:
            errors.extend(d for d in diagnostics if d.is_error)
        for name, infos in module_variables(module).items():
            variables.setdefault(name, []).extend(infos)
    if names is None:
        return variables
    selected: dict[str, list[VariableInfo]] = {}
    for name in names:
        head, *rest = name.split(".")
        infos = _select(variables.get(head, []), rest)
        if infos:
            selected[name] = infos
    return selected


# --------------------------------------------------------------------------- options


def _option(call: ast.CallExpr) -> OptionInfo | None:
    arguments: dict[str, ast.Expr] = {}
    for name, arg in zip(("key", "type", "required", "default", "help"), call.args, strict=False):
        arguments[name] = arg
    for keyword in call.keywords:
        arguments[keyword.name] = keyword.value
    key = arguments.get("key")
    if not isinstance(key, ast.StringExpr):
        return None
    line, column = call.span.begin_pos
    info = OptionInfo(key.value, file=call.span.file.path, line=line, column=column)
    kind = arguments.get("type")
    if isinstance(kind, ast.StringExpr):
        info.type = kind.value
    required = arguments.get("required")
    if isinstance(required, ast.ConstExpr):
        info.required = required.value is True
    default = arguments.get("default")
    if default is not None:
        info.default = _text(default)
    text = arguments.get("help")
    if isinstance(text, ast.StringExpr):
        info.help = text.value
    return info


def list_options(program: Program) -> list[OptionInfo]:
    """Every ``option()`` call of the program's packages, in source order."""
    options: list[OptionInfo] = []
    for modules in program.packages.values():
        for module in modules:
            for node in walk(module):
                if (
                    isinstance(node, ast.CallExpr)
                    and isinstance(node.func, ast.NameExpr)
                    and node.func.name == "option"
                ):
                    info = _option(node)
                    if info is not None:
                        options.append(info)
    return options
