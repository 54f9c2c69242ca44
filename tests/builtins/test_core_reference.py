"""Differential test of the builtin functions and string methods against the reference.

Each case is a builtin call (or string method call, or operator) on Python runtime
values. The same call is written as a KCL expression, every argument passed through
``_any = lambda x -> any {x}`` so that the static checker lets it through, and run
by the reference KCL (``kcl_lib``) in ONE subprocess for the whole table (it
restarts after a crash). Our function is called directly in Python; results are
compared as JSON data (Undefined = missing), errors by their message, ``print`` by
its output. Skipped when ``kcl_lib`` is not installed.

Cases where we deliberately differ from the reference are not here: they are in
``test_core.py`` / ``test_strings.py`` and ``docs/differences-builtins.md``.
"""

from __future__ import annotations

import json
import math
import random
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import pytest

from kclpy.values import UNDEFINED, NumberMultiplier, SchemaInstance
from kclpy.values.errors import KclRuntimeError
from kclpy.vm.builtins import compare
from kclpy.vm.builtins.core import BUILTINS
from kclpy.vm.builtins.strings import STRING_METHODS
from tests.builtins.calling import call_builtin, call_method
from tests.reference import call_reference_lines, reference_available

# ------------------------------------------------------------------ the harness

PRELUDE = """\
_any = lambda x -> any {x}
_add = lambda a, b {a + b}
_pair = lambda a, b {[a, b]}
schema P:
    x: int = 0
    y: str = "a"
schema Q:
    x: int = 0
    y: str = "a"
schema R:
    n?: int
    m: int = 1
"""

RUNNER = r"""
import json, re, sys
import kcl_lib.api as api
ansi = re.compile(r"\x1b\[[0-9;]*m")
def message(text):
    text = ansi.sub("", text)
    found = re.search(r"---> File [^\n]*?:[0-9]+(?::[0-9]+)?:(.*)", text, re.S)
    return found.group(1).strip() if found else text.strip()
api_ = api.API(plugin_agent=0)
for line in sys.stdin:
    case = json.loads(line)
    out = {"i": case["i"]}
    try:
        result = api_.exec_program(api.ExecProgramArgs(
            k_filename_list=["main.k"], k_code_list=[case["code"]]))
        out["log"] = result.log_message
        if result.err_message:
            out["error"] = message(result.err_message)
        else:
            out["json"] = result.json_result
    except Exception as error:
        out["compile_error"] = message(str(error))
    sys.stdout.write(json.dumps(out) + "\n")
    sys.stdout.flush()
"""


class SchemaStub:
    """A schema type for SchemaInstance values built in Python."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.pkgpath = "__main__"


@dataclass(frozen=True)
class Raw:
    """An argument written by hand: its KCL text and its Python value."""

    kcl: str
    value: Any


@dataclass(frozen=True)
class Fn:
    """A KCL lambda (name in the prelude) and its Python behaviour."""

    kcl: str
    python: Callable[..., Any]
    kcl_type_name = "function"


def schema(name: str, **attrs: Any) -> Raw:
    config = ", ".join(f"{key} = {literal(value)}" for key, value in attrs.items())
    defaults: dict[str, dict[str, Any]] = {
        "P": {"x": 0, "y": "a"},
        "Q": {"x": 0, "y": "a"},
        "R": {"n": UNDEFINED, "m": 1},
    }
    return Raw(f"{name}{{{config}}}", SchemaInstance(SchemaStub(name), defaults[name] | attrs))


ADD = Fn("_add", lambda a, b: a + b)
PAIR = Fn("_pair", lambda a, b: [a, b])


def _string_literal(text: str) -> str:
    assert "${" not in text
    parts = ['"']
    for character in text:
        code = ord(character)
        if character in '"\\':
            parts.append("\\" + character)
        elif 32 <= code < 127:
            parts.append(character)
        elif code < 0x10000:
            parts.append(f"\\u{code:04x}")
        else:
            parts.append(f"\\U{code:08x}")
    return "".join(parts) + '"'


def literal(value: Any) -> str:
    """KCL source text for a Python runtime value."""
    if isinstance(value, Raw | Fn):
        return value.kcl
    if value is None or value is UNDEFINED or type(value) is bool:
        return repr(value) if value is not UNDEFINED else "Undefined"
    if type(value) is int:
        return str(value)
    if type(value) is float:
        if math.isnan(value):
            return "(1e300 * 1e300 - 1e300 * 1e300)"
        if math.isinf(value):
            return "(1e300 * 1e300)" if value > 0 else "(-1e300 * 1e300)"
        if value == 0 and math.copysign(1.0, value) < 0:
            return "(0.0 * -1)"
        return repr(value).replace("e+", "e")
    if type(value) is str:
        return _string_literal(value)
    if isinstance(value, NumberMultiplier):
        return f"{value.number}{value.suffix}"
    if type(value) is list:
        return "[" + ", ".join(literal(item) for item in value) + "]"
    if type(value) is dict:
        entries = ", ".join(f"{literal(key)}: {literal(item)}" for key, item in value.items())
        return "{" + entries + "}"
    raise TypeError(value)


def python_value(value: Any) -> Any:
    if isinstance(value, Raw):
        return value.value
    if type(value) is list:
        return [python_value(item) for item in value]
    return value


@dataclass
class Case:
    kind: str  # "call", "method" or "op"
    name: str
    args: tuple[Any, ...]
    kwargs: dict[str, Any] = field(default_factory=dict)

    def kcl(self) -> str:
        args = [f"_any({literal(arg)})" for arg in self.args]
        args += [f"{key} = _any({literal(arg)})" for key, arg in self.kwargs.items()]
        if self.kind == "op":
            return f"{args[0]} {self.name} {args[1]}"
        if self.kind == "method":
            return f"_any({literal(self.args[0])}).{self.name}({', '.join(args[1:])})"
        return f"{self.name}({', '.join(args)})"

    def run(self, context: FakeContext) -> Any:
        args = [python_value(arg) for arg in self.args]
        kwargs = {key: python_value(arg) for key, arg in self.kwargs.items()}
        if self.kind == "op":
            return OPERATORS[self.name](*args)
        if self.kind == "method":
            return call_method(self.name, args[0], args[1:], kwargs)
        return call_builtin(self.name, context, args, kwargs)

    def __str__(self) -> str:
        return self.kcl()


OPERATORS: dict[str, Callable[[Any, Any], Any]] = {
    "==": compare.equal,
    "!=": compare.not_equal,
    "in": lambda item, container: compare.contains(container, item),
    "not in": lambda item, container: not compare.contains(container, item),
    **compare.ORDERING,
}


class FakeContext:
    """The BuiltinContext part that print and reduce use."""

    def __init__(self) -> None:
        self.output: list[str] = []

    def write_output(self, text: str) -> None:
        self.output.append(text)

    def call(self, function: Any, args: list[Any], kwargs: dict[str, Any]) -> Any:
        assert isinstance(function, Fn)
        return function.python(*args, **kwargs)


def rows(*items: Any) -> list[Any]:
    """A table of heterogeneous rows (keeps the type checker from inferring one)."""
    return list(items)


def C(name: str, /, *args: Any, **kwargs: Any) -> Case:
    return Case("call", name, args, kwargs)


def M(name: str, /, *args: Any, **kwargs: Any) -> Case:
    return Case("method", name, args, kwargs)


def O(op: str, left: Any, right: Any) -> Case:  # noqa: E743 - table shorthand
    return Case("op", op, (left, right))


def plain(value: Any) -> Any:
    """Our value as the reference's JSON shows it (Undefined dropped, inf/NaN null)."""
    if type(value) is float and not math.isfinite(value):
        return None
    if isinstance(value, NumberMultiplier):
        return value.value
    if isinstance(value, list):
        return [plain(item) for item in value if item is not UNDEFINED]
    if isinstance(value, dict):
        return {key: plain(item) for key, item in value.items() if item is not UNDEFINED}
    return value


def same(left: Any, right: Any) -> bool:
    """Equal data with equal types (1 is not 1.0, True is not 1)."""
    if type(left) is not type(right):
        return False
    if type(left) is list:
        return len(left) == len(right) and all(map(same, left, right))
    if type(left) is dict:
        return list(left) == list(right) and all(same(left[k], right[k]) for k in left)
    return bool(left == right)


def run_reference(cases: list[Case]) -> dict[int, dict[str, Any]]:
    """Results of the reference for every case, in one subprocess (restarted on a crash)."""
    requests = [{"i": i, "code": PRELUDE + f"a = {case.kcl()}\n"} for i, case in enumerate(cases)]
    answers = call_reference_lines(RUNNER, requests)
    return {i: {"i": i, **answer} for i, answer in enumerate(answers)}


def check(case: Case, answer: dict[str, Any]) -> str | None:
    """None when we agree with the reference's answer, else a description."""
    context = FakeContext()
    try:
        ours: Any = ("value", plain(case.run(context)))
    except KclRuntimeError as error:
        ours = ("error", error.message)
    if "compile_error" in answer or "crash" in answer:
        return f"reference failed: {answer}"
    if "error" in answer:
        theirs: Any = ("error", answer["error"])
    else:
        document = json.loads(answer["json"]) if answer["json"] else {}
        theirs = ("value", document.get("a", UNDEFINED))
        if theirs[1] is UNDEFINED:
            theirs = ("value", UNDEFINED)
    if ours[0] == "value" and ours[1] is UNDEFINED:
        ours = ("value", UNDEFINED)
    if ours[0] != theirs[0] or not same(ours[1], theirs[1]):
        return f"ours {ours!r} != reference {theirs!r}"
    if "".join(context.output) != answer.get("log", ""):
        return f"output {''.join(context.output)!r} != {answer.get('log')!r}"
    return None


# -------------------------------------------------------------------- the cases

Ki = NumberMultiplier(1, "Ki")
INF = math.inf
NAN = math.nan
BIG = 2**63 - 1

# a table, one row per line group: kept as written
# fmt: off
CORE_CASES: list[Case] = [
    # print
    C("print", 1, "a", [1, "x"], {"a": "b"}, None, 1.0),
    C("print"),
    C("print", 1, 2, sep=","),
    C("print", 1, 2, end=""),
    C("print", "x", end=None),
    C("print", "x", end=1),
    C("print", UNDEFINED, Ki, True, 1e20),
    # len
    C("len", "héllo"), C("len", "日本"), C("len", ""), C("len", [1, 2]), C("len", {"a": 1}),
    C("len", 1), C("len", None), C("len", 1.5), C("len", True), C("len", UNDEFINED),
    C("len", Ki), C("len", schema("P")), C("len", schema("R")), C("len", "\U0001f600"),
    # typeof
    *[C("typeof", value) for value in
      [1, 1.0, "s", True, None, UNDEFINED, [1], {"a": 1}, Ki, NumberMultiplier(2, "M"),
       schema("P")]],
    C("typeof", schema("P"), full_name=True), C("typeof", 1, full_name=True),
    C("typeof", schema("P"), True), C("typeof", {"a": 1}, "x"),
    # int
    *[C("int", value) for value in
      [1.9, -1.9, True, False, "12", "-12", "+12", "012", "08", "1Ki", "1M", "2Gi", "-1Ki",
       "+1Ki", "007K", "1ki", "1Mi", "1Ti", "1Pi", "1T", "1P", "10m", "1m", "1n", "1u", "0Ki",
       "1mi", "9223372036854775807", "-9223372036854775808", Ki, NumberMultiplier(1500, "m"),
       -0.5, 9.223372036854775e18, "", "Ki", None, [1], UNDEFINED, {"a": 1}]],
    C("int", "ff", 16), C("int", "FF", 16), C("int", "0xff", 16), C("int", "-0xff", 16),
    C("int", "+ff", 16), C("int", "-ff", 16), C("int", "101", 2), C("int", "z", 36),
    C("int", "Z", 36), C("int", "0b101", 2), C("int", "0o17", 8), C("int", "0B101", 2),
    C("int", "0XFF", 16), C("int", "0b1", 16), C("int", "0o17", 16), C("int", "0x10", 8),
    C("int", "7FFFFFFFFFFFFFFF", 16), C("int", "-8000000000000000", 16), C("int", "0012", 8),
    C("int", "-0b11", 2), C("int", "12", 10), C("int", "1Ki", 10), C("int", "0x", 16),
    C("int", "0xg", 16), C("int", "z", 35), C("int", "-", 2), C("int", "0b", 2),
    C("int", "1Ki", 2), C("int", "+0xff", 16), C("int", "1_0", 16), C("int", " ff", 16),
    C("int", "ff ", 16), C("int", "", 16), C("int", "FFFFFFFFFFFFFFFF", 16),
    C("int", 12, 16), C("int", 1.5, 16), C("int", True, 8), C("int", Ki, 8),
    C("int", None, 16), C("int", number="7"), C("int", "ff", base=16),
    # float
    *[C("float", value) for value in
      [1, True, False, 1.5, "1e3", "1.5", "+1.5", ".5", "5.", "-.5", "+.5e1", "1E5", "nan",
       "NaN", "-0", "1e-400", Ki, NumberMultiplier(1, "m"), 10**15, BIG, "inf", "-inf",
       "infinity", "1e400", "-1e400", " 1.5", "1.5 ", "1Ki", "", "abc", "1_000.5", "0x10",
       "1e", "e5", "+", "1.2.3", "  ", "١", None, [1], UNDEFINED, {}, {"a": "b"}]],
    C("float", number="2"),
    # bool and str
    *[C("bool", value) for value in
      [0, 1, "", "False", [], [0], {}, None, UNDEFINED, 0.0, NAN, Ki,
       NumberMultiplier(0, "Ki"), schema("P"), schema("R")]],
    C("bool", x=1),
    *[C("str", value) for value in
      [1, -5, 1.0, 1e20, 1e16, 1e-7, 0.1 + 0.2, 1.7976931348623157e308, 5e-324, -1e-310, INF,
       -INF, NAN, True, None, UNDEFINED, "é", "", Ki, [1.0, "x", None, [Ki]],
       {"a": {"b": "c"}, "l": ["x", {"k": "v"}], "n": None, "u": UNDEFINED, "f": 1.0},
       {"it's": "a'b", "q": 'a"b', "both": "a'b\"c", "nl": "a\nb", "bs": "a\\b"},
       [{"a": "it's"}], {"x'y\"z": 1}, schema("P"), schema("R"), [schema("Q", x=2)],
       {"k y": 1, "1": 2, "": 3}, 123456789.123, 2.5e-5, -0.0]],
    C("str"), C("str", x=3),
    # list and dict
    C("list", "abc"), C("list", {"a": 1, "b": 2}), C("list", [1, 2]), C("list"),
    C("list", schema("P")), C("list", None), C("list", 1), C("list", UNDEFINED),
    C("list", 1.5),
    C("dict", {"a": 1}), C("dict", a=1), C("dict"), C("dict", {"a": 1}, b=2),
    C("dict", schema("P")), C("dict", []), C("dict", None), C("dict", 1), C("dict", "ab"),
    C("dict", [1, 2]), C("dict", [["a", 1, 2], ["b"]]), C("dict", [[], []]),
    C("dict", UNDEFINED), C("dict", {"a": 1}, a=1),
    # abs
    *[C("abs", value) for value in [-1, -1.5, 0, -0.0, BIG, True, "a", None, Ki, [1], INF]],
    # round
    *[C("round", value) for value in
      [2.5, -2.5, 0.5, 1.5, 2.4, -0.5, 3, 1.0, -0.4, 0.49999999999999994, 4503599627370497.0,
       True, None, "a", Ki]],
    *[C("round", value, digits) for value, digits in
      [(1.5555, 0), (1.5555, 2), (2.675, 2), (1.005, 2), (-1.5555, 2), (1234.5, -1),
       (1234.5, -2), (3, 2), (2.5, None), (0.125, 2), (0.375, 2), (0.25, 1), (0.35, 1),
       (0.45, 1), (-0.125, 2), (-0.25, 1), (25.0, -1), (35.0, -1), (45.0, -1), (250.0, -2),
       (0.05, 1), (0.15, 1), (1e-5, 3), (1e16, 2), (1.7976931348623157e308, 2), (2.5, 1),
       (0.3, 20), (1e-30, 30), (123.456, 17), (4.5, -20), (-15.0, -1), (-25.0, -1),
       (5, 0), (7, 1), (5.5, -1), (45.5, -1), (2.345e-10, 12), (1.25e-10, 11), (1e22, 1),
       (1.5e22, -22), (2.5e22, -22), (0.5, 0), (-0.5, 0), (2.5, 0), (-0.4, 0), (-0.04, 1),
       (4.5, 400), (1.5, 1.5), (1.5, True), (12345678.123456789, 7), (INF, 2), (NAN, 2),
       (INF, 0)]],
    C("round", number=1.5, ndigits=1),
    # max / min
    C("max", [1, 2.5, True]), C("max", 1, 2.5), C("max", 2, 2.0), C("max", 2.0, 2),
    C("min", 2.0, 2), C("min", 2, 2.0), C("max", "abc"), C("max", {"a": 1, "c": 2, "b": 3}),
    C("max", [[1, 2], [1, 3]]), C("min", [1], [0, 5]), C("max", True, False), C("max", 1, True),
    C("max", 1, 2, 3), C("max", "ab", "b"), C("min", [3, 1, 2]), C("min", ["a"]),
    C("max", [[1]]), C("max", "héllo"), C("max", schema("P")), C("min", schema("P")),
    C("max", [1, "a"]), C("min", 1, "a"), C("max", "a", 1), C("max", [None, None]),
    C("max", [None, 1]), C("max", [None]), C("max", [{"a": 1}]), C("max", [Ki]),
    C("max", 1, None), C("max", []), C("min", []), C("max", ""), C("min", {}), C("max"),
    C("min"), C("max", 1), C("max", None), C("max", UNDEFINED), C("max", 1.5),
    C("max", True), C("max", 1, 2, key=1), C("min", [NAN, 1]), C("max", [1, NAN]),
    # sum
    C("sum", [1, 2]), C("sum", [1, 2.5]), C("sum", []), C("sum", [], 5), C("sum", [1], 0.5),
    C("sum", [[1], [2]], []), C("sum", [[1], [2]], [0]), C("sum", [], []), C("sum", [0.1, 0.2]),
    C("sum", [1, 2], 3), C("sum", iterable=[1], start=2),
    C("sum", [1.0, 1.5e308, 1.5e308]), C("sum", [True]), C("sum", [[1], [2]]),
    C("sum", ["a", "b"], ""), C("sum", ["a", "b"]), C("sum", [], "x"),
    C("sum", [{"a": 1}, {"b": 2}], {}), C("sum", [None]), C("sum", [1, None]),
    C("sum", [BIG, 1]), C("sum", [1], BIG), C("sum", [-BIG, -2]), C("sum", [Ki]),
    C("sum", [[1], 2], []), C("sum", [1, [2]], []), C("sum", [1], None),
    C("sum", [True], True), C("sum", None), C("sum", "ab"), C("sum", {"a": 1}),
    C("sum", schema("P")),
    # pow
    *[C("pow", *args) for args in
      [(2, 10), (2, -1), (2.0, 3), (2, 0.5), (2, 10, 1000), (-2, 3), (0, 0), (-8, 1.0 / 3),
       (2, 62), (-2, 63), (2.0, 2000), (0, -1), (0.0, -1), (-8, 0.5), (2, 1000, 7),
       (3, 2, 10), (-1, -1), (2, -2), (4, 0.5), (2, 64, 1000), (2, 3, None),
       (BIG, 2, 10), (2, 3, 0), (2, -1, 5), (2.0, 3, 5), (True, 2), (2, True), (None, 2),
       (2, None), ("a", 2), (Ki, 2), (-2.0, 3.0), (-2.0, 1001.0), (-0.0, -1.0),
       (-0.0, -2.0), (1.5, 400)]],
    C("pow", x=2, y=3),
    # range
    C("range", 3), C("range", 1, 4), C("range", 0, 10, 3), C("range", 5, 0, -2), C("range", 0),
    C("range", -3), C("range", 3, 1), C("range", 1, 3, -1), C("range", 0, 3, 0), C("range"),
    C("range", None), C("range", 1, None), C("range", start=1, stop=3), C("range", stop=3),
    C("range", 1.5), C("range", True), C("range", "3"),
    C("range", 9223372036854775806, 9223372036854775807),
    # sorted
    C("sorted", [3, 1.5, 2]), C("sorted", ["b", "a", "B", "é", "z"]), C("sorted", {"b": 1, "a": 2}),
    C("sorted", "hello"), C("sorted", "héllo"), C("sorted", [3, 1, 2], reverse=True),
    C("sorted", [3, 1, 2], True), C("sorted", [2, 1.0, 1, 2.0, 1.0]),
    C("sorted", [2, 1.0, 1, 2.0, 1.0], reverse=True), C("sorted", [1.0, 1]), C("sorted", [[1]]),
    C("sorted", [None]), C("sorted", [1, 1]), C("sorted", [3, 1], 1), C("sorted", []),
    C("sorted", [[1, "a"], [1, 2]]), C("sorted", [3, 1.5, True, False, 2]),
    C("sorted", [True, False]), C("sorted", [None, 1]), C("sorted", [1, None]),
    C("sorted", [[1], [None]]), C("sorted", [{"a": 1}, {"b": 1}]), C("sorted", [1, [1]]),
    C("sorted", [1.5, True]), C("sorted", [True, 1.5]), C("sorted", [1, True]),
    C("sorted", [2, 1, None]), C("sorted", [1, 2, None]), C("sorted", [1, 2, 3, 4, 5, 0, "a"]),
    C("sorted", ["a", 1, 2, 3, 4, 5]), C("sorted", [Ki, NumberMultiplier(2, "Ki")]),
    C("sorted", [None, None]), C("sorted", None), C("sorted", 1), C("sorted", schema("P")),
    # zip
    C("zip", [1, 2], ["a", "b", "c"]), C("zip", [1]), C("zip", [], [1]),
    C("zip", [1, 2], [3, 4], [5, 6]), C("zip", "ab", "cd"), C("zip", {"a": 1}, [1]),
    C("zip", [1], "ab"), C("zip", schema("P"), [1, 2]), C("zip", None), C("zip", [1], None),
    C("zip", 1),
    # isunique, isnullish, multiplyof
    *[C("isunique", value) for value in rows(
        [1, 2], [1, 1.0], [], [[1], [1]], [{"a": 1}, {"a": 1}], ["a", "a"], [True, 1],
        [None, None], [None, UNDEFINED], [Ki, Ki], [1, 2, 3, 2], ["a", "b"], [1.5, 1.5],
        "aa", {"a": 1}, None, schema("P"), [schema("P"), schema("Q")])],
    C("isunique", inval=[1]),
    *[C("isnullish", value) for value in rows(None, UNDEFINED, 0, "", [], False)],
    *[C("multiplyof", a, b) for a, b in
      [(6, 3), (7, 3), (0, 3), (-6, 3), (6, -3), (-7, 2), (6.0, 3), (True, 1), (None, 1),
       ("a", 1), (6, 1.5)]],
    C("multiplyof", a=4, b=2),
    # all_true / any_true
    *[C(name, value) for name in ("all_true", "any_true") for value in
      [[1, True, "a"], [1, 0], [], [0, "", None], [0, 1], {"a": 1}, {"a": 0}, {},
       {"": 1}, {"a": 1, "b": 0}, "ab", "", None, 1, UNDEFINED, [Ki],
       [NumberMultiplier(0, "Ki")]]],
    # hex / oct / bin / ord
    *[C(name, value) for name in ("hex", "oct", "bin") for value in
      [255, -1, 0, 8, -8, 5, 1.5, True, None, "a"]],
    C("hex", number=1),
    *[C("ord", value) for value in ["a", "é", "日", "\U0001f600", "", "ab", "éa", 1, None]],
    C("ord", c="a"),
    # reduce
    C("reduce", ADD, [1, 2, 3]), C("reduce", ADD, [1, 2, 3], 10), C("reduce", ADD, [], 0),
    C("reduce", ADD, ["a", "b"], ""), C("reduce", ADD, []), C("reduce", ADD, [5]),
    C("reduce", PAIR, [1, 2, 3]), C("reduce", ADD, None), C("reduce", 1, [1, 2]),
    C("reduce", ADD, [1, 2], initial=0),
]
# fmt: on

H = "héllo"
# a table, one row per line group: kept as written
# fmt: off
STRING_CASES: list[Case] = [
    *[M(name, text) for name in ("capitalize", "lower", "upper", "title", "chars")
      for text in ["hello world", "HELLO", "éa", "", "1abc", "ßa", "ǆa bc", "they're bill's",
                   "hello-world", "a1b", "ÉA", "İ", "Ǆa", "ǅa"]],
    *[M(name, text) for name in
      ("isalnum", "isalpha", "isdigit", "islower", "isupper", "isspace", "istitle")
      for text in ["abc1", "abc", "é", "123", "²", "١", "٣", "０", "①", "½", "⁵", "ABC", " \t\n",
                   "", "Hello World", "hello", "a1", "A1", "a b", "ǅ", "\u00a0", "\x1c", "Ⅷ"]],
    M("count", "banana", "a"), M("count", "banana", "an"), M("count", "banana", ""),
    M("count", "banana", "a", 2), M("count", "banana", "a", 2, 4), M("count", H, "l", 3),
    M("count", "banana", "a", -2), M("count", "aaa", "aa"), M("count", "abc", "b", None, None),
    M("count", "abc", "", 1, 2), M("count", "abc", "", 5), M("count", "abc", None),
    M("endswith", "hello", "lo"), M("endswith", "hello", ""), M("endswith", "hello", "l", 0, 3),
    M("endswith", H, "é", 0, 3), M("endswith", "abc", 1),
    M("startswith", "hello", "he"), M("startswith", "hello", "l", 2),
    M("startswith", "hello", "l", 2, 2), M("startswith", H, "l", 3), M("startswith", "abc", 1),
    *[M("find", H, *args) for args in
      [("l",), ("z",), ("l", 4), ("l", 3), ("",), ("", 10), ("l", -2), ("é",), ("o", 0, 5),
       ("c", -100, 100), ("b", "x"), (1,)]],
    M("find", "abc", "", 3), M("find", "", ""),
    *[M("rfind", H, *args) for args in [("l",), ("z",), ("l", 0, 4), ("",), ("é",)]],
    M("rfind", "abc", "", 5),
    M("index", H, "l"), M("index", H, "o"), M("index", H, "z"), M("index", "abc", "", 4),
    M("rindex", H, "l"), M("rindex", H, "z"),
    M("join", ",", ["a", "b"]), M("join", ",", [1, 2]), M("join", ",", []),
    M("join", ",", [None, True, 1.5, [1, "x"], {"a": "b"}, UNDEFINED, Ki]),
    M("join", ",", "abc"), M("join", ",", {"a": 1, "b": 2}), M("join", ",", schema("P")),
    M("join", ",", None), M("join", ",", 1),
    M("lstrip", "  a  "), M("lstrip", "xxaxx", "x"), M("rstrip", "  a  "),
    M("rstrip", "xxaxx", "x"), M("strip", "  a  "), M("strip", "xyaxy", "yx"),
    M("strip", "\t\n a\u3000"), M("strip", "a", ""), M("strip", "\x1ca\x1c"),
    M("strip", "\x85a\x85"), M("strip", "\u200ba"), M("lstrip", "\x1fa"), M("rstrip", "a\x1f"),
    M("removeprefix", "abcabc", "ab"), M("removeprefix", "abc", "x"),
    M("removesuffix", "abcabc", "bc"), M("removesuffix", "abc", ""),
    M("replace", "aaa", "a", "b"), M("replace", "aaa", "a", "b", 2), M("replace", "aaa", "", "-"),
    M("replace", "abc", "b", ""), M("replace", "aaa", "a", "b", -1),
    M("replace", "aaa", "a", "b", 0),
    *[M("split", text, *args) for text, args in
      [("a,b,c", (",",)), ("a,b,c", (",", 1)), (" a  b ", ()), ("", (",",)), ("", ()),
       ("a b c", (" ", -1)), ("a b c", (None, 1)), ("a,b,,c", (",", 2)), ("a", ("",)),
       ("abc", ("",)), ("abc", ("", 1)), ("abc", ("", 2)), ("abc", ("", 0)), ("a", (",", 0)),
       ("  a b c  ", (None, 1)), (" a b ", (None, 0)), ("a\x1cb", ()), ("a\x85b", ()),
       ("a\u00a0b", ()), ("a\u3000b", ()), (" a\x1c b \x1f c ", (None, 1))]],
    M("split", "a,b", sep=",", maxsplit=1),
    *[M("rsplit", text, *args) for text, args in
      [("a,b,c", (",", 1)), (" a b ", ()), ("a b  c", (" ", 1)), ("a,b,,c", (",", -1)),
       ("  a b c  ", (None, 1)), (" a b ", (None, 0)), ("abc", ("",)), ("abc", ("", 1)),
       (" a\x1c b \x1f c ", (None, 1))]],
    *[M("splitlines", text, *args) for text, args in
      [("a\nb\r\nc\rd", ()), ("a\nb\n", ()), ("a\nb\n", (True,)), ("", ()),
       ("a\x0bb\x0cc\x1cd\u2028e\x85f\u2029g", ()), ("a\r\nb\rc\n", (True,)), ("\n\n", ()),
       ("\r\n", (True,)), ("a\n\rb", ()), ("a\x0bb\r\nc", (True,))]],
    M("splitlines", "a\nb", keepends=True),
    *[M("format", template, *args) for template, args in
      [("hello {} {}", ("a", 1)), ("{0} {1} {0}", ("a", "b")),
       ("{:>5}|{:<5}|{:^5}|", ("a", "b", "c")),
       ("{:.2f}", (3.14159,)), ("{{}} {}", (1,)), ("{:5}|", (1,)), ("{:05}", (42,)),
       ("{:x} {:X} {:o} {:b}", (255, 255, 8, 5)), ("{:,}", (1234567,)), ("{:+d}", (5,)),
       ("{:e}", (12345.678,)), ("{:%}", (0.25,)), ("{:g}", (0.0001,)), ("{}", (1.0,)),
       ("{}", ([1, "a"],)), ("{}", ({"a": "b"},)), ("{}", (None,)), ("{}", (True,)),
       ("{}", (Ki,)), ("{!r}", ("a",)), ("{!s}", ("a",)), ("{0[0]}", ([5, 6],)),
       ("{0.x}", ({"x": 1},)), ("{}", ()), ("{} {}", (1,)), ("{5}", (1,)), ("{x}", (1,)),
       ("{", (1,)), ("}", (1,)), ("{:d}", ("a",)), ("{:d}", (1.5,)), ("{:.2f}", (1,)),
       ("{:s}", (1,)), ("{:>5}", (1.5,)), ("{:*^9}", ("mid",)), ("{0}{}", (1, 2)),
       ("{:=+6}", (-5,)), ("{:#x}", (255,)), ("{:.3}", ("abcdef",)), ("{:.3}", (3.14159,)),
       ("{:10.3f}|", (3.14159,)), ("{:<05}", (1,)), ("{:d}", (True,)), ("{}", (1e20,)),
       ("{:.1f}", (0.25,)), ("{:.0f}", (2.5,)), ("{:.2f}", (2.675,)), ("{:10.3}|", (3.14159,)),
       ("{:.3g}", (3.14159,)), ("{:.3e}", (3.14159,)), ("{:.3}", (12345.678,)), ("{:.3}", (1,)),
       ("{}|{}|{}|{}", (1e16, 1e-5, 0.1 + 0.2, 1e15)), ("{}", (INF,)), ("{}", (-INF,)),
       ("{}", (NAN,)), ("{:f}", (INF,)), ("{:5}|{:>6}|{:<6}|", (True, True, False)),
       ("{:x}", (True,)), ("{:>5}|", (None,)), ("{:>8}|", ([1],)), ("{:d}", (None,)),
       ("{!r}", ([1, "a"],)), ("{!r}", ("it's",)), ("{!r:>5}|", ("a",)), ("{!a}", ("é",)),
       ("{!x}", ("a",)), ("{:,}", (1234.5,)), ("{:_}", (1234567,)), ("{:n}", (1234567,)),
       ("{[a]}", ({"a": 1},)), ("{0[a]}", ({"a": 1},)), ("{0[1]}", ("abc",)),
       ("{:{}}|", (1, 5)), ("{:c}", (65,)), ("{:>5}|", (Ki,)), ("{:.2f}", ("x",)),
       ("{:.2%}", (0.5,)), ("{:X}", (-255,)), ("{:08.3f}", (-3.14159,)), ("{:f}", (1e20,)),
       ("{:.2f}", (Ki,)), ("{:>10}|", (1.5e20,)), ("{:g}", (1e20,)), ("{:e}", (1,)),
       ("{:%}", (1,)), ("{:.1}", ("é日本",)), ("{:>4}|", ("日本",)), ("{:.0}", (1.5,)),
       ("{:10}|", (1.5,)), ("{:<10}|", (1.5,)), ("{:+}", (1.5,)), ("{: }", (1,)),
       ("{:#b}", (5,)), ("{:#o}", (8,)), ("{:o}", (-8,)), ("{:x}", (1.5,)), ("{:=10}", ("a",)),
       ("{:010}", ("a",)), ("{:0>10}", ("a",)), ("{:z}", (1,)), ("{:.2s}", ("abc",)),
       ("{:5s}|", ("abc",)), ("{:10d}|", (-1,)), ("{:,d}", (-1234567,)), ("{:_x}", (1234567,)),
       ("{:,.2f}", (1234567.891,)), ("{:}", (1,)), ("{0:}", (1,)), ("{}", (schema("P"),)),
       ("{:>4}", (UNDEFINED,)), ("{} and {}", ("é", "日本"))]],
    M("format", "{name}!", name="x"), M("format", "{a}{b}", a=1, b=[1]),
    M("format", "{0}", x=1), M("format", "{:{w}}|", 1, w=5),
]
# fmt: on


# a table, one row per line group: kept as written
# fmt: off
OPERATOR_CASES: list[Case] = [
    *[O(op, left, right) for op in ("==", "!=") for left, right in
      [(1, True), (1, 1.0), (True, 1.0), (None, UNDEFINED), (UNDEFINED, UNDEFINED),
       (None, None), ([1, 2], [1.0, 2]), ({"a": 1}, {"a": 1.0}), ({"a": 1, "b": 2},
       {"b": 2, "a": 1}), ("a", "a"), ([1], [True]), (0, False), ("a", 1), ("a", None),
       ("a", []), (1, [1]), (None, 0), (None, False), (UNDEFINED, False), ([1], {}),
       ("a", {}), (Ki, Ki), (Ki, 1024), (1024.0, Ki), ([Ki], [Ki]),
       (schema("P"), {"x": 0, "y": "a"}), ({"x": 0, "y": "a"}, schema("P")),
       (schema("P"), schema("P")), (schema("P"), schema("P", x=2)), (schema("P"), schema("Q")),
       ([None], [None]), (NAN, NAN), ([1, [2, {"a": [3]}]], [1, [2, {"a": [3.0]}]]),
       ({"a": 1}, {"a": 1, "b": 2}), ({"a": UNDEFINED}, {"a": UNDEFINED}), ("é", "é")]],
    *[O(op, left, right) for op in ("<", "<=", ">", ">=") for left, right in
      [(1, 1.5), (1, True), (True, 2), (False, True), (1, 1.0), ([1, 2], [1, 3]), ([1, 2], [1]),
       ([1, 2], [1, 2, 0]), ([1, 2], [1, 2]), ([1, 2], []), ([1, 2], [1.0, 2]), ("a", "b"),
       ("a", "B"), ("é", "z"), ("a", "ab"), ("a", "a"), ([1, "a"], [2, 2]), ([None], [None]),
       ([1.5, None], [1.5, None]), ({"a": 1}, {"b": 1}), ("a", 1), (None, 1), (None, None),
       ([1, "a"], [1, 2]), ([1, [1, "a"]], [1, [1, 2]]), ([1], "b"), ([1], {}), (1.5, "b"),
       (True, "b"), ({}, None), (UNDEFINED, None), (UNDEFINED, 1), (Ki, 1), (Ki, Ki),
       (schema("P"), schema("P")), (schema("P"), 1), (["a"], [1]), (NAN, 1), (1, NAN),
       (1, INF), ([NAN], [NAN])]],
    *[O(op, left, right) for op in ("in", "not in") for left, right in rows(
      (1, {"a": 1, "1": 2}), ("a", {"a": 1}), (None, {"a": 1}), ("1", {"1": 2}), (1, "abc"),
       (None, "abc"), ("", "abc"), ("bc", "abc"), ("ac", "abc"), (1, None), (1, 1),
       (1, UNDEFINED), (1, Ki), (1.0, [1, [2], {"a": 1}, None, "x"]),
       (True, [1, [2], {"a": 1}, None, "x"]), ([2.0], [1, [2], {"a": 1}, None, "x"]),
       ({"a": 1.0}, [1, [2], {"a": 1}, None, "x"]), (None, [1, None]), (UNDEFINED, [1, None]),
       ("x", [1, "x"]), ("x", schema("P")), ("n", schema("R")), ("z", schema("P")),
       (1, schema("P")), (["a"], {"a": 1}), (["a"], "abc"), (Ki, [Ki]), (1, [True]),
       (True, [1]), (NAN, [NAN]), ("a", {"a": UNDEFINED}))],
]
# fmt: on


def random_value(chooser: random.Random, depth: int = 0) -> Any:
    """A random runtime value: scalars of awkward shapes, nested lists and dicts."""
    kind = chooser.randrange(9 if depth < 3 else 6)
    if kind == 0:
        return chooser.choice([0, 1, -7, BIG, -BIG - 1, 10**15])
    if kind == 1:
        return chooser.choice([0.5, 1.0, -2.5, 1e16, 1e-7, 1e20, 0.1 + 0.2, 123.456, 5e-324])
    if kind == 2:
        return "".join(chooser.choice("ab'\"\\ é日\n\t{}%") for _ in range(chooser.randrange(5)))
    if kind == 3:
        return chooser.choice([None, UNDEFINED, True, False])
    if kind == 4:
        return NumberMultiplier(chooser.choice([1, 2, 16]), chooser.choice(["Ki", "M", "m"]))
    if kind == 5:
        return chooser.choice(["", "x", "it's", 'a"b'])
    if kind in (6, 7):
        return [random_value(chooser, depth + 1) for _ in range(chooser.randrange(4))]
    return {
        chooser.choice(["a", "b", "k'", 'q"', "é"]): random_value(chooser, depth + 1)
        for _ in range(chooser.randrange(4))
    }


def random_cases(seed: int = 20240607, count: int = 150) -> list[Case]:
    chooser = random.Random(seed)
    cases = []
    for _ in range(count):
        value = random_value(chooser)
        other = value if chooser.random() < 0.5 else random_value(chooser)
        cases += [C("str", value), C("typeof", value), O("==", value, other)]
        numbers = [chooser.choice([1, 2.5, -3, 0, 7.0, 2]) for _ in range(chooser.randrange(6))]
        cases += [C("sorted", numbers), C("isunique", numbers), C("max", [*numbers, 0])]
    return cases


@pytest.mark.skipif(not reference_available(), reason="kcl_lib not installed")
def test_builtins_agree_with_reference() -> None:
    cases = CORE_CASES + STRING_CASES + OPERATOR_CASES + random_cases()
    answers = run_reference(cases)
    problems = []
    for index, case in enumerate(cases):
        problem = check(case, answers[index])
        if problem:
            problems.append(f"{case}: {problem}")
    assert not problems, f"{len(problems)} of {len(cases)} differ:\n" + "\n".join(problems)


def test_every_builtin_and_method_is_covered() -> None:
    called = {case.name for case in CORE_CASES if case.kind == "call"}
    methods = {case.name for case in STRING_CASES}
    assert called == set(BUILTINS)
    assert methods == set(STRING_METHODS)


def test_literals_round_trip_through_python_values() -> None:
    assert literal([1, "a\n", None, {"k": 1.5}]) == '[1, "a\\u000a", None, {"k": 1.5}]'
    assert literal(1e20) == "1e20"
    assert Case("method", "find", ("é", "x")).kcl() == '_any("\\u00e9").find(_any("x"))'
