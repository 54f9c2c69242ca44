"""Printing the schema model of ``kcl import`` as KCL source.

``print_schemas(schemas, header)`` takes ``model.Schema`` values and returns one
formatted KCL file: a module docstring (``header``), ``import regex as _regex`` when a check
needs it, then each schema with a docstring in the reference's convention
(summary, ``Attributes`` / ``----------`` / ``name : type, default is X,
required|optional`` + description, ``Examples``), its base schema, its
attributes (``name?: type = default``),
``[...str]: any`` for open schemas and a ``check:`` block. The text goes through
``kclpy.tools.format.format_code``, so it is what ``kcl fmt`` would print.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from kclpy.tools.format import format_code
from kclpy.tools.importer.model import REGEX, Attribute, Schema

INDENT = "    "
MATCH = "_regex_match"  # the reference importer's name for regex.match


def print_schemas(schemas: Iterable[Schema], header: str) -> str:
    """One formatted KCL file holding ``schemas``."""
    schemas = list(schemas)
    blocks = [_schema(schema) for schema in schemas]
    lines = [f'"""\n{_doc_text(header)}\n"""']
    checks = [check for block in blocks for check in block[1]]
    imports = dict.fromkeys(module for schema in schemas for module in schema.imports)
    if any(f"{REGEX}." in check for check in checks):
        lines.append(f"import regex as {REGEX}")
    if any(f"{MATCH}(" in check for check in checks):
        imports = {"regex": None, **imports}
    lines.extend(f"import {module}" for module in imports)
    if any(f"{MATCH}(" in check for check in checks):
        lines.append(f"{MATCH} = regex.match")
    lines.extend(text for text, _ in blocks)
    return format_code("\n\n".join(lines) + "\n")


def _schema(schema: Schema) -> tuple[str, list[str]]:
    """The text of one schema and its checks."""
    base = f"({schema.base})" if schema.base else ""
    lines = [f"schema {schema.name}{base}:", *_docstring(schema)]
    checks: list[str] = []
    for attribute in schema.attributes:
        lines.append(INDENT + _attribute(attribute))
        checks.extend(attribute.checks)
    if schema.open:
        lines.append(INDENT + "[...str]: any")
    if checks:
        lines.append("")
        lines.append(INDENT + "check:")
        lines.extend(INDENT * 2 + check for check in checks)
    return "\n".join(lines), checks


def _attribute(attribute: Attribute) -> str:
    mark = "" if attribute.required else "?"
    default = "" if attribute.default is None else f" = {attribute.default}"
    return f"{attribute.name}{mark}: {attribute.type}{default}"


def _docstring(schema: Schema) -> list[str]:
    body = [schema.doc or schema.name]
    if schema.attributes:
        body += ["", "Attributes", "----------"]
        for attribute in schema.attributes:
            default = "Undefined" if attribute.default is None else attribute.default
            need = "required" if attribute.required else "optional"
            head = f"{attribute.key} : {attribute.type}, default is {default}, {need}"
            body.append(attribute.doc_head or head)
            description = attribute.doc or attribute.key
            body.extend(INDENT + line for line in description.splitlines())
    if schema.example:
        body += ["", "Examples", "--------", f"demo = {schema.example}"]
    text = _doc_text("\n".join(body))
    lines = [INDENT + line if line.strip() else "" for line in text.splitlines()]
    return [INDENT + '"""', *lines, INDENT + '"""', ""]


def _doc_text(text: str) -> str:
    """``text`` made safe inside a triple-quoted KCL string."""
    text = text.replace("\\", "\\\\").replace("\t", "    ").replace("\r", "")
    text = text.replace('"""', '\\"\\"\\"')
    # `\${` needs a closing brace after it; `\u0024` is always valid
    last_brace = text.rfind("}")
    return re.sub(
        r"\$(?=\{)",
        lambda found: "\\$" if last_brace > found.end() else "\\u0024",
        text,
    )
