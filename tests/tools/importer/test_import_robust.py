"""Bad or odd inputs never crash ``kcl import``: every outcome is KCL text that
parses, or an ImportFailure with diagnostics (hypothesis-generated documents, and
hand-written malformed schemas)."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kclpy.source import SourceFile
from kclpy.syntax import parse_source
from kclpy.tools.format import format_code
from kclpy.tools.importer.convert import ImportOptions, convert
from kclpy.tools.importer.inputs import ImportFailure

KEYS = st.sampled_from(
    [
        "type",
        "properties",
        "items",
        "required",
        "enum",
        "$ref",
        "allOf",
        "oneOf",
        "anyOf",
        "additionalProperties",
        "default",
        "pattern",
        "minimum",
        "maxLength",
        "const",
        "definitions",
        "$defs",
        "x-kubernetes-int-or-string",
        "if",
        "a-b",
        "name",
        "object",
        "string",
        "integer",
        "array",
        "#/definitions/a",
        "#/$defs/name",
        "swagger",
        "openapi",
    ]
)
SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-5, 5),
    st.floats(allow_nan=False, allow_infinity=False),
    KEYS,
    st.text(max_size=5),
)
DOCUMENTS = st.recursive(
    SCALARS,
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(KEYS, inner, max_size=5)),
    max_leaves=25,
)


def outcome(text: str, mode: str, name: str = "input.json") -> None:
    try:
        files = convert(SourceFile(name, text), ImportOptions(mode, validate=False))
    except ImportFailure as failure:
        assert failure.diagnostics and all(d.code.id.startswith("E9") for d in failure.diagnostics)
        return
    for generated in files.values():
        if mode == "jsonschema":  # kcl-go's text, which `kcl fmt` would lay out anew
            _, diagnostics = parse_source(generated, "generated.k")
            assert not diagnostics, generated
        else:
            assert format_code(generated) == generated  # it parses, and is formatted


@pytest.mark.parametrize("mode", ["json", "jsonschema", "openapi", "crd"])
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(document=DOCUMENTS)
def test_generated_documents(mode: str, document: object) -> None:
    outcome(json.dumps(document), mode)


@pytest.mark.parametrize(
    "schema",
    [
        {"type": "object", "properties": []},
        {"type": "object", "properties": {"a": {"type": "object", "properties": "x"}}},
        {"type": "object", "required": "a", "properties": {"a": {}}},
        {"type": "object", "properties": {"a": {"$ref": 3}}},
        {"type": "object", "properties": {"a": {"$ref": "#/properties/a"}}},
        {"type": "object", "properties": {"a": {"items": [{"type": "string"}], "type": "array"}}},
        {"type": "object", "properties": {"a": {"allOf": [1, "x", {"$ref": "#"}]}}},
        {"type": "object", "properties": {"a": {"enum": [[1], {"a": 1}]}}},
        {"type": "object", "properties": {"a": {"enum": [None]}}},
        {"type": "object", "properties": {"a": {"enum": ["x", "y"], "default": "z"}}},
        {"type": "object", "properties": {"a": {"type": "integer", "default": float("1e308")}}},
        {"type": "object", "properties": {"a": {"pattern": '"${x}\\'}}},
        {"type": "object", "properties": {"a b": {"type": "string", "minLength": 1}}},
        {"type": "object", "properties": {"self": {"$ref": "#"}}},
        {"type": "object", "properties": {"a": {"enum": [float("inf")], "maximum": float("nan")}}},
        {"type": "object", "properties": {"a": {"type": "number", "maximum": float("inf")}}},
        {"$defs": {"a": {"$ref": "#/$defs/b"}, "b": {"$ref": "#/$defs/a"}}},
        {
            "type": "object",
            "properties": {"a": {"$ref": "#/$defs/a"}},
            "$defs": {"a": {"$ref": "#/$defs/b"}, "b": {"$ref": "#/$defs/a"}},
        },
        {"type": "object", "properties": {"a": {"allOf": [{"$ref": "#/properties/a"}]}}},
        {"type": "object", "properties": {"a": {"not": {"pattern": 'x"""y\\'}}}},
        {"type": "object", "description": 'a """ b', "properties": {'a"b': {"const": "x\\"}}},
        {"type": "object", "properties": {"a": {"type": "string", "format": "email"}}},
        {"type": "object", "patternProperties": {"^a": {"type": "integer"}}},
        {"type": "object", "properties": {"a": {"anyOf": [{"minimum": 1}, {"pattern": "x"}]}}},
        {
            "title": "check",
            "type": "object",
            "properties": {"Mixin": {"type": "object", "properties": {"x": {}}}},
        },
    ],
)
def test_malformed_json_schemas(schema: object) -> None:
    outcome(json.dumps(schema), "jsonschema")


def test_json_schema_that_explodes_is_refused() -> None:
    """Each ``$ref`` is expanded where it is used (as the reference does): 2**40
    schemas are refused, not made."""
    definitions = {"d0": {"type": "object", "properties": {"x": {"type": "string"}}}}
    for level in range(1, 41):
        twice = {"$ref": f"#/$defs/d{level - 1}"}
        definitions[f"d{level}"] = {"type": "object", "properties": {"a": twice, "b": twice}}
    schema = {
        "type": "object",
        "properties": {"top": {"$ref": "#/$defs/d40"}},
        "$defs": definitions,
    }
    with pytest.raises(ImportFailure, match="expands into more than"):
        convert(SourceFile("big.json", json.dumps(schema)), ImportOptions("jsonschema"))


CRD_HEAD = "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\n"


@pytest.mark.parametrize(
    "rest",
    [
        "spec: 1\n",
        "spec: {names: x}\n",
        "spec: {names: {kind: A}, versions: x}\n",
        "spec: {names: {kind: A}, versions: [x, {name: v1, schema: 3}]}\n",
        "spec: {names: {kind: A}, validation: [], version: v1}\n",
        "spec: {names: {kind: A}, versions: [{name: v1, schema: {openAPIV3Schema: []}}]}\n",
        "spec:\n  names: {kind: A}\n  versions:\n  - name: v1\n    schema:\n"
        "      openAPIV3Schema: {properties: {spec: {properties: {a: {enum: 5}}}}}\n",
        "spec: {group: g, names: {kind: check}, versions: [{name: v1}]}\n",
    ],
)
def test_malformed_crds(rest: str) -> None:
    outcome(CRD_HEAD + rest, "crd", "input.yaml")
