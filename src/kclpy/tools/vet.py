"""``kcl vet``: validate JSON or YAML data against a schema of a KCL file.

The data becomes a KCL config literal instantiated as the schema (the first schema
of the code unless one is named), so defaults, types, checks and strictness (no
unknown keys) apply exactly as in a KCL program. The Python API
(``kclpy.validate_code``) runs the program this module builds.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

from kclpy.depth import deep
from kclpy.diag import Code, Diagnostic, make_error
from kclpy.emit import EmitOptions
from kclpy.pipeline import driver
from kclpy.syntax import ast, parse_source

_IDENTIFIER = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


class VetError(Exception):
    """The data or the code cannot be used (bad format, no schema)."""


def load_data(text: str, data_format: str) -> Any:
    """Parse the data text as JSON or YAML (``data_format``: ``json`` | ``yaml``)."""
    if data_format == "json":
        try:
            return json.loads(text)
        except ValueError as error:
            raise VetError(f"invalid JSON data: {error}") from None
    import yaml

    try:
        return yaml.safe_load(text)
    except yaml.YAMLError as error:
        raise VetError(f"invalid YAML data: {error}") from None


def to_kcl(value: Any) -> str:
    """A Python data value as KCL source (configs with quoted keys, no interpolation)."""
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
        return "[" + ", ".join(to_kcl(item) for item in value) + "]"
    if isinstance(value, dict):
        entries = ", ".join(f"{to_kcl(str(key))}: {to_kcl(item)}" for key, item in value.items())
        return "{" + entries + "}"
    raise VetError(f"unsupported data value of type {type(value).__name__}")


def first_schema(code: str, path: str) -> str | None:
    module, _ = parse_source(code, path)
    for stmt in module.body:
        if isinstance(stmt, ast.SchemaStmt) and stmt.kind == "schema":
            return stmt.name
    return None


def validation_program(
    code: str,
    data: str,
    *,
    data_format: str = "json",
    schema: str | None = None,
    attribute_name: str = "value",
    code_path: str = "main.k",
) -> str | Diagnostic:
    """The KCL program that validates ``data`` as ``schema`` (or why it cannot be built)."""
    prepared = _prepare(code, data, data_format, schema, attribute_name, code_path)
    if isinstance(prepared, Diagnostic):
        return prepared
    name, value = prepared
    return f"{code.rstrip()}\n\n{attribute_name} = {name} {to_kcl(value)}\n"


def _prepare(
    code: str, data: str, data_format: str, schema: str | None, attribute_name: str, path: str
) -> tuple[str, Any] | Diagnostic:
    """The schema's name and the data's value, or why they cannot be used."""
    try:
        value = load_data(data, data_format)
        name = schema or first_schema(code, path)
        if name is None:
            raise VetError("no schema found in the code to validate against")
        if not _IDENTIFIER.match(attribute_name):
            raise VetError(f"invalid attribute name '{attribute_name}'")
        if not isinstance(value, dict):
            raise VetError("the data to validate must be a mapping")
    except VetError as error:
        return make_error(Code.EVALUATION_ERROR, str(error), None)
    return name, value


@deep
def _run(text: str, path: str, externals: Mapping[str, str] | None) -> list[Diagnostic]:
    """The diagnostics of running ``text`` as the file ``path``."""
    inputs = driver.Inputs([path], externals=dict(externals or {}), sources={path: text})
    return driver.run(inputs, driver.RunSettings(), EmitOptions()).diagnostics


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
) -> list[Diagnostic]:
    """The errors of validating ``data`` (the program runs through the driver as the
    file ``code_path``, with the ``-E`` packages ``externals``). The data goes into the
    program one entry per line, so an error in it is moved to the data file's line and
    column (:mod:`kclpy.tools.vet_positions`)."""
    from kclpy.tools.vet_positions import PositionedLiteral

    prepared = _prepare(code, data, data_format, schema, attribute_name, code_path)
    if isinstance(prepared, Diagnostic):
        return [prepared]
    name, value = prepared
    head = f"{code.rstrip()}\n\n{attribute_name} = {name} "
    literal = PositionedLiteral.build(data, value, data_path, to_kcl)
    errors = [d for d in _run(head + literal.text + "\n", code_path, externals) if d.is_error]
    first_line = head.count("\n") + 1
    return [literal.relocate(error, code_path, first_line) for error in errors]
