"""String methods against literal expectations.

Every expectation in ``REFERENCE`` was checked against the reference KCL (kcl-lib
0.13.2); ``DIFFERENCES`` holds the cases where we knowingly differ (see
``docs/differences-builtins.md``). No ``kcl_lib`` needed.
"""

from __future__ import annotations

from typing import Any

import pytest

from kclpy.values import UNDEFINED, NumberMultiplier, SchemaInstance
from kclpy.values.errors import KclRuntimeError
from kclpy.vm.builtins.strings import STRING_METHODS, format_value
from tests.builtins.calling import call_method


class Stub:
    name = "P"
    pkgpath = "__main__"


class Error:
    def __init__(self, message: str) -> None:
        self.message = message

    def __repr__(self) -> str:
        return f"Error({self.message!r})"


def run(method: str, receiver: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    try:
        return call_method(method, receiver, args, kwargs)
    except KclRuntimeError as error:
        return Error(error.message)


def check(result: Any, expected: Any) -> None:
    if isinstance(expected, Error):
        assert isinstance(result, Error), result
        assert result.message == expected.message
    else:
        assert type(result) is type(expected)
        assert result == expected


H = "héllo"
Ki = NumberMultiplier(1, "Ki")
P = SchemaInstance(Stub(), {"x": 0, "y": "a"})

# a table, one row per line group: kept as written
# fmt: off
REFERENCE: list[tuple[str, str, tuple[Any, ...], dict[str, Any], Any]] = [
    ("capitalize", "hello world", (), {}, "Hello world"),
    ("capitalize", "ßa", (), {}, "SSa"),
    ("capitalize", "ǆa", (), {}, "Ǆa"),
    ("capitalize", "éA", (), {}, "Éa"),
    ("title", "they're bill's", (), {}, "They'Re Bill'S"),
    ("title", "ǆa bc", (), {}, "ǅa Bc"),
    ("title", "Ǆa", (), {}, "Ǆa"),
    ("title", "ßa", (), {}, "Ssa"),
    ("upper", "ß", (), {}, "SS"),
    ("lower", "İ", (), {}, "i̇"),
    ("chars", H, (), {}, ["h", "é", "l", "l", "o"]),
    ("count", "banana", ("",), {}, 7),
    ("count", H, ("l", 3), {}, 2),
    ("count", "abc", ("", 1, 2), {}, 2),
    ("count", "abc", (None,), {}, Error("Invalid str object in str_count")),
    ("find", H, ("l",), {}, 3),
    ("find", H, ("l", 4), {}, 4),
    ("find", H, ("l", -2), {}, 4),
    ("find", H, ("o", 0, 5), {}, -1),
    ("find", H, ("", 10), {}, -1),
    ("find", "abc", ("b", "x"), {}, 1),
    ("find", "abc", (1,), {}, Error("Invalid str object in str_find")),
    ("rfind", H, ("l",), {}, 4),
    ("rfind", H, ("",), {}, 6),
    ("index", H, ("o",), {}, 5),
    ("index", H, ("z",), {}, Error("substring not found")),
    ("rindex", H, ("z",), {}, Error("substring not found")),
    ("startswith", H, ("l", 3), {}, True),
    ("endswith", H, ("é", 0, 3), {}, True),
    ("startswith", "hello", ("l", 2, 2), {}, False),
    ("isdigit", "²", (), {}, True),
    ("isdigit", "١", (), {}, False),
    ("isdigit", "０", (), {}, False),
    ("isdigit", "", (), {}, False),
    ("isalpha", "Ⅷ", (), {}, True),
    ("isalpha", "é", (), {}, True),
    ("isalnum", "½", (), {}, True),
    ("isspace", "\x1c", (), {}, True),
    ("islower", "ª", (), {}, True),
    ("istitle", "ǅ", (), {}, True),
    ("isupper", "A1", (), {}, True),
    ("join", ",", ([None, True, 1.5, [1, "x"], {"a": "b"}, UNDEFINED, Ki],), {},
     "None,True,1.5,[1, x],{'a': 'b'},Undefined,1Ki"),
    ("join", ",", ("abc",), {}, "a,b,c"),
    ("join", ",", (P,), {}, "x,y"),
    ("join", ",", (1,), {}, Error("'int' object is not iterable")),
    ("strip", "\t\n a\u3000", (), {}, "a"),
    ("strip", "\x1ca\x1c", (), {}, "\x1ca\x1c"),
    ("strip", "\x85a\x85", (), {}, "a"),
    ("strip", "xyaxy", ("yx",), {}, "a"),
    ("lstrip", "\x1fa", (), {}, "\x1fa"),
    ("removeprefix", "abcabc", ("ab",), {}, "cabc"),
    ("removesuffix", "abc", ("",), {}, "abc"),
    ("replace", "aaa", ("", "-"), {}, "-a-a-a-"),
    ("replace", "aaa", ("a", "b", 0), {}, "aaa"),
    ("split", "", (",",), {}, [""]),
    ("split", "", (), {}, []),
    ("split", "a", ("",), {}, ["", "a", ""]),
    ("split", "abc", ("", 1), {}, ["", "abc"]),
    ("split", "abc", ("", 2), {}, ["", "a", "bc"]),
    ("split", "a\x1cb", (), {}, ["a\x1cb"]),
    ("split", "a\x85b", (), {}, ["a\x85b"]),
    ("split", "a\u3000b c", (), {}, ["a\u3000b", "c"]),
    ("split", "a\x0bb\x0cc", (), {}, ["a", "b", "c"]),
    ("split", "  a b c  ", (None, 1), {}, ["a", "b c  "]),
    ("split", "a,b", (), {"sep": ",", "maxsplit": 1}, ["a", "b"]),
    ("rsplit", "  a b c  ", (None, 1), {}, ["  a b", "c"]),
    ("rsplit", "abc", ("", 1), {}, ["abc", ""]),
    ("splitlines", "a\x0bb\x0cc\x1cd\u2028e\x85f", (), {}, ["a\x0bb\x0cc\x1cd\u2028e\x85f"]),
    ("splitlines", "a\r\nb\rc\n", (True,), {}, ["a\r\n", "b\r", "c\n"]),
    ("splitlines", "a\n\rb", (), {}, ["a", "", "b"]),
    ("splitlines", "", (), {}, []),
    ("format", "hello {} {}", ("a", 1), {}, "hello a 1"),
    ("format", "{0} {1} {0}", ("a", "b"), {}, "a b a"),
    ("format", "{name}!", (), {"name": "x"}, "x!"),
    ("format", "{:>5}|{:<5}|{:^5}|", ("a", "b", "c"), {}, "    a|b    |  c  |"),
    ("format", "{:.2f}", (3.14159,), {}, "3.14"),
    ("format", "{{}} {}", (1,), {}, "{} 1"),
    ("format", "{:.3}", (3.14159,), {}, "3.14159"),
    ("format", "{:.3}", (1,), {}, "1"),
    ("format", "{}", (1e20,), {}, "1e+20"),
    ("format", "{}", ([1, "a"],), {}, "[1, a]"),
    ("format", "{:5}|", (True,), {}, "True|"),
    ("format", "{:d}", (None,), {}, "None"),
    ("format", "{!r}", ("it's",), {}, "it's"),
    ("format", "{0}{}", (1, 2), {}, "11"),
    ("format", "{0[0]}", ([5, 6],), {}, "5"),
    ("format", "{0.x}", ({"x": 1},), {}, "1"),
    ("format", "{[a]}", ({"a": 1},), {}, "1"),
    ("format", "{:n}", (1234567,), {}, "1234567"),
    ("format", "{:>5}|", (Ki,), {}, "1Ki|"),
    ("format", "{}", (), {}, Error("argument tuple index out of range")),
    ("format", "{x}", (1,), {}, Error("keyword argument 'x' not found")),
    ("format", "{", (1,), {}, Error("format error")),
    ("format", "}", (1,), {}, Error("format error")),
    ("format", "{:d}", ("a",), {}, Error("Unknown format code for object of type 'str'")),
    ("format", "{:d}", (1.5,), {}, Error("Unknown format code 'd' for object of type 'float'")),
    ("format", "{:c}", (65,), {}, Error("Unknown format code 'c' for object of type 'int'")),
    ("format", "{:{}}|", (1, 5), {}, Error("Invalid format specifier")),
    ("format", "{:z}", (1,), {}, Error("Invalid format specifier")),
    ("format", "{:q}", ("a",), {}, Error("Invalid format specifier")),
    ("format", "{:010}", ("a",), {},
     Error("'=' alignment not allowed in string format specifier")),
    ("format", "{0[1]}", ("abc",), {}, Error("Invalid list object in list_get")),
]
# fmt: on

# Where we knowingly differ from the reference (its result in the comment).
# a table, one row per line group: kept as written
# fmt: off
DIFFERENCES: list[tuple[str, str, tuple[Any, ...], dict[str, Any], Any]] = [
    # start/end inside a multi-byte character: "called Option::unwrap() on a None value"
    ("find", H, ("l", 2), {}, 3),
    ("find", H, ("l", 0, 2), {}, -1),
    ("count", H, ("l", 2), {}, 2),
    ("startswith", H, ("l", 2), {}, False),
    # panics: "index out of bounds: the len is 1 but the index is 5", Option::unwrap()
    ("format", "{0[5]}", ([1],), {}, Error("list index out of range: 5")),
    ("format", "{0[b]}", ({"a": 1},), {}, Error("format field 'b' not found")),
    ("format", "{0.y}", ({"x": 1},), {}, Error("format field 'y' not found")),
    # non-str arguments: the reference splits at "" / replaces "" / ignores them
    ("split", "abc", (1,), {}, Error("Invalid str object in str_split")),
    ("replace", "abc", (1, "x"), {}, Error("Invalid str object in str_replace")),
    ("strip", "abc", (1,), {}, Error("Invalid str object in str_strip")),
    # keyword arguments: "find() takes at least 1 argument (0 given)", "expect 1 argument"
    ("find", "abc", (), {"sub": "b", "start": 0, "end": 3}, 1),
    ("replace", "aa", (), {"old": "a", "new": "b", "count": 1}, "ba"),
    ("strip", "xax", (), {"chars": "x"}, "a"),
    ("join", ",", (), {"iter": ["a"]}, "a"),  # the declared name
    # digits beyond the first plane: the reference says True for "\U000100b2"
    ("isdigit", "\U000100b2", (), {}, False),
]
# fmt: on


@pytest.mark.parametrize(("method", "receiver", "args", "kwargs", "expected"), REFERENCE)
def test_method_matches_reference(
    method: str, receiver: str, args: tuple[Any, ...], kwargs: dict[str, Any], expected: Any
) -> None:
    check(run(method, receiver, args, kwargs), expected)


@pytest.mark.parametrize(("method", "receiver", "args", "kwargs", "expected"), DIFFERENCES)
def test_method_deliberate_difference(
    method: str, receiver: str, args: tuple[Any, ...], kwargs: dict[str, Any], expected: Any
) -> None:
    check(run(method, receiver, args, kwargs), expected)


def test_every_method_is_exported() -> None:
    names = [
        "capitalize",
        "chars",
        "count",
        "endswith",
        "find",
        "format",
        "index",
        "isalnum",
        "isalpha",
        "isdigit",
        "islower",
        "isspace",
        "istitle",
        "isupper",
        "join",
        "lower",
        "lstrip",
        "removeprefix",
        "removesuffix",
        "replace",
        "rfind",
        "rindex",
        "rsplit",
        "rstrip",
        "split",
        "splitlines",
        "startswith",
        "strip",
        "title",
        "upper",
    ]
    assert sorted(STRING_METHODS) == names


@pytest.mark.parametrize(
    ("value", "spec", "text"),
    [
        (1.5, ">6", "   1.5"),
        ("abc", ".2s", "ab"),
        (255, "#x", "0xff"),
        (True, ">9", "True"),
        (None, "", "None"),
        (1234567.891, ",.2f", "1,234,567.89"),
        (2.5, ".0f", "2"),
    ],
)
def test_format_value(value: Any, spec: str, text: str) -> None:
    assert format_value(value, spec) == text
