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
from kclpy.tools.importer.failures import failure_at
from kclpy.tools.importer.literals import schema_name
from kclpy.tools.importer.model import Schema, SchemaBuilder, fix_type_meta


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
    prefix = "#/" + "/".join(place) + "/"
    refs = [prefix + str(name).replace("~", "~0").replace("/", "~1") for name in definitions]
    names = _names([str(name) for name in definitions])
    builder = SchemaBuilder(source, document, lambda ref: names.get(ref[len(prefix) :], "Model"))
    for ref in refs:
        builder.reserve(ref)
    for ref, definition in zip(refs, definitions.values(), strict=True):
        name = builder.type_of({"$ref": ref}, [], "")
        if name in builder.schemas:
            _fix_kind(builder.schemas[name], definition)
    return builder.groups()


def _fix_kind(schema: Schema, definition: Any) -> None:
    """A Kubernetes model of one kind (``x-kubernetes-group-version-kind``) gets its
    ``apiVersion`` and ``kind`` fixed, as CRDs do."""
    kinds = definition.get("x-kubernetes-group-version-kind")
    if isinstance(kinds, list) and len(kinds) == 1 and isinstance(kinds[0], dict):
        group, version = kinds[0].get("group"), kinds[0].get("version")
        api_version = f"{group}/{version}" if group else str(version)
        fix_type_meta(schema, api_version, str(kinds[0].get("kind")))


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


def _names(keys: list[str]) -> dict[str, str]:
    """A schema name per definition key: the last dotted part (``io.k8s.api.core.v1.Pod``
    -> ``Pod``), with more parts when that is taken (``io.k8s.api.core.v2.Pod`` ->
    ``V2Pod``)."""
    names: dict[str, str] = {}
    taken: set[str] = set()
    for key in keys:
        parts = key.split(".")
        for count in range(1, len(parts) + 1):
            name = schema_name("_".join(parts[-count:]))
            if name not in taken:
                break
        escaped = key.replace("~", "~0").replace("/", "~1")
        names[escaped] = name
        taken.add(name)
    return names
