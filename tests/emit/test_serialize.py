"""Golden and unit tests of the writers in kclpy.values (``yaml_writer``, ``json_writer``,
``toml_writer``, ``scalars``); expected texts from the reference.

The golden texts were recorded from kcl_lib 0.13.2 (``pytest --update-goldens``
rewrites them); these tests do not need the reference installed.
"""

from __future__ import annotations

import math

import pytest

from kclpy.values import UNDEFINED, NumberMultiplier, yaml_writer
from kclpy.values.json_writer import to_json
from kclpy.values.scalars import format_float, format_json_float
from kclpy.values.toml_writer import TomlError, to_toml
from kclpy.values.yaml_writer import to_yaml, to_yaml_all, yaml_document

from .cases import ENCODE_CASES, EncodeCase
from .goldens_io import load
from .oracle import schema_instance

ENCODE_GOLDENS = load("encode.json")


def encode(case: EncodeCase) -> str:
    kwargs = dict(case.kwargs)
    if case.function == "yaml.encode":
        return to_yaml(case.value, **kwargs)
    if case.function == "yaml.encode_all":
        return to_yaml_all(case.value, **kwargs)
    return to_json(case.value, **kwargs)


@pytest.mark.parametrize("case", ENCODE_CASES, ids=lambda case: case.id)
def test_encode_golden(case: EncodeCase) -> None:
    assert encode(case) == ENCODE_GOLDENS[case.id]


def test_goldens_cover_every_case() -> None:
    assert set(ENCODE_GOLDENS) == {case.id for case in ENCODE_CASES}


# Scalars, checked one by one against the reference (`v = <value>` printed by kcl run).
YAML_SCALARS = [
    ("a", "a"),
    ("", "''"),
    (" a", "' a'"),
    ("a ", "'a '"),
    ("yes", "'yes'"),
    ("tRue", "'tRue'"),
    ("nil", "'nil'"),
    ("inf", "inf"),
    ("1", "'1'"),
    ("1a", "'1a'"),
    ("-x", "'-x'"),
    (".hidden", "'.hidden'"),
    ("a: b", "'a: b'"),
    ("a:b", "a:b"),
    ("a #b", "'a #b'"),
    ("a#b", "a#b"),
    ("?x", "?x"),
    ("? x", "'? x'"),
    ("it's", "it's"),
    ("'a", "'''a'"),
    ('"a', "'\"a'"),
    ("a\tb", '"a\\tb"'),
    ("\x00\x07\x08\x0b\x0c\r\x1b", '"\\0\\a\\b\\v\\f\\r\\e"'),
    ("\x01\x7f\x85\ufeff", '"\\x01\\x7F\\N\\uFEFF"'),
    ('a\u2028b\tc\xa0d"e\\f\x85', '"a\\Lb\\tc\xa0d\\"e\\\\f\\N"'),
    ("\u2028", "'\u2028  '"),
    ("a\u2028 b", '"a\\L b"'),
    ("é😀\xa0", "é😀\xa0"),
    ("a\nb", "|-\n  a\n  b"),
    ("a\n", "|\n  a\n"),
    ("a\n\n", "|+\n  a\n\n"),
    ("\n", "|2+\n\n"),
    ("\na", "|2-\n\n  a"),
    (" a\nb", "|2-\n   a\n  b"),
    ("a \nb", '"a \\nb"'),
    ("\n ", '"\\n "'),
]


@pytest.mark.parametrize(("value", "expected"), YAML_SCALARS)
def test_yaml_scalars(value: str, expected: str) -> None:
    text = yaml_document({"v": value})
    assert text.removeprefix("v: ").rstrip("\n") == expected.rstrip("\n")


# (value, YAML text, JSON text), from the reference.
FLOATS = [
    (0.0, "0.0", "0.0"),
    (-0.0, "-0.0", "-0.0"),
    (1.0, "1.0", "1.0"),
    (100.0, "100.0", "100.0"),
    (1e15, "1000000000000000.0", "1000000000000000.0"),
    (9999999999999998.0, "9999999999999998.0", "9999999999999998.0"),
    (1e16, "1e16", "1e+16"),
    (-1e16, "-1e16", "-1e+16"),
    (1.5e16, "1.5e16", "1.5e+16"),
    (1.2345678901234568e17, "1.2345678901234568e17", "1.2345678901234568e+17"),
    (1e-4, "0.0001", "0.0001"),
    (1e-5, "0.00001", "0.00001"),
    (1.234e-05, "0.00001234", "0.00001234"),
    (-1.5e-5, "-0.000015", "-0.000015"),
    (9.99e-6, "9.99e-6", "9.99e-6"),
    (1e-6, "1e-6", "1e-6"),
    (5e-324, "5e-324", "5e-324"),
    (1.7976931348623157e308, "1.7976931348623157e308", "1.7976931348623157e+308"),
    (0.30000000000000004, "0.30000000000000004", "0.30000000000000004"),
    # YAML is written from the JSON text read back by a fast parser: 1 ulp off.
    (9.044889105823875e19, "9.044889105823877e19", "9.044889105823875e+19"),
    (9.044889105823875e18, "9.044889105823876e18", "9.044889105823875e+18"),
    (4.256922217048127e-10, "4.2569222170481265e-10", "4.256922217048127e-10"),
    (math.inf, "null", "null"),
    (-math.inf, "null", "null"),
    (math.nan, "null", "null"),
]


@pytest.mark.parametrize(("value", "yaml_text", "json_text"), FLOATS)
def test_floats(value: float, yaml_text: str, json_text: str) -> None:
    assert format_float(value) == yaml_text
    assert format_json_float(value) == json_text
    assert to_yaml(value) == yaml_text + "\n"
    assert to_json(value) == json_text


def test_units_are_floats() -> None:
    assert to_yaml([NumberMultiplier(1, "Ki"), NumberMultiplier(1, "n")]) == "- 1024.0\n- 1e-9\n"
    assert to_json(NumberMultiplier(2, "M")) == "2000000.0"


def test_skipped_values() -> None:
    value = {"a": UNDEFINED, "b": len, "c": [UNDEFINED, print, 1], "d": {"e": UNDEFINED}}
    assert to_yaml(value) == "c:\n- 1\nd: {}\n"
    assert to_json(value) == '{"c": [1], "d": {}}'


def test_schema_instances_are_dicts() -> None:
    value = schema_instance("P", {"b": 1, "_a": 2})
    assert to_yaml(value) == "b: 1\n_a: 2\n"
    assert to_yaml(value, ignore_private=True, sort_keys=True) == "b: 1\n"
    assert to_json(value, sort_keys=True) == '{"_a": 2, "b": 1}'


@pytest.mark.parametrize(
    ("text", "kept"),
    [
        ("a: |-\n  x\n  y\n", True),
        ("a: 1\n", False),
        ("a:\n- |-\n  x\n  y\n", False),
        ("a:\n  b: |\n    x\n", True),
        ("a: |2-\n   x\n  y\n", False),
        ("a: |-\n  x\n   y\n", False),
        ("a: |-\n  \xa0x\n  y\n", True),
        ("a: |-\n  x\n  \xa0y\n", False),
        ("a: |+\n  x\n\n", True),
        ("- |-\n  x: |\n   y\n", True),
        ("a: 'x\u2028  y'\n", False),
        ("  x\n", True),
    ],
)
def test_document_final_newline(text: str, kept: bool) -> None:
    expected = text if kept else text[:-1]
    assert yaml_writer._strip_final_newline(text) == expected


def test_yaml_document_examples() -> None:
    assert yaml_document({"a": "x\ny"}) == "a: |-\n  x\n  y\n"
    assert yaml_document({"a": ["x\ny"]}) == "a:\n- |-\n  x\n  y"
    assert yaml_document("x\n") == "|\n  x"
    assert yaml_document({}) == "{}"


def test_long_and_multiline_keys() -> None:
    value = {"k" * 128: 1, "k" * 129: {"b": [1]}, "x\ny": [1, 2]}
    assert to_yaml(value) == (
        f"{'k' * 128}: 1\n? {'k' * 129}\n: b:\n  - 1\n? |-\n  x\n  y\n: - 1\n  - 2\n"
    )


def test_json_indent() -> None:
    value = {"a": [], "b": {}, "c": [1, {"d": []}]}
    assert to_json(value, indent=2) == (
        '{\n  "a": [],\n  "b": {},\n  "c": [\n    1,\n    {\n      "d": []\n    }\n  ]\n}'
    )
    assert to_json(value, indent=0) == '{"a": [], "b": {}, "c": [1, {"d": []}]}'


def test_json_strings() -> None:
    assert to_json('\x00\x08\t\n\x0c\r\x1f\x7f"\\/é\u2028') == (
        '"\\u0000\\b\\t\\n\\f\\r\\u001f\x7f\\"\\\\/é\u2028"'
    )


def test_toml_errors() -> None:
    with pytest.raises(TomlError):
        to_toml([1])
    with pytest.raises(TomlError, match="TOML has no null"):
        to_toml({"a": [None]})
    with pytest.raises(TomlError):
        to_toml({"a": [1, {"b": 1}]})


def test_toml_examples() -> None:
    assert to_toml({"a": {"b": {"c": {"d": 1}}, "e": {"f": 1}}}) == (
        "[a.b.c]\nd = 1\n\n[a.e]\nf = 1\n"
    )
    assert to_toml({"a": 1.0, "b": 1e16, "c": 1e-6, "d": -0.0}) == (
        "a = 1.0\nb = 10000000000000000.0\nc = 0.000001\nd = -0.0\n"
    )


@pytest.mark.parametrize(
    "key",
    [
        *("a0", "name", "yes", "Yes", "NULL", "off", "n", "y1", "nan", "_x", "/p", "a.b-c"),
        *("a b", "1a", "-a", ".a", "a:", "é", "k" * 128, "k" * 129, "true_", "No", "~", ""),
    ],
)
def test_plain_keys_take_the_general_paths_text(key: str) -> None:
    """A key that ``_SIMPLE`` matches is written without the general path; the text
    is the general path's (quoted words such as ``yes`` included)."""
    yaml_writer._KEY_CACHE.clear()
    general = "" if len(key.encode("utf-8")) > 128 else yaml_writer._scalar(key) + ":"
    assert yaml_writer._key_text(key) == general
