"""``kcl doc``: documentation of a package's schemas, from their docstrings.

``generate_doc(path, format)`` checks the program at ``path`` (a ``.k`` file or a
package folder) and describes every schema of its main package, inherited
attributes included:

* ``md``: the reference's Markdown (``# Schemas`` / ``## Package`` / ``### Name``,
  the docstring summary, then a table of attributes sorted by name with type,
  required, default and description);
* ``json-schema``: one JSON Schema (draft 2020-12) document whose ``$defs`` hold the
  schemas (types mapped to JSON types, ``$ref`` for schema-typed attributes, enums
  for literal unions, defaults when they are plain literals).
"""

from __future__ import annotations

import json
import os
from typing import Any

from kclpy.diag import Diagnostic
from kclpy.loader import find_root, package_files
from kclpy.pipeline import driver
from kclpy.sema import SchemaInfo
from kclpy.sema.docstrings import description
from kclpy.sema.symbols import SchemaType
from kclpy.sema.types import DictType, ListType, LitType, Type, UnionType
from kclpy.syntax import ast
from kclpy.tools.schema_types import describe_schema

FORMATS = ("md", "json-schema")


class DocError(Exception):
    """The program has errors (``diagnostics``) or the path is not a KCL package."""

    def __init__(self, message: str, diagnostics: list[Diagnostic] | None = None) -> None:
        super().__init__(message)
        self.diagnostics = diagnostics or []


def generate_doc(path: str = ".", format: str = "md") -> str:
    """The documentation text of the schemas at ``path`` in ``format`` (md, json-schema)."""
    if format not in FORMATS:
        raise DocError(f"unknown format '{format}', expected one of {', '.join(FORMATS)}")
    files = [path] if os.path.isfile(path) else package_files(path)
    if not files:
        raise DocError(f"no KCL files in {path}")
    files = [os.path.abspath(file) for file in files]
    folder = os.path.dirname(files[0])
    root = find_root(folder)  # the kcl.mod folder, without loading the program twice
    # in a module (kcl.mod), every package of it is documented, as kcl-lib does: a
    # generated main file imports them all so that one check covers everything
    others = _module_packages(root, folder) if root is not None else []
    sources: dict[str, str] = {}
    if others:
        imports = os.path.join(folder, "__kclpy_doc_imports__.k")
        sources[imports] = "".join(f"import {p} as _doc{i}\n" for i, p in enumerate(others))
        files = [*files, imports]
    program = driver.load(driver.Inputs(files, folder, sources=sources))
    model = driver.check(program)
    errors = [d for d in [*program.diagnostics, *model.diagnostics] if d.is_error]
    if errors:
        raise DocError("the program has errors", errors)
    packages: dict[str, list[SchemaInfo]] = {"__main__": []}
    packages.update((pkgpath, []) for pkgpath in others)
    for info in model.schemas.values():
        pkgpath = info.pkgpath or "__main__"
        if not info.is_rule and pkgpath in packages:
            packages[pkgpath].append(info)
    for infos in packages.values():
        infos.sort(key=lambda info: info.name)
    if format == "md":
        return _markdown(model, packages)
    schemas = [info for infos in packages.values() for info in infos]
    return json.dumps(_json_schema(model, schemas), indent=2, ensure_ascii=False) + "\n"


def _module_packages(root: str, main_folder: str) -> list[str]:
    """The dotted paths of the module's package folders other than the main one."""
    found = []
    for folder, dirs, names in os.walk(root):
        dirs[:] = sorted(d for d in dirs if not d.startswith((".", "_")) and d != "vendor")
        if os.path.abspath(folder) in (os.path.abspath(main_folder), os.path.abspath(root)):
            continue
        if any(name.endswith(".k") and not name.endswith("_test.k") for name in names):
            found.append(os.path.relpath(folder, root).replace(os.sep, "."))
    return sorted(found)


def _markdown(model: Any, packages: dict[str, list[SchemaInfo]]) -> str:
    lines = ["# Schemas", ""]
    for pkgpath, schemas in packages.items():
        lines += [f"## Package {pkgpath}", ""]
        for info in schemas:
            lines += _markdown_schema(model, info)
    return "\n".join(lines)


def _markdown_schema(model: Any, info: SchemaInfo) -> list[str]:
    described = describe_schema(model, info)
    lines = [f"### {info.name}", ""]
    text = description(info.doc)
    if text:
        lines += [text, ""]
    lines += [
        "| Name | Type | Required | Default | Description |",
        "| --- | --- | --- | --- | --- |",
    ]
    members = model.members(info)
    written = {name: _written_name(members[name], name) for name in described.attributes}
    for name in sorted(described.attributes, key=lambda name: written[name]):
        attr = described.attributes[name]
        cells = [
            written[name],
            attr.type,
            "no" if attr.optional else "yes",
            attr.default,
            " ".join(attr.description.split("\n")),
        ]
        lines.append("| " + " | ".join(cell.replace("|", "\\|") for cell in cells) + " |")
    lines.append("")
    return lines


def _written_name(symbol: Any, name: str) -> str:
    """An attribute's name as the source spells it (``$type`` for a keyword)."""
    node = symbol.node
    if isinstance(node, ast.SchemaAttr):
        return node.name_span.file.text[node.name_span.start : node.name_span.end]
    return name


def _json_schema(model: Any, schemas: list[SchemaInfo]) -> dict[str, Any]:
    definitions: dict[str, Any] = {}
    for info in schemas:
        described = describe_schema(model, info)
        members = model.members(info)
        properties: dict[str, Any] = {}
        for name, attr in described.attributes.items():
            prop = _json_type(members[name].type)
            if attr.description:
                prop["description"] = " ".join(attr.description.split())
            default = _literal(attr.default)
            if default is not _NO_DEFAULT:
                prop["default"] = default
            properties[name] = prop
        definition: dict[str, Any] = {"type": "object", "properties": properties}
        if described.doc:
            definition["description"] = described.doc
        required = [name for name in described.required if not described.attributes[name].default]
        if required:
            definition["required"] = required
        definitions[info.name] = definition
    return {"$schema": "https://json-schema.org/draft/2020-12/schema", "$defs": definitions}


_NO_DEFAULT = object()


def _literal(text: str) -> Any:
    """A default's source text as JSON when it is a plain literal."""
    if not text:
        return _NO_DEFAULT
    constants = {"True": True, "False": False, "None": None}
    if text in constants:
        return constants[text]
    try:
        return json.loads(text)
    except ValueError:
        return _NO_DEFAULT


def _json_type(kind: Type) -> dict[str, Any]:
    if isinstance(kind, SchemaType):
        return {"$ref": f"#/$defs/{kind.info.name}"}
    if isinstance(kind, ListType):
        return {"type": "array", "items": _json_type(kind.elem)}
    if isinstance(kind, DictType):
        return {"type": "object", "additionalProperties": _json_type(kind.val)}
    if isinstance(kind, LitType):
        return {"const": kind.value}
    if isinstance(kind, UnionType):
        if all(isinstance(member, LitType) for member in kind.types):
            return {"enum": [member.value for member in kind.types]}  # type: ignore[attr-defined]
        return {"anyOf": [_json_type(member) for member in kind.types]}
    name = kind.ty_str()
    simple = {"int": "integer", "float": "number", "str": "string", "bool": "boolean"}
    if name in simple:
        return {"type": simple[name]}
    return {}
