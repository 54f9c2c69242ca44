"""``kcl import -m openapi``: the models of an OpenAPI document to KCL schemas.

``openapi_to_kcl(document, source, validate)`` reads Swagger 2.0 ``definitions``
or OpenAPI 3.x ``components.schemas`` and returns ``{file: schemas}`` (the file
relative to the model package, without ``.k``), as the reference importer
(kcl-openapi) lays them out: each object definition is a file named in snake_case
(``CatalogItem`` -> ``catalog_item``) holding the schema named by the definition's
key (``-`` and ``.`` as ``_``, ``$`` before a keyword), then its nested objects'
schemas, by the rules of ``swagger.SwaggerModel``. A definition's ``x-kcl-type``
(``{type, import: {package, alias}}``) names its schema and places its file in a
sub-package (``main.pet`` -> ``main/pet``), which other files import. Without
one, a dotted key (``io.k8s.api.core.v1.Pod``) names the schema by its last part
(the reference's ``shortType``), with the parts before it while an earlier
definition has that name (``v2_Tag``: the reference would make two ``Tag``
schemas in one package). A ``$ref``
to another object definition is that schema's name; to a definition that is not an
object (``Quantity``), its type inlined. An ``allOf`` whose first part refers to an
object definition makes that its base schema; the properties of the other parts
are the schema's own (KCL has one base: the reference names them all). A tuple
(``items`` a list) is a schema of the required ``p0``, ``p1``... A Kubernetes
model of one kind gets its ``apiVersion`` and ``kind`` fixed.
``validate`` checks the document's version and layout first.
"""

from __future__ import annotations

from typing import Any

import attrs

from kclpy.source import SourceFile
from kclpy.tools.importer.failures import failure_at
from kclpy.tools.importer.gonames import file_name
from kclpy.tools.importer.model import Path, Schema, fix_type_meta
from kclpy.tools.importer.reference_text import RESERVED
from kclpy.tools.importer.swagger import SwaggerModel


@attrs.frozen
class Definition:
    """Where a definition's schema lives: its name, its package (dotted, ``""`` for
    the model package itself) and its file stem."""

    name: str
    package: str
    module: str

    @property
    def file(self) -> str:
        return "/".join([*filter(None, self.package.split(".")), self.module])


def openapi_to_kcl(
    document: Any, source: SourceFile, validate: bool = True, keep_order: bool = False
) -> dict[str, list[Schema]]:
    """The KCL schemas of an OpenAPI (v2 or v3) document, by file (properties sorted
    by name, as ``kcl import`` writes them, or in the document's order)."""
    if not isinstance(document, dict):
        raise failure_at(source, "an OpenAPI document must be a mapping")
    place = _definitions_place(document, source, validate)
    definitions: Any = document
    for key in place:
        definitions = definitions.get(key) if isinstance(definitions, dict) else None
    if not isinstance(definitions, dict) or not definitions:
        raise failure_at(source, f"no models: '{'.'.join(place)}' is missing or empty", place)
    return _Translation(source, place, definitions, keep_order).files()


class _Translation:
    """The definitions of one document made into files."""

    def __init__(
        self, source: SourceFile, place: list[str], definitions: dict[Any, Any], keep_order: bool
    ) -> None:
        self.source = source
        self.prefix = "#/" + "/".join(place) + "/"
        self.place: Path = list(place)
        self.definitions = {str(key): value for key, value in definitions.items()}
        self.placed: dict[str, Definition] = {}
        taken: set[tuple[str, str]] = set()
        for key, value in self.definitions.items():
            if _is_object_model(value):
                self.placed[key] = _placed(key, value, taken)
                taken.add((self.placed[key].package, self.placed[key].name))
        self.model = SwaggerModel(source, self._ref_type, keep_order)
        self.current = Definition("", "", "")
        self.imports: dict[str, None] = {}
        self.inlining: set[str] = set()

    def files(self) -> dict[str, list[Schema]]:
        found: dict[str, list[Schema]] = {}
        for key, where in self.placed.items():
            self.current, self.imports = where, {}
            node, base = self._with_base(_tuple_object(self.definitions[key]), [*self.place, key])
            schemas = self.model.build(node, key, where.name, [*self.place, key])
            schemas[0].base = base
            schemas[0].imports = tuple(self.imports)
            _fix_kind(schemas[0], node)
            if where.file in found:  # two keys of one file: the reference overwrites
                raise failure_at(
                    self.source, f"two definitions make the file {where.file}.k", self.place
                )
            found[where.file] = schemas
        return found

    def _ref_type(self, ref: str, path: Path) -> str:
        """The type of ``$ref`` as the current file names it."""
        key = _unescape(ref[len(self.prefix) :]) if ref.startswith(self.prefix) else None
        if key is None or key not in self.definitions:
            raise failure_at(
                self.source,
                f"cannot resolve $ref {ref!r}: only definitions of this document "
                f"({self.prefix}...) are supported",
                path,
            )
        where = self.placed.get(key)
        if where is None:  # not an object: its type, inlined
            if key in self.inlining:
                return "any"
            self.inlining.add(key)
            try:
                return self.model._type(self.definitions[key], key, key, path, "property")
            finally:
                self.inlining.discard(key)
        if where.package == self.current.package:
            return where.name
        alias = where.package.rsplit(".", 1)[-1]
        self.imports[where.package] = None
        return f"{alias}.{where.name}"

    def _with_base(self, node: Any, path: Path) -> tuple[Any, str]:
        """A definition with ``allOf``: its own properties (those of the parts after
        the base merged in) and the type of its base."""
        parts = node.get("allOf") if isinstance(node, dict) else None
        if not isinstance(parts, list) or not parts:
            return node, ""
        merged = {k: v for k, v in node.items() if k != "allOf"}
        properties = dict(merged.get("properties") or {})
        required = list(merged.get("required") or [])
        base = ""
        for index, part in enumerate(parts):
            if isinstance(part, dict) and isinstance(part.get("$ref"), str):
                if not base and self._refers_to_object(part["$ref"]):
                    base = self._ref_type(part["$ref"], [*path, "allOf", index])
                    continue
                part = self.definitions.get(_unescape(part["$ref"][len(self.prefix) :]))
            if isinstance(part, dict):
                properties.update(part.get("properties") or {})
                required += [key for key in part.get("required") or [] if key not in required]
        merged["properties"], merged["required"] = properties, required
        return merged, base

    def _refers_to_object(self, ref: str) -> bool:
        return ref.startswith(self.prefix) and _unescape(ref[len(self.prefix) :]) in self.placed


def _tuple_object(node: Any) -> Any:
    """A tuple (an array whose ``items`` is a list) as the object the reference
    makes of it: the required properties ``p0``, ``p1``..."""
    if not isinstance(node, dict) or not isinstance(node.get("items"), list):
        return node
    items = node["items"]
    properties = {f"p{index}": item for index, item in enumerate(items)}
    rest = {k: v for k, v in node.items() if k not in ("type", "items")}
    return {**rest, "type": "object", "properties": properties, "required": list(properties)}


def _is_object_model(node: Any) -> bool:
    """A definition that becomes a schema: an object (or no type) that is not only a
    map of values, or a tuple."""
    if not isinstance(node, dict):
        return False
    if node.get("type") == "array" and isinstance(node.get("items"), list):
        return True
    kind = node.get("type", "object")
    if kind != "object" or node.get("x-kubernetes-int-or-string") is True:
        return False
    return bool(node.get("properties") or node.get("allOf")) or not isinstance(
        node.get("additionalProperties"), dict | bool
    )


def _placed(key: str, node: dict[str, Any], taken: set[tuple[str, str]]) -> Definition:
    """Where the definition ``key`` goes: by its ``x-kcl-type``, else a file named
    by the whole key holding the schema named by its last dotted part (with the parts
    before it while an earlier definition of the package has that name)."""
    extension = node.get("x-kcl-type")
    if isinstance(extension, dict) and isinstance(extension.get("type"), str):
        name = _schema_name(extension["type"])
        imported = extension.get("import")
        if isinstance(imported, dict) and isinstance(imported.get("package"), str):
            package = imported["package"]
            alias = imported.get("alias")
            module = alias if isinstance(alias, str) and alias else package.rsplit(".", 1)[-1]
            return Definition(name, package.rpartition(".")[0], module)
        return Definition(name, "", file_name(key))
    parts = key.split(".")
    for count in range(1, len(parts) + 1):
        name = _schema_name("_".join(parts[-count:]))
        if ("", name) not in taken:
            break
    return Definition(name, "", file_name(key))


def _schema_name(key: str) -> str:
    """A definition's name as its schema's name (``My-Config`` -> ``My_Config``)."""
    name = key.replace("-", "_").replace(".", "_")
    return "$" + name if name in RESERVED else name


def _unescape(pointer: str) -> str:
    return pointer.replace("~1", "/").replace("~0", "~")


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
