"""Models by the rules of the reference importer (kcl-openapi, after go-swagger).

``SwaggerModel(source).build(node, definition, name, path, fixed)`` turns one
model (a CRD version's ``openAPIV3Schema``) into ``model.Schema`` values: the
model named ``name`` first, then the schemas of its nested objects sorted by
name. The rules, as the published kcl-lang/modules were generated:

* properties in sorted order (in the document's with ``keep_order``, as
  kcl-openapi's ``--keep-order`` tests make them); ``name?: T`` unless listed in
  ``required``;
* a nested object with properties is a schema named by ``go_name`` of the model
  and the key (``BitnamiComV1alpha1SealedSecretSpec``); the objects of a list's
  items add ``Items0``, those of a map's values ``Anon`` (named after the
  property's key, however deep the lists or maps);
* ``string``/``integer``/``number``/``boolean`` are ``str``/``int``/``float``/
  ``bool`` (a ``format`` of ``int32``... makes a number ``int``), int-or-string is
  ``int | str``, other objects are ``{str:T}`` with ``additionalProperties``, else
  ``any``; an ``enum`` is the union of its values (null left out); ``default``
  is kept;
* docstrings: the description, else the name in words (``encrypted data``); an
  attribute whose type became a schema is described by its name;
* checks of ``maximum``, ``minimum``, ``maxLength``, ``minLength``, ``pattern``
  (``_regex_match``: ``regex.match`` of KCL finds a match anywhere),
  ``uniqueItems``, ``minItems``, ``maxItems``, ``multipleOf``, and of list items
  (``all i in x {...}``) and map values (``all _, k in x {...}``), guarded on
  optional attributes as the reference guards them (``if x`` / ``if x not in
  [None, Undefined]``); attributes whose names need quotes are not checked.

``fixed`` replaces properties of the model by attributes made by the caller
(a CRD's ``apiVersion``, ``kind`` and ``metadata``). ``ref_type`` (OpenAPI
documents) gives the type of a ``$ref`` (the schema of another definition, as
the file being made names it); an ``example`` becomes the docstring's
``Examples`` section and a property's ``externalDocs`` a ``See Also`` link.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import attrs

from kclpy.source import SourceFile
from kclpy.tools.importer.failures import failure_at
from kclpy.tools.importer.gonames import go_name, human_name
from kclpy.tools.importer.literals import NotRepresentable
from kclpy.tools.importer.model import Attribute, Path, Schema
from kclpy.tools.importer.reference_text import (
    RESERVED,
    go_number,
    reference_literal,
    regex_literal,
    truthy,
)

MAX_NAME: int = 20_000
"""Characters of a nested schema's name (names grow with nesting)."""

_IDENTIFIER = re.compile(r"^[a-zA-Z_][a-zA-Z0-9_]*$")
_SCALARS = {"string": "str", "integer": "int", "number": "float", "boolean": "bool"}
_FORMATS = {
    "number": {"float": "float", "int": "int", "int8": "int", "int16": "int", "int32": "int"}
}
_FORMATS["integer"] = {key: "int" for key in ("int", "int8", "int16", "int32")}
_FORMAT_TYPES = {**_SCALARS, "intorstring": "int | str"}
# formats whose length and pattern keywords the reference drops
_FREE_FORMATS = frozenset({"date", "datetime", "uuid", "bsonobjectid", "base64", "duration"})


class SwaggerModel:
    """Builds the schemas of models by the reference importer's rules."""

    def __init__(
        self,
        source: SourceFile,
        ref_type: Callable[[str, Path], str] | None = None,
        keep_order: bool = False,
    ) -> None:
        self.source = source
        self.extras: dict[str, Schema] = {}
        self.ref_type = ref_type
        self.keep_order = keep_order

    def build(
        self,
        node: Any,
        definition: str,
        name: str,
        path: Path,
        fixed: dict[str, Attribute] | None = None,
    ) -> list[Schema]:
        """The model ``definition`` (shown as ``name``) and its nested schemas."""
        self.extras = {}
        top = self._schema(node, definition, path, fixed or {})
        top.name = name
        return [top] + [self.extras[key] for key in sorted(self.extras)]

    def _schema(
        self, node: Any, model: str, path: Path, fixed: dict[str, Attribute] | None = None
    ) -> Schema:
        node = node if isinstance(node, dict) else {}
        schema = Schema(model, _text(node.get("description")) or human_name(model))
        if truthy(node.get("example")):
            try:
                schema.example = reference_literal(node["example"])
            except NotRepresentable as error:
                raise failure_at(self.source, str(error), [*path, "example"]) from None
        properties = node.get("properties") or {}
        if not isinstance(properties, dict):
            raise failure_at(self.source, "'properties' must be a mapping", [*path, "properties"])
        required = node.get("required") or []
        if not isinstance(required, list):
            raise failure_at(self.source, "'required' must be a list", [*path, "required"])
        fixed = fixed or {}
        needed = False
        keys = dict.fromkeys([*map(str, properties), *fixed])
        for key in keys if self.keep_order else sorted(keys):
            if key in fixed:  # required when the model lists it, as the reference reads it
                made = attrs.evolve(fixed[key], required=fixed[key].required or key in required)
                made.doc_head = made.doc_head.replace(
                    ", optional", ", required" if made.required else ", optional"
                )
                schema.attributes.append(made)
                continue
            child = properties[key]
            attribute = self._attribute(
                key, child, key in required, model, [*path, "properties", key]
            )
            quoted = not _IDENTIFIER.match(key)
            lines, real = property_checks(child, attribute.name, attribute.required, quoted)
            attribute.checks = lines
            needed = needed or real
            schema.attributes.append(attribute)
        if not needed:
            for attribute in schema.attributes:
                attribute.checks = []
        return schema

    def _attribute(self, key: str, node: Any, required: bool, model: str, path: Path) -> Attribute:
        node = node if isinstance(node, dict) else {}
        kcl_type = self._type(node, key, model, path, "property")
        nested = kcl_type in self.extras and _is_complex(node)
        default = None if nested else node.get("default")  # a reference keeps no default
        read_only = node.get("readOnly") is True
        required = required or (read_only and default is not None)
        doc = human_name(key) if nested else _introduction(node) or human_name(key)
        annotation = kcl_type
        enum = node.get("enum")
        try:
            values = (
                [value for value in enum if value is not None] if isinstance(enum, list) else []
            )
            if values and not nested:  # null is every attribute's value: not listed
                annotation = " | ".join(reference_literal(value) for value in values)
            elif read_only and default is not None:
                annotation = reference_literal(default)
            text = None if default is None else reference_literal(default)
            shown = reference_literal(default) if truthy(default) else "Undefined"
        except NotRepresentable as error:
            raise failure_at(self.source, str(error), [*path, "default"]) from None
        if text is not None and annotation != kcl_type and text not in annotation.split(" | "):
            text = None  # a default outside the enum would not compile
        head = f"{_escaped(key)} : {kcl_type}, default is {shown}, "
        head += "required" if required else "optional"
        return Attribute(key, annotation, required, text, doc, doc_head=head)

    def _type(self, node: Any, key: str, model: str, path: Path, role: str) -> str:
        """The KCL type of ``node``, the value of ``key`` (``role``: the property
        itself, a list's items or a map's values)."""
        if not isinstance(node, dict):
            return "any"
        if "$ref" in node and self.ref_type is not None:
            return self.ref_type(str(node["$ref"]), [*path, "$ref"])
        kinds = node.get("type")
        kind = _first_type(kinds)
        if isinstance(node.get("format"), str):
            named = _format_type(
                kind if isinstance(kinds, str | list) else "string", node["format"]
            )
            if named:
                return named
        if node.get("x-kubernetes-int-or-string") is True:
            return "int | str"
        if kind in _SCALARS:
            return _SCALARS[kind]
        if kind == "intorstring":
            return "int | str"
        if kind == "array":
            items = node.get("items")
            if not isinstance(items, dict):
                return "[any]"
            return "[" + self._type(items, key, model, [*path, "items"], "items") + "]"
        if kind != "object":
            return "any"
        if _is_complex(node):
            return self._nested(node, key, model, path, role)
        additional = node.get("additionalProperties")
        if isinstance(additional, dict):
            value = self._type(additional, key, model, [*path, "additionalProperties"], "value")
            return "{str:" + value + "}"
        if additional is True:
            return "{str:any}"
        return "any"

    def _nested(self, node: dict[str, Any], key: str, model: str, path: Path, role: str) -> str:
        if role == "property":
            name = go_name(model + go_name(key))
        else:
            name = go_name(model + " " + go_name(key + (" items0" if role == "items" else " Anon")))
        if len(name) > MAX_NAME:
            raise failure_at(self.source, "objects nested too deeply to name their schemas", path)
        self.extras[name] = Schema(name, "")  # named before its properties are read
        self.extras[name] = self._schema(node, name, path)
        return name


def _is_complex(node: Any) -> bool:
    return isinstance(node, dict) and bool(node.get("properties")) and _type_of(node) == "object"


def _type_of(node: dict[str, Any]) -> str:
    return _first_type(node.get("type"))


def _first_type(kinds: Any) -> str:
    if isinstance(kinds, list):
        if sorted(map(str, kinds)) == ["integer", "string"]:
            return "intorstring"
        kinds = kinds[0] if kinds else ""
    return kinds if isinstance(kinds, str) and kinds else "object"


def _format_type(kind: str, format_name: str) -> str:
    name = format_name.replace("-", "")
    return _FORMATS.get(kind, {}).get(name) or _FORMAT_TYPES.get(name, "")


def _text(value: Any) -> str:
    return value.strip("\ufeff") if isinstance(value, str) else ""


def _introduction(node: dict[str, Any]) -> str:
    """An attribute's description: its title, then its description (the reference
    writes them on one line)."""
    title, description = _text(node.get("title")), _text(node.get("description"))
    text = title + " " * 8 + description if title and description else title or description
    documents = node.get("externalDocs")
    if text and isinstance(documents, dict) and _text(documents.get("url")):
        text += ". See Also: " + _text(documents.get("url"))
    return text


def _escaped(key: str) -> str:
    """A key as the reference names it in docstrings: quoted unless it is a
    name, ``$`` before a keyword."""
    if not _IDENTIFIER.match(key):
        return f'"{key}"'
    return "$" + key if key in RESERVED else key


def _validations(node: Any) -> bool:
    """True when ``node`` has a keyword the reference checks."""
    if not isinstance(node, dict):
        return False
    node = _without_free_format(node)
    keys = ("maximum", "minimum", "multipleOf", "maxLength", "minLength", "maxItems", "minItems")
    return (
        any(_is_number(node.get(key)) for key in keys)
        or bool(isinstance(node.get("pattern"), str) and node["pattern"])
        or node.get("uniqueItems") is True
    )


def _nested_validations(node: dict[str, Any]) -> bool:
    return any(
        _validations(node.get(key)) and not _is_complex(node.get(key))
        for key in ("items", "additionalProperties")
    )


def _without_free_format(node: dict[str, Any]) -> dict[str, Any]:
    if node.get("format") in _FREE_FORMATS:
        return {k: v for k, v in node.items() if k not in ("minLength", "maxLength", "pattern")}
    return node


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def property_checks(node: Any, name: str, required: bool, quoted: bool) -> tuple[list[str], bool]:
    """The check lines of an attribute and whether they are real checks (the
    reference writes a ``check:`` block only when one is)."""
    if not isinstance(node, dict) or _is_complex(node):
        return [], False
    own, nested = _validations(node), _nested_validations(node)
    if quoted:
        collection = node.get("type") == "array" or isinstance(
            node.get("additionalProperties"), dict
        )
        if own or nested or collection:
            return [f"True  # Skip validations for {name}"], own or nested
        return [], False
    lines = expression_checks(node, name, required, "", "") if own else []
    lines += collection_checks(node, name, "", "", "i", "k")
    return lines, bool(lines)


def expression_checks(
    node: dict[str, Any], name: str, required: bool, prefix: str, suffix: str
) -> list[str]:
    """The checks of a value's own keywords, in the reference's order."""
    node = _without_free_format(node)
    unset = "" if required else f" if {name} not in [None, Undefined]"
    empty = "" if required else f" if {name}"
    lines: list[str] = []
    for keyword, exclusive, strict, loose in (
        ("maximum", "exclusiveMaximum", "<", "<="),
        ("minimum", "exclusiveMinimum", ">", ">="),
    ):
        if _is_number(node.get(keyword)):
            op = strict if node.get(exclusive) is True else loose
            lines.append(f"{name} {op} {go_number(node[keyword])}{unset}")
    for keyword, op in (("maxLength", "<="), ("minLength", ">=")):
        if _is_number(node.get(keyword)):
            lines.append(f"len({name}) {op} {go_number(node[keyword])}{unset}")
    if isinstance(node.get("pattern"), str) and node["pattern"]:
        lines.append(f"_regex_match(str({name}), {regex_literal(node['pattern'])}){empty}")
    if node.get("uniqueItems") is True:
        lines.append(f"isunique({name}){empty}")
    for keyword, op in (("minItems", ">="), ("maxItems", "<=")):
        if _is_number(node.get(keyword)):
            lines.append(f"len({name}) {op} {go_number(node[keyword])}{empty}")
    if _is_number(node.get("multipleOf")):
        lines.append(f"multiplyof(int({name}), int({go_number(node['multipleOf'])})){empty}")
    return [prefix + line + suffix for line in lines]


def collection_checks(
    node: dict[str, Any], name: str, prefix: str, suffix: str, index: str, key: str
) -> list[str]:
    """The checks of list items and map values (``all i in x {...} if x``)."""
    lines: list[str] = []
    parts: list[tuple[str, str, Callable[[str, str], tuple[str, str]]]] = [
        ("items", f"all {index} in {name} {{ ", lambda i, k: (i + "i", k)),
        ("additionalProperties", f"all _, {key} in {name} {{ ", lambda i, k: (i, k + "k")),
    ]
    for keyword, opening, deeper in parts:
        inner = node.get(keyword)
        if not isinstance(inner, dict) or _is_complex(inner):
            continue
        if keyword == "items" and node.get("type") != "array":
            continue
        variable = index if keyword == "items" else key
        inner_prefix, inner_suffix = prefix + opening, f" }} if {name}" + suffix
        if _validations(inner):
            lines += expression_checks(inner, variable, False, inner_prefix, inner_suffix)
        if _nested_validations(inner):
            next_index, next_key = deeper(index, key)
            lines += collection_checks(
                inner, variable, inner_prefix, inner_suffix, next_index, next_key
            )
    return lines
