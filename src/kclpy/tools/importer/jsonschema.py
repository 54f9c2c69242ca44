"""``kcl import -m jsonschema``: a JSON Schema document to KCL schemas.

``jsonschema_to_kcl(document, source, stem)`` returns ``{name: schemas}`` grouped
by top-level schema: the root (named by its ``title``, else the file's stem) when
it describes an object, then every entry of ``$defs`` / ``definitions`` (named by
its key). Drafts 4 to 2020-12 are read alike (``exclusiveMinimum`` as a flag or a
bound). Unknown keys are rejected unless ``additionalProperties`` allows them.
"""

from __future__ import annotations

from typing import Any

from kclpy.source import SourceFile
from kclpy.tools.importer.failures import failure_at
from kclpy.tools.importer.literals import schema_name
from kclpy.tools.importer.model import Schema, SchemaBuilder

DEFINITION_KEYS = ("$defs", "definitions")


def jsonschema_to_kcl(document: Any, source: SourceFile, stem: str) -> dict[str, list[Schema]]:
    """The KCL schemas of a JSON Schema document, by top-level schema."""
    if not isinstance(document, dict):
        raise failure_at(source, "a JSON Schema must be an object")
    builder = SchemaBuilder(source, document, lambda ref: schema_name(ref.rsplit("/", 1)[-1]))
    refs = [
        f"#/{key}/{name.replace('~', '~0').replace('/', '~1')}"
        for key in DEFINITION_KEYS
        if isinstance(document.get(key), dict)
        for name in document[key]
    ]
    for ref in refs:
        builder.reserve(ref)
    root_name = ""
    if document.get("properties") or document.get("allOf"):
        root_name = builder.build(document, schema_name(str(document.get("title") or stem)), [])
    for ref in refs:
        builder.type_of({"$ref": ref}, [], "")
    groups = builder.groups()
    if not groups:
        raise failure_at(source, "the JSON Schema describes no object with properties")
    if root_name:  # the root first
        groups = {root_name: groups.pop(root_name), **groups}
    return groups
