"""The emitter test cases, shared by the golden tests and the reference tests.

Every case is Python data plus the KCL program that makes the reference produce
the same data; the expected texts live in ``goldens/*.json`` and come from the
reference (``pytest --update-goldens`` rewrites them).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from kclpy.emit import EmitOptions, stream_documents
from kclpy.values import NumberMultiplier

from .oracle import (
    document_program,
    encode_program,
    schema_instance,
    stream_program,
    yaml_stream_program,
)

INF = float("inf")
NAN = float("nan")


@dataclass(frozen=True)
class EncodeCase:
    """A ``yaml.encode`` / ``yaml.encode_all`` / ``json.encode`` call."""

    id: str
    function: str
    value: Any
    kwargs: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class EmitCase:
    """A whole program output: one document, a stream, or ``manifests.yaml_stream``."""

    id: str
    kind: str  # "document" | "stream" (a bare top-level list) | "yaml_stream"
    data: Any
    options: EmitOptions = field(default_factory=EmitOptions)
    stream_options: Mapping[str, Any] | None = None

    def program(self) -> str:
        if self.kind == "document":
            return document_program(self.data)
        if self.kind == "stream":
            return stream_program(self.data)
        return yaml_stream_program(self.data, self.stream_options)

    def flags(self) -> dict[str, bool]:
        return {
            "sort_keys": self.options.sort_keys,
            "disable_none": self.options.disable_none,
            "show_hidden": self.options.show_hidden,
            "include_schema_type_path": self.options.include_schema_type_path,
        }

    def stream_options_for_render(self) -> dict[str, Any] | None:
        """The ``stream_options`` argument of ``render`` (yaml_stream cases only).

        ``ignore_private`` defaults to True when an options argument is given (even
        ``{}``) and to False without one, as in the reference.
        """
        if self.kind != "yaml_stream":
            return None
        options: dict[str, Any] = {
            "sort_keys": False,
            "ignore_private": self.stream_options is not None,
            "ignore_none": False,
            "sep": "---",
        }
        options.update(self.stream_options or {})
        return options

    def documents(self) -> list[Any]:
        """The documents ``kclpy.emit.render`` receives for this program."""
        if self.kind == "document":
            return [self.data]
        if self.kind == "stream":
            documents = stream_documents(self.data)
            return [self.data] if documents is None else documents
        return list(self.data)


def encode_cases_program(cases: list[EncodeCase]) -> str:
    return encode_program([(case.function, case.value, case.kwargs) for case in cases])


# ---------------------------------------------------------------------------------------
# Strings

WORDS = [
    "yes", "Yes", "YES", "yEs", "no", "NO", "y", "Y", "n", "N", "on", "On", "off", "OFF",
    "true", "True", "TRUE", "tRue", "false", "False", "null", "Null", "NULL", "nil", "NIL",
    "nan", "NaN", "~", "inf", "Inf", ".inf", "-.inf", "infinity", "none", "None", "yess",
    "nul", "=", "<<", "~~", "~a", "e", "e3", "E",
]  # fmt: skip
NUMBERS = [
    "0", "1", "123", "-1", "+1", "1.0", ".5", "1.", "1e3", "1E3", "1e+3", "0x1F", "0o17",
    "0b1", "0xg", "1_000", "1:20", "2001-12-14", "1a", "9z", "1 2", "0abc", "-x", "+x",
    ".a", "..", "-", "--", "v1", "a.1", "a1", "_1", "١", "①",
]  # fmt: skip
INDICATORS = [
    "a: b", "a:b", "a:", "::", ":x", "a #b", "a#b", "#a", "- a", "-a", "? a", "?x", "?",
    ": a", ":", "@a", "`a", "!a", "&a", "*a", "|a", ">a", "'a", '"a', "%a", "[a", "]a",
    "{a", "}a", ",a", "a,b", "a[b]", "a{b}", "---", "...", "--- a", "a'b", 'a"b', "a\\b",
    "http://x.y/z?q=1", "a: ", "x: ", "$", "${x}", "a${b}",
]  # fmt: skip
SPACES = [
    "", " ", " a", "a ", "a  b", "word " * 20, ("word " * 20).strip(), "\xa0", "a\xa0",
    "\xa0a", "a\u3000", "\u3000a",
]  # fmt: skip
CONTROLS = [
    "\t", "a\tb", "\x00", "\x01", "\x07", "\x08", "\x0b", "\x0c", "\r", "a\r\nb", "\x1b",
    "\x1f", "\x7f", "\x80", "\x85", "\x9f", "\ufeff", "\ufffe", "\uffff", "\u2028",
    "a\u2028b", "\u2028a", "a\u2029", "a\u2028\u2028b", "a\u2028 b", "a \u2028b",
    "x" * 200,
]  # fmt: skip
UNICODE = ["é", "日本語", "\U0001f600", "\U0010ffff", "\u200b", "ünì", "a\u00adb"]
MULTILINE = [
    "a\nb", "a\n", "a\n\n", "a\n\n\n", "\n", "\n\n", "\na", " a\nb", "a \nb", "a\n b",
    "a\n\nb", "a\nb ", "\n ", " \n", "a\nb\t", "a\n#b", "a\n- b", "- a\nb", "true\n",
    "1\n", "a\u2028b\nc", "p\nx\u2028y\u2028", "a\n\xa0b", "\xa0a\nb", "a\n\u3000b",
    "  a\nb", "a\n  b", "line1\nline2\nline3\n",
]  # fmt: skip

FLOATS = [
    0.0, -0.0, 1.0, -1.5, 0.1, 0.30000000000000004, 100.0, 1e15, 9999999999999998.0,
    1e16, -1e16, 1.5e16, 1e17, 1.2345678901234568e17, 1e21, 1e22, 1e100, 1e300,
    1.7976931348623157e308, 1e-4, 1e-5, 1.5e-5, 1.234e-05, 9.99e-6, 1e-6, 1e-7, 1.25e-10,
    5e-324, 2.2250738585072014e-308, 12345.678, 123456789.125, 9007199254740993.0,
    9.044889105823875e19, 4.256922217048127e-10, 6.165052567447932e19, INF, -INF, NAN,
]  # fmt: skip

KEYS = {
    "plain": 1, "y": 2, "n": 3, "1": 4, "": 5, " s": 6, "a\tb": 7, "a: b": 8, "é": 9,
    "yes": 10, "-": 11, "x\ny": 12, "k" * 128: 13, "k" * 129: 14, "é" * 64: 15,
    "é" * 65: 16, "a\rb": 17, "a\x85b": 18, "x\u2028y": 19, "q\n": 20, "${k}": 21,
}  # fmt: skip

NESTED = {
    "l": [1, [2, [3, []]], {}, {"a": []}, [{"a": 1, "b": [1]}], None, True, False],
    "d": {"a": {"b": {"c": {}}}, "e": [[["deep"]]], "f": "x\ny"},
    "m": [{"a": 1, "b": {"c": [1, {"d": "x"}]}}, {"x\ny": {"b": [1]}, "z\nw": [], "q\n": [1]}],
    "long": {"k" * 129: {"b": 1, "c": [1, 2]}, "w": {"k" * 130: [1, {"x": 1}]}},
    "units": [NumberMultiplier(1, "Ki"), NumberMultiplier(1, "m"), NumberMultiplier(1, "n")],
    "ints": [0, -1, 9223372036854775807, -9223372036854775808],
}


def _schema_values() -> dict[str, Any]:
    inner = schema_instance("Inner", {"x": 1, "_hidden": "h", "n": None})
    return {
        "p": schema_instance("P", {"name": "a", "_secret": "s", "inner": inner, "tags": []}),
        "ps": [schema_instance("Q", {"a": 1, "_b": 2}), {"plain": inner}],
    }


ENCODE_CASES = [
    EncodeCase("words", "yaml.encode", WORDS),
    EncodeCase("numbers", "yaml.encode", NUMBERS),
    EncodeCase("indicators", "yaml.encode", INDICATORS),
    EncodeCase("spaces", "yaml.encode", SPACES),
    EncodeCase("controls", "yaml.encode", CONTROLS),
    EncodeCase("unicode", "yaml.encode", UNICODE),
    EncodeCase("multiline-list", "yaml.encode", MULTILINE),
    EncodeCase("multiline-dict", "yaml.encode", {f"k{i}": s for i, s in enumerate(MULTILINE)}),
    EncodeCase("multiline-nested", "yaml.encode", {"a": {"b": MULTILINE[:8], "c": [MULTILINE]}}),
    EncodeCase("words-as-keys", "yaml.encode", {word: word for word in WORDS + NUMBERS}),
    EncodeCase("indicator-keys", "yaml.encode", {word: 1 for word in INDICATORS + SPACES}),
    EncodeCase("odd-keys", "yaml.encode", KEYS),
    EncodeCase("odd-keys-nested", "yaml.encode", {"a": [KEYS, {"b": KEYS}]}),
    EncodeCase("floats", "yaml.encode", FLOATS),
    EncodeCase("floats-json", "json.encode", FLOATS),
    EncodeCase("nested", "yaml.encode", NESTED),
    EncodeCase("nested-json", "json.encode", NESTED),
    EncodeCase("nested-json-indent", "json.encode", NESTED, {"indent": 2}),
    EncodeCase("nested-json-indent4", "json.encode", NESTED, {"indent": 4}),
    EncodeCase("nested-json-indent0", "json.encode", NESTED, {"indent": 0}),
    EncodeCase("nested-sorted", "yaml.encode", NESTED, {"sort_keys": True}),
    EncodeCase("strings-json", "json.encode", CONTROLS + UNICODE + MULTILINE + INDICATORS),
    EncodeCase("scalar-string", "yaml.encode", "x"),
    EncodeCase("scalar-literal", "yaml.encode", "x\n\n"),
    EncodeCase("scalar-literal-strip", "yaml.encode", "x\ny"),
    EncodeCase("scalar-int", "yaml.encode", 1),
    EncodeCase("scalar-none", "yaml.encode", None),
    EncodeCase("scalar-float-json", "json.encode", 1e16),
    EncodeCase("empty-dict", "yaml.encode", {}),
    EncodeCase("empty-list", "yaml.encode", []),
    EncodeCase("empty-json", "json.encode", [{}, []], {"indent": 2}),
    EncodeCase("ls-contexts", "yaml.encode", {"a": "x\u2028y", "b": {"c": ["x\u2028y"]}}),
    EncodeCase(
        "filters",
        "yaml.encode",
        [None, {"a": None, "_b": 1, "c": [None, {"_d": None}]}, [None]],
        {"ignore_none": True, "ignore_private": True},
    ),
    EncodeCase(
        "filters-json",
        "json.encode",
        [None, {"a": None, "_b": 1, "c": [None, {"_d": None}]}, [None]],
        {"ignore_none": True, "ignore_private": True, "sort_keys": True},
    ),
    EncodeCase("schemas", "yaml.encode", _schema_values()),
    EncodeCase("schemas-private", "yaml.encode", _schema_values(), {"ignore_private": True}),
    EncodeCase("schemas-json", "json.encode", _schema_values(), {"sort_keys": True}),
    EncodeCase("encode-all", "yaml.encode_all", [{"a": 1}, {"a": "x\n"}, ["y\n"], 1, "s"]),
    EncodeCase("encode-all-empty", "yaml.encode_all", []),
]


# ---------------------------------------------------------------------------------------
# Program output

SORT = EmitOptions(sort_keys=True)
NONE = EmitOptions(disable_none=True)
HIDDEN = EmitOptions(show_hidden=True)
TYPES = EmitOptions(include_schema_type_path=True)
ALL = EmitOptions(
    sort_keys=True, disable_none=True, show_hidden=True, include_schema_type_path=True
)
JSON = EmitOptions(format="json")


def _schemas() -> dict[str, Any]:
    inner = schema_instance("Q", {"x": 1, "_p": 2, "n": None})
    return {
        "p": schema_instance("P", {"name": "a", "_secret": "s", "inner": inner}),
        "l": [schema_instance("P", {"name": "b", "_secret": "t", "inner": None})],
        "d": {"q": inner, "_h": 1, "v": None, "l": [None, 1, [None]], "e": {}, "f": []},
    }


PLAIN_DOCUMENT = {"a": 1, "b": "text", "c": [1, "two", 3.0], "d": {"e": None, "f": True}}
HIDDEN_DOCUMENT = {"a": 1, "_hidden": 2, "d": {"_x": 1, "y": [{"_z": 1, "w": 2}]}}
NONE_DOCUMENT = {"a": None, "b": [None, [None], {"c": None, "d": [None, {"e": None}]}, 1]}

EMIT_CASES = [
    EmitCase("plain", "document", PLAIN_DOCUMENT),
    EmitCase("plain-json", "document", PLAIN_DOCUMENT, JSON),
    EmitCase("empty", "document", {}),
    EmitCase("empty-json", "document", {}, JSON),
    EmitCase("only-hidden", "document", {"_a": 1}),
    EmitCase("hidden", "document", HIDDEN_DOCUMENT),
    EmitCase("hidden-shown", "document", HIDDEN_DOCUMENT, HIDDEN),
    EmitCase("none", "document", NONE_DOCUMENT),
    EmitCase("none-disabled", "document", NONE_DOCUMENT, NONE),
    EmitCase("none-disabled-json", "document", NONE_DOCUMENT, EmitOptions("json", False, True)),
    EmitCase("sorted", "document", {"b": {"z": 1, "y": [{"d": 1, "c": 2}]}, "a": 1}, SORT),
    EmitCase("schemas", "document", _schemas()),
    EmitCase("schemas-types", "document", _schemas(), TYPES),
    EmitCase("schemas-all", "document", _schemas(), ALL),
    EmitCase(
        "schemas-types-json", "document", _schemas(), EmitOptions("json", False, False, False, True)
    ),
    EmitCase("words", "document", {"y": "n", "yes": "1", "on": [True, "off"]}),
    EmitCase("floats", "document", {"f": FLOATS}),
    EmitCase("floats-json", "document", {"f": FLOATS}, JSON),
    EmitCase("units", "document", {"u": [NumberMultiplier(1, "Ki"), NumberMultiplier(2, "Gi")]}),
    # The final newline of a document that ends with a literal block.
    EmitCase("end-literal-map", "document", {"a": "x\ny"}),
    EmitCase("end-literal-map-clip", "document", {"a": "x\n"}),
    EmitCase("end-literal-map-keep", "document", {"a": "x\n\n"}),
    EmitCase("end-literal-map-indent-hint", "document", {"a": "\nx"}),
    EmitCase("end-literal-map-space-line", "document", {"a": "x\n y"}),
    EmitCase("end-literal-map-nbsp-line", "document", {"a": "x\n\xa0y"}),
    EmitCase("end-literal-map-nbsp-first", "document", {"a": "\xa0x\ny"}),
    EmitCase("end-literal-seq", "document", {"a": ["x\ny"]}),
    EmitCase("end-literal-seq-map", "document", {"a": [{"b": "x\ny"}]}),
    EmitCase("end-literal-map-seq", "document", {"a": {"b": ["x\ny"]}}),
    EmitCase("end-literal-deep", "document", {"a": {"b": {"c": [{"d": "x\n\ny"}]}}}),
    EmitCase("end-literal-colon-line", "document", {"a": ["x: |\n y"]}),
    EmitCase("end-literal-ls", "document", {"a": "x\ny\u2028"}),
    EmitCase("end-literal-not-last", "document", {"a": "x\ny", "b": 1}),
    EmitCase("end-literal-complex-key", "document", {"a": {"x\ny": "p\nq"}}),
    # Streams from a bare top-level list of configs.
    EmitCase("stream", "stream", [{"a": 1}, {"b": 2}]),
    EmitCase("stream-json", "stream", [{"a": 1}, {"b": 2}], JSON),
    EmitCase("stream-empty-doc", "stream", [{"a": 1}, {}]),
    EmitCase("stream-literals", "stream", [{"a": "x\n"}, {"a": "x\n"}]),
    EmitCase("stream-literals-seq", "stream", [{"a": ["x\n"]}, {"a": ["x\n"]}]),
    EmitCase("stream-empty", "stream", []),
    EmitCase("stream-empty-json", "stream", [], JSON),
    EmitCase(
        "stream-options",
        "stream",
        [{"a": None, "_b": 1, "c": {"z": 1, "y": 2}}, {"x": None}],
        EmitOptions(sort_keys=True, disable_none=True),
    ),
    EmitCase(
        "stream-schemas-types",
        "stream",
        [
            schema_instance("P", {"a": 1, "q": schema_instance("R", {"a": 2})}),
            {"p": schema_instance("R", {"a": 3})},
        ],
        TYPES,
    ),
    # A bare top-level list that is not a stream is one document, planned only partly.
    EmitCase("root-list", "stream", [{"a": 1}, None]),
    EmitCase("root-list-none", "stream", [{"a": 1}, None], NONE),
    EmitCase(
        "root-list-raw",
        "stream",
        [[{"a": None, "_h": 1, "z": 1, "b": 1}, None], 1, {"_x": 1, "n": None, "l": [None]}],
        EmitOptions(sort_keys=True, disable_none=True),
    ),
    EmitCase(
        "root-list-types",
        "stream",
        [
            schema_instance("P", {"a": 1, "q": schema_instance("R", {"a": 2})}),
            1,
            [schema_instance("R", {"a": 3})],
        ],
        TYPES,
    ),
    EmitCase("root-list-scalars", "stream", [1, "a", None, 1.5]),
    EmitCase("root-list-scalars-json", "stream", [1, "a", None, 1.5], JSON),
    # yaml_stream replaces the output.
    EmitCase("yaml-stream", "yaml_stream", ["x\n", ["y\n"], {"a": "z\n"}, 1, "s", None, [], {}]),
    EmitCase("yaml-stream-json", "yaml_stream", [{"a": "z\n"}, 1, "s", {}], JSON),
    EmitCase("yaml-stream-json-scalars", "yaml_stream", [1, 2], JSON),
    EmitCase("yaml-stream-json-one", "yaml_stream", [2], JSON),
    EmitCase("yaml-stream-json-one-list", "yaml_stream", [[{"a": 1}, 2, {"b": 1}]], JSON),
    EmitCase("yaml-stream-empty", "yaml_stream", []),
    EmitCase("yaml-stream-no-options", "yaml_stream", [{"a": 1, "_b": 2, "c": {"_d": 1}}]),
    EmitCase(
        "yaml-stream-empty-options",
        "yaml_stream",
        [{"a": 1, "_b": 2, "c": {"_d": 1}}],
        stream_options={},
    ),
    EmitCase(
        "yaml-stream-run-options-ignored",
        "yaml_stream",
        [{"a": 1, "_b": 2, "c": None, "d": [None]}, {"b": 2, "a": 1}],
        ALL,
    ),
    EmitCase(
        "yaml-stream-options",
        "yaml_stream",
        [{"a": 1, "_b": 2, "c": None, "d": [None]}, {"b": 2, "a": 1}],
        stream_options={"sort_keys": True, "ignore_private": True, "ignore_none": True},
    ),
    EmitCase(
        "yaml-stream-options-json",
        "yaml_stream",
        [{"a": 1, "_b": 2, "c": None, "d": [None]}, {"b": 2, "a": 1}],
        JSON,
        stream_options={"sort_keys": True, "ignore_private": True, "ignore_none": True},
    ),
    EmitCase("yaml-stream-json-empty", "yaml_stream", [], JSON),
    EmitCase(
        "yaml-stream-json-nested-lists",
        "yaml_stream",
        [["", [{"a": 1}, {}], 1], {"_h": 1}],
        JSON,
        stream_options={},
    ),
    EmitCase(
        "yaml-stream-json-read-back",
        "yaml_stream",
        [{"a": INF, "b": [INF], "c": 9.044889105823875e19}, {"d": ["x\n"]}],
        JSON,
        stream_options={"ignore_none": True},
    ),
    EmitCase(
        "yaml-stream-sep",
        "yaml_stream",
        [{"a": "z\n"}, {"a": "z\n"}],
        stream_options={"sep": "\n---\n"},
    ),
    EmitCase(
        "yaml-stream-sep-comment",
        "yaml_stream",
        [{"a": 1}, {"b": 2}],
        stream_options={"sep": "--- # x"},
    ),
]


# ---------------------------------------------------------------------------------------
# TOML (the reference's GenerateToml: its YAML output read back and written as TOML)

TOML = EmitOptions(format="toml")
TOML_CASES = [
    EmitCase("toml-plain", "document", {"a": 1, "b": "x", "c": [1, 2], "d": True}, TOML),
    EmitCase(
        "toml-order",
        "document",
        {"t": {"x": 1}, "a": 1, "l": [{"x": 1}, {"y": 2}], "z": 2, "e": [], "s": "m\nl"},
        TOML,
    ),
    EmitCase(
        "toml-nesting",
        "document",
        {
            "x": 1,
            "t": {"a": {"b": {"c": 1}, "d": 2}, "e": [{"f": {"g": 1}}], "h": 3},
            "u": {"v": {"w": {"z": 1}}},
        },
        TOML,
    ),
    EmitCase(
        "toml-tables-in-arrays",
        "document",
        {"l": [{"a": 1, "b": [{"c": 1}], "d": {"e": 1}}, {"z": 1}], "m": [{}, {}]},
        TOML,
    ),
    EmitCase(
        "toml-keys",
        "document",
        {"k": {"a b": 1, "é": 2, "a.b": 3, "": 4, "A-Z_09": 5, "a'b": 6, 'a"b': 7, "a\nb": 8}},
        TOML,
    ),
    EmitCase(
        "toml-strings",
        "document",
        {"s": ["x", "it's", 'q"q', "t\tx", "nl\nx", "é😀", "\x01", "\x7f", "b\\s", "\u2028"]},
        TOML,
    ),
    EmitCase(
        "toml-floats", "document", {"f": [f for f in FLOATS if f == f and abs(f) != INF]}, TOML
    ),
    EmitCase("toml-none", "document", {"n": None, "m": {"x": None, "y": 1}, "e": {}}, TOML),
    EmitCase("toml-none-in-array", "document", {"n": [None, 1]}, TOML),
    EmitCase(
        "toml-sorted",
        "document",
        {"b": 1, "a": 2, "c": {"z": 1, "y": {"x": 1}}},
        EmitOptions("toml", True),
    ),
    EmitCase("toml-hidden", "document", {"a": 1, "_b": 2, "c": {"_d": 1}}, TOML),
    EmitCase("toml-stream", "stream", [{"a": 1}, {"b": 2}], TOML),
    # TOML reads the YAML text back, after its final newline was cut.
    EmitCase("toml-last-literal-seq", "document", {"a": ["x\n"]}, TOML),
    EmitCase("toml-last-literal-hint", "document", {"a": "\nx\n"}, TOML),
    EmitCase("toml-last-literal-map", "document", {"a": "x\n"}, TOML),
    EmitCase("toml-last-literal-nested", "document", {"a": {"b": "x\n\n", "c": " y\n"}}, TOML),
]
