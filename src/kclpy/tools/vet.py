"""``kcl vet``: validate JSON or YAML data against a schema of KCL code.

Takes the code (a text, standing for a file when it has one), the data text and the
options; returns the errors of validating (an empty list: valid). As the real
``kcl vet`` does, the data becomes a KCL literal assigned to the attribute
(``value``) after the code: every mapping at the top of the data or in its lists
(through nested lists) is an instance of the schema (the one named, else the first
schema of the code; without any, the data stays plain), so defaults, types, checks
and strictness apply as in a KCL program, and the code's own statements (e.g.
``assert`` on ``value``) run too. A code file in a package (a ``kcl.mod`` at or above
its folder) is compiled with the other files of its folder, as ``kcl run`` compiles a
package. Errors inside the data point at the data file's line and column
(:mod:`kclpy.tools.vet_positions`).
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Mapping
from typing import Any

from kclpy.depth import MAX_NESTING, TOO_DEEP, deep
from kclpy.diag import Code, Diagnostic, make_error
from kclpy.emit import EmitOptions
from kclpy.pipeline import driver
from kclpy.source import SourceFile, Span
from kclpy.syntax import ast, parse_source

_IDENTIFIER = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


class VetError(Exception):
    """The data or the code cannot be used (bad data, bad attribute name)."""

    def __init__(self, message: str, span: Span | None = None) -> None:
        super().__init__(message)
        self.span = span


def load_data(text: str, data_format: str, path: str = "data") -> Any:
    """Parse the data text as JSON or YAML (``data_format``: ``json`` | ``yaml``); a
    syntax error is a VetError at its place in the data file ``path``."""
    from kclpy.tools.vet_positions import deeper_than

    data_file = SourceFile(path, text)
    try:
        value = _parse(text, data_format, data_file)
    except RecursionError:
        raise VetError(f"the data: {TOO_DEEP}", _at(data_file, 0)) from None
    if deeper_than(value, MAX_NESTING):  # deeper than the program's stages take
        raise VetError(f"the data: {TOO_DEEP}", _at(data_file, 0))
    return value


def _parse(text: str, data_format: str, data_file: SourceFile) -> Any:
    if data_format == "json":
        try:
            return json.loads(text)
        except json.JSONDecodeError as error:
            raise VetError(f"invalid JSON data: {error.msg}", _at(data_file, error.pos)) from None
    import yaml

    from kclpy.tools.vet_positions import DataLoader

    try:
        return yaml.load(text, Loader=DataLoader)  # a safe loader (DataLoader)
    except yaml.MarkedYAMLError as error:
        mark = error.problem_mark or error.context_mark
        where = None if mark is None else _at(data_file, mark.index)
        raise VetError(f"invalid YAML data: {error.problem or error}", where) from None
    except yaml.YAMLError as error:
        raise VetError(f"invalid YAML data: {error}") from None


def _at(data_file: SourceFile, offset: int) -> Span:
    offset = min(max(offset, 0), len(data_file.text))
    return Span(data_file, offset, min(offset + 1, len(data_file.text)))


def to_kcl(value: Any, schema: str | None = None) -> str:
    """A Python data value as KCL source (configs with quoted keys, no interpolation);
    with ``schema``, the mappings at the top and in lists are instances of it."""
    if value is None:
        return "None"
    if value is True:
        return "True"
    if value is False:
        return "False"
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False).replace("${", "\\${")
    if isinstance(value, list):
        return "[" + ", ".join(to_kcl(item, schema) for item in value) + "]"
    if isinstance(value, dict):
        entries = ", ".join(f"{to_kcl(str(key))}: {to_kcl(item)}" for key, item in value.items())
        return ("" if schema is None else schema + " ") + "{" + entries + "}"
    raise VetError(f"unsupported data value of type {type(value).__name__}")


def first_schema(texts: Mapping[str, str]) -> str | None:
    """The name of the first schema of the code texts (path -> text), in their order."""
    for path, text in texts.items():
        module, _ = parse_source(text, path)
        for stmt in module.body:
            if isinstance(stmt, ast.SchemaStmt) and stmt.kind == "schema":
                return stmt.name
    return None


def package_of(code_path: str) -> list[str]:
    """The files compiled with the code file ``code_path``: when it is a file in a
    package (a ``kcl.mod`` at or above its folder), every ``.k`` file of its folder as
    ``kcl run`` takes them (the code file as given, the others absolute); else it alone."""
    from kclpy.loader import find_root, package_files

    if not os.path.isfile(code_path):
        return [code_path]
    folder = os.path.dirname(os.path.abspath(code_path))
    if find_root(folder) is None:
        return [code_path]
    itself = os.path.abspath(code_path)
    files = [code_path if path == itself else path for path in package_files(folder)]
    return files if code_path in files else [code_path]


@deep
def validate_data(
    code: str,
    data: str,
    *,
    data_format: str = "json",
    schema: str | None = None,
    attribute_name: str = "value",
    code_path: str = "main.k",
    data_path: str = "data",
    externals: Mapping[str, str] | None = None,
    package: bool = False,
) -> list[Diagnostic]:
    """The errors of validating ``data`` (the program runs through the driver as the
    file ``code_path``, with the ``-E`` packages ``externals``; with ``package``, the
    other files of its package too). The data goes into the program one entry per
    line, so an error in it is moved to the data file's line and column. Runs with the
    recursion budget (:mod:`kclpy.depth`): data nests as deep as a program may."""
    from kclpy.tools.vet_positions import PositionedLiteral

    files = package_of(code_path) if package else [code_path]
    texts = {path: _read(path) for path in files if path != code_path}
    try:
        if not _IDENTIFIER.match(attribute_name):
            raise VetError(f"invalid attribute name '{attribute_name}'")
        value = load_data(data, data_format, data_path)
        name = schema or first_schema({code_path: code, **texts})
        literal = PositionedLiteral.build(data, value, data_path, name, to_kcl)
    except VetError as error:
        return [make_error(Code.EVALUATION_ERROR, str(error), error.span)]
    head = f"{code.rstrip()}\n\n{attribute_name} = "
    work_dir = os.path.dirname(os.path.abspath(code_path)) if len(files) > 1 else ""
    inputs = driver.Inputs(
        files, work_dir, dict(externals or {}), {code_path: head + literal.text + "\n"}
    )
    errors = [d for d in _run(inputs) if d.is_error]
    first_line = head.count("\n") + 1
    return [literal.relocate(error, code_path, first_line) for error in errors]


def _read(path: str) -> str:
    try:
        with open(path, encoding="utf-8") as handle:
            return handle.read()
    except (OSError, UnicodeDecodeError):
        return ""  # the loader reports it


def _run(inputs: driver.Inputs) -> list[Diagnostic]:
    """The diagnostics of running the validation program."""
    return driver.run(inputs, driver.RunSettings(), EmitOptions()).diagnostics
