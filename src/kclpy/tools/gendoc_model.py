"""The model ``kcl doc generate`` renders: KCL types as the real tool's OpenAPI types.

Takes the API's ``KclType`` records (``kclpy.tools.kcl_types``) of the schemas found
in each folder of a package and returns ``ApiType`` trees, the shape the real CLI
(kcl-go's gendoc, behind kpm's Swagger export) builds before rendering:

* a schema documented at the top is an ``object`` with its ``properties`` (base
  attributes included), ``required``, examples and ``model`` (its name, package and
  file); a schema met inside a type is only a ``ref`` (``#/definitions/PKG.Name``);
* ``int`` is ``integer``/``int64``, ``float`` ``number``/``float``, a number
  multiplier ``integer``/``units.NumberMultiplier``, ``str`` ``string``, ``bool``
  ``bool``, lists ``array`` with ``items``, dicts ``object`` with
  ``additional_properties`` and ``dict_key_type``, unions ``object`` with
  ``union_types``, functions ``object`` with ``function``; a literal type is its
  base type, ``read_only``, with the literal as ``default`` and ``enum``;
* ``type_name`` writes a type as the documentation's type column does.

``schema_id`` names a schema as the definitions do: its package (the folder, dotted,
for the documented package's own schemas) and its name.
"""

from __future__ import annotations

import os
from typing import Any

import attrs

DEFINITIONS = "#/definitions/"

_PRIMITIVES = {
    "int": ("integer", "int64"),
    "float": ("number", "float"),
    "bool": ("bool", ""),
    "str": ("string", ""),
    "any": ("object", ""),
    "number_multiplier": ("integer", "units.NumberMultiplier"),
}
_NAMES = {
    ("string", ""): "str",
    ("integer", "int64"): "int",
    ("integer", "units.NumberMultiplier"): "units.NumberMultiplier",
    ("number", "float"): "float",
    ("bool", ""): "bool",
}


@attrs.frozen
class ModelType:
    """``x-kcl-type``: a documented schema's name, package and file name."""

    name: str
    package: str = ""
    alias: str = ""


@attrs.define
class ApiType:
    """One type of the documentation model (kcl-go's ``KclOpenAPIType``)."""

    type: str = ""
    format: str = ""
    default: str = ""
    enum: list[str] = attrs.field(factory=list)
    read_only: bool = False
    description: str = ""
    properties: dict[str, ApiType] | None = None
    required: list[str] = attrs.field(factory=list)
    items: ApiType | None = None
    additional_properties: ApiType | None = None
    examples: dict[str, dict[str, str]] = attrs.field(factory=dict)
    ref: str = ""
    base_schema: ApiType | None = None
    referenced_by: list[str] = attrs.field(factory=list)
    model: ModelType | None = None
    decorators: list[dict[str, Any]] = attrs.field(factory=list)
    union_types: list[ApiType] = attrs.field(factory=list)
    function: tuple[list[ApiType], ApiType] | None = None
    dict_key_type: ApiType | None = None
    is_index_signature: bool = False

    def is_any(self) -> bool:
        return (
            self.type == "object"
            and self.properties is None
            and self.additional_properties is None
            and not self.ref
            and not self.union_types
        )


def literal(kind: str) -> tuple[str, str] | None:
    """``(base type, literal text)`` of a literal type such as ``str(abc)``."""
    if not kind.endswith(")") or "(" not in kind:
        return None
    base, value = kind[: kind.index("(")], kind[kind.index("(") + 1 : kind.rindex(")")]
    if base == "str":
        return base, go_quote(value)
    if base in ("bool", "int", "float", "number_multiplier"):
        return base, value
    return None


def go_quote(text: str) -> str:
    """``text`` as a double-quoted string literal, escaped as Go's ``strconv.Quote`` does."""
    escapes = {'"': '\\"', "\\": "\\\\", "\a": "\\a", "\b": "\\b", "\f": "\\f"}
    escapes.update({"\n": "\\n", "\r": "\\r", "\t": "\\t", "\v": "\\v"})
    out = []
    for char in text:
        if char in escapes:
            out.append(escapes[char])
        elif char.isprintable() or char == " ":
            out.append(char)
        elif ord(char) < 0x80:
            out.append(f"\\x{ord(char):02x}")
        elif ord(char) <= 0xFFFF:
            out.append(f"\\u{ord(char):04x}")
        else:
            out.append(f"\\U{ord(char):08x}")
    return '"' + "".join(out) + '"'


def package_name(folder: str, kcl_type: dict[str, Any]) -> str:
    """The dotted package of a schema: the folder's for the documented package's own
    schemas; else its package path (without the last part when that names a file)."""
    pkgpath = kcl_type.get("pkg_path", "")
    if pkgpath == "__main__":
        return "" if folder == "." else ".".join(folder.split(os.sep))
    parts = pkgpath.split(".")
    filename = kcl_type.get("filename", "")
    if os.path.basename(os.path.dirname(filename)) == parts[-1]:
        return str(pkgpath)
    return ".".join(parts[:-1])


def schema_id(folder: str, kcl_type: dict[str, Any]) -> str:
    package = package_name(folder, kcl_type)
    name = str(kcl_type.get("schema_name", ""))
    return f"{package}.{name}" if package else name


def convert(folder: str, kcl_type: dict[str, Any], nested: bool) -> ApiType:
    """The documentation type of a ``KclType`` record met in ``folder`` (``nested``:
    inside another type, where schemas are references)."""
    base = kcl_type.get("base_schema")
    result = ApiType(
        description=kcl_type.get("description", ""), default=kcl_type.get("default", "")
    )
    if nested and base:
        result.base_schema = convert(folder, base, True)
        result.base_schema.referenced_by.append(schema_id(folder, kcl_type))
    result.decorators = list(kcl_type.get("decorators", []))
    kind = str(kcl_type.get("type", "any"))
    if kind in _PRIMITIVES:
        result.type, result.format = _PRIMITIVES[kind]
    elif kind == "list":
        result.type, result.items = "array", convert(folder, kcl_type.get("item", {}), True)
    elif kind == "dict":
        result.type = "object"
        result.additional_properties = convert(folder, kcl_type.get("item", {}), True)
        result.dict_key_type = convert(folder, kcl_type.get("key", {}), True)
    elif kind == "schema":
        _schema(folder, kcl_type, nested, result)
    elif kind == "union":
        result.type = "object"
        members = kcl_type.get("union_types", [])
        result.union_types = [convert(folder, member, True) for member in members]
    elif kind == "function":
        result.type = "object"
        function = kcl_type.get("function", {})
        params = [convert(folder, p.get("ty", {}), True) for p in function.get("params", [])]
        result.function = (params, convert(folder, function.get("return_ty", {}), True))
    elif (found := literal(kind)) is not None:
        base_type, value = found
        result.type, result.format = _PRIMITIVES[base_type]
        result.read_only, result.enum, result.default = True, [value], value
    else:
        result.type = "object"  # (a type the model does not know is documented as any)
    return result


def _schema(folder: str, kcl_type: dict[str, Any], nested: bool, result: ApiType) -> None:
    if nested:
        result.ref = DEFINITIONS + schema_id(folder, kcl_type)
        return
    result.type = "object"
    result.description = kcl_type.get("schema_doc", "")
    properties = kcl_type.get("properties", {})
    result.properties = {name: convert(folder, t, True) for name, t in properties.items()}
    result.required = list(kcl_type.get("required", []))
    result.model = ModelType(
        str(kcl_type.get("schema_name", "")),
        package_name(folder, kcl_type),
        os.path.basename(kcl_type.get("filename", "")),
    )
    result.examples = {
        name: dict(example) for name, example in kcl_type.get("examples", {}).items()
    }
    signature = kcl_type.get("index_signature")
    if signature:
        result.additional_properties = convert(folder, signature.get("val", {}), False)
        result.dict_key_type = convert(folder, signature.get("key", {}), True)
        result.is_index_signature = True


def anchor(name: str, link: bool) -> str:
    return f"[{name}](#{name.lower()})" if link else name


def type_name(kind: ApiType, omit_any: bool, link: bool, escape: bool) -> str:
    """The type as the documentation writes it (``[Name](#name)`` links to schemas)."""
    if kind.function is not None:
        params, returned = kind.function
        names = ", ".join(type_name(param, True, link, escape) for param in params)
        return f"({names}) -> {type_name(returned, True, link, escape)}"
    if kind.ref:
        return anchor(kind.ref.removeprefix(DEFINITIONS).rsplit(".", 1)[-1], link)
    if kind.type == "object" and kind.model is not None and kind.model.name:
        return anchor(kind.model.name, link and bool(kind.properties))
    if (kind.type, kind.format) in _NAMES:
        return kind.default if kind.read_only else _NAMES[kind.type, kind.format]
    if kind.type == "array" and kind.items is not None:
        return f"[{type_name(kind.items, True, link, escape)}]"
    if kind.type != "object":
        return kind.type
    return _object_name(kind, omit_any, link, escape)


def _object_name(kind: ApiType, omit_any: bool, link: bool, escape: bool) -> str:
    value, key = kind.additional_properties, kind.dict_key_type
    if value is not None and key is not None and kind.is_index_signature:
        return f"[{type_name(key, True, link, escape)}]: {type_name(value, True, link, escape)}"
    if value is not None:
        if (key is None or key.is_any()) and value.is_any():
            return "{}"
        key_name = type_name(key, True, link, escape) if key is not None else ""
        return "{" + key_name + ":" + type_name(value, True, link, escape) + "}"
    if kind.union_types:
        separator = " \\| " if escape else " | "
        return separator.join(type_name(t, True, link, escape) for t in kind.union_types)
    if kind.is_any():
        return "" if omit_any else "any"
    return kind.type
