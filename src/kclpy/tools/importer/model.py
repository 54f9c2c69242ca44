"""The schema model of ``kcl import`` and its translation from JSON Schema.

JSON Schema, OpenAPI (v2 ``definitions``, v3 ``components.schemas``) and CRDs
(``openAPIV3Schema``) are the same dialect; ``SchemaBuilder`` reads a node of it
and records ``Schema`` values (name, doc, ``Attribute`` list, open or closed) in
the order they are made. Types are KCL type expressions (``str``, ``[Item]``,
``{str:int}``, ``"a" | "b"``, schema names). Constraints become ``check:``
expressions (``minLength``, ``pattern``, ``minimum``, ``multipleOf``, ``minItems``,
``uniqueItems``, ``minProperties``..., and those of list items and map values),
guarded for optional attributes. ``$ref`` pointers inside the document resolve to
the schema of their target (made once) or, for non-object targets, their type.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeGuard

import attrs

from kclpy.source import SourceFile
from kclpy.tools.importer.failures import ImportFailure, failure_at
from kclpy.tools.importer.literals import (
    NotRepresentable,
    attribute_name,
    is_identifier,
    literal,
    number_literal,
    schema_name,
    string_literal,
)

Path = list[str | int]
_SCALARS = {"string": "str", "integer": "int", "number": "float", "boolean": "bool"}
_UNSET = "not in [None, Undefined]"
# the name `regex` is imported as: JSON keys never start with `_`, but `regex` is
# a common attribute (Prometheus' relabel configs) and would hide the module
REGEX = "_regex"


@attrs.define
class Attribute:
    """One attribute: its key in the data, KCL type, whether required, default
    (a KCL expression), description and check expressions (already guarded);
    ``doc_head`` is the docstring line naming it when the printer should not
    make one (the reference importer's rules make their own)."""

    key: str
    type: str
    required: bool
    default: str | None = None
    doc: str = ""
    checks: list[str] = attrs.field(factory=list)
    doc_head: str = ""

    @property
    def name(self) -> str:
        return attribute_name(self.key)


@attrs.define
class Schema:
    """One KCL schema; ``open`` adds ``[...str]: any`` (unknown keys allowed);
    ``imports`` are the modules its types need (``k8s.apimachinery.pkg.apis.meta.v1``);
    ``base`` the schema it inherits from; ``example`` a value for the docstring's
    ``Examples`` section (a KCL expression)."""

    name: str
    doc: str
    attributes: list[Attribute] = attrs.field(factory=list)
    open: bool = False
    imports: tuple[str, ...] = ()
    base: str = ""
    example: str = ""


class SchemaBuilder:
    """Translates JSON Schema nodes of one document into ``schemas``.

    ``root`` is the whole document (for ``$ref``); ``ref_name`` names the schema of
    a ``$ref`` target (``#/definitions/io.k8s.api.core.v1.Pod`` -> ``Pod``).
    """

    def __init__(
        self,
        source: SourceFile,
        root: Any,
        ref_name: Callable[[str], str],
        closed: bool = True,
    ) -> None:
        self.source = source
        self.root = root
        self.ref_name = ref_name
        self.closed = closed  # no additionalProperties: unknown keys rejected
        self.schemas: dict[str, Schema] = {}
        self._by_ref: dict[str, str] = {}
        self._built: set[str] = set()
        self.owner: dict[str, str] = {}  # schema -> the top-level schema it belongs to
        self._owners: list[str] = []
        self._resolving: set[str] = set()

    def fresh_name(self, wanted: str) -> str:
        """``wanted``, or ``wanted2``, ``wanted3``... when a schema has it (and never
        ending in ``Mixin`` or ``Protocol``: KCL would read a mixin or a protocol)."""
        if wanted.endswith(("Mixin", "Protocol")):
            wanted += "Schema"
        name, number = wanted, 1
        while name in self.schemas:
            number += 1
            name = f"{wanted}{number}"
        return name

    def reserve(self, ref: str) -> None:
        """Name the schema of an object ``$ref`` target now, so that names made
        for nested objects later cannot take it."""
        if ref not in self._by_ref and _is_object(self._target(ref, [])):
            self._by_ref[ref] = self.fresh_name(self.ref_name(ref))
            self.schemas[self._by_ref[ref]] = Schema(self._by_ref[ref], "")

    def build(self, node: Any, name: str, path: Path, *, exact: bool = False) -> str:
        """Make the schema ``name`` (made unique unless ``exact``) from an object
        node; returns its name."""
        name = name if exact else self.fresh_name(name)
        node = self._merged(node, path)
        schema = Schema(name, _description(node))
        self.schemas[name] = schema  # before the attributes: a nested one may refer to it
        self.owner[name] = self._owners[-1] if self._owners and not exact else name
        self._owners.append(self.owner[name])
        try:
            self._fill(schema, node, path)
        finally:
            self._owners.pop()
        return name

    def _fill(self, schema: Schema, node: dict[str, Any], path: Path) -> None:
        name = schema.name
        required = set(self._keys(node, "required", path))
        for key, child in self._properties(node, path).items():
            child_path = [*path, "properties", key]
            target = self._dereferenced(child)
            doc = _description(child) or _description(target)
            attribute = Attribute(str(key), "", str(key) in required, doc=doc)
            attribute.type = self.type_of(child, child_path, name + schema_name(str(key)))
            attribute.default = _fitting(self._default(child, child_path), attribute.type)
            attribute.checks = self._checks(target, attribute)
            schema.attributes.append(attribute)
        additional = node.get("additionalProperties", None if self.closed else True)
        schema.open = bool(additional) or bool(node.get("x-kubernetes-preserve-unknown-fields"))

    def groups(self) -> dict[str, list[Schema]]:
        """The schemas by the top-level schema they were made for, in order."""
        grouped: dict[str, list[Schema]] = {}
        for name, schema in self.schemas.items():
            grouped.setdefault(self.owner.get(name, name), []).append(schema)
        return grouped

    def type_of(self, node: Any, path: Path, context: str) -> str:
        """The KCL type of a node; object nodes with properties become schemas
        named ``context``."""
        if not isinstance(node, dict):
            return "any"
        if "$ref" in node:
            return self._ref_type(node["$ref"], path)
        if "const" in node and _is_scalar(node["const"]):
            return literal(node["const"])
        enum = node.get("enum")
        if (
            isinstance(enum, list)
            and all(map(_is_scalar, enum))
            and any(v is not None for v in enum)
        ):
            return " | ".join(dict.fromkeys(literal(v) for v in enum if v is not None))
        if node.get("x-kubernetes-int-or-string") or node.get("format") == "int-or-string":
            return "int | str"
        for keyword in ("allOf", "oneOf", "anyOf"):
            if isinstance(node.get(keyword), list) and not _has_own_type(node):
                return self._combined_type(node, keyword, path, context)
        kinds = node.get("type")
        if isinstance(kinds, list):  # ["string", "null"]: None is every attribute's value
            kinds = [kind for kind in kinds if kind != "null"]
            types = [self.type_of({**node, "type": kind}, path, context) for kind in kinds]
            return _union(types)
        if kinds in _SCALARS:
            return _SCALARS[kinds]
        if kinds == "array":
            return self._list_type(node, path, context)
        if kinds == "object" or "properties" in node:
            return self._object_type(node, path, context)
        return "any"

    def _ref_type(self, ref: Any, path: Path) -> str:
        target = self._target(ref, path)
        ref = str(ref)
        if ref in self._built:
            return self._by_ref[ref]
        if not _is_object(target):
            if ref in self._resolving:  # a type that contains itself without an object
                return "any"
            self._resolving.add(ref)
            try:
                return self.type_of(target, _pointer_path(ref), self.ref_name(ref))
            finally:
                self._resolving.discard(ref)
        self.reserve(ref)
        self._built.add(ref)
        return self.build(target, self._by_ref[ref], _pointer_path(ref), exact=True)

    def _target(self, ref: Any, path: Path) -> Any:
        if not isinstance(ref, str) or not ref.startswith("#"):
            raise failure_at(
                self.source,
                f"cannot resolve $ref {ref!r}: only references inside the document "
                f"(#/...) are supported",
                [*path, "$ref"],
            )
        node = self.root
        for part in _pointer_path(ref):
            key: str | int = part
            if isinstance(node, list) and str(part).isdigit():
                key = int(part)
            try:
                node = node[key]
            except (KeyError, IndexError, TypeError):
                raise failure_at(
                    self.source, f"$ref {ref!r} points at nothing", [*path, "$ref"]
                ) from None
        return node

    def _merged(self, node: dict[str, Any], path: Path) -> dict[str, Any]:
        """The node with the properties and required keys of its ``allOf`` parts."""
        parts = node.get("allOf")
        if not isinstance(parts, list):
            return node
        if len(path) > 200:  # allOf parts that include themselves
            raise failure_at(self.source, "'allOf' refers back to itself", path)
        merged = {k: v for k, v in node.items() if k != "allOf"}
        properties = dict(self._properties(merged, path))
        required = self._keys(merged, "required", path)
        for index, part in enumerate(parts):
            if isinstance(part, dict) and "$ref" in part:
                part = self._target(part["$ref"], [*path, "allOf", index])
            if isinstance(part, dict):
                part = self._merged(part, [*path, "allOf", index])
                properties.update(self._properties(part, [*path, "allOf", index]))
                required.extend(self._keys(part, "required", [*path, "allOf", index]))
                for key in ("additionalProperties", "x-kubernetes-preserve-unknown-fields"):
                    if key in part:
                        merged.setdefault(key, part[key])
        merged["properties"], merged["required"] = properties, required
        return merged

    def _properties(self, node: dict[str, Any], path: Path) -> dict[str, Any]:
        properties = node.get("properties") or {}
        if not isinstance(properties, dict):
            raise failure_at(self.source, "'properties' must be a mapping", [*path, "properties"])
        return properties

    def _keys(self, node: dict[str, Any], keyword: str, path: Path) -> list[str]:
        keys = node.get(keyword) or []
        if not isinstance(keys, list) or not all(isinstance(key, str) for key in keys):
            raise failure_at(self.source, f"'{keyword}' must be a list of names", [*path, keyword])
        return keys

    def _combined_type(self, node: dict[str, Any], keyword: str, path: Path, context: str) -> str:
        parts = node[keyword]
        if keyword == "allOf":
            if len(parts) == 1:
                return self.type_of(parts[0], [*path, keyword, 0], context)
            return self.build(node, context, path)
        types = [
            self.type_of(part, [*path, keyword, index], f"{context}{keyword[:-2].title()}{index}")
            for index, part in enumerate(parts)
        ]
        return _union(types)

    def _list_type(self, node: dict[str, Any], path: Path, context: str) -> str:
        items = node.get("items")
        if not isinstance(items, dict):
            return "[any]"
        return f"[{self.type_of(items, [*path, 'items'], context + 'Item')}]"

    def _object_type(self, node: dict[str, Any], path: Path, context: str) -> str:
        if node.get("properties") or node.get("allOf"):
            return self.build(node, context, path)
        additional = node.get("additionalProperties")
        if isinstance(additional, dict):
            value = self.type_of(additional, [*path, "additionalProperties"], context + "Value")
            return f"{{str:{value}}}"
        return "{str:any}"

    def _default(self, node: Any, path: Path) -> str | None:
        if not isinstance(node, dict) or "default" not in node or node["default"] is None:
            return None
        try:
            return literal(node["default"])
        except NotRepresentable as error:
            raise failure_at(self.source, str(error), [*path, "default"]) from None

    def _checks(self, node: Any, attribute: Attribute) -> list[str]:
        name = attribute.name
        if not is_identifier(attribute.key):
            return []  # a quoted key cannot be referred to in a check block
        checks = constraints(node, name, self._dereferenced)
        if attribute.required:
            return checks
        return [f"{check} if {name} {_UNSET}" for check in checks]

    def _dereferenced(self, node: Any) -> Any:
        seen: set[str] = set()
        while isinstance(node, dict) and isinstance(node.get("$ref"), str):
            ref = node["$ref"]
            if ref in seen or not ref.startswith("#"):
                break
            seen.add(ref)
            try:
                node = self._target(ref, [])
            except ImportFailure:
                break
        return node


def fix_type_meta(schema: Schema, api_version: str, kind: str) -> None:
    """``apiVersion`` and ``kind`` required and fixed to the CRD's values."""
    fixed = {"apiVersion": api_version, "kind": kind}
    kept = [a for a in schema.attributes if a.key not in fixed]
    docs = {a.key: a.doc for a in schema.attributes}
    schema.attributes = [
        Attribute(key, string_literal(value), True, literal(value), docs.get(key, ""))
        for key, value in fixed.items()
    ] + kept


def constraints(node: Any, expr: str, deref: Callable[[Any], Any]) -> list[str]:
    """The check expressions of a node's constraints, about the value ``expr``. As in
    JSON Schema, string keywords only bind strings and number keywords numbers: on a
    node that may be of another type (``int-or-string``), they are guarded so."""
    if not isinstance(node, dict):
        return []
    text: list[str] = []
    kind = node.get("type")
    string = expr if kind == "string" else f"str({expr})"
    for keyword, op in (("minLength", ">="), ("maxLength", "<=")):
        if isinstance(node.get(keyword), int):
            text.append(f"len({string}) {op} {node[keyword]}")
    if isinstance(node.get("pattern"), str):
        text.append(f"{REGEX}.search({string}, {_pattern(node['pattern'])})")
    checks = _guarded(text, f'typeof({expr}) != "str"', kind != "string")
    number = expr if kind in ("integer", "number") else f"float({expr})"
    guard = f'typeof({expr}) not in ["int", "float"]'
    checks += _guarded(_number_checks(node, number), guard, number != expr)
    checks += _collection_checks(node, expr, deref)
    return checks


def _conjunction(checks: list[str]) -> str:
    return " and ".join(f"({check})" if " or " in check else check for check in checks)


def _guarded(checks: list[str], guard: str, needed: bool) -> list[str]:
    return [f"{guard} or {check}" if needed else check for check in checks]


def _collection_checks(node: dict[str, Any], expr: str, deref: Callable[[Any], Any]) -> list[str]:
    checks: list[str] = []
    sized = [("minItems", ">="), ("maxItems", "<=")]
    if not node.get("properties"):  # a schema instance has no len()
        sized += [("minProperties", ">="), ("maxProperties", "<=")]
    for keyword, op in sized:
        if isinstance(node.get(keyword), int):
            checks.append(f"len({expr}) {op} {node[keyword]}")
    if node.get("uniqueItems") is True:
        checks.append(f"isunique({expr})")
    items = deref(node.get("items"))
    if node.get("type") == "array" and isinstance(items, dict):
        inner = constraints(items, "item", deref)
        if inner:
            checks.append(f"all item in {expr} {{{_conjunction(inner)}}}")
    values = deref(node.get("additionalProperties"))
    if isinstance(values, dict) and not node.get("properties"):
        inner = constraints(values, "value", deref)
        if inner:
            checks.append(f"all _, value in {expr} {{{_conjunction(inner)}}}")
    return checks


def _number_checks(node: dict[str, Any], expr: str) -> list[str]:
    checks: list[str] = []
    for keyword, exclusive, strict, loose in (
        ("minimum", "exclusiveMinimum", ">", ">="),
        ("maximum", "exclusiveMaximum", "<", "<="),
    ):
        bound = node.get(keyword)
        flag = node.get(exclusive)
        if _is_number(bound):
            checks.append(f"{expr} {strict if flag is True else loose} {number_literal(bound)}")
        if _is_number(flag):  # draft 6 and later: the bound itself
            checks.append(f"{expr} {strict} {number_literal(flag)}")
    step = node.get("multipleOf")
    if node.get("type") == "integer" and isinstance(step, int) and step > 0:
        checks.append(f"multiplyof({expr}, {step})")
    return checks


def _pattern(pattern: str) -> str:
    if '"' in pattern or "\n" in pattern or pattern.endswith("\\") or "${" in pattern:
        return string_literal(pattern)
    return f'r"{pattern}"'


def _description(node: Any) -> str:
    if not isinstance(node, dict):
        return ""
    text = node.get("description") or node.get("title") or ""
    return str(text).strip()


def _is_scalar(value: Any) -> bool:
    return value is None or isinstance(value, str | int | float | bool)


def _is_number(value: Any) -> TypeGuard[int | float]:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _is_object(node: Any) -> bool:
    return isinstance(node, dict) and bool(
        node.get("properties") or (node.get("allOf") and node.get("type", "object") == "object")
    )


def _has_own_type(node: dict[str, Any]) -> bool:
    """True when a node's own keywords give its type (its oneOf/anyOf then only
    add constraints, as Kubernetes writes ``anyOf: [{required: [a]}, ...]``)."""
    return bool(node.get("type") or node.get("properties")) and not node.get("allOf")


def _fitting(default: str | None, kcl_type: str) -> str | None:
    """``default`` unless ``kcl_type`` is a union of literals without it (a CRD whose
    default is not among its enum would not compile)."""
    members = kcl_type.split(" | ")
    literals = all(m[:1] in '"-0123456789' or m in ("True", "False") for m in members)
    return None if literals and default is not None and default not in members else default


def _union(types: list[str]) -> str:
    unique = list(dict.fromkeys(t for t in types if t))
    if not unique or "any" in unique:
        return "any"
    return " | ".join(unique)


def _pointer_path(ref: str) -> list[str | int]:
    parts = ref.lstrip("#").strip("/").split("/") if ref.strip("#/") else []
    return [part.replace("~1", "/").replace("~0", "~") for part in parts]
