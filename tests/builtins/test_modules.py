"""Tests of the system modules with literal expectations (no reference needed).

The expected values were checked against kcl-lib 0.13.2 except where kclpy differs on
purpose (docs/differences-modules.md); those cases say so.
"""

from __future__ import annotations

import math
import os
import re
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from kclpy.values import UNDEFINED
from kclpy.values.errors import KclRuntimeError
from kclpy.vm.builtins import modules as modules_package
from kclpy.vm.builtins.registry import SYSTEM_MODULES, implementations, system_module, takes_context
from kclpy.vm.fs_policy import DEFAULT_POLICY
from kclpy.vm.merge import bit_or
from tests.builtins.calling import call_member


class FakeContext:
    """A stand-in BuiltinContext for calling module functions directly."""

    def __init__(self, folder: str = "", root: str | None = None) -> None:
        self.current_file = os.path.join(folder, "main.k") if folder else ""
        self.root = folder if root is None else root
        self.workdir = "/work"
        self.options: dict[str, Any] = {}
        self.output: list[str] = []
        self.stream: tuple[list[Any], dict[str, Any]] | None = None
        self.fs_policy = DEFAULT_POLICY

    def write_output(self, text: str) -> None:
        self.output.append(text)

    def set_output_stream(self, values: list[Any], options: dict[str, Any]) -> None:
        self.stream = (values, options)

    def call(self, function: Any, args: list[Any], kwargs: dict[str, Any]) -> Any:
        return function(*args, **kwargs)

    def warn(self, message: str) -> None:
        self.output.append(message)

    def union(self, left: Any, right: Any) -> Any:
        return bit_or(left, right)


def member(module: str, name: str) -> Any:
    members = implementations(module)
    assert members is not None
    return members[name]


def call(module: str, name: str, *args: Any, ctx: Any = None, **kwargs: Any) -> Any:
    return call_member(module, name, ctx or FakeContext(), args, kwargs)


def fails(message: str, module: str, name: str, *args: Any, **kwargs: Any) -> None:
    with pytest.raises(KclRuntimeError) as info:
        call(module, name, *args, **kwargs)
    assert info.value.message == message


# ---------------------------------------------------------------------------------------
# Registry and loading


def test_every_system_module_loads() -> None:
    for name in SYSTEM_MODULES:
        members = system_module(name)
        assert members, name
        assert all(isinstance(key, str) for key in members)


CONTEXT_MEMBERS = {
    ("crypto", "filesha256"), ("json", "dump_to_file"), ("yaml", "dump_to_file"),
    ("yaml", "dump_all_to_file"), ("runtime", "catch"), ("manifests", "yaml_stream"),
    ("collection", "union_all"),
    *(("file", name) for name in (
        "read", "glob", "exists", "size", "modpath", "workdir", "current", "abs", "write",
        "append", "mkdir", "delete", "cp", "mv", "read_env",
    )),
}  # fmt: skip


def test_context_functions_are_marked() -> None:
    for module in SYSTEM_MODULES:
        for name, value in (implementations(module) or {}).items():
            if callable(value):
                assert takes_context(value) == ((module, name) in CONTEXT_MEMBERS), (module, name)


def test_member_lists() -> None:
    expected = {
        "base64": "encode decode",
        "base32": "encode decode",
        "json": "encode decode validate dump_to_file merge",
        "yaml": "encode encode_all decode decode_all dump_to_file dump_all_to_file validate",
        "toml": "encode decode",
        "math": "ceil factorial floor gcd isfinite isinf isnan modf exp expm1 log1p log log2 "
        "log10 pow sqrt",
        "regex": "match search compile findall replace split",
        "datetime": "ticks date now today validate is_rfc3339 is_iso8601",
        "crypto": "md5 sha1 sha224 sha256 sha384 sha512 blake3 uuid filesha256",
        "template": "execute html_escape",
        "runtime": "catch",
        "collection": "union_all",
        "manifests": "yaml_stream",
    }
    for module, names in expected.items():
        assert sorted(system_module(module) or {}) == sorted(names.split()), module
    assert len(system_module("net") or {}) == 23
    assert len(system_module("file") or {}) == 15
    assert len(system_module("units") or {}) == 28


def test_heavy_imports_stay_lazy() -> None:
    """Loading the modules imports none of the heavy libraries they use."""
    code = (
        "import sys\n"
        "import kclpy.values.yaml_writer, kclpy.values.json_writer, kclpy.values.toml_writer\n"
        "import kclpy.vm.merge, kclpy.vm.builtins.convert\n"
        "from kclpy.vm.builtins.registry import SYSTEM_MODULES, system_module\n"
        "before = set(sys.modules)\n"
        "for name in SYSTEM_MODULES: system_module(name)\n"
        "heavy = {'yaml', 'ipaddress', 'hashlib', 'tomllib', 'unicodedata', 'socket', 'uuid',"
        " 'shutil', 'glob', 'datetime', 'fractions'}\n"
        "print(sorted(heavy & (set(sys.modules) - before)))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    assert result.stdout.strip() == "[]"


# ---------------------------------------------------------------------------------------
# base64 / base32


def test_base64() -> None:
    assert call("base64", "encode", "héllo") == "aMOpbGxv"
    assert call("base64", "encode", "x", "GBK") == "eA=="  # the encoding is ignored
    assert call("base64", "decode", "aGVsbG8") == "hello"  # padding optional
    fails(
        "called `Result::unwrap()` on an `Err` value: InvalidByte(0, 33)", "base64", "decode", "!!!"
    )
    fails("called `Result::unwrap()` on an `Err` value: InvalidLength", "base64", "decode", "aGk==")
    fails(
        "called `Result::unwrap()` on an `Err` value: InvalidLastSymbol(5, 66)",
        "base64", "decode", "aGVsbB",
    )  # fmt: skip
    fails(
        "called `Result::unwrap()` on an `Err` value: "
        "Utf8Error { valid_up_to: 0, error_len: Some(1) }",
        "base64", "decode", "/w==",
    )  # fmt: skip


def test_base32() -> None:
    assert call("base32", "encode", "hello") == "NBSWY3DP"
    assert call("base32", "decode", "nbswy3dp") == "hello"
    assert call("base32", "decode", "M=E") == "`"
    assert call("base32", "decode", "xyz") is None  # not UTF-8
    fails("decode() missing 1 required positional argument: 'value'", "base32", "decode", "0")


# ---------------------------------------------------------------------------------------
# json


def test_json_decode() -> None:
    value = call("json", "decode", '{"b": 1, "a": [1, 2.0, "x", null, true], "b": 3}')
    assert value == {"b": 3, "a": [1, 2.0, "x", None, True]}
    assert list(value) == ["b", "a"]
    assert type(value["a"][1]) is float
    assert math.copysign(1.0, call("json", "decode", "-0")) == -1.0
    assert call("json", "decode", "9223372036854775808") == 9.223372036854776e18
    assert call("json", "decode", "9.044889105823875e19") == 9.044889105823877e19
    fails("trailing comma at line 1 column 7", "json", "decode", "[1, 2,]")
    fails("expected value at line 3 column 3", "json", "decode", "\n\n  x")
    fails("trailing characters at line 1 column 6", "json", "decode", '"é" x')
    fails("recursion limit exceeded at line 1 column 128", "json", "decode", "[" * 128)
    fails("number out of range at line 1 column 5", "json", "decode", "1e400")


def test_json_other_members() -> None:
    assert call("json", "validate", '{"a": 1}') is True
    assert call("json", "validate", "{a: 1}") is False
    merged = call("json", "merge", {"a": 1, "b": {"c": 2, "d": 3}}, {"b": {"c": None, "e": 4}})
    assert merged == {"a": 1, "b": {"d": 3, "e": 4}}
    fails("invalid int value", "json", "encode", {}, indent=None)


def test_json_dump_to_file(tmp_path: Path) -> None:
    ctx = FakeContext(str(tmp_path))
    assert call("json", "dump_to_file", {"a": [1]}, "o.json", ctx=ctx) is UNDEFINED
    assert (tmp_path / "o.json").read_text() == '{"a": [1]}'
    with pytest.raises(KclRuntimeError) as info:
        call("json", "dump_to_file", {}, "no/x.json", ctx=ctx)
    assert (
        info.value.message
        == "Unable to write file 'no/x.json': No such file or directory (os error 2)"
    )


# ---------------------------------------------------------------------------------------
# yaml


def test_yaml_decode() -> None:
    text = "a: yes\nb: 0x10\nc: 017\nd: .inf\ne: ~\nf: 1e3\ng: 1_000\n'1': x\n<<: {m: 1}\n"
    assert call("yaml", "decode", text) == {
        "a": "yes", "b": 16, "c": "017", "d": None, "e": None, "f": 1000.0, "g": "1_000",
        "1": "x", "<<": {"m": 1},
    }  # fmt: skip
    assert call("yaml", "decode", "") is None
    assert call("yaml", "decode_all", "") == [None]
    assert call("yaml", "decode_all", "a\n---\n") == ["a", None]
    fails(
        "did not find expected ',' or ']' at line 2 column 1, "
        "while parsing a flow sequence at line 1 column 4",
        "yaml", "decode", "a: [1\n",
    )  # fmt: skip
    fails(
        "deserializing from YAML containing more than one document is not supported",
        "yaml", "decode", "a: 1\n---\nb: 2\n",
    )  # fmt: skip
    fails(
        "a.b[1]: invalid type: enum, expected any valid JSON value at line 4 column 5",
        "yaml",
        "decode",
        "a:\n  b:\n  - 1\n  - !foo x\n",
    )
    fails("recursion limit exceeded at line 1 column 4", "yaml", "decode", "a: &x [1, *x]\n")
    fails(
        "a: invalid type: integer `18446744073709551616` as u128, expected any valid JSON value"
        " at line 1 column 4",
        "yaml", "decode", "a: 18446744073709551616\n",
    )  # fmt: skip


def test_yaml_encode_and_validate(tmp_path: Path) -> None:
    assert call("yaml", "encode", {"a": 1, "b": [1, 2]}) == "a: 1\nb:\n- 1\n- 2\n"
    assert call("yaml", "encode_all", [{"a": 1}, {"b": 2}]) == "a: 1\n\n---\nb: 2\n"
    assert call("yaml", "validate", "a: 1\n---\nb: 2") is True
    assert call("yaml", "validate", "a: !custom x") is False
    ctx = FakeContext(str(tmp_path))
    call("yaml", "dump_all_to_file", [{"a": 1}, 2], "all.yaml", ctx=ctx)
    assert (tmp_path / "all.yaml").read_text() == "a: 1\n\n---\n2\n"


# ---------------------------------------------------------------------------------------
# toml (absent from the reference 0.13.2)


def test_toml_decode() -> None:
    text = 'a = 1\nb = [1.5, "x"]\n[t]\nd = 1979-05-27T07:32:00Z\nlocal = 07:32:00\n'
    assert call("toml", "decode", text) == {
        "a": 1,
        "b": [1.5, "x"],
        "t": {"d": "1979-05-27T07:32:00Z", "local": "07:32:00"},
    }
    with pytest.raises(KclRuntimeError):
        call("toml", "decode", "a = ")


def test_toml_encode() -> None:
    text = call("toml", "encode", {"a": 1, "t": {"b": "x"}})
    assert text == 'a = 1\n\n[t]\nb = "x"\n'
    assert call("toml", "decode", text) == {"a": 1, "t": {"b": "x"}}


# ---------------------------------------------------------------------------------------
# math


def test_math_matches_reference() -> None:
    assert call("math", "ceil", -1.2) == -1 and type(call("math", "ceil", 1.2)) is int
    assert call("math", "factorial", 5.0) == 120.0 and type(call("math", "factorial", 5.0)) is float
    fails("factorial() result overflow", "math", "factorial", 21)
    fails("factorial() only accepts integral values", "math", "factorial", 5.5)
    assert call("math", "modf", -3.25) == [-0.25, -3.0]
    assert call("math", "pow", 2, 3) == 8 and call("math", "pow", 2, -1) == 0.5
    assert math.isnan(call("math", "sqrt", -1))
    assert call("math", "exp", 1000) == math.inf
    assert call("math", "log", 8.0, 2.0) == 3.0
    fails("ceil() takes exactly one argument (0 given)", "math", "ceil", "a")


def test_math_deliberate_differences() -> None:
    # The reference: log(100, 10) == 4, log2(10) == 3, log2(8) == 3, log(8.0, 2) == ln 8.
    assert call("math", "log", 100, 10) == 2.0
    assert call("math", "log2", 10) == pytest.approx(3.321928094887362)
    assert call("math", "log2", 8) == 3.0 and type(call("math", "log2", 8)) is float
    assert call("math", "log", 8.0, 2) == 3.0
    assert call("math", "log", 0) == -math.inf
    # The reference: log1p(x) == ln(2 + x).
    assert call("math", "log1p", 0) == 0.0
    assert call("math", "log1p", 1) == math.log(2)
    # The reference wraps (pow(2, 64) == 0) and saturates (ceil(1e30) == 2**63 - 1).
    fails("9223372036854775808: A 64 bit integer overflow", "math", "pow", 2, 63)
    fails("cannot convert float inf to integer", "math", "ceil", math.inf)
    fails("1000000000000000019884624838656: A 64 bit integer overflow", "math", "floor", 1e30)


# ---------------------------------------------------------------------------------------
# regex


def test_regex_matches_reference() -> None:
    assert call("regex", "match", "123abc", "[a-z]+") is True  # unanchored
    assert call("regex", "match", "a\n", "a$") is False  # $ is the end of the text
    assert call("regex", "match", "aB", "a(?i)b") is True  # flags in the middle
    assert call("regex", "match", "aa", "(?<n>a)\\k<n>") is True
    assert call("regex", "match", "x", "[[:alpha:]]") is True
    assert call("regex", "match", "É", "\\p{Lu}") is True
    assert call("regex", "findall", "aaa", "a*") == ["aaa"]
    assert call("regex", "findall", "a1b22", "[a-z](\\d+)") == ["a1", "b22"]  # one group
    assert call("regex", "findall", "a1b22", "([a-z])(\\d+)") == [["a", "1"], ["b", "22"]]
    assert call("regex", "replace", "a1b2c3", "([a-z])(\\d)", "$2$1", 2) == "1a2bc3"
    assert call("regex", "replace", "a1", "(?P<l>[a-z])", "${l}$$") == "a$1"
    assert call("regex", "replace", "aaa", "", "-") == "-a-a-a-"
    assert call("regex", "compile", "(?=a)(a)\\1") is True
    assert call("regex", "compile", "[a-z") is False
    fails(
        "called `Result::unwrap()` on an `Err` value: UnclosedOpenParen", "regex", "match", "x", "("
    )
    fails(
        'called `Result::unwrap()` on an `Err` value: InvalidEscape("\\\\q")',
        "regex",
        "match",
        "x",
        "\\q",
    )


def test_regex_deliberate_differences() -> None:
    # The reference returns only the first maxsplit pieces (["a"] here).
    assert call("regex", "split", "a,b,c", ",", 1) == ["a", "b,c"]
    assert call("regex", "split", "abc", "") == ["", "a", "b", "c", ""]  # the reference hangs
    # The reference panics on a group that took no part in the match.
    assert call("regex", "findall", "ab", "(a)|(b)") == [["a", ""], ["", "b"]]


# ---------------------------------------------------------------------------------------
# datetime


def test_datetime_clock_functions() -> None:
    assert re.fullmatch(
        r"[A-Z][a-z]{2} [A-Z][a-z]{2} [ \d]\d \d\d:\d\d:\d\d \d{4}", call("datetime", "now")
    )
    assert re.fullmatch(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d", call("datetime", "date"))
    assert re.fullmatch(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{6}", call("datetime", "today"))
    ticks = call("datetime", "ticks")
    assert type(ticks) is float and abs(ticks - time.time()) < 5
    assert call("datetime", "now", "%Y") == time.strftime("%Y")
    assert (
        call("datetime", "now", "%-d|%e|%%")
        == f"{time.localtime().tm_mday}|{time.localtime().tm_mday:2d}|%"
    )
    assert re.fullmatch(r"\.\d{3}", call("datetime", "now", "%.3f"))
    fails("a Display implementation returned an error unexpectedly: Error", "datetime", "now", "%Q")


def test_datetime_validate() -> None:
    ok = [
        ("2024-01-15", "%Y-%m-%d"), ("10:00", "%H:%M"), ("2024-1-5", "%Y-%m-%d"),
        (" 2024-01-05", "%Y-%m-%d"), ("Jan 5 2024", "%b %d %Y"), ("2024-005", "%Y-%j"),
        ("1700000000", "%s"), ("2024-02-30 10:00", "%Y-%m-%d %H:%M"),
        ("2024-01-05T10:00:00+01:00", "%+"), ("Fri Jan  5 10:00:00 2024", "%c"),
    ]  # fmt: skip
    bad = [
        ("2024-02-30", "%Y-%m-%d"), ("2024", "%Y"), ("10", "%H"), ("3PM", "%I%p"),
        ("2024-01-05x", "%Y-%m-%d"), ("x", "%Q"), ("2024 367", "%Y %j"), ("-1", "%s"),
    ]  # fmt: skip
    for date, fmt in ok:
        assert call("datetime", "validate", date, fmt) is True, (date, fmt)
    for date, fmt in bad:
        assert call("datetime", "validate", date, fmt) is False, (date, fmt)
    assert call("datetime", "is_rfc3339", "2024-01-05 10:00:00Z") is True
    assert call("datetime", "is_iso8601", "2024-01-05T10:00:00") is False


# ---------------------------------------------------------------------------------------
# net


def test_net() -> None:
    assert call("net", "split_host_port", "[::1]:80") == ["::1", "80"]
    fails('ip_end_point "a:b:c" too many colons', "net", "split_host_port", "a:b:c")
    assert call("net", "join_host_port", "::1", 80) == "[::1]:80"
    assert call("net", "parse_IP", "2001:0db8:0000:0000:0000:0000:0000:0001") == "2001:db8::1"
    assert call("net", "IP_string", "::ffff:1.2.3.4") == "::ffff:1.2.3.4"
    assert call("net", "parse_IP", "01.2.3.4") == ""
    assert call("net", "to_IP4", "::1") == "0.0.0.1"
    assert call("net", "to_IP6", "1.2.3.4") == "::ffff:1.2.3.4"
    assert call("net", "is_global_unicast_IP", "10.0.0.1") is False
    assert call("net", "is_global_unicast_IP", "2001::1") is True
    assert call("net", "is_global_unicast_IP", "2001:db8::1") is False
    assert call("net", "is_link_local_multicast_IP", "ff32::1") is True
    assert call("net", "parse_CIDR", "10.1.2.3/8") == {}
    assert call("net", "is_IP_in_CIDR", "10.0.0.1", "::ffff:10.0.0.0/104") is True
    assert call("net", "CIDR_subnet", "2001:db8::/32", 16, 5) == "2001:db8:5::/48"
    assert call("net", "CIDR_subnets", "10.0.0.0/16", [8, 4, 8]) == [
        "10.0.0.0/24", "10.0.16.0/20", "10.0.1.0/24",
    ]  # fmt: skip
    assert call("net", "CIDR_host", "10.0.0.0/24", -1) == "10.0.0.255"
    # the reference's words for an argument that is not an int or a list (Python's
    # comparison error before the adapter checked them)
    fails("invalid int value", "net", "CIDR_subnet", "10.0.0.0/8", "a", 1)
    fails("invalid int value", "net", "CIDR_host", "10.0.0.0/8", "a")
    fails("invalid list value", "net", "CIDR_subnets", "10.0.0.0/8", "a")
    fails("invalid int value", "net", "CIDR_subnets", "10.0.0.0/8", ["a"])
    assert call("net", "CIDR_netmask", "10.0.0.0/12") == "255.240.0.0"
    fails(
        "is_IP_in_CIDR() invalid cidr: invalid length for network: "
        "Network length 33 is too long for Ipv4 (maximum: 32)",
        "net", "is_IP_in_CIDR", "10.0.0.1", "10.0.0.0/33",
    )  # fmt: skip


# ---------------------------------------------------------------------------------------
# units


def test_units() -> None:
    assert member("units", "Ki") == 1024 and member("units", "n") == 1e-9
    assert call("units", "to_K", 1500) == "1K"  # truncated, as the reference
    assert call("units", "to_Mi", 1024) == "0Mi"
    assert call("units", "to_K", -1500) == "-1K"
    assert call("units", "to_m", 0.1) == "100m"


def test_units_deliberate_differences() -> None:
    assert call("units", "to_n", 1) == "1000000000n"  # reference: 999999999n
    assert call("units", "to_n", 0.5) == "500000000n"  # reference: 499999999n
    assert call("units", "to_K", 1e30) == "1" + "0" * 27 + "K"  # reference: i64 max
    fails("cannot convert float nan to integer", "units", "to_K", math.nan)  # reference: 0K


# ---------------------------------------------------------------------------------------
# crypto


def test_crypto(tmp_path: Path) -> None:
    assert call("crypto", "md5", "hello") == "5d41402abc4b2a76b9719d911017c592"
    assert call("crypto", "md5", "héllo", "latin1") == "1a722f7e6c801d9e470a10cb91ba406d"
    assert call("crypto", "blake3", "") == (
        "af1349b9f5f9a1a6a0404dea36dcc9499bcb25c9adc112b7cc9a93cae41f3262"
    )
    assert call("crypto", "blake3", "a" * 5000) == (
        "09d0d29a5f2dc69dff0809823ca867836c3a3cfb00e12df06d92e3f0f70629e9"
    )
    assert re.fullmatch(
        r"[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}",
        call("crypto", "uuid"),
    )
    assert call("crypto", "uuid") != call("crypto", "uuid")
    (tmp_path / "data.txt").write_text("hello file")
    digest = call("crypto", "filesha256", "data.txt", ctx=FakeContext(str(tmp_path)))
    assert digest == "f3877e8a3d98f809d9f844060fbea2864a4b66980a22ff22297014d0c168db2e"
    with pytest.raises(KclRuntimeError, match="unknown encoding foo"):
        call("crypto", "sha1", "x", "foo")


# ---------------------------------------------------------------------------------------
# file


def test_file(tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()
    (tmp_path / "data.txt").write_text("hello file")
    (tmp_path / "sub" / "s.txt").write_text("sub")
    (tmp_path / ".hidden").write_text("")
    ctx = FakeContext(str(tmp_path))
    root = str(tmp_path)
    assert call("file", "read", "data.txt", ctx=ctx) == "hello file"
    assert call("file", "glob", "**/*.txt", ctx=ctx) == [f"{root}/data.txt", f"{root}/sub/s.txt"]
    assert call("file", "glob", "*", ctx=ctx) == [
        f"{root}/.hidden",
        f"{root}/data.txt",
        f"{root}/sub",
    ]
    assert call("file", "glob", "**", ctx=ctx) == [f"{root}/sub"]
    assert call("file", "modpath", ctx=ctx) == root
    assert call("file", "workdir", ctx=ctx) == "/work"
    assert call("file", "current", ctx=ctx) == f"{root}/main.k"
    assert call("file", "read_env", "KCLPY_SURELY_UNSET") is UNDEFINED
    call("file", "mkdir", "out/a", ctx=ctx)
    call("file", "write", "out/a/x.txt", "one", ctx=ctx)
    call("file", "append", "out/a/x.txt", "two", ctx=ctx)
    call("file", "cp", "out", "copy", ctx=ctx)
    call("file", "mv", "copy/a/x.txt", "copy/y.txt", ctx=ctx)
    assert call("file", "read", "copy/y.txt", ctx=ctx) == "onetwo"
    call("file", "delete", "copy/y.txt", ctx=ctx)
    assert call("file", "exists", "copy/y.txt", ctx=ctx) is False
    assert call("file", "size", "out/a/x.txt", ctx=ctx) == 6


def test_file_errors(tmp_path: Path) -> None:
    ctx = FakeContext(str(tmp_path))
    root = str(tmp_path)
    for path in ("../x", "sub/../x", "/etc/hostname"):
        with pytest.raises(KclRuntimeError) as info:
            call("file", "read", path, ctx=ctx)
        assert info.value.message == f"path '{path}' escapes module root '{root}'"
    with pytest.raises(KclRuntimeError) as info:
        call("file", "read", "nope", ctx=ctx)
    assert info.value.message == (
        f"failed to access the file '{root}/nope': No such file or directory (os error 2)"
    )
    with pytest.raises(KclRuntimeError) as info:
        call("file", "glob", "a**", ctx=ctx)
    assert info.value.message == (
        "Failed to read glob pattern: Pattern syntax error near position "
        f"{len(root) + 1}: recursive wildcards must form a single path component"
    )


def test_file_relative_to_the_calling_file(tmp_path: Path) -> None:
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "d.txt").write_text("pkg")
    ctx = FakeContext(str(tmp_path / "pkg"), root=str(tmp_path))
    assert call("file", "read", "d.txt", ctx=ctx) == "pkg"
    assert call("file", "modpath", ctx=ctx) == str(tmp_path)


# ---------------------------------------------------------------------------------------
# template, runtime, collection, manifests


def test_template() -> None:
    execute = member("template", "execute")
    assert execute("{{x}} {{{x}}}", {"x": "<a='b'>"}) == "&lt;a&#x3D;&#x27;b&#x27;&gt; <a='b'>"
    assert execute("{{#each l}}{{@index}}={{this}};{{/each}}", {"l": ["a", "b"]}) == "0=a;1=b;"
    assert execute("{{#each d}}{{@key}}{{/each}}", {"d": {"x": 1, "y": 2}}) == "xy"
    assert execute("{{#if a}}A{{else if b}}B{{else}}C{{/if}}", {"b": 1}) == "B"
    assert (
        execute("a\n  {{#each l}}\n  - {{this}}\n  {{/each}}\nc", {"l": [1, 2]})
        == "a\n  - 1\n  - 2\nc"
    )
    assert execute(
        "{{x}}|{{y}}|{{z}}|{{w}}", {"x": [1, "a"], "y": {"k": 1}, "z": None, "w": 1e20}
    ) == ("[1, a]|[object]||1e+20")
    assert execute("{{#if (gt a 1)}}big{{/if}}{{len s}}", {"a": 2, "s": "héllo"}) == "big6"
    assert member("template", "html_escape")("<&>\"'`=") == "&lt;&amp;&gt;&quot;&#x27;&#x60;&#x3D;"
    with pytest.raises(KclRuntimeError, match='HelperNotFound\\("json"\\)'):
        execute("{{json x}}", {"x": 1})
    with pytest.raises(KclRuntimeError, match="MismatchingClosedHelper"):
        execute("{{#if x}}a{{/each}}", {"x": 1})


def test_runtime_catch() -> None:
    def fail() -> None:
        raise KclRuntimeError("boom")

    assert call("runtime", "catch", lambda: 1) is UNDEFINED
    assert call("runtime", "catch", fail) == "boom"


def test_collection_union_all() -> None:
    # Absent at runtime in the reference ("unknown kcl_collection_union_all").
    union_all = member("collection", "union_all")
    ctx = FakeContext()
    assert union_all(ctx, [{"a": 1, "b": {"c": 1}}, {"b": {"d": 2}}, None, {"e": 3}]) == {
        "a": 1, "b": {"c": 1, "d": 2}, "e": 3,
    }  # fmt: skip
    assert union_all(ctx, []) == {}
    assert union_all(ctx, [[1, 2], [3]]) == [3, 2]
    with pytest.raises(KclRuntimeError, match="conflicting values"):
        union_all(ctx, [{"a": 1}, {"a": 2}])


def test_manifests_yaml_stream() -> None:
    ctx = FakeContext()
    call("manifests", "yaml_stream", [{"a": 1}], ctx=ctx)
    assert ctx.stream == (
        [{"a": 1}],
        {"sort_keys": False, "ignore_private": False, "ignore_none": False, "sep": "---"},
    )
    call("manifests", "yaml_stream", [1], {"sort_keys": True, "sep": "+++", "x": 1}, ctx=ctx)
    assert ctx.stream == (
        [1],
        {"sort_keys": True, "ignore_private": True, "ignore_none": False, "sep": "+++"},
    )
    call("manifests", "yaml_stream", [1], {}, ctx=ctx)
    assert ctx.stream is not None and ctx.stream[1]["ignore_private"] is True
    with pytest.raises(KclRuntimeError, match="invalid list value"):
        call("manifests", "yaml_stream", {"a": 1}, ctx=ctx)


def test_every_module_implementation_is_declared() -> None:
    folder = Path(modules_package.__file__).parent
    found = {path.stem.removesuffix("_module") for path in folder.glob("*_module.py")}
    assert found == set(SYSTEM_MODULES)
