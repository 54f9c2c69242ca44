"""``kcl import -m crd``: Kubernetes CustomResourceDefinitions to KCL schemas.

``crd_to_kcl(documents, source, split)`` takes the documents of a YAML stream
(``apiextensions.k8s.io/v1`` CRDs, ``v1beta1`` ones and ``List`` items too) and
returns ``{version: {file stem: schemas}}``, as the reference importer
(kcl-openapi) makes them: for each version of each CRD with a schema, the model
``<group>.<version>.<Kind>`` (file ``<group>_<version>_<kind>``, in snake_case by
``gonames.file_name``) holds the schema named by the kind, whose ``apiVersion``
and ``kind`` are fixed to the CRD's and whose ``metadata`` is the Kubernetes
``v1.ObjectMeta`` (``import k8s.apimachinery.pkg.apis.meta.v1``), then the
schemas of its nested objects (``swagger.SwaggerModel``). With ``split`` false
every version shares one namespace (one file), else each version is its own
package.
"""

from __future__ import annotations

from typing import Any

from kclpy.source import SourceFile
from kclpy.tools.importer.failures import failure_at
from kclpy.tools.importer.gonames import file_name
from kclpy.tools.importer.literals import string_literal
from kclpy.tools.importer.model import Attribute, Schema
from kclpy.tools.importer.reference_text import RESERVED
from kclpy.tools.importer.swagger import SwaggerModel

META_MODULE = "k8s.apimachinery.pkg.apis.meta.v1"
# what Kubernetes' TypeMeta says of the two fields (the reference describes them so)
_API_VERSION_DOC = (
    "APIVersion defines the versioned schema of this representation of an object. Servers "
    "should convert recognized schemas to the latest internal value, and may reject "
    "unrecognized values. More info: "
    "https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#resources"
)
_KIND_DOC = (
    "Kind is a string value representing the REST resource this object represents. Servers "
    "may infer this from the endpoint the client submits requests to. Cannot be updated. In "
    "CamelCase. More info: "
    "https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds"
)


def crd_to_kcl(
    documents: list[Any], source: SourceFile, split: bool = True
) -> dict[str, dict[str, list[Schema]]]:
    """The KCL schemas of the CRDs in ``documents``, by version then by file."""
    crds = [crd for document in documents for crd in _crds(document)]
    if not crds:
        raise failure_at(source, "no CustomResourceDefinition in the input")
    found: dict[str, dict[str, list[Schema]]] = {}
    builder = SwaggerModel(source)
    for index, crd in enumerate(crds):
        spec = crd.get("spec")
        if not isinstance(spec, dict):
            raise failure_at(source, "a CustomResourceDefinition without a spec", ["spec"])
        kind = str(_get(spec, "names", "kind") or "")
        if not kind:
            raise failure_at(source, "a CustomResourceDefinition without spec.names.kind")
        group = str(spec.get("group") or "")
        for version, schema in _versions(spec):
            definition = f"{group}.{version}.{kind}"
            api_version = f"{group}/{version}" if group else version
            path: list[str | int] = ["spec", "versions", index, "schema", "openAPIV3Schema"]
            schemas = builder.build(
                schema, definition, _model_name(kind), path, _fixed(api_version, kind)
            )
            schemas[0].imports = (META_MODULE,)
            found.setdefault(version if split else "", {})[file_name(definition)] = schemas
    return found


def _model_name(kind: str) -> str:
    """The schema name of a kind (``-`` and ``.`` cannot be in a name)."""
    name = kind.replace("-", "_").replace(".", "_")
    return "$" + name if name in RESERVED else name


def _fixed(api_version: str, kind: str) -> dict[str, Attribute]:
    """``apiVersion`` and ``kind`` fixed to the CRD's, ``metadata`` the ObjectMeta."""
    fixed = {
        key: Attribute(
            key,
            string_literal(value),
            True,
            string_literal(value),
            doc,
            doc_head=f"{key} : str, default is {string_literal(value)}, required",
        )
        for key, value, doc in (
            ("apiVersion", api_version, _API_VERSION_DOC),
            ("kind", kind, _KIND_DOC),
        )
    }
    fixed["metadata"] = Attribute(
        "metadata",
        "v1.ObjectMeta",
        False,
        None,
        "metadata",
        doc_head="metadata : v1.ObjectMeta, default is Undefined, optional",
    )
    return fixed


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
    """(version, openAPIV3Schema) of every version with a schema, served or not
    (v1 and v1beta1 layouts: a shared ``validation`` serves versions without one)."""
    found: list[tuple[str, dict[str, Any]]] = []
    shared = _get(spec, "validation", "openAPIV3Schema")
    versions = spec.get("versions")
    for version in versions if isinstance(versions, list) else []:
        if not isinstance(version, dict):
            continue
        schema = _get(version, "schema", "openAPIV3Schema") or shared
        if isinstance(schema, dict):
            found.append((str(version.get("name")), schema))
    if not found and isinstance(shared, dict) and spec.get("version"):
        found.append((str(spec["version"]), shared))
    if not found:
        found.append((str(spec.get("version") or "v1"), {"type": "object"}))
    return found
