"""JSON Schema documents read as kcl-go's JSON Schema library reads them.

``read_node(value, source, path)`` turns a parsed JSON value into a ``Node``: a
boolean schema (``kind`` ``"true"``/``"false"``) or an object schema whose known
keywords (draft 2019-09's, as the reference registers them) are parsed
(subschemas as ``Node``, ``properties`` as ``(key, Node)`` pairs in document
order, ``patternProperties`` sorted by pattern, ``items`` as ``Items``) and put in
the reference's evaluation order (``ordered``): ``allOf`` first, then ``$ref``, then
the keywords of order 1 in registration order, then ``properties``,
``additionalProperties`` and the rest. Unknown keywords are dropped.
``resolve(root, ref, source, path)`` follows a ``$ref`` inside the document
(``#/...``); one into another document gives None. A keyword of the wrong shape
raises ``ImportFailure`` at its key.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import unquote_plus

import attrs

from kclpy.source import SourceFile
from kclpy.tools.importer.failures import failure_at

Path = list[str | int]

# draft 2019-09's keywords in the reference's registration order
_REGISTERED = [
    "$schema",
    "$id",
    "description",
    "title",
    "$comment",
    "examples",
    "readOnly",
    "writeOnly",
    "$ref",
    "$recursiveRef",
    "$anchor",
    "$recursiveAnchor",
    "$defs",
    "definitions",
    "default",
    "type",
    "enum",
    "const",
    "multipleOf",
    "maximum",
    "exclusiveMaximum",
    "minimum",
    "exclusiveMinimum",
    "maxLength",
    "minLength",
    "pattern",
    "allOf",
    "anyOf",
    "oneOf",
    "not",
    "properties",
    "patternProperties",
    "additionalProperties",
    "required",
    "propertyNames",
    "maxProperties",
    "minProperties",
    "dependentSchemas",
    "dependentRequired",
    "unevaluatedProperties",
    "items",
    "additionalItems",
    "maxItems",
    "minItems",
    "uniqueItems",
    "contains",
    "maxContains",
    "minContains",
    "unevaluatedItems",
    "if",
    "then",
    "else",
    "format",
]
_INSERTED = {keyword: index for index, keyword in enumerate(_REGISTERED)}
_ORDER = {"$ref": 0, "$recursiveRef": 0, "allOf": -1, "properties": 2}
_ORDER |= {"additionalProperties": 3, "unevaluatedProperties": 4, "maxContains": 2}
_ORDER |= {"minContains": 2, "additionalItems": 3, "unevaluatedItems": 4, "then": 2, "else": 2}
_SUBSCHEMA = {
    "additionalProperties",
    "propertyNames",
    "not",
    "if",
    "then",
    "else",
    "contains",
    "additionalItems",
    "unevaluatedItems",
    "unevaluatedProperties",
}
_SCHEMA_LISTS = {"allOf", "anyOf", "oneOf"}
_SCHEMA_MAPS = {"$defs", "definitions", "dependentSchemas"}
_TEXTS = {"$schema", "$id", "description", "title", "$comment", "$anchor", "format"}
_COUNTS = {"maxLength", "minLength", "maxItems", "minItems", "maxProperties", "minProperties"}
_COUNTS |= {"maxContains", "minContains"}
_NUMBERS = {"multipleOf", "maximum", "exclusiveMaximum", "minimum", "exclusiveMinimum"}
_FLAGS = {"readOnly", "writeOnly", "uniqueItems"}
_TYPES = {"null", "boolean", "object", "array", "number", "string", "integer"}


def keyword_order(keyword: str) -> int:
    """The reference's evaluation rank of a keyword (1 unless set)."""
    return _ORDER.get(keyword, 1)


@attrs.define(eq=False)
class Items:
    """``items``: one schema for every item (``single``) or one per position."""

    single: bool
    schemas: list[Node]


@attrs.define(eq=False)
class Node:
    """One schema: its kind, its parsed keywords, their evaluation order and
    where it is in the document."""

    kind: str = "object"
    keywords: dict[str, Any] = attrs.field(factory=dict)
    ordered: list[str] = attrs.field(factory=list)
    path: Path = attrs.field(factory=list)


def read_node(value: Any, source: SourceFile, path: Path) -> Node:
    """The schema of a JSON value."""
    if isinstance(value, bool):
        return Node("true" if value else "false", path=path)
    if not isinstance(value, dict):
        raise failure_at(source, "a schema must be an object or a boolean", path)
    keywords = {
        key: _keyword(key, child, source, [*path, key])
        for key, child in value.items()
        if key in _INSERTED
    }
    ordered = sorted(keywords, key=lambda key: (keyword_order(key), _INSERTED[key]))
    return Node("object", keywords, ordered, path)


def _keyword(key: str, value: Any, source: SourceFile, path: Path) -> Any:
    if key in _SUBSCHEMA:
        return read_node(value, source, path)
    if key in _SCHEMA_LISTS:
        items = _typed(value, list, "a list of schemas", source, path)
        return [read_node(item, source, [*path, index]) for index, item in enumerate(items)]
    if key in _SCHEMA_MAPS or key == "patternProperties":
        mapping = _typed(value, dict, "a mapping of schemas", source, path)
        pairs = [(name, read_node(child, source, [*path, name])) for name, child in mapping.items()]
        return sorted(pairs) if key == "patternProperties" else dict(pairs)
    if key == "properties":
        mapping = _typed(value, dict, "a mapping of schemas", source, path)
        return [(name, read_node(child, source, [*path, name])) for name, child in mapping.items()]
    if key == "items":
        if isinstance(value, list):
            return Items(False, [read_node(v, source, [*path, i]) for i, v in enumerate(value)])
        return Items(True, [read_node(value, source, path)])
    return _scalar_keyword(key, value, source, path)


def _scalar_keyword(key: str, value: Any, source: SourceFile, path: Path) -> Any:
    if key in _TEXTS:
        return _typed(value, str, "a string", source, path)
    if key == "$ref":
        return unquote_plus(_typed(value, str, "a string", source, path))
    if key in _COUNTS:
        if isinstance(value, float) and value.is_integer():
            value = int(value)
        if not isinstance(value, int) or isinstance(value, bool):
            raise failure_at(source, f"'{key}' must be a whole number", path)
        return value
    if key in _NUMBERS:  # a draft-4 flag (exclusiveMinimum: true) is not a bound
        return float(value) if isinstance(value, int | float) and value is not True else None
    if key in _FLAGS:
        return _typed(value, bool, "true or false", source, path)
    if key == "required":
        names = _typed(value, list, "a list of names", source, path)
        if not all(isinstance(name, str) for name in names):
            raise failure_at(source, "'required' must be a list of names", path)
        return list(names)
    if key == "type":
        kinds = [value] if isinstance(value, str) else value
        if not isinstance(kinds, list) or not all(kind in _TYPES for kind in kinds):
            raise failure_at(source, f"'type' must name JSON types, got {value!r}", path)
        return list(kinds)
    if key == "enum":
        return list(_typed(value, list, "a list", source, path))
    return value


def _typed(value: Any, kind: type, what: str, source: SourceFile, path: Path) -> Any:
    if not isinstance(value, kind) or (kind is not bool and isinstance(value, bool)):
        raise failure_at(source, f"'{path[-1]}' must be {what}", path)
    return value


def resolve(root: Node, ref: str, source: SourceFile, path: Path) -> Node | None:
    """The schema a ``$ref`` at ``path`` points at; None for one in another document
    (not read: as the reference, its attribute is ``any``); an ImportFailure when it
    points at nothing in this one (the reference warns, and types it ``any``)."""
    address, _, fragment = ref.partition("#")
    if address.strip():
        return None
    parts = [part.replace("~1", "/").replace("~0", "~") for part in fragment.split("/")[1:]]
    if fragment and not fragment.startswith("/"):
        parts = [fragment]
    node: Node | None = root
    while parts and node is not None:
        node, parts = _step(node, parts)
    if node is None:
        raise failure_at(source, f"$ref {ref!r} points at nothing", path)
    return node


def _step(node: Node, parts: list[str]) -> tuple[Node | None, list[str]]:
    keyword = node.keywords.get(parts[0])
    rest = parts[1:]
    if isinstance(keyword, Node):
        return keyword, rest
    if not rest:
        return None, rest
    if isinstance(keyword, dict):
        return keyword.get(rest[0]), rest[1:]
    if isinstance(keyword, list) and parts[0] in ("properties", "patternProperties"):
        found = [child for name, child in keyword if name == rest[0]]
        return (found[0] if found else None), rest[1:]
    if isinstance(keyword, list | Items) and rest[0].isdigit():
        schemas = keyword.schemas if isinstance(keyword, Items) else keyword
        index = int(rest[0])
        return (schemas[index] if index < len(schemas) else None), rest[1:]
    return None, rest
