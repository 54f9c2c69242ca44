"""What a stack's settings do to the program the server analyses: ``-O`` and ``-D``.

``kcl run -Y kcl.yaml`` rewrites the entry files' syntax trees with the settings
file's ``overrides`` before checking them, and runs the program with its
``options``. The server checks the same program (``kclpy_lsp.programs`` reads both
into the ``Unit``):

* **overrides** are applied to copies of the main package's trees, in memory only
  (the parse cache's trees are shared with other programs and never changed; no
  file is written; each copy has node ids of its own, ``syntax.clone.renumbered``,
  as the checker's tables are keyed by node id), before the checker sees them: an
  override that sets a required attribute clears the "required" error, one that
  sets a wrong value gets the type error ``kcl run -Y`` reports, at the same place;
* **options** are checked where ``kcl run`` would use them for sure: ``option()``
  calls with a literal key in statements that always run (top level, outside
  schemas, rules, lambdas, ``if`` blocks and conditional branches) report what the
  run reports: a required option not given, a value that is not of its ``type=``,
  and a value that does not fit the declared type of its top-level assignment
  (``n: int = option("n")``).

Takes the loaded ``Program`` and the ``Unit``; returns diagnostics by file (spec
errors go to the settings file).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

from kclpy.diag import Code, Diagnostic, make_error
from kclpy.loader import MAIN, Program
from kclpy.monorepo.stacks import SETTINGS_FILE
from kclpy.pipeline.driver import parse_option
from kclpy.syntax import ast
from kclpy.syntax.clone import renumbered
from kclpy.syntax.walk import iter_children
from kclpy.tools.override import OverrideError, apply_overrides
from kclpy.values.errors import KclRuntimeError
from kclpy.vm.builtins.options import convert_option
from kclpy_lsp.programs import Unit

Problems = dict[str, list[Diagnostic]]

# the value types a top-level annotation names, and the Python types of option values
_SCALARS: dict[str, tuple[type, ...]] = {
    "int": (int,),
    "float": (int, float),
    "str": (str,),
    "bool": (bool,),
}


def apply_settings(program: Program, unit: Unit) -> Problems:
    """Apply the unit's overrides to the program (in memory) and check its options:
    the problems found, by file."""
    problems: Problems = {}
    settings = next((p for p in unit.definition if p.endswith(SETTINGS_FILE)), None)
    if unit.overrides:
        for problem in _overridden(program, list(unit.overrides)):
            _add(problems, problem, settings)
    if settings is not None:
        try:
            options = dict(parse_option(text) for text in unit.options)
        except ValueError as error:
            options = {}
            _add(problems, make_error(Code.EVALUATION_ERROR, str(error), None), settings)
        for problem in option_problems(program, options):
            _add(problems, problem, settings)
    return problems


def _add(problems: Problems, problem: Diagnostic, fallback: str | None) -> None:
    span = problem.span
    where = os.path.abspath(span.file.path) if span is not None else fallback
    if where is not None:
        problems.setdefault(where, []).append(problem)


def _overridden(program: Program, specs: list[str]) -> list[Diagnostic]:
    """The main package's trees replaced by copies with ``specs`` applied; the
    problems of the specs."""
    modules = program.packages.get(MAIN, [])
    try:
        copies = [renumbered(module) for module in modules]
        for module, copied in zip(modules, copies, strict=True):
            program.imports[copied.id] = program.imports_of(module)
        program.packages[MAIN] = copies
        return apply_overrides(program, specs)
    except OverrideError as error:
        return list(error.diagnostics)
    except RecursionError:
        message = "the entry files are nested too deeply to apply the settings' overrides"
        return [make_error(Code.EVALUATION_ERROR, message, None)]


# --------------------------------------------------------------------------- options


def option_problems(program: Program, options: dict[str, Any]) -> list[Diagnostic]:
    """What ``kcl run`` with ``options`` reports for the ``option()`` calls of the main
    package that always run."""
    problems: list[Diagnostic] = []
    for module in program.packages.get(MAIN, []):
        for statement in module.body:
            for call in _always_run_calls(statement):
                problem = _call_problem(call, options)
                if problem is not None:
                    problems.append(problem)
            if isinstance(statement, ast.AssignStmt):
                problem = _typed_problem(statement, options)
                if problem is not None:
                    problems.append(problem)
    return problems


def _always_run_calls(statement: ast.Stmt) -> Iterator[ast.CallExpr]:
    """The ``option("key", ...)`` calls of a top-level statement that run whenever it
    does (not in schemas, rules, lambdas, ``if`` blocks, conditional branches,
    comprehension bodies or the right side of ``and``/``or``)."""
    if isinstance(statement, ast.SchemaStmt | ast.RuleStmt | ast.IfStmt):
        return
    stack: list[ast.Node] = [statement]
    while stack:
        node = stack.pop()
        if isinstance(node, ast.LambdaExpr | ast.ListCompExpr | ast.DictCompExpr):
            continue
        if isinstance(node, ast.QuantExpr):
            continue
        if isinstance(node, ast.IfExpr):
            stack.append(node.cond)
            continue
        if isinstance(node, ast.BinaryExpr) and node.op in ("and", "or"):
            stack.append(node.left)
            continue
        if _option_key(node) is not None:
            assert isinstance(node, ast.CallExpr)
            yield node
        stack.extend(iter_children(node))


def _option_key(node: ast.Node) -> str | None:
    """The literal key of an ``option("key", ...)`` call (None for anything else)."""
    if not isinstance(node, ast.CallExpr) or not isinstance(node.func, ast.NameExpr):
        return None
    if node.func.name != "option" or not node.args:
        return None
    key = node.args[0]
    return key.value if isinstance(key, ast.StringExpr) else None


def _keyword(call: ast.CallExpr, name: str, position: int) -> ast.Expr | None:
    for keyword in call.keywords:
        if keyword.name == name:
            return keyword.value
    return call.args[position] if len(call.args) > position else None


def _call_problem(call: ast.CallExpr, options: dict[str, Any]) -> Diagnostic | None:
    key = _option_key(call)
    if key is None:
        return None
    type_name = _keyword(call, "type", 1)
    required = _keyword(call, "required", 2)
    default = _keyword(call, "default", 3)
    if key not in options:
        if default is None and isinstance(required, ast.ConstExpr) and required.value is True:
            message = f"option('{key}') must be initialized, try '-D {key}=?' argument"
            return make_error(Code.EVALUATION_ERROR, message, call.span)
        return None
    if not isinstance(type_name, ast.StringExpr):
        return None
    try:
        convert_option(key, options[key], type_name.value)
    except KclRuntimeError as error:
        return make_error(Code.EVALUATION_ERROR, error.message, call.span)
    return None


def _typed_problem(statement: ast.AssignStmt, options: dict[str, Any]) -> Diagnostic | None:
    """``n: int = option("n")`` given a value that is no int (without ``type=``: the
    value as given)."""
    annotation = statement.type
    key = _option_key(statement.value)
    if key is None or key not in options or not isinstance(annotation, ast.NamedType):
        return None
    accepted = _SCALARS.get(annotation.name)
    call = statement.value
    assert isinstance(call, ast.CallExpr)
    if accepted is None or _keyword(call, "type", 1) is not None:
        return None
    value = options[key]
    if isinstance(value, accepted) and not (isinstance(value, bool) and bool not in accepted):
        return None
    got = _kcl_type(value)
    message = f"expect {annotation.name}, got {got}"
    return make_error(Code.EVALUATION_ERROR, message, statement.targets[0].span)


def _kcl_type(value: Any) -> str:
    if value is None:
        return "NoneType"
    names = {bool: "bool", int: "int", float: "float", str: "str", list: "list", dict: "dict"}
    return names.get(type(value), type(value).__name__)
