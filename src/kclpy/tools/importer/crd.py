"""``kcl import -m crd``: Kubernetes CustomResourceDefinitions to KCL schemas.

``crd_to_kcl(documents, source, split)`` takes the documents of a YAML stream
(``apiextensions.k8s.io/v1`` CRDs, ``v1beta1`` ones and ``List`` items too) and
returns ``{version: {file stem: schemas}}`` (stems as the reference names
files: ``<group with _>_<version>_<kind in snake_case>``): for each served version of each CRD, a
schema named by its kind whose ``apiVersion`` and ``kind`` are fixed to the CRD's,
with nested objects as schemas named ``<Kind><Property>...``. Enums, defaults,
required keys, patterns, bounds, ``x-kubernetes-int-or-string`` and
``x-kubernetes-preserve-unknown-fields`` are kept; CEL rules
(``x-kubernetes-validations``) are not. With ``split`` false every version shares
one namespace (one file), else each version is its own package.
"""

from __future__ import annotations

from typing import Any

from kclpy.source import SourceFile
from kclpy.tools.importer.failures import failure_at
from kclpy.tools.importer.literals import file_stem, schema_name
from kclpy.tools.importer.model import Schema, SchemaBuilder, fix_type_meta


def crd_to_kcl(
    documents: list[Any], source: SourceFile, split: bool = True
) -> dict[str, dict[str, list[Schema]]]:
    """The KCL schemas of the CRDs in ``documents``, by version then by kind."""
    crds = [crd for document in documents for crd in _crds(document)]
    if not crds:
        raise failure_at(source, "no CustomResourceDefinition in the input")
    builders: dict[str, SchemaBuilder] = {}
    stems: dict[tuple[str, str], str] = {}
    for index, crd in enumerate(crds):
        spec = crd.get("spec")
        if not isinstance(spec, dict):
            raise failure_at(source, "a CustomResourceDefinition without a spec", ["spec"])
        kind = str(_get(spec, "names", "kind") or "")
        if not kind:
            raise failure_at(source, "a CustomResourceDefinition without spec.names.kind")
        for version, schema in _versions(spec):
            key = version if split else ""
            builder = builders.setdefault(
                key, SchemaBuilder(source, {}, lambda ref: "Ref", closed=True)
            )
            builder.root = schema
            path: list[str | int] = ["spec", "versions", index, "schema", "openAPIV3Schema"]
            name = builder.build(schema, schema_name(kind), path)
            group = str(spec.get("group") or "")
            fix_type_meta(builder.schemas[name], f"{group}/{version}" if group else version, kind)
            stems[key, name] = file_stem(f"{group}_{version}_{name}")
    return {
        key: {stems[key, name]: schemas for name, schemas in builder.groups().items()}
        for key, builder in builders.items()
    }


def _crds(document: Any) -> list[dict[str, Any]]:
    if not isinstance(document, dict):
        return []
    if document.get("kind") == "CustomResourceDefinition":
        return [document]
    if document.get("kind") == "List" and isinstance(document.get("items"), list):
        return [crd for item in document["items"] for crd in _crds(item)]
    return []


def _get(node: Any, *keys: str) -> Any:
    """``node[key][key]...``, or None where a step is missing or not a mapping."""
    for key in keys:
        node = node.get(key) if isinstance(node, dict) else None
    return node


def _versions(spec: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    """(version, openAPIV3Schema) of every served version (v1 and v1beta1 layouts)."""
    found: list[tuple[str, dict[str, Any]]] = []
    shared = _get(spec, "validation", "openAPIV3Schema")
    versions = spec.get("versions")
    for version in versions if isinstance(versions, list) else []:
        if not isinstance(version, dict) or version.get("served") is False:
            continue
        schema = _get(version, "schema", "openAPIV3Schema") or shared
        if isinstance(schema, dict):
            found.append((str(version.get("name")), schema))
    if not found and isinstance(shared, dict) and spec.get("version"):
        found.append((str(spec["version"]), shared))
    if not found:
        found.append((str(spec.get("version") or "v1"), {"type": "object"}))
    return found
