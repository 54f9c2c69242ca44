"""``kcl import -m openapi``: the models of an OpenAPI document to KCL schemas.

``openapi_to_kcl(document, source, validate)`` reads Swagger 2.0 ``definitions``
or OpenAPI 3.x ``components.schemas`` and returns ``{name: schemas}`` grouped by
definition. A definition is named by the last dotted part of its key
(``io.k8s.api.core.v1.Pod`` -> ``Pod``, later clashes get a number); definitions
that are not objects (``Quantity``, ``IntOrString``) are inlined as types where
they are used. ``validate`` checks the document's version and layout first.
"""

from __future__ import annotations

from typing import Any

from kclpy.source import SourceFile
from kclpy.tools.importer.inputs import failure_at
from kclpy.tools.importer.literals import schema_name
from kclpy.tools.importer.model import Schema, SchemaBuilder


def openapi_to_kcl(
    document: Any, source: SourceFile, validate: bool = True
) -> dict[str, list[Schema]]:
    """The KCL schemas of an OpenAPI (v2 or v3) document, by definition."""
    if not isinstance(document, dict):
        raise failure_at(source, "an OpenAPI document must be a mapping")
    place = _definitions_place(document, source, validate)
    definitions: Any = document
    for key in place:
        definitions = definitions.get(key) if isinstance(definitions, dict) else None
    if not isinstance(definitions, dict) or not definitions:
        raise failure_at(source, f"no models: '{'.'.join(place)}' is missing or empty", place)
    builder = SchemaBuilder(source, document, _ref_name)
    prefix = "#/" + "/".join(place) + "/"
    refs = [prefix + str(name).replace("~", "~0").replace("/", "~1") for name in definitions]
    for ref in refs:
        builder.reserve(ref)
    for ref in refs:
        builder.type_of({"$ref": ref}, [], "")
    return builder.groups()


def _definitions_place(document: dict[str, Any], source: SourceFile, validate: bool) -> list[str]:
    version = str(document.get("openapi") or document.get("swagger") or "")
    if version.startswith("3"):
        return ["components", "schemas"]
    if validate and version != "2.0":
        raise failure_at(
            source,
            f"not an OpenAPI document: 'swagger: \"2.0\"' or 'openapi: 3.x' expected, "
            f"found {version or 'neither'}",
            ["openapi" if "openapi" in document else "swagger"],
            "use -s/--skip-validation to read its 'definitions' anyway",
        )
    return ["definitions"]


def _ref_name(ref: str) -> str:
    key = ref.rsplit("/", 1)[-1].replace("~1", "/").replace("~0", "~")
    return schema_name(key.rsplit(".", 1)[-1])
