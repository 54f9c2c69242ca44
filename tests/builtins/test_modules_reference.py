"""Differential tests of the system modules against the reference KCL (kcl-lib).

Every case is a KCL expression and the equivalent direct call of our module function.
The reference evaluates all the cases of one module in ONE subprocess (a program per
case, JSON results); the test then compares value, ``typeof`` and error message with
ours. Skipped when ``kcl_lib`` cannot be imported.

Cases where kclpy deliberately differs (docs/differences-modules.md) are not here;
they are pinned in test_modules.py.
"""

from __future__ import annotations

import importlib.util
import math
import os
import shutil
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from reference import call_reference

from kclpy.values import UNDEFINED, UndefinedType
from kclpy.values.errors import KclRuntimeError
from kclpy.vm.builtins.registry import implementations
from kclpy.vm.fs_policy import DEFAULT_POLICY
from tests.builtins.calling import call_member

pytestmark = pytest.mark.skipif(
    importlib.util.find_spec("kcl_lib") is None, reason="the reference (kcl_lib) is not installed"
)

MODULES = [
    "base64",
    "base32",
    "json",
    "yaml",
    "math",
    "regex",
    "datetime",
    "net",
    "units",
    "crypto",
    "file",
    "template",
    "runtime",
]


class FakeContext:
    """A stand-in BuiltinContext for calling module functions directly."""

    def __init__(self, folder: str) -> None:
        self.current_file = os.path.join(folder, "main.k")
        self.root = folder
        self.workdir = ""
        self.fs_policy = DEFAULT_POLICY
        self.options: dict[str, Any] = {}
        self.output: list[str] = []
        self.stream: tuple[list[Any], dict[str, Any]] | None = None

    def write_output(self, text: str) -> None:
        self.output.append(text)

    def set_output_stream(self, values: list[Any], options: dict[str, Any]) -> None:
        self.stream = (values, options)

    def call(self, function: Any, args: list[Any], kwargs: dict[str, Any]) -> Any:
        return function(*args, **kwargs)

    def warn(self, message: str) -> None:
        self.output.append(message)


@dataclass
class Case:
    kcl: str
    call: Callable[[FakeContext], Any]
    loose_error: bool = False  # only check that both fail
    id: str = field(default="")


# ---------------------------------------------------------------------------------------
# Building cases


def kcl_literal(value: Any) -> str:
    """A Python value as KCL source."""
    if value is UNDEFINED:
        return "Undefined"
    if value is None:
        return "None"
    if value is True:
        return "True"
    if value is False:
        return "False"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return repr(value)
    if isinstance(value, str):
        out = []
        for index, char in enumerate(value):
            if char == "\\":
                out.append("\\\\")
            elif char == '"':
                out.append('\\"')
            elif char == "\n":
                out.append("\\n")
            elif char == "\t":
                out.append("\\t")
            elif char == "\r":
                out.append("\\r")
            elif char == "$" and value[index + 1 : index + 2] == "{":
                out.append("\\$")
            elif ord(char) < 0x20 or ord(char) == 0x7F:
                out.append(f"\\u{ord(char):04x}")
            else:
                out.append(char)
        return '"' + "".join(out) + '"'
    if isinstance(value, list):
        return "[" + ", ".join(kcl_literal(item) for item in value) + "]"
    if isinstance(value, dict):
        return (
            "{" + ", ".join(f"{kcl_literal(k)}: {kcl_literal(v)}" for k, v in value.items()) + "}"
        )
    raise TypeError(value)


def invoke(
    module: str, member: str, args: tuple[Any, ...], kwargs: dict[str, Any], ctx: Any
) -> Any:
    return call_member(module, member, ctx, args, kwargs)


def C(module: str, member: str, *args: Any, loose: bool = False, **kwargs: Any) -> Case:
    """A case calling ``module.member(*args, **kwargs)`` on both sides."""
    parts = [kcl_literal(arg) for arg in args]
    parts += [f"{key}={kcl_literal(value)}" for key, value in kwargs.items()]
    kcl = f"{module}.{member}({', '.join(parts)})"
    return Case(kcl, lambda ctx: invoke(module, member, args, kwargs, ctx), loose, kcl)


def K(kcl: str, call: Callable[[FakeContext], Any], loose: bool = False) -> Case:
    """A case with a hand-written KCL expression and Python equivalent."""
    return Case(kcl, call, loose, kcl)


def M(module: str) -> dict[str, Any]:
    members = implementations(module)
    assert members is not None
    return members


# ---------------------------------------------------------------------------------------
# The cases

LONG = "a" * 3000

CASES: dict[str, list[Case]] = {
    "base64": [
        C("base64", "encode", "hello"),
        C("base64", "encode", "héllo"),
        C("base64", "encode", ""),
        C("base64", "encode", "hello", "utf-8"),
        C("base64", "encode", "x", encoding="GBK"),
        *[
            C("base64", "decode", text)
            for text in [
                "aGVsbG8=",
                "aGVsbG8",
                "",
                "aGk",
                "aGVsbA",
                "aQ",
                "aMOpbGxv",
                "!!!",
                "aGVsbG8==",
                "aGVsbG8=x",
                "aGV sbG8=",
                "a",
                "aGVsbG-_",
                "aGVsbB",
                "aG=k",
                "aGk==",
                "aR",
                "aGVsbG8=aGk=",
                "aGk=\n",
                "/w==",
                "a===",
                "aGk=====",
                "AAAAAAAAAAA=",
                "aGVsbG8gd29ybGQgaGVsbG8gd29ybGQ=",
                "aGVsbG8gd29ybGQgaGVsbG8gd29ybGQ",
                "4pyTIMOg",
            ]
        ],
    ],
    "base32": [
        C("base32", "encode", "hello"),
        C("base32", "encode", "a"),
        C("base32", "encode", "héllo"),
        C("base32", "encode", ""),
        *[
            C("base32", "decode", text)
            for text in [
                "NBSWY3DP",
                "nbswy3dp",
                "NBSWY3DP======",
                "NB",
                "N",
                "ME=====",
                "ME======",
                "M=E",
                "M=======",
                "ME=======",
                "=",
                "MFRGG===",
                "MF=GG===",
                "MFRGGZDFMZTWQ2LK",
                "",
                "xyz",
                "74======",
                "0",
                "1",
                "8",
                "@",
                "NBSWY3DP\n",
                "ÿ",
                "/w==",
                "NBSWY3D",
            ]
        ],
    ],
    "json": [
        C("json", "encode", {"a": 1, "b": "x", "c": [1, 2.0], "d": None, "e": True}),
        C("json", "encode", {"a": 1, "b": {"c": 2}}, indent=2),
        C("json", "encode", {"b": 1, "a": 2}, sort_keys=True),
        C("json", "encode", {"_a": 1, "b": None}, ignore_private=True, ignore_none=True),
        C("json", "encode", {"a": [1, {"b": 2}]}, indent=2),
        C("json", "encode", 'héllo\n"q"'),
        C("json", "encode", [1, UNDEFINED, 2]),
        C("json", "encode", 1e20),
        C("json", "encode", None),
        *[
            C("json", "decode", text)
            for text in [
                '{"a": 1, "b": [1, 2.0, "x", null, true]}',
                "1.0",
                "1e3",
                '"x"',
                "null",
                "12345678901234567890",
                "-0",
                "-0.0",
                '{"b": 1, "a": 2}',
                '{"a": 1, "a": 2}',
                '{"a": 1, "b": 2, "a": 3}',
                "9223372036854775807",
                "9223372036854775808",
                "-9223372036854775808",
                "-9223372036854775809",
                "  1  ",
                '"\\u00e9"',
                '"\\ud83d\\ude00"',
                "1.5E+2",
                "0.1",
                "[1e2]",
                "9.044889105823875e19",
                "18446744073709551619.0",
                "123456789012345678901234567890",
                "0.1234567890123456789012345",
                "1.0000000000000000000000001e-25",
                "1e-400",
                "0e999999999999",
                '"\\t\\/\\b\\f\\r\\n\\\\"',
                "[1, 2,]",
                "{a: 1}",
                "",
                "1 2",
                "NaN",
                '"\\ud800"',
                "1e400",
                "01",
                "1.",
                "-",
                "[1 2]",
                '{"a" 1}',
                '{"a": 1 "b": 2}',
                "tru",
                "trux",
                '"abc',
                '"a\\x"',
                '"a\tb"',
                "[",
                "{",
                '{"a":',
                '{"a":1,}',
                "\n\n  x",
                '"é" x',
                '"\\udc00"',
                "[" * 128 + "]" * 128,
                '{"a":' * 128 + "1" + "}" * 128,
                "[1,",
                "[1",
                '{"a":1',
                '{"a":1,',
                '{"a"',
                '{"a":1,2}',
                "{,}",
                "[,]",
                "\ufeff1",
                '"\\ud83d"',
                '"\\ud83d\\u0041"',
                '"\\ud83dx"',
                '"\\u12"',
                '"\\u12G4"',
                "1e",
                "1e+",
                "1.e5",
                "-a",
                ".5",
                "+1",
                "[1]x",
                "nul",
                "nulx",
                "1E400",
                "-1E400",
                "n\n",
                "-\n4",
                "[1\n,]",
                "{\n}x",
                "[1,\n\n",
            ]
        ],
        *[C("json", "validate", text) for text in ['{"a": 1}', "{a: 1}", "", "1", "[1,]"]],
        *[
            K(
                f"len(json.decode({kcl_literal(text)}))",
                lambda ctx, text=text: len(M("json")["decode"](text)),
            )
            for text in ("[" * 127 + "]" * 127, "[" * 100 + "]" * 100)
        ],
        C("json", "merge", {"a": 1, "b": {"c": 2, "d": 3}}, {"b": {"c": None, "e": 4}, "f": 5}),
        C("json", "merge", {"a": 1}, None),
        C("json", "merge", {"a": 1}, [1]),
        C("json", "merge", 1, {"a": None, "b": 1}),
        C("json", "merge", [1], {"a": {"b": None}}),
        C("json", "merge", {"a": [1]}, {"a": {"b": 1}}),
        C("json", "merge", {"a": 1}, {"a": UNDEFINED}),
        C("json", "dump_to_file", {"a": 1}, "nodir/x.json"),
        C("json", "dump_to_file", {"a": 1}, ""),
        C("json", "encode", {"a": 1}, indent=None),
        K(
            '[json.dump_to_file({a = 1, b = [1]}, "o.json"), file.read("o.json")]',
            lambda ctx: [
                M("json")["dump_to_file"](ctx, {"a": 1, "b": [1]}, "o.json"),
                M("file")["read"](ctx, "o.json"),
            ],
        ),
        K(
            '[json.dump_to_file({b = 1, a = [1]}, "i.json", indent=2, sort_keys=True), '
            'file.read("i.json")]',
            lambda ctx: [
                M("json")["dump_to_file"](
                    ctx, {"b": 1, "a": [1]}, "i.json", indent=2, sort_keys=True
                ),
                M("file")["read"](ctx, "i.json"),
            ],
        ),
    ],
    "yaml": [
        C("yaml", "encode", {"a": 1, "b": [1, 2], "c": {"d": "yes"}}),
        C(
            "yaml",
            "encode",
            {"b": 1, "_a": 2, "c": None},
            sort_keys=True,
            ignore_private=True,
            ignore_none=True,
        ),
        C("yaml", "encode", "x"),
        C("yaml", "encode", None),
        C("yaml", "encode", []),
        C("yaml", "encode_all", [{"a": 1}, {"b": 2}]),
        C("yaml", "encode_all", [1, "x", [1]]),
        C("yaml", "encode_all", []),
        C("yaml", "encode_all", [{"b": 1, "a": 2}], sort_keys=True),
        *[
            C("yaml", "decode", text)
            for text in [
                "a: 1\nb: yes\nc: 0x10\nd: 1.5\ne: ~\nf: [1, 2]\ng: {x: y}\nh: true\ni: True\n"
                "j: 0o17\nk: 017\nl: 1e3\nm: .inf\nn: .nan\no: 1_000\np: +1\nq: -0\nr: null\n"
                "s: Null\nt: NULL\nu: off\nv: 2020-01-01\nw: '1'\n",
                "a: &x {b: 1}\nc:\n  <<: *x\n  d: 2\n",
                "- 1\n- 2\n",
                "",
                "x",
                "a: 1\n---\nb: 2\n",
                "a: [1\n",
                "a: 1\n a: 2",
                "a: 1\na: 2\n",
                "? [1, 2]\n: x\n",
                "1: a\ntrue: b\n1.5: c\n",
                "a: !!str 1\nb: !!int '2'\n",
                "a: !custom x\n",
                "a: |\n  x\n  y\n",
                "a: 9223372036854775808\n",
                "a: 0b101\n",
                "a: -.inf\n",
                "a: 1.\n",
                "a: .5\n",
                "a: +.5\n",
                "a: 0x1F\n",
                "a: -0x10\n",
                "a: 1e\n",
                "a: TRUE\n",
                "a: tRue\n",
                "a: 12:30\n",
                "\n!!int x",
                "a:\n  b:\n  - 1\n  - !foo x\n",
                "- !foo x\n",
                "- a: !foo x\n",
                "a:\n  - b: !!int q\n",
                "!foo x",
                "a: !foo {b: 1}\n",
                "a: !!int\n",
                "a: !!float x\n",
                "a: !!bool yes\n",
                "a: !!int 0x10\n",
                "a: !!str [1]\n",
                "a: !<tag:yaml.org,2002:int> '7'\n",
                "{[1]: 2}",
                "{{a: 1}: 2}",
                "{~: 1, 0x10: 2, 1.0: 3, '1': 4, yes: 5, 017: 6, !!int 9: 7}",
                "{? a}",
                "a: *x",
                "a: &x 1\nb: *x\n",
                "a: &x [1, *x]\n",
                'a: "\\x41\\u00e9"\n',
                "'x",
                "a: b: c",
                "\t- x",
                "a:\n\t- x",
                "- a\nb: 1",
                "a: 'x",
                'a: "x\n',
                "[1",
                "a: {b",
                "a: &x 1\nb: &x 2\nc: *x\n",
                "%YAML 1.1\n---\na: yes\n",
                "a: 1\n...\n",
                "---\na: 1\n--- \n",
                "a: [1, 2,]\n",
                "a: 'x''y'\n",
                "a: >\n  x\n  y\n",
                "a:\n",
                "a: -\n",
                "a: inf\n",
                "a: nan\n",
                "a: .NaN\n",
                "a: 0X10\n",
                "a: 00\n",
                "a: -01\n",
                "a: 01.5\n",
                "a: +0x10\n",
                "a: 0xFFFFFFFFFFFFFFFF\n",
                "a: 1_0.5\n",
                "a: 18446744073709551616\n",
                "a: -9223372036854775809\n",
                "a: 1e400\n",
                "a: +.nan\n",
                "a: -.nan\n",
                "a: 0x10000000000000000\n",
                "a: 0x1000000000000000000000000000000000\n",
                "a: 100000000000000000000000000000000000000000\n",
                "a: 0e1\n",
                "a: 01e1\n",
                "a: +-1\n",
                "a: 0x-1\n",
                "a: -0b11\n",
                "a: 0o\n",
                "a: ++1\n",
                "a: Infinity\n",
                "a: !!float 0x10\n",
                "a: !!float '1.5'\n",
                "a: !!null\n",
                "a: !!null ~\n",
                "a: !!bool 'True'\n",
                "a: ! 12\n",
                "a: !!int [1]\n",
                "a: !<tag:example.com,2000:x> 1\n",
                "a: !!str ~\n",
                "a: !!int 017\n",
                "a: !!int 18446744073709551616\n",
                "a: !!foo 1\n",
                "a: 5e-324\n",
                "a: 1e-400\n",
                "a: !!binary aGk=\n",
                "a: !!set {x}\n",
                "a: !!null ''\n",
                "!!int x",
                "a: 1\n---\n[1",
                "? \n: x\n",
                "!foo k: 1\n",
                "&k a: 1\n*k : 2\n",
                "a: 1\n---\nb: !foo x\n",
                "--- |\n  x\n",
                'a: "\\ud800"',
                "   ",
                "...",
                "\ufeffa: 1",
                "a: 9.044889105823875e19\n",
                "a: {b: {[1]: 2}}\n",
                "a: \x01",
                "[" * 129 + "]" * 129,
                "[" * 200 + "]" * 200,
                "a:\n" + "".join(" " * (i + 1) + "a:\n" for i in range(130)),
            ]
        ],
        *[
            K(
                f"len(yaml.decode({kcl_literal(text)}))",
                lambda ctx, text=text: len(M("yaml")["decode"](text)),
            )
            for text in (
                "[" * 127 + "]" * 127,
                "[" * 128 + "]" * 128,
                "- " * 128 + "1",
                "{a: " * 128 + "1" + "}" * 128,
                "{a: " * 127 + "[1, '\"x{']" + "}" * 127,
            )
        ],
        *[
            C("yaml", "decode_all", text)
            for text in [
                "a: 1\n---\nb: 2\n",
                "",
                "---\n",
                "a: 1\n---\n- x\n---\nfoo\n",
                "a: 1\n---\nb: [1\n",
                "a: 1\n---\nb: !foo x\n",
                "a: 1\n...\n---\nb: 2\n...\n",
                "a\n---\n",
            ]
        ],
        *[
            C("yaml", "validate", text)
            for text in [
                "a: 1",
                "a: [1",
                "a: 1\n---\nb: 2",
                "",
                "a: !custom x",
                "? [1]\n: 2",
                "a: 1\n---\nb: !foo x\n",
            ]
        ],
        C("yaml", "dump_to_file", {"a": 1}, "nodir/x.yaml"),
        C("yaml", "dump_all_to_file", [{"a": 1}], "nodir/x.yaml"),
        C("yaml", "encode_all", None),
        K(
            '[yaml.dump_to_file({a = 1, b = [1]}, "o.yaml"), file.read("o.yaml")]',
            lambda ctx: [
                M("yaml")["dump_to_file"](ctx, {"a": 1, "b": [1]}, "o.yaml"),
                M("file")["read"](ctx, "o.yaml"),
            ],
        ),
        K(
            '[yaml.dump_all_to_file([{a = 1}, {b = 2}], "all.yaml"), file.read("all.yaml")]',
            lambda ctx: [
                M("yaml")["dump_all_to_file"](ctx, [{"a": 1}, {"b": 2}], "all.yaml"),
                M("file")["read"](ctx, "all.yaml"),
            ],
        ),
    ],
    "math": [
        *[
            C("math", name, value)
            for name in ("ceil", "floor")
            for value in (1.2, -1.2, 3, 1.7, -1.7)
        ],
        *[
            C("math", "factorial", value)
            for value in (5, 0, 5.0, -1, 21, 20, 20.0, 5.5, 171.0, True)
        ],
        *[C("math", "gcd", a, b) for a, b in ((12, 18), (0, 0), (-12, 18), (7, 0))],
        *[C("math", name, value) for name in ("isfinite", "isinf", "isnan") for value in (1, 1.5)],
        *[C("math", "modf", value) for value in (3.25, -3.25, 3, 1e20)],
        *[
            C("math", name, value)
            for name in ("exp", "expm1", "sqrt", "log10")
            for value in (0, 1, 2, 1.5, 4, 16.0, -1, 1000)
        ],
        *[
            C("math", "log", x, base)
            for x, base in (
                (8.0, 2.0),
                (100.0, 10.0),
                (1000.0, 10.0),
                (100.0, 0.5),
                (2.718281828459045, 2.718281828459045),
            )
        ],
        *[C("math", "log", x) for x in (8.0, 2.718281828459045, 1.0)],
        *[C("math", "log2", x) for x in (8.0, 10.0)],
        *[
            C("math", "pow", x, y)
            for x, y in (
                (2, 3),
                (2, -1),
                (2.0, 3),
                (2, 0.5),
                (0, 0),
                (-8, 1.0 / 3),
                (2.0, -1),
                (-2, 3),
                (-2, -3),
                (0, -1),
            )
        ],
        K("math.isinf(math.exp(1000))", lambda ctx: M("math")["isinf"](M("math")["exp"](1000))),
        K("math.isnan(math.sqrt(-1))", lambda ctx: M("math")["isnan"](M("math")["sqrt"](-1))),
        K("math.modf(math.exp(1000))", lambda ctx: M("math")["modf"](M("math")["exp"](1000))),
        K(
            "math.isfinite(math.exp(1000))",
            lambda ctx: M("math")["isfinite"](M("math")["exp"](1000)),
        ),
    ],
    "regex": [
        *[
            C("regex", "match", s, p)
            for s, p in (
                ("123abc", "[a-z]+"),
                ("123", "[a-z]+"),
                ("abc", "^[a-z]+$"),
                ("aé", "\\w+$"),
                ("é", "^\\w$"),
                ("A", "(?i)a"),
                ("a\nb", "^b$"),
                ("a\nb", "(?m)^b$"),
                ("ab", "\\Aab\\z"),
                ("a\n", "a$"),
                ("ab", "a(?i)B"),
                ("aB", "a(?i)b"),
                ("x", "\\x{78}"),
                ("aa", "(?<n>a)\\k<n>"),
                ("aa", "(?P<n>a)(?P=n)"),
                ("a", "\\u0061"),
                ("a", "(?>a)"),
                ("aa", "a++"),
                ("x", "\\p{L}"),
                ("ab", "(?x) a b"),
                ("a.b", "a\\.b"),
                ("a\nb", "a.b"),
                ("a\nb", "(?s)a.b"),
                ("word", "\\bword\\b"),
                ("x", "[[:alpha:]]"),
                ("-", "[a-]"),
                ("1", "[[:^digit:]x]"),
                ("B", "[a-c[A-C]]"),
                ("é", "\\p{Ll}"),
                ("É", "\\p{Lowercase_Letter}"),
                ("a1", "(?i:A)\\d"),
                ("ab\ncd", "(?m)b$"),
                ("ab\ncd", "b$"),
                ("x", "a|(?i)X"),
                ("ab", "(a)(?:b)"),
                ("x", "[a-z"),
                ("x", "("),
                ("x", ")"),
                ("x", "*"),
                ("x", "\\q"),
                ("x", "(?z)"),
                ("x", "(?<=a+)b"),
                ("x", "\\k<n>"),
                ("x", "a{"),
            )
        ],
        C("regex", "search", "123abc", "[a-z]+"),
        *[
            C("regex", "findall", s, p)
            for s, p in (
                ("a1b22c333", "\\d+"),
                ("a1b22c333", "([a-z])(\\d+)"),
                ("a1b22c333", "[a-z](\\d+)"),
                ("ab", "x"),
                ("1 ٣", "\\d"),
                ("aaa", "a*"),
                ("abc", ""),
                ("abab", "(?<x>a)b"),
                ("a1", "(?:[a-z])(\\d)"),
                ("a1b2", "([a-z])(\\d)?"),
                ("ab12", "(?P<l>[a-z])"),
                ("aaa", "a*?"),
                ("a\nb\nc", "(?m)^\\w$"),
            )
        ],
        *[
            C("regex", "replace", s, p, r, *extra)
            for s, p, r, *extra in (
                ("a1b2c3", "\\d", "X"),
                ("a1b2c3", "\\d", "X", 2),
                ("a1b2c3", "([a-z])(\\d)", "$2$1"),
                ("a1b2c3", "([a-z])(\\d)", "${2}x"),
                ("a1b2c3", "(?P<l>[a-z])(\\d)", "$l"),
                ("a1b2c3", "(?P<l>[a-z])(\\d)", "${l}!"),
                ("a1", "(\\d)", "\\1"),
                ("a1", "(\\d)", "$$"),
                ("a1", "(\\d)", "$1a"),
                ("a1", "(\\d)", "$9"),
                ("a1b2", "([a-z])(\\d)", "$0"),
                ("a1b2", "([a-z])(\\d)", "$"),
                ("a1b2", "([a-z])(\\d)", "a$ b"),
                ("a1b2", "\\d", "X", -1),
                ("aaa", "", "-"),
                ("abc", "b", "x", 0),
            )
        ],
        *[
            C("regex", "split", s, p, *extra)
            for s, p, *extra in (
                ("a,b,,c", ","),
                ("a1b2c", "\\d", 0),
                ("a1b2c", "\\d", -1),
                ("a,b", "(,)"),
                ("", ","),
                ("a,b,c", ",", 3),
                ("a,b,c", ",", 4),
            )
        ],
        *[
            C("regex", "compile", p)
            for p in (
                "[a-z",
                "(?<x>a)",
                "(?P<x>a)",
                "(?=a)",
                "(a)\\1",
                "\\p{Greek}x[",
                "a)",
                "ok",
            )
        ],
    ],
    "datetime": [
        *[
            C("datetime", "validate", d, f)
            for d, f in (
                ("2024-01-15", "%Y-%m-%d"),
                ("2024-13-15", "%Y-%m-%d"),
                ("2024-02-30", "%Y-%m-%d"),
                ("2024-01-15 10:00", "%Y-%m-%d"),
                ("2024-01-15", "%Y-%m-%d %H"),
                ("10:00", "%H:%M"),
                ("2024", "%Y"),
                ("Jan 5 2024", "%b %d %Y"),
                ("2024-1-5", "%Y-%m-%d"),
                (" 2024-01-05", "%Y-%m-%d"),
                ("2024-01-05", " %Y-%m-%d"),
                ("x", "%Q"),
                ("2024-01-05T10:00:00Z", "%Y-%m-%dT%H:%M:%SZ"),
                ("2024-01-05T10:00:00+01:00", "%Y-%m-%dT%H:%M:%S%z"),
                ("2024-01-05T10:00:00+01:00", "%+"),
                ("2024-01", "%Y-%m"),
                ("01-05", "%m-%d"),
                ("05", "%d"),
                ("10", "%H"),
                ("10:00:61", "%H:%M:%S"),
                ("10:00:60", "%H:%M:%S"),
                ("24:00", "%H:%M"),
                ("2024-005", "%Y-%j"),
                ("1700000000", "%s"),
                ("2024-01-05 10", "%Y-%m-%d %H"),
                ("2024-01-05 3PM", "%Y-%m-%d %I%p"),
                ("3PM", "%I%p"),
                ("2024-01-05 Fri", "%Y-%m-%d %a"),
                ("2024-01-05 Mon", "%Y-%m-%d %a"),
                ("24-01-05", "%y-%m-%d"),
                ("2024-01-05", "%F"),
                ("10:00:00", "%T"),
                ("2024-01-05x", "%Y-%m-%d"),
                ("2024-01-05", "%Y-%m-%d "),
                ("2024 -01-05", "%Y-%m-%d"),
                ("2024-01-05", "%Y-%m-%d%%"),
                ("+2024-01-05", "%Y-%m-%d"),
                ("12024-01-05", "%Y-%m-%d"),
                ("January 5 2024", "%B %d %Y"),
                ("january 5 2024", "%B %d %Y"),
                ("2024-01-05 10:00:00.123", "%Y-%m-%d %H:%M:%S%.f"),
                ("2024-01-05", ""),
                ("", ""),
                ("2024-02-30 10:00", "%Y-%m-%d %H:%M"),
                ("2024-13-01 10:00", "%Y-%m-%d %H:%M"),
                ("2024-01-05 25:00", "%Y-%m-%d %H:%M"),
                ("2024-01-05 10:00 Mon", "%Y-%m-%d %H:%M %a"),
                ("JAN 5 2024", "%b %d %Y"),
                ("January 5 2024", "%b %d %Y"),
                ("Jan 5 2024", "%B %d %Y"),
                ("Janu 5 2024", "%B %d %Y"),
                ("10:00 PM", "%I:%M %p"),
                ("10:00 pm", "%I:%M %P"),
                ("13:00 PM", "%I:%M %p"),
                ("10:00", "%I:%M"),
                ("2024-01-05 10:00 +0100", "%Y-%m-%d %H:%M %z"),
                ("2024-01-05 10:00 +01:00", "%Y-%m-%d %H:%M %z"),
                ("2024-01-05 10:00 UTC", "%Y-%m-%d %H:%M %Z"),
                ("05/01/24", "%D"),
                ("2024-01- 5", "%Y-%m-%e"),
                ("2024- 1-05", "%Y-%m-%d"),
                ("2024-01-05 10:00:00.5", "%Y-%m-%d %H:%M:%S%.3f"),
                ("2024-01-05 10:00:00.500", "%Y-%m-%d %H:%M:%S%.3f"),
                ("2024-01-05 10:00:00.123456789", "%Y-%m-%d %H:%M:%S.%f"),
                ("2024 5", "%Y %j"),
                ("2024 367", "%Y %j"),
                ("2023 366", "%Y %j"),
                ("-1", "%s"),
                ("2024-01-05 10:00:00", "%F %T"),
                ("20 24-01-05", "%C %y-%m-%d"),
                ("99-01-05", "%y-%m-%d"),
                ("2024-01-05\t10", "%Y-%m-%d %H"),
                ("2024-01-0510:00", "%Y-%m-%d %H:%M"),
                ("2024-W01-5", "%G-W%V-%u"),
                ("2024 01 5", "%Y %U %w"),
                ("Fri Jan  5 10:00:00 2024", "%c"),
                ("2024-01-05t10:00:00", "%Y-%m-%dT%T"),
                ("10:00:00 am", "%r"),
            )
        ],
        *[
            C("datetime", name, text)
            for name in ("is_rfc3339", "is_iso8601")
            for text in (
                "2024-01-05T10:00:00Z",
                "2024-01-05T10:00:00+01:00",
                "2024-01-05T10:00:00",
                "2024-01-05 10:00:00Z",
                "2024-01-05t10:00:00.123z",
                "2024-01-05",
                "20240105",
                "2024-01-05T10:00:00+0100",
                "2024-01-05T10:00:00.Z",
                "2024-1-05T10:00:00Z",
                "2024-01-05T24:00:00Z",
                " 2024-01-05T10:00:00Z",
                "2024-01-05T10:00:00-00:00",
                "2024-01-05T10:00:00+24:00",
                "2024-01-05T10:00:60Z",
                "2024-02-30T10:00:00Z",
            )
        ],
        *[
            C("datetime", "now", fmt)
            for fmt in ("%Y", "%C", "plain", "", "%%", "%Q", "%", "%E", "%t%n")
        ],
    ],
    "net": [
        *[
            C("net", "split_host_port", text)
            for text in (
                "example.com:80",
                "[::1]:80",
                "::1:80",
                "host",
                ":80",
                "h:",
                "a:b:c",
                "[::1]",
                "[::1]80",
                "[::1",
                "a]:80",
                "[a]b:80",
                "a[b:80",
                "[a:b]:80",
                "",
                "[]:80",
                "a:80:",
            )
        ],
        C("net", "join_host_port", "example.com", 80),
        C("net", "join_host_port", "::1", 80),
        C("net", "join_host_port", "example.com", "80"),
        C("net", "join_host_port", "[::1]", 80),
        C("net", "fqdn", "x.y"),
        C("net", "fqdn"),
        *[
            C("net", name, ip)
            for name in (
                "parse_IP",
                "IP_string",
                "to_IP4",
                "to_IP6",
                "is_IPv4",
                "is_IPv6",
                "is_IP",
                "is_loopback_IP",
                "is_multicast_IP",
                "is_interface_local_multicast_IP",
                "is_link_local_multicast_IP",
                "is_link_local_unicast_IP",
                "is_global_unicast_IP",
                "is_unspecified_IP",
            )
            for ip in (
                "192.168.0.1",
                "::1",
                "x",
                "::ffff:1.2.3.4",
                "2001:0db8:0000:0000:0000:0000:0000:0001",
                "01.2.3.4",
                "127.1.2.3",
                "224.0.0.1",
                "ff02::1",
                "ff01::1",
                "169.254.1.1",
                "fe80::1",
                "8.8.8.8",
                "10.0.0.1",
                "0.0.0.0",
                "::",
                "1.2.3.4 ",
                "fe80::1%eth0",
                "::1.2.3.4",
                "1:0:0:1:0:0:0:1",
                "255.255.255.255",
            )
        ],
        *[
            C("net", "is_global_unicast_IP", ip)
            for ip in (
                "100.64.0.1",
                "192.0.2.1",
                "198.18.0.1",
                "240.0.0.1",
                "192.0.0.1",
                "192.0.0.9",
                "192.0.0.10",
                "192.0.0.8",
                "192.168.1.1",
                "172.16.0.1",
                "fc00::1",
                "2002::1",
                "64:ff9b::1",
                "64:ff9b::800:1",
                "64:ff9b::a00:1",
                "64:ff9b::ffff:ffff",
                "64:ff9b:1::800:1",
                "2001::1",
                "2606:4700::1",
                "192.88.99.1",
                "198.51.100.1",
                "203.0.113.1",
                "2001:20::1",
                "100::1",
                "2001:2::1",
                "2001:2:1::1",
                "2001:db8:1::1",
                "2001:db9::1",
                "2000::",
                "1fff:ffff::1",
                "4000::1",
                "3fff::1",
                "5f00::1",
                "223.255.255.255",
                "ff0e::1",
                "::ffff:8.8.8.8",
            )
        ],
        *[
            C("net", "parse_CIDR", cidr)
            for cidr in (
                "10.0.0.0/8",
                "10.1.2.3/8",
                "2001:db8::/32",
                "x",
                "10.0.0.0/33",
                "10.0.0.0",
                "::/0",
                "2001:db8::",
                "2001:db8::1/129",
            )
        ],
        *[
            C("net", "is_IP_in_CIDR", ip, cidr)
            for ip, cidr in (
                ("10.1.2.3", "10.0.0.0/8"),
                ("11.1.2.3", "10.0.0.0/8"),
                ("2001:db8::1", "2001:db8::/32"),
                ("10.1.2.3", "2001:db8::/32"),
                ("x", "10.0.0.0/8"),
                ("10.1.2.3", "x"),
                ("10.0.0.1", "10.0.0.0/33"),
                ("10.0.0.1", "10.0.0.0/x"),
                ("10.0.0.1", "10.0.0.0/"),
                ("10.0.0.1", "/8"),
                ("10.0.0.1", "10.1.2.3/8"),
                ("10.0.0.1", "10.0.0.1"),
                ("::ffff:10.0.0.1", "10.0.0.0/8"),
                ("10.0.0.1", "::ffff:10.0.0.0/104"),
                ("10.0.0.1", "10.0.0.0/08"),
                ("10.0.0.1", "10.0.0.0/-1"),
                ("10.0.0.1", " 10.0.0.0/8"),
                ("10.0.0.1", "10.0.0.0/300"),
            )
        ],
        *[
            C("net", "CIDR_subnet", cidr, bits, num)
            for cidr, bits, num in (
                ("10.0.0.0/8", 8, 2),
                ("10.0.0.0/8", 8, 256),
                ("10.0.0.0/8", 0, 0),
                ("10.1.2.3/8", 8, 1),
                ("2001:db8::/32", 16, 5),
                ("10.0.0.0/30", 3, 0),
                ("x", 8, 2),
                ("2001:db8::/32", 97, 0),
                ("10.0.0.0/8", 8, -1),
                ("10.0.0.0/8", -1, 0),
                ("10.0.0.0/8", 0, 1),
                ("2001:db8::/32", 64, 0),
                ("2001:db8::/32", 63, 5),
                ("10.0.0.0/8", 8, 255),
            )
        ],
        *[
            C("net", "CIDR_subnets", cidr, bits)
            for cidr, bits in (
                ("10.0.0.0/8", [8, 8, 16]),
                ("10.0.0.0/8", [16, 8]),
                ("10.0.0.0/8", []),
                ("10.0.0.0/24", [1, 1, 1]),
                ("2001:db8::/32", [16, 16]),
                ("10.0.0.0/8", [25]),
                ("10.0.0.0/8", [0]),
                ("10.0.0.0/8", [0, 1]),
                ("10.0.0.0/8", [-1]),
                ("2001:db8::/32", [97]),
                ("10.0.0.0/16", [8, 4, 8, 2]),
                ("10.0.0.0/16", [8, 4, 4]),
                ("10.0.0.0/16", [8, 4, 8, 4]),
                ("10.0.0.0/16", [4, 8, 4]),
                ("10.0.0.0/16", [16, 8, 16]),
                ("10.0.0.0/24", [2, 1, 2]),
                ("10.0.0.0/24", [2, 1, 2, 2]),
                ("10.0.0.0/24", [1, 1, 2]),
            )
        ],
        *[
            C("net", "CIDR_host", cidr, num)
            for cidr, num in (
                ("10.0.0.0/8", 5),
                ("10.0.0.0/8", -1),
                ("10.0.0.0/24", 256),
                ("10.0.0.0/24", 255),
                ("10.0.0.0/24", -256),
                ("10.0.0.0/24", -257),
                ("2001:db8::/32", 5),
                ("10.1.2.3/24", 1),
                ("10.0.0.0/32", 0),
                ("10.0.0.0/32", 1),
                ("2001:db8::/32", -1),
            )
        ],
        *[
            C("net", "CIDR_netmask", cidr)
            for cidr in (
                "10.0.0.0/8",
                "10.0.0.0/0",
                "2001:db8::/32",
                "x",
                "10.0.0.0/32",
                "0.0.0.0/0",
                "10.0.0.0/12",
                "10.0.0.0",
            )
        ],
    ],
    "units": [
        K(
            "[units.n, units.u, units.m, units.k, units.K, units.M, units.G, units.T, units.P]",
            lambda ctx: [
                M("units")[name] for name in ["n", "u", "m", "k", "K", "M", "G", "T", "P"]
            ],
        ),
        K(
            "[units.Ki, units.Mi, units.Gi, units.Ti, units.Pi]",
            lambda ctx: [M("units")[name] for name in ["Ki", "Mi", "Gi", "Ti", "Pi"]],
        ),
        K("units.NumberMultiplier", lambda ctx: M("units")["NumberMultiplier"]),
        *[
            C("units", f"to_{suffix}", value)
            for suffix, value in (
                ("u", 1),
                ("m", 1),
                ("K", 1500),
                ("M", 1500000),
                ("G", 2000000000),
                ("T", 1e12),
                ("P", 1e15),
                ("Ki", 1024),
                ("Ki", 1500),
                ("Mi", 1024),
                ("Mi", 1048576),
                ("Gi", 1073741824),
                ("Ti", 1099511627776),
                ("Pi", 1125899906842624),
                ("K", 1.5),
                ("K", -1500),
                ("K", 999),
                ("m", 0.001),
                ("m", 1.5),
                ("u", 0.000001),
                ("M", 2.5e6),
                ("Ki", 1536.0),
                ("n", 3),
                ("u", 7),
                ("m", 7),
                ("m", 0.1),
                ("u", 0.1),
                ("n", 0.1),
                ("K", True),
                ("K", -0.5),
            )
        ],
    ],
    "crypto": [
        *[
            C("crypto", name, "hello")
            for name in (
                "md5",
                "sha1",
                "sha224",
                "sha256",
                "sha384",
                "sha512",
                "blake3",
            )
        ],
        *[
            C("crypto", name, value)
            for name in ("md5", "blake3", "sha256")
            for value in ("", "héllo", LONG, "a" * 1025, "a" * 8193)
        ],
        C("crypto", "md5", "hello", "utf-8"),
        C("crypto", "md5", "héllo", "latin1"),
        C("crypto", "sha1", "日本", "gbk"),
        C("crypto", "sha1", "hello", encoding="foo", loose=True),
        C("crypto", "filesha256", "data.txt"),
        C("crypto", "filesha256", "nope"),
    ],
    "file": [
        C("file", "read", "data.txt"),
        C("file", "exists", "data.txt"),
        C("file", "exists", "nope"),
        C("file", "size", "data.txt"),
        C("file", "glob", "*.txt"),
        C("file", "glob", "**/*.txt"),
        C("file", "glob", "sub/*"),
        C("file", "glob", "nomatch*"),
        C("file", "glob", "[!d]*"),
        C("file", "glob", "?ata.txt"),
        C("file", "glob", "**"),
        C("file", "glob", ""),
        C("file", "glob", "["),
        C("file", "glob", "a**"),
        C("file", "glob", "**a"),
        C("file", "glob", "../*"),
        C("file", "modpath"),
        C("file", "workdir"),
        C("file", "current"),
        C("file", "abs", "data.txt"),
        C("file", "abs", "nope.txt"),
        C("file", "abs", "."),
        C("file", "abs", ""),
        C("file", "abs", "./sub/"),
        C("file", "read_env", "HOME"),
        C("file", "read_env", "KCLPY_SURELY_UNSET"),
        C("file", "read_env", ""),
        C("file", "read", "nope"),
        C("file", "read", "sub"),
        C("file", "read", ""),
        C("file", "read", "../x"),
        C("file", "read", "sub/../data.txt"),
        C("file", "exists", ""),
        C("file", "size", "nope"),
        C("file", "mkdir", "out"),
        C("file", "mkdir", "out/deep/er", exists=True),
        C("file", "mkdir", "out"),
        C("file", "mkdir", "data.txt"),
        C("file", "mkdir", "data.txt", exists=True),
        C("file", "write", "out/x.txt", "one"),
        C("file", "append", "out/x.txt", "two"),
        C("file", "read", "out/x.txt"),
        C("file", "append", "out/new.txt", "n"),
        C("file", "read", "out/new.txt"),
        C("file", "write", "out", "x"),
        C("file", "write", "out/nodir/x", "a"),
        C("file", "append", "out/nodir/x", "a"),
        C("file", "cp", "out/x.txt", "out/y.txt"),
        C("file", "mv", "out/y.txt", "out/z.txt"),
        C("file", "exists", "out/y.txt"),
        C("file", "read", "out/z.txt"),
        C("file", "delete", "out/z.txt"),
        C("file", "exists", "out/z.txt"),
        C("file", "delete", "nope"),
        C("file", "delete", "out/deep/er"),
        C("file", "cp", "nope", "x"),
        C("file", "mv", "nope", "x"),
        C("file", "cp", "sub", "sub2"),
        C("file", "read", "sub2/s.txt"),
        C("file", "cp", "data.txt", "sub2"),
        C("file", "cp", "data.txt", "../cp.txt"),
        C("file", "glob", "**/*.txt"),
    ],
    "template": [
        *[
            C("template", "execute", tpl, data)
            for tpl, data in (
                ("hello {{name}}", {"name": "world"}),
                ("{{a.b}}", {"a": {"b": 1}}),
                ("{{x}}", {"x": "<a href='x'>&\"=`"}),
                ("{{{x}}}", {"x": "<a>"}),
                *[
                    ("{{#if x}}yes{{else}}no{{/if}}", {"x": v})
                    for v in (True, False, [], 0, "", {}, "0", [0])
                ],
                ("{{#if x}}yes{{else}}no{{/if}}", {}),
                ("{{#each l}}{{this}},{{/each}}", {"l": [1, 2, 3]}),
                ("{{#each l}}{{@index}}:{{this}} {{/each}}", {"l": ["a", "b"]}),
                ("{{#each d}}{{@key}}={{this}} {{/each}}", {"d": {"a": 1, "b": 2}}),
                ("{{#each l}}{{name}} {{/each}}", {"l": [{"name": "x"}, {"name": "y"}]}),
                *[
                    ("{{x}}", {"x": v})
                    for v in (
                        1.0,
                        1.5,
                        True,
                        None,
                        [1, 2],
                        {"a": 1},
                        ["a", "b"],
                        [{"a": 1}, [2]],
                        1e20,
                        0.00001,
                        "a&b",
                        "it's",
                    )
                ],
                ("{{missing}}", {}),
                ("{{#unless x}}u{{/unless}}", {"x": False}),
                ("{{#with a}}{{b}}{{/with}}", {"a": {"b": 2}}),
                ("{{!-- c --}}x{{! d }}", {}),
                ("{{#each l}}{{@first}}{{@last}} {{/each}}", {"l": [1, 2]}),
                ("{{l.[0]}}", {"l": [5]}),
                ("{{l.0}}", {"l": [5]}),
                ("{{eq a b}}", {"a": 1, "b": 1}),
                ("{{#if (eq a 1)}}one{{/if}}", {"a": 1}),
                ("{{lookup l 0}}", {"l": [7]}),
                ("{{json x}}", {"x": 1}),
                ("{{len x}}", {"x": [1]}),
                ("  {{~x~}}  ", {"x": 1}),
                ("{{#each l}}{{../p}}{{/each}}", {"l": [1], "p": "P"}),
                ("\\{{x}}", {"x": 1}),
                ("{{this.x}}", {"x": 3}),
                ("a\n{{#if x}}\nb\n{{/if}}\nc", {"x": True}),
                ("a\n  {{#each l}}\n  - {{this}}\n  {{/each}}\nc", {"l": [1, 2]}),
                ("a\n{{! comment }}\nb", {}),
                ("a {{#if x}} b {{/if}} c", {"x": True}),
                ("{{#if x}}\nyes\n{{else}}\nno\n{{/if}}\n", {"x": False}),
                (
                    "{{#each d}}{{@key}}: {{#each this}}{{this}}{{/each}}\n{{/each}}",
                    {"d": {"a": [1, 2], "b": [3]}},
                ),
                (
                    "{{#each l}}{{@index}}{{#each this}}{{@../index}}{{/each}}{{/each}}",
                    {"l": [[1], [2]]},
                ),
                ("{{ x }}", {"x": 1}),
                ("{{a.b.c}}", {"a": {"b": None}}),
                ("{{#with a}}{{b}}{{else}}none{{/with}}", {}),
                (
                    "{{ne a b}} {{gt a b}} {{lt a b}} {{gte a b}} {{lte a b}} "
                    "{{and a b}} {{or a b}} {{not a}}",
                    {"a": 1, "b": 2},
                ),
                ("{{eq a b}}", {"a": 1, "b": 1.0}),
                ("{{eq a b}}", {"a": "x", "b": "x"}),
                ("{{gt a b}}", {"a": "b", "b": "a"}),
                ("{{#if (gt a 1)}}big{{/if}}", {"a": 2}),
                ("{{len s}}", {"s": "héllo"}),
                ("{{len d}}", {"d": {"a": 1}}),
                ('{{lookup d "a"}}', {"d": {"a": 5}}),
                ("{{#each l}}{{#if @first}}F{{/if}}{{this}}{{/each}}", {"l": [1, 2]}),
                ("{{&x}}", {"x": "<b>"}),
                ("{{#unless x}}a{{else}}b{{/unless}}", {"x": 1}),
                ("{{x.length}}", {"x": [1, 2]}),
                ("{{#foo x}}a{{/foo}}", {"x": 1}),
                ("{{x.[a b]}}", {"x": {"a b": 1}}),
                ("{{eq 1 1}}", {}),
                ("{{#if x}}a{{else if y}}b{{else}}c{{/if}}", {"y": 1}),
                ("{{#each x}}{{this}}{{else}}empty{{/each}}", {"x": []}),
                ("{{#each x}}{{@key}}{{/each}}", {"x": [1]}),
                ("{{@root.a}}", {"a": 9}),
                ("{{#each l}}{{#each this}}{{this}}{{/each}};{{/each}}", {"l": [[1, 2], [3]]}),
            )
        ],
        C(
            "template",
            "execute",
            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{name}}\n"
            "  labels:\n    {{#each labels}}\n    {{@key}}: {{this}}\n    {{/each}}\n"
            'data:\n{{#each items}}\n  {{~#if enabled}}\n  {{name}}: "{{value}}"\n'
            "  {{~else}}\n  # {{name}} disabled\n  {{~/if}}\n{{/each}}\n{{! end }}\n",
            {
                "name": "app",
                "labels": {"app": "x", "tier": "web"},
                "items": [
                    {"name": "a", "value": "1 < 2", "enabled": True},
                    {"name": "b", "value": "", "enabled": False},
                ],
            },
        ),
        C("template", "execute", "{{#each l}}\n- {{this}}\n{{else}}\nnone\n{{/each}}\n", {"l": []}),
        C("template", "execute", "  {{#if x}}  \r\nyes\n  {{/if}}  ", {"x": 1}),
        C("template", "execute", "{{#if x}}a{{/if}}\n{{#if x}}b{{/if}}\n", {"x": 1}),
        C("template", "execute", "no vars"),
        C("template", "execute", "no vars", None),
        *[
            C("template", "execute", tpl, {"x": 1}, loose=True)
            for tpl in (
                "{{#if x}}",
                "{{x",
                "{{#if x}}a{{/each}}",
            )
        ],
        C("template", "html_escape", '<a href="x">&\'`=</a>'),
        C("template", "html_escape", "plain"),
    ],
    "runtime": [
        K("runtime.catch(lambda { 1 })", lambda ctx: M("runtime")["catch"](ctx, lambda: 1)),
        K(
            'runtime.catch(lambda { assert False, "boom" })',
            lambda ctx: M("runtime")["catch"](ctx, _raiser("boom")),
        ),
        K(
            "runtime.catch(lambda { [1][5] })",
            lambda ctx: M("runtime")["catch"](ctx, _raiser("list index out of range: 5")),
        ),
        K(
            'runtime.catch(lambda { base64.decode("!!!") })',
            lambda ctx: M("runtime")["catch"](ctx, lambda: M("base64")["decode"]("!!!")),
        ),
        K(
            'runtime.catch(lambda { json.decode("[1,") })',
            lambda ctx: M("runtime")["catch"](ctx, lambda: M("json")["decode"]("[1,")),
        ),
    ],
}


def _stream(values: list[Any], opts: Any = None) -> Case:
    """``manifests.yaml_stream``: compares the whole program output."""
    kcl = f"manifests.yaml_stream({kcl_literal(values)}"
    kcl += f", opts={kcl_literal(opts)})" if opts is not None else ")"

    def call(ctx: FakeContext) -> Any:
        from kclpy.values.yaml_writer import yaml_document

        if opts is None:
            M("manifests")["yaml_stream"](ctx, values)
        else:
            M("manifests")["yaml_stream"](ctx, values, opts)
        assert ctx.stream is not None
        items, options = ctx.stream
        flags = {key: options[key] for key in ("sort_keys", "ignore_private", "ignore_none")}
        sep = "\n" + options["sep"] + "\n"
        return sep.join(yaml_document(item, **flags) for item in items)

    return Case(kcl, call, False, kcl)


CASES["manifests"] = [
    _stream([{"a": 1, "_c": 2, "n": None}, {"b": 2}]),
    _stream(
        [{"a": 1, "_c": 2, "n": None}, {"b": 2}],
        {"sort_keys": True, "ignore_private": True, "ignore_none": True},
    ),
    _stream([{"a": 1}, {"b": 2}], {"sep": "---\n"}),
    _stream([{"a": 1}, {"b": 2}], {"sep": "\n---\n"}),
    _stream([1, "x", [1, 2]]),
    _stream([{"a": 1}], {"unknown": 1}),
    _stream([{"b": 1, "a": {"d": 1, "c": 2}}], {"sort_keys": True}),
    _stream([{"b": 1, "a": None}], {"sort_keys": False, "ignore_none": True}),
    *[
        _stream([{"b": 1, "_c": 2, "n": None, "a": {"_d": 1, "e": None}}], opts)
        for opts in (None, {}, {"sep": "---"}, {"ignore_private": False}, {"ignore_none": False})
    ],
    K(
        "manifests.yaml_stream([1], opts=None)",
        lambda ctx: M("manifests")["yaml_stream"](ctx, [1], opts=None),
    ),
    K('manifests.yaml_stream({"a": 1})', lambda ctx: M("manifests")["yaml_stream"](ctx, {"a": 1})),
]


def _raiser(message: str) -> Callable[[], Any]:
    def fail() -> Any:
        raise KclRuntimeError(message)

    return fail


# ---------------------------------------------------------------------------------------
# Running


_REFERENCE_SCRIPT = r"""
import json, os, re, sys
import kcl_lib.api as api

request = json.loads(sys.stdin.read())
folder = request["folder"]
header = "".join(f"import {name}\n" for name in request["imports"])
ansi = re.compile(r"\x1b\[[0-9;]*m")
api_ = api.API(plugin_agent=0)
results = []
for expression in request["expressions"]:
    path = os.path.join(folder, "main.k")
    stream = expression.startswith("manifests.yaml_stream(")
    body = expression + "\n" if stream else (
        "_r = " + expression + "\nresult = {v = [_r], t = typeof(_r)}\n")
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(header + body)
    try:
        out = api_.exec_program(api.ExecProgramArgs(k_filename_list=[path]))
    except Exception as error:
        results.append({"compile_error": ansi.sub("", str(error))})
        continue
    if out.err_message:
        lines = ansi.sub("", out.err_message).splitlines()
        message = ""
        for index, line in enumerate(lines):
            if re.match(r"^\s*\d+\s*\|", line):
                rest = lines[index + 1] if index + 1 < len(lines) else ""
                message = re.sub(r"^\s*\|\s?[\s^]*", "", rest)
                break
        results.append({"error": message, "raw": ansi.sub("", out.err_message)})
    elif stream:
        results.append({"stream": out.yaml_result})
    else:
        results.append({"value": json.loads(out.json_result)["result"]})
print(json.dumps(results))
"""

FIXTURE = {"data.txt": "hello file", "sub/s.txt": "sub"}


def _reset(folder: Path) -> None:
    for child in folder.iterdir():
        if child.is_dir():
            shutil.rmtree(child)
        else:
            child.unlink()
    for name, text in FIXTURE.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(text, encoding="utf-8")


def _run_reference(module: str, cases: list[Case], folder: Path) -> list[dict[str, Any]]:
    request = {
        "folder": str(folder),
        "imports": sorted({module, "file", "base64", "json"}),
        "expressions": [case.kcl for case in cases],
    }
    results: list[dict[str, Any]] = call_reference(
        _REFERENCE_SCRIPT, request, timeout=300, cwd=folder
    )
    return results


def _typeof(value: Any) -> str:
    from kclpy.vm.builtins.convert import typeof

    return typeof(value)


def _jsonable(value: Any) -> Any:
    """Our value as the reference's JSON output shows it."""
    if isinstance(value, UndefinedType):
        return None
    if isinstance(value, float) and (math.isinf(value) or math.isnan(value)):
        return None
    if isinstance(value, dict):
        return {k: _jsonable(v) for k, v in value.items() if v is not UNDEFINED}
    if isinstance(value, list):
        return [_jsonable(v) for v in value if v is not UNDEFINED]
    return value


def _same(expected: Any, actual: Any) -> bool:
    if type(expected) is not type(actual):
        return False
    if isinstance(expected, dict):
        return list(expected) == list(actual) and all(
            _same(expected[k], actual[k]) for k in expected
        )
    if isinstance(expected, list):
        return len(expected) == len(actual) and all(map(_same, expected, actual))
    return bool(expected == actual)


@pytest.fixture(scope="module")
def outcomes() -> dict[str, list[tuple[Case, dict[str, Any], Any]]]:
    """Every case's reference result and our result (computed once)."""
    results: dict[str, list[tuple[Case, dict[str, Any], Any]]] = {}
    with tempfile.TemporaryDirectory(prefix="kclpy-modules-") as temp:
        folder = Path(temp).resolve()
        for module in MODULES:
            cases = CASES[module]
            _reset(folder)
            reference = _run_reference(module, cases, folder)
            _reset(folder)
            (folder / "main.k").write_text("", encoding="utf-8")
            ctx = FakeContext(str(folder))
            ours: list[Any] = []
            for case in cases:
                try:
                    value = case.call(ctx)
                except KclRuntimeError as error:
                    ours.append(error)
                else:
                    ours.append(value)
            results[module] = list(zip(cases, reference, ours, strict=True))
    return results


def _check(case: Case, reference: dict[str, Any], ours: Any) -> str | None:
    """None when the results agree, else a description of the difference."""
    if "stream" in reference:
        if ours != reference["stream"]:
            return f"stream: reference {reference['stream']!r}, ours {ours!r}"
        return None
    if "compile_error" in reference:
        return f"the reference rejects the case statically: {reference['compile_error'][:300]}"
    if "error" in reference:
        if not isinstance(ours, KclRuntimeError):
            return f"reference error {reference['error']!r}, ours {ours!r}"
        if case.loose_error:
            return None
        first = ours.message.splitlines()[0] if ours.message else ""
        if first.strip() != reference["error"].strip():
            return f"error text: reference {reference['error']!r}, ours {first!r}"
        return None
    if isinstance(ours, KclRuntimeError):
        return f"reference {reference['value']!r}, ours error {ours.message!r}"
    expected = reference["value"]
    actual = {"v": [_jsonable(ours)], "t": _typeof(ours)}
    if isinstance(ours, UndefinedType):
        actual["v"] = []
    if not _same(expected, actual):
        return f"reference {expected!r}, ours {actual!r}"
    return None


@pytest.mark.parametrize("module", MODULES)
def test_module_matches_reference(
    module: str, outcomes: dict[str, list[tuple[Case, dict[str, Any], Any]]]
) -> None:
    failures = []
    for case, reference, ours in outcomes[module]:
        problem = _check(case, reference, ours)
        if problem is not None:
            failures.append(f"{case.id}: {problem}")
    assert not failures, f"{len(failures)} of {len(outcomes[module])} cases differ:\n" + "\n".join(
        failures
    )


def test_every_member_is_covered() -> None:
    """Every function of the differential modules appears in at least one case."""
    skipped = {
        ("datetime", "ticks"), ("datetime", "date"), ("datetime", "today"),  # clock
        ("crypto", "uuid"),  # random
        ("math", "log1p"),  # deliberately different everywhere: see test_modules.py
    }  # fmt: skip
    for module in MODULES:
        members = implementations(module)
        assert members is not None
        text = " ".join(case.kcl for case in CASES[module])
        for name, member in members.items():
            if not callable(member) or (module, name) in skipped:
                continue
            assert f"{module}.{name}(" in text, f"{module}.{name} has no differential case"
