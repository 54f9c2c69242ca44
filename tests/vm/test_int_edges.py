"""Integers at the 64-bit edges: every operator and builtin that can leave the range,
against the reference KCL (kcl-lib, in one subprocess) where we agree, and pinned
where kclpy deliberately differs (docs/differences.md, differences-builtins.md,
differences-modules.md: the reference wraps or saturates silently there, or fails on
a result that fits).

Each case is an expression over ``_M`` (2**63 - 1) and ``_m`` (-2**63), evaluated as
``a = <expression>``: the value of ``a``, or the message of the error.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

import kclpy
from tests.reference import call_reference_lines, reference_available

PRELUDE = "import math\n_M = 9223372036854775807\n_m = -_M - 1\n"

AGREED = [
    # division and remainder
    "_m // -1", "_m // 1", "_M // -1", "_m // -2", "_m // 2", "_m // _m", "_m % 1",
    "_M % -1", "_m % _m", "_m % -2", "_m % 3", "_M % -3", "_m / -1", "7 // -2", "-7 // 2",
    "-7 % 3", "7 % -3",
    # sums, differences, products, powers
    "_M + 1", "_m + -1", "_M * 2", "_m * -1", "-1 * _m", "_m * 0", "_m * 1.0", "_M + 1.0",
    "2 ** 63", "2 ** 62", "(-2) ** 63", "(-2) ** 64", "2 ** 64", "_m ** 1", "_m ** 2",
    "(-1) ** 100", "sum([_M, 1])", "sum([_m, -1])",
    # shifts: 64-bit, the bits shifted out lost; counts outside 0..63 are errors
    "1 << 62", "1 << 63", "-1 << 63", "3 << 63", "_M << 1", "_M << 2", "_m << 1",
    "_m >> 1", "_m >> 63", "_m >> 64", "1 << 64", "0 << 64", "1 >> 64", "1 << -1",
    "1 >> -1", "-1 << 64", "1 << 100", "1 << 127", "1 << 128", "5 >> 70", "-5 >> 200",
    # bits, literals, conversions
    "_m & -1", "_m ^ _M", "_m | 0", "~_m", "~_M", "-9223372036854775808",
    "9223372036854775807", "int(_m)", "int(9.2e18)", 'int("9223372036854775807")',
    'int("-9223372036854775808")', "float(_M)", "abs(-9223372036854775807)",
    "max(_m, _M)", "math.factorial(20)", "math.factorial(21)", "math.pow(2, 62)",
    "math.pow(-2, 63)",
]  # fmt: skip

OURS = {
    # the reference wraps: -(-2**63) and abs(-2**63) are not -2**63
    "-_m": "9223372036854775808: A 64 bit integer overflow",
    "abs(_m)": "9223372036854775808: A 64 bit integer overflow",
    "math.gcd(_m, 0)": "9223372036854775808: A 64 bit integer overflow",
    # the reference fails ("attempt to calculate the remainder with overflow"): 0 fits
    "_m % -1": 0,
    "multiplyof(_m, -1)": True,
    # the reference says "A 32 bit integer overflow" for a 64-bit one
    "_m - 1": "-9223372036854775809: A 64 bit integer overflow",
    "_M - -1": "9223372036854775808: A 64 bit integer overflow",
    # the reference saturates or wraps
    "int(1e19)": "10000000000000000000: A 64 bit integer overflow",
    "math.ceil(1e19)": "10000000000000000000: A 64 bit integer overflow",
    "math.pow(2, 63)": "9223372036854775808: A 64 bit integer overflow",
    "math.pow(3, 40)": "12157665459056928801: A 64 bit integer overflow",
    # the reference reads a literal from 2**63 to 2**64-1 as an unsigned number cast to
    # a signed one (it wraps to a negative value); kclpy keeps the literal's value
    "9223372036854775808": 9223372036854775808,
    "18446744073709551615": 18446744073709551615,
}


def ours(expression: str) -> tuple[str, Any]:
    result = kclpy.run(PRELUDE + f"a = {expression}\n")
    if not result.ok:
        return "error", result.diagnostics[0].message
    return "value", result.documents[0]["a"]


@pytest.mark.parametrize("expression", sorted(OURS))
def test_where_kclpy_differs_on_purpose(expression: str) -> None:
    expected = OURS[expression]
    kind = "error" if isinstance(expected, str) else "value"
    assert ours(expression) == (kind, expected)


REFERENCE = r"""
import json, re, sys
import kcl_lib.api as api
ansi = re.compile(r"\x1b\[[0-9;]*m")
for line in sys.stdin:
    case = json.loads(line)
    with open(case["file"], "w") as handle:
        handle.write(case["code"])
    args = api.ExecProgramArgs(k_filename_list=[case["file"]])
    try:
        result = api.API(plugin_agent=0).exec_program(args)
        error, data = result.err_message, result.json_result
    except Exception as failure:
        error, data = str(failure), ""
    if error:
        lines = re.findall(r"^\s*\|\s+\^*\s*(\S.*)$", ansi.sub("", error), re.M)
        print(json.dumps({"error": lines[-1].strip() if lines else error}), flush=True)
    else:
        print(json.dumps({"value": json.loads(data)["a"]}), flush=True)
"""


@pytest.mark.skipif(not reference_available(), reason="the reference (kcl_lib) is not installed")
def test_int_edges_agree_with_the_reference(tmp_path: Any) -> None:
    file = str(tmp_path / "main.k")
    requests = [{"file": file, "code": PRELUDE + f"a = {case}\n"} for case in AGREED]
    answers = call_reference_lines(REFERENCE, requests, timeout=300)
    differences = []
    for case, answer in zip(AGREED, answers, strict=True):
        theirs = ("error", answer["error"]) if "error" in answer else ("value", answer.get("value"))
        mine = ours(case)
        if mine != theirs or type(mine[1]) is not type(theirs[1]):
            differences.append(f"{case}: ours {mine!r}, reference {theirs!r}")
    assert not differences, json.dumps(differences, indent=1)


@pytest.mark.skipif(not reference_available(), reason="the reference (kcl_lib) is not installed")
def test_the_reference_still_differs_where_we_say_it_does(tmp_path: Any) -> None:
    file = str(tmp_path / "main.k")
    cases = sorted(OURS)
    requests = [{"file": file, "code": PRELUDE + f"a = {case}\n"} for case in cases]
    answers = call_reference_lines(REFERENCE, requests, timeout=300)
    same = [case for case, answer in zip(cases, answers, strict=True) if answer.get("error") ==
            OURS[case] or answer.get("value", ...) == OURS[case]]  # fmt: skip
    assert not same, f"the reference now agrees with kclpy on {same}: move them to AGREED"
