"""Builtin functions, text conversion and comparison, against literal expectations.

Every expectation in the ``REFERENCE_*`` tables was checked against the reference
KCL (kcl-lib 0.13.2); the ``DIFFERENCES`` table holds the cases where we knowingly
differ (see ``docs/differences-builtins.md``). No ``kcl_lib`` needed.
"""

from __future__ import annotations

import math
from typing import Any

import pytest

from kclpy.values import UNDEFINED, Config, NumberMultiplier, SchemaInstance
from kclpy.values.errors import KclRuntimeError
from kclpy.vm.builtins import compare, convert, core
from kclpy.vm.builtins.core import BUILTINS
from kclpy.vm.builtins.registry import takes_context
from tests.builtins.calling import call_builtin


class Stub:
    """A schema type for instances built in Python."""

    def __init__(self, name: str, pkgpath: str = "__main__") -> None:
        self.name = name
        self.pkgpath = pkgpath


class Error:
    """An expected KclRuntimeError message."""

    def __init__(self, message: str) -> None:
        self.message = message

    def __repr__(self) -> str:
        return f"Error({self.message!r})"


class Lambda:
    """A stand-in for a KCL function value."""

    kcl_type_name = "function"

    def __init__(self, function: Any) -> None:
        self.function = function


class FakeContext:
    """A stand-in BuiltinContext that records output and calls :class:`Lambda` values."""

    current_file = ""
    root = ""
    workdir = ""

    def __init__(self) -> None:
        self.output: list[str] = []
        self.options: dict[str, Any] = {}

    def set_output_stream(self, values: list[Any], options: dict[str, Any]) -> None:
        raise AssertionError("not used by these builtins")

    def warn(self, message: str) -> None:
        raise AssertionError("not used by these builtins")

    def write_output(self, text: str) -> None:
        self.output.append(text)

    def call(self, function: Any, args: list[Any], kwargs: dict[str, Any]) -> Any:
        return function.function(*args, **kwargs)


def same(left: Any, right: Any) -> bool:
    """Equal with equal types all the way down (1 is not 1.0 or True; NaN equals NaN)."""
    if type(left) is not type(right):
        return False
    if type(left) is float and math.isnan(left):
        return math.isnan(right)
    if isinstance(left, list):
        return len(left) == len(right) and all(map(same, left, right))
    if isinstance(left, dict):
        return list(left) == list(right) and all(same(left[k], right[k]) for k in left)
    return bool(left == right)


def call(name: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    try:
        return call_builtin(name, FakeContext(), args, kwargs)
    except KclRuntimeError as error:
        return Error(error.message)


def check(result: Any, expected: Any) -> None:
    if isinstance(expected, Error):
        assert isinstance(result, Error), result
        assert result.message == expected.message
    else:
        assert same(result, expected), (result, expected)


P = SchemaInstance(Stub("P"), {"x": 0, "y": "a"})
Ki = NumberMultiplier(1, "Ki")
INF = math.inf
NAN = math.nan
BIG = 2**63 - 1

# (builtin, args, kwargs, expected): all checked against the reference.
# a table, one row per line group: kept as written
# fmt: off
REFERENCE_CALLS: list[tuple[str, tuple[Any, ...], dict[str, Any], Any]] = [
    ("len", ("héllo",), {}, 6),
    ("len", ("日本",), {}, 6),
    ("len", ([1, 2],), {}, 2),
    ("len", (P,), {}, 2),
    ("len", (1,), {}, Error("object of type 'int' has no len()")),
    ("len", (None,), {}, Error("object of type 'NoneType' has no len()")),
    ("len", (Ki,), {}, Error("object of type 'number_multiplier(1Ki)' has no len()")),
    ("typeof", (Ki,), {}, "number_multiplier(1Ki)"),
    ("typeof", (None,), {}, "None"),
    ("typeof", (UNDEFINED,), {}, "UndefinedType"),
    ("typeof", (P,), {"full_name": True}, "P"),
    ("typeof", (SchemaInstance(Stub("Q", "sub"), {}),), {"full_name": True}, "sub.Q"),
    ("typeof", (SchemaInstance(Stub("Q", "sub"), {}),), {}, "Q"),
    ("typeof", (Lambda(None),), {}, "function"),
    ("int", ("ff", 16), {}, 255),
    ("int", ("1Ki",), {}, 1024),
    ("int", ("1ki",), {}, 1024),
    ("int", ("-1Ki",), {}, -1024),
    ("int", ("2Gi",), {}, 2147483648),
    ("int", ("1P",), {}, 10**15),
    ("int", ("012",), {}, 12),
    ("int", ("0b1", 16), {}, 1),
    ("int", ("+ff", 16), {}, 255),
    ("int", ("-0xff", 16), {}, -255),
    ("int", (1.9,), {}, 1),
    ("int", (-1.9,), {}, -1),
    ("int", (True,), {}, 1),
    ("int", (Ki,), {}, 1024),
    ("int", (NumberMultiplier(1500, "m"),), {}, 1),
    ("int", ("",), {}, Error("number can't be empty")),
    ("int", ("Ki",), {}, Error("number can't be empty")),
    ("int", ("1Ki", 16), {}, Error("invalid literal for int() with base 16: '1Ki'")),
    ("int", ("+0xff", 16), {}, Error("invalid literal for int() with base 16: '+0xff'")),
    ("int", ("FFFFFFFFFFFFFFFF", 16), {},
     Error("invalid literal for int() with base 16: 'FFFFFFFFFFFFFFFF'")),
    ("int", (None,), {}, Error("int() argument must be a string or a number, not 'NoneType'")),
    ("float", ("1e3",), {}, 1000.0),
    ("float", (".5",), {}, 0.5),
    ("float", ("nan",), {}, NAN),
    ("float", (Ki,), {}, 1024.0),
    ("float", ("inf",), {}, Error("inf: A 64-bit floating point number overflow")),
    ("float", ("-1e400",), {}, Error("inf: A 64-bit floating point number overflow")),
    ("float", ("1Ki",), {}, Error("invalid literal for float() with base 10: '1Ki'")),
    ("float", (" 1.5",), {}, Error("invalid literal for float() with base 10: ' 1.5'")),
    ("float", ("1_000",), {}, Error("invalid literal for float() with base 10: '1_000'")),
    ("float", ([1],), {}, Error("invalid literal for float() with base 10: '[1]'")),
    ("bool", ("False",), {}, True),
    ("bool", (NumberMultiplier(0, "Ki"),), {}, False),
    ("bool", (), {}, Error("bool() takes exactly one argument (0 given)")),
    ("str", (1e20,), {}, "100000000000000000000.0"),
    ("str", ({"a": ["x"], "b": 'q"'},), {}, "{'a': [x], 'b': \"q\"\"}"),
    ("str", (), {}, ""),
    ("list", ({"a": 1, "b": 2},), {}, ["a", "b"]),
    ("list", (None,), {}, Error("'NoneType' object is not iterable")),
    ("dict", (P,), {}, {"x": 0, "y": "a"}),
    ("dict", ("ab",), {},
     Error("dictionary update sequence element #0 has length 1; 2 is required")),
    ("dict", ([1, 2],), {}, Error("'int' object is not iterable")),
    ("abs", (-1.5,), {}, 1.5),
    ("abs", (True,), {}, UNDEFINED),
    ("abs", ("a",), {}, UNDEFINED),
    ("round", (2.5,), {}, 3),
    ("round", (-2.5,), {}, -3),
    ("round", (0.5,), {}, 1),
    ("round", (1.5555, 0), {}, 2.0),
    ("round", (2.675, 2), {}, 2.68),
    ("round", (0.125, 2), {}, 0.12),
    ("round", (2.345e-10, 12), {}, 2.35e-10),
    ("round", (1e-30, 30), {}, 1e-30),
    ("round", (25.0, -1), {}, 20.0),
    ("round", (3, 2), {}, 3.0),
    ("round", (1.5, 1.5), {}, 2),
    ("round", (1.7e308, -308), {}, UNDEFINED),
    ("round", (None,), {}, UNDEFINED),
    ("max", ([1, 2.5, True],), {}, 2.5),
    ("max", (2, 2.0), {}, 2),
    ("max", ([None, 1],), {},
     Error("'>' not supported between instances of 'NoneType' and 'NoneType'")),
    ("min", (1, "a"), {}, Error("'<' not supported between instances of 'str' and 'int'")),
    ("max", ([],), {}, Error("arg is an empty list")),
    ("min", ("",), {}, Error("arg is an empty str")),
    ("max", ({},), {}, Error("arg is an empty dict")),
    ("max", (), {}, Error("max() takes exactly one argument (0 given)")),
    ("max", (1,), {}, Error("int object is not iterable")),
    ("max", ("héllo",), {}, "é"),
    ("sum", ([1, 2.5],), {}, 3.5),
    ("sum", ([[1], [2]], [0]), {}, [0, 1, 2]),
    ("sum", ([BIG, 1],), {}, Error("9223372036854775808: A 64 bit integer overflow")),
    ("sum", (["a"], "x"), {}, Error("sum() can't sum strings")),
    ("sum", ([True],), {}, Error("unsupported operand type(s) for +: 'int' and 'bool'")),
    ("sum", ([[1], 2], []), {}, Error('can only concatenate list (not "int") to list')),
    ("sum", (None,), {}, UNDEFINED),
    ("pow", (2, -1), {}, 0.5),
    ("pow", (2, 10, 1000), {}, 24),
    ("pow", (0, -1), {}, INF),
    ("pow", (-8, 0.5), {}, NAN),
    ("pow", (2.0, 2000), {}, INF),
    ("pow", (2, 3, 0), {}, Error("pow() 3rd argument cannot be 0")),
    ("pow", (2, -1, 5), {},
     Error("pow() 2nd argument cannot be negative when 3rd argument specified")),
    ("pow", (2.0, 3, 5), {},
     Error("pow() 3rd argument not allowed unless all arguments are integers")),
    ("pow", (None, 2), {}, UNDEFINED),
    ("range", (5, 0, -2), {}, [5, 3, 1]),
    ("range", (0, 3, 0), {}, Error("range() step argument must not be zero")),
    ("range", (), {"stop": 3}, UNDEFINED),
    ("sorted", ("héllo",), {}, ["h", "l", "l", "o", "é"]),
    ("sorted", ([2, 1.0, 1, 2.0, 1.0],), {"reverse": True}, [2, 2.0, 1.0, 1, 1.0]),
    ("sorted", ([3, 1.5, True, False, 2],), {}, Error("cannot compare bool and int")),
    ("sorted", ([1, "a"],), {"reverse": True}, Error("cannot compare int and str")),
    ("sorted", ([[1], [2]],), {}, Error("cannot compare list and list")),
    ("sorted", (P,), {}, Error("sorted only for str|list|dict type")),
    ("zip", ([1, 2], "abc"), {}, [[1, "a"], [2, "b"]]),
    ("zip", ([1], None), {}, Error("'NoneType' object is not iterable")),
    ("isunique", ([1, 1.0],), {}, False),
    ("isunique", ([True, 1],), {}, True),
    ("isunique", ([Ki, Ki],), {}, True),
    ("isunique", (None,), {}, False),
    ("isnullish", (UNDEFINED,), {}, True),
    ("multiplyof", (-7, 2), {}, False),
    ("multiplyof", (6.0, 3), {}, UNDEFINED),
    ("all_true", ({"a": 1, "b": 0},), {}, False),
    ("any_true", ([0, "", None],), {}, False),
    ("all_true", ("ab",), {}, False),
    ("hex", (-1,), {}, "-0x1"),
    ("oct", (8,), {}, "0o10"),
    ("bin", (-5,), {}, "-0b101"),
    ("hex", (None,), {}, UNDEFINED),
    ("ord", ("😀",), {}, 128512),
    ("ord", ("éa",), {}, Error("ord() expected string of length 1, but string of length 3 found")),
]
# fmt: on

# Where we knowingly differ from the reference (its result in the comment).
# a table, one row per line group: kept as written
# fmt: off
DIFFERENCES: list[tuple[str, tuple[Any, ...], dict[str, Any], Any]] = [
    # ParseIntError { kind: InvalidDigit } panic text
    ("int", ("abc",), {}, Error("invalid literal for int() with base 10: 'abc'")),
    ("int", ("1.5",), {}, Error("invalid literal for int() with base 10: '1.5'")),
    ("int", ("٣",), {}, Error("invalid literal for int() with base 10: '٣'")),
    # ParseIntError { kind: PosOverflow } panic text
    ("int", ("99999999999999999999",), {},
     Error("99999999999999999999: A 64 bit integer overflow")),
    # from_ascii_bytes_radix panic text
    ("int", ("12", 0), {}, Error("int() base must be in the range [2, 36], not 0")),
    ("int", ("12", None), {}, Error("int() base must be in the range [2, 36], not None")),
    # saturates to 9223372036854775807 / 0
    ("int", (1e20,), {}, Error("100000000000000000000: A 64 bit integer overflow")),
    ("int", (INF,), {}, Error("cannot convert float infinity to integer")),
    ("int", (NAN,), {}, Error("cannot convert float NaN to integer")),
    ("round", (1e20,), {}, Error("100000000000000000000: A 64 bit integer overflow")),
    # wraps to -1000
    ("int", ("9223372036854775807K",), {},
     Error("9223372036854775807000: A 64 bit integer overflow")),
    # n/u/m suffixes always give 0
    ("int", ("1000m",), {}, 1),
    ("int", ("2048mi",), {}, 2),
    ("int", ("-1500m",), {}, -1),
    # Option::unwrap() panic
    ("list", ("héllo",), {}, ["h", "é", "l", "l", "o"]),
    # {'[a, 1]': [b, 2]}, a panic for one pair, 'int' object is not iterable, a conflict
    ("dict", ([["a", 1], ["b", 2]],), {}, {"a": 1, "b": 2}),
    ("dict", ([["a", 1]],), {}, {"a": 1}),
    ("dict", (), {"x": 1, "y": 2}, {"x": 1, "y": 2}),
    ("dict", ({"k": 1},), {"x": 1}, {"k": 1, "x": 1}),
    ("dict", ({"a": 1},), {"a": 2}, {"a": 2}),
    # wraps to -9223372036854775808
    ("abs", (-(2**63),), {}, Error("9223372036854775808: A 64 bit integer overflow")),
    # saturates to 9223372036854775807
    ("pow", (2, 63), {}, Error("9223372036854775808: A 64 bit integer overflow")),
    ("pow", (10, 400), {}, Error("10**400: A 64 bit integer overflow")),
    # truncated remainder (-3 and 2)
    ("pow", (-2, 3, 5), {}, 2),
    ("pow", (2, 3, -3), {}, -1),
    # float modulus ignored (4)
    ("pow", (2, 2, 2.5), {},
     Error("pow() 3rd argument not allowed unless all arguments are integers")),
    # ints come back unchanged (15.0 and 25.0); Undefined
    ("round", (15, -1), {}, 20.0),
    ("round", (25, -1), {}, 20.0),
    ("round", (4.5, -400), {}, 0.0),
    # "3.5e+38: A 32-bit floating point number overflow"
    ("sum", ([3.5e38],), {}, 3.5e38),
    ("sum", ([1e308, 1e308],), {}, INF),
    # "attempt to calculate the remainder with a divisor of zero" panic text
    ("multiplyof", (6, 0), {}, Error("integer division or modulo by zero")),
    # schema instances: inverted (false for P{x = 1})
    ("all_true", (SchemaInstance(Stub("P"), {"x": 1}),), {}, True),
    ("all_true", (SchemaInstance(Stub("P"), {"x": 0, "y": ""}),), {}, False),
    # hangs
    ("zip", (), {}, []),
    # "-01000000000000000000000"
    ("oct", (-(2**63),), {}, "-0o1000000000000000000000"),
    # runs out of memory
    ("range", (-(2**63), BIG), {}, Error("range() result has too many items")),
]
# fmt: on


@pytest.mark.parametrize(("name", "args", "kwargs", "expected"), REFERENCE_CALLS)
def test_builtin_matches_reference(
    name: str, args: tuple[Any, ...], kwargs: dict[str, Any], expected: Any
) -> None:
    check(call(name, args, kwargs), expected)


@pytest.mark.parametrize(("name", "args", "kwargs", "expected"), DIFFERENCES)
def test_builtin_deliberate_difference(
    name: str, args: tuple[Any, ...], kwargs: dict[str, Any], expected: Any
) -> None:
    check(call(name, args, kwargs), expected)


def test_print_writes_str_forms_and_ignores_sep() -> None:
    context = FakeContext()
    assert core.kcl_print(context, 1, "a", [1, "x"], {"a": "b"}, None, 1.0, sep=",") is None
    assert core.kcl_print(context, "x", end=None) is None
    assert core.kcl_print(context, end="E") is None
    assert context.output == ["1 a [1, x] {'a': 'b'} None 1.0\n", "xNone", "E"]


def test_reduce_folds_through_the_context() -> None:
    add = Lambda(lambda a, b: a + b)
    pair = Lambda(lambda a, b: [a, b])
    context = FakeContext()
    assert core.reduce(context, add, [1, 2, 3]) == 6
    assert core.reduce(context, add, [1, 2, 3], 10) == 16
    assert core.reduce(context, add, [], 0) == 0
    assert core.reduce(context, add, []) is None
    assert core.reduce(context, pair, [1, 2, 3]) == [[1, 2], 3]
    assert core.reduce(context, add, [1, 2], initial=0) == 3
    with pytest.raises(KclRuntimeError, match="invalid list value"):
        core.reduce(context, add, None)
    with pytest.raises(KclRuntimeError, match="argument 'reducer' must be a function"):
        core.reduce(context, 1, [1, 2])


def test_every_builtin_except_option_is_exported() -> None:
    names = {
        "print",
        "len",
        "typeof",
        "int",
        "float",
        "bool",
        "str",
        "list",
        "dict",
        "abs",
        "round",
        "max",
        "min",
        "sum",
        "pow",
        "range",
        "sorted",
        "zip",
        "isunique",
        "isnullish",
        "multiplyof",
        "all_true",
        "any_true",
        "hex",
        "oct",
        "bin",
        "ord",
        "reduce",
    }
    assert set(BUILTINS) == names
    assert {name for name, function in BUILTINS.items() if takes_context(function)} == {
        "print",
        "reduce",
    }


# ---------------------------------------------------------------- convert.py

# a table, one row per line group: kept as written
# fmt: off
TO_STR: list[tuple[Any, str]] = [
    (1.0, "1.0"), (1e20, "100000000000000000000.0"), (1e16, "10000000000000000.0"),
    (1e-7, "0.0000001"), (0.1 + 0.2, "0.30000000000000004"), (2.5e-5, "0.000025"),
    (INF, "inf.0"), (-INF, "-inf.0"), (NAN, "NaN.0"), (-0.0, "-0.0"), (True, "True"),
    (None, "None"), (UNDEFINED, "Undefined"), (Ki, "1Ki"), ("é", "é"), (-5, "-5"),
    ([1, "a"], "[1, a]"), (["a'b", 'a"b', "", None, UNDEFINED, [], {}],
                           "[a'b, a\"b, , None, Undefined, [], {}]"),
    (["x", {"k": "v"}], "[x, {'k': 'v'}]"),
    ({"a": {"b": "c"}, "l": ["x", {"k": "v"}], "n": None, "u": UNDEFINED, "f": 1.0},
     "{'a': {'b': 'c'}, 'l': [x, {'k': 'v'}], 'n': None, 'u': Undefined, 'f': 1.0}"),
    ({"it's": "a'b", "q": 'a"b', "both": "a'b\"c", "nl": "a\nb"},
     "{'it's': 'a'b', 'q': \"a\"b\", 'both': \"a'b\\\"c\", 'nl': 'a\nb'}"),
    ({"x'y\"z": 1}, "{\"x'y\\\"z\": 1}"),
    ({"a": Ki, "b": [Ki]}, "{'a': 1Ki, 'b': [1Ki]}"),
    (P, "{'x': 0, 'y': 'a'}"), (Config(a=1), "{'a': 1}"), (Lambda(None), "function"),
    (len, "function"),
]
# fmt: on


@pytest.mark.parametrize(("value", "text"), TO_STR)
def test_to_str(value: Any, text: str) -> None:
    assert convert.to_str(value) == text


# a table, one row per line group: kept as written
# fmt: off
TYPE_NAMES: list[tuple[Any, str, str]] = [
    (1, "int", "int"), (1.5, "float", "float"), ("s", "str", "str"), (True, "bool", "bool"),
    (None, "NoneType", "None"), (UNDEFINED, "UndefinedType", "UndefinedType"),
    ([1], "list", "list"), ({}, "dict", "dict"), (Config(), "dict", "dict"), (P, "P", "P"),
    (NumberMultiplier(2, "M"), "number_multiplier(2M)", "number_multiplier(2M)"),
    (Lambda(None), "function", "function"), (len, "function", "function"),
]
# fmt: on


@pytest.mark.parametrize(("value", "name", "typeof"), TYPE_NAMES)
def test_type_names(value: Any, name: str, typeof: str) -> None:
    assert convert.type_name(value) == name
    assert convert.typeof(value) == typeof


def test_objects_report_their_kcl_type_name() -> None:
    class SchemaType:
        kcl_type_name = "type"

    assert convert.typeof(SchemaType()) == "type"
    assert convert.type_name(SchemaType()) == "type"
    assert convert.to_str(SchemaType()) == "function"
    assert convert.is_function(SchemaType())
    assert convert.is_function(Lambda(None))
    assert convert.is_function(len)
    assert not convert.is_function(1)
    assert not convert.is_function(int)


@pytest.mark.parametrize(
    "value",
    [False, None, UNDEFINED, 0, 0.0, -0.0, "", [], {}, Config(), NumberMultiplier(0, "Ki")],
)
def test_falsy_values(value: Any) -> None:
    assert convert.truthy(value) is False


@pytest.mark.parametrize("value", [True, 1, NAN, "False", [0], {"a": None}, Ki, P, Lambda(None)])
def test_truthy_values(value: Any) -> None:
    assert convert.truthy(value) is True


# ---------------------------------------------------------------- compare.py

# a table, one row per line group: kept as written
# fmt: off
EQUAL: list[tuple[Any, Any, bool]] = [
    (1, True, False), (1, 1.0, True), (None, UNDEFINED, False), (UNDEFINED, UNDEFINED, True),
    ([1, 2], [1.0, 2], True), ({"a": 1, "b": 2}, {"b": 2, "a": 1}, True), ([1], [True], False),
    (P, {"x": 0, "y": "a"}, False), (P, SchemaInstance(Stub("Q"), {"x": 0, "y": "a"}), True),
    (Ki, Ki, False), (Ki, 1024, False), (NAN, NAN, False), ("a", None, False),
    (Config(a=1), {"a": 1}, True), ({"a": 1}, {"a": 1, "b": 2}, False),
]
# fmt: on


@pytest.mark.parametrize(("left", "right", "expected"), EQUAL)
def test_equal(left: Any, right: Any, expected: bool) -> None:
    assert compare.equal(left, right) is expected
    assert compare.equal(right, left) is expected
    assert compare.not_equal(left, right) is not expected


def test_functions_are_equal_only_to_themselves() -> None:
    first, second = Lambda(None), Lambda(None)
    assert compare.equal(first, first)
    assert not compare.equal(first, second)  # the reference says True


# a table, one row per line group: kept as written
# fmt: off
ORDER: list[tuple[Any, Any, bool, bool]] = [  # left, right, left < right, left <= right
    (1, 1.5, True, True), (1, True, False, True), (True, 2, True, True),
    ([1, 2], [1, 3], True, True), ([1, 2], [1], False, False), ([1, 2], [1, 2], False, True),
    ([None], [None], False, True), ("C", "a", True, True), ("é", "z", False, False),
    ([1, "a"], [2, 2], True, True), (NAN, 1, False, False),
]
# fmt: on


@pytest.mark.parametrize(("left", "right", "less", "less_equal"), ORDER)
def test_ordering(left: Any, right: Any, less: bool, less_equal: bool) -> None:
    assert compare.less(left, right) is less
    assert compare.less_equal(left, right) is less_equal
    assert compare.greater(right, left) is less
    assert compare.greater_equal(right, left) is less_equal
    assert compare.ORDERING["<"](left, right) is less


@pytest.mark.parametrize(
    ("op", "left", "right", "message"),
    [
        ("<", "a", 1, "'<' not supported between instances of 'str' and 'int'"),
        (">=", None, None, "'>=' not supported between instances of 'NoneType' and 'NoneType'"),
        (
            "<=",
            [1, [1, "a"]],
            [1, [1, 2]],
            "'<=' not supported between instances of 'str' and 'int'",
        ),
        (">", Ki, 1, "'>' not supported between instances of 'number_multiplier(1Ki)' and 'int'"),
        ("<", P, P, "'<' not supported between instances of 'P' and 'P'"),
        ("<", {}, {}, "'<' not supported between instances of 'dict' and 'dict'"),
    ],
)
def test_ordering_errors(op: str, left: Any, right: Any, message: str) -> None:
    with pytest.raises(KclRuntimeError) as caught:
        compare.ORDERING[op](left, right)
    assert caught.value.message == message
    with pytest.raises(KclRuntimeError) as caught:
        compare.compare(left, right, op)
    assert caught.value.message == message


def test_compare_for_sorting() -> None:
    assert compare.compare(1, 2.5) == -1
    assert compare.compare("b", "a") == 1
    assert compare.compare([1], [1], "<") == 0
    with pytest.raises(KclRuntimeError, match="cannot compare bool and int"):
        compare.compare(True, 1)
    with pytest.raises(KclRuntimeError, match="cannot compare list and list"):
        compare.sort_compare([1], [2])


# a table, one row per line group: kept as written
# fmt: off
CONTAINS: list[tuple[Any, Any, bool]] = [
    (1.0, [1, [2], {"a": 1}, None, "x"], True), (True, [1], False), ([2.0], [[2]], True),
    (None, [1, None], True), (UNDEFINED, [None], False), (Ki, [Ki], False), ("x", P, True),
    ("z", P, False), (1, {"1": 1}, False), ("a", {"a": UNDEFINED}, True), ("", "abc", True),
    ("ac", "abc", False), (1, "abc", False), (["a"], {"a": 1}, False),
]
# fmt: on


@pytest.mark.parametrize(("item", "container", "expected"), CONTAINS)
def test_contains(item: Any, container: Any, expected: bool) -> None:
    assert compare.contains(container, item) is expected


@pytest.mark.parametrize(
    ("container", "name"),
    [
        (None, "NoneType"),
        (1, "int"),
        (UNDEFINED, "UndefinedType"),
        (Ki, "number_multiplier(1Ki)"),
        (Lambda(None), "function"),
    ],
)
def test_contains_needs_an_iterable(container: Any, name: str) -> None:
    with pytest.raises(KclRuntimeError) as caught:
        compare.contains(container, 1)
    assert caught.value.message == f"TypeError: argument of type '{name}' is not iterable"
