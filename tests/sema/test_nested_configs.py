"""Nested config literals checked against nested dict types.

A config literal's dict type is checked against a dict type entry by entry (the
unions of its entries' key and value types are not built) when every entry fits;
when one does not, through the unions as before. These tests hold the diagnostics to
what the union check gives (each first message checked against kcl-lib 0.13.2), and
check that the unions are not built on the way that fits.
"""

from __future__ import annotations

import pytest
from checking import checked

from kclpy.loader import Program
from kclpy.sema.assign import AssignabilityChecker
from kclpy.sema.base import CheckContext
from kclpy.sema.model import Model
from kclpy.sema.relations import subsume, sup, widen
from kclpy.sema.types import (
    INT_T,
    STR_T,
    VOID_T,
    DictAttr,
    DictType,
    MergedAttr,
    Type,
    int_lit,
    str_lit,
)


def diagnostics(source: str) -> list[tuple[int, int, str]]:
    """(line, column, message) of each diagnostic of the program, in order."""
    model = checked(source)
    found = []
    for diagnostic in model.diagnostics:
        span = diagnostic.span
        assert span is not None
        found.append((span.begin_pos.line, span.begin_pos.col, diagnostic.message))
    return found


NESTED_INT = """\
schema App:
    data: {str:{str:{str:int}}} = {}

app: App {
    data: {
        "g0": {"k0": {"x": 0}, "k1": {"x": 1}}
    }
}
app: App {
    data: {
        "g1": {"k0": {"x": 0}, "k1": {"x": 2}}
    }
}
"""


def test_nested_dicts_that_fit_check_clean() -> None:
    assert diagnostics(NESTED_INT) == []


def test_a_wrong_leaf_is_reported_at_every_level_once() -> None:
    source = NESTED_INT.replace('"k1": {"x": 2}', '"k1": {"x": "one"}')
    assert diagnostics(source) == [
        (11, 39, "expected int, got str(one)"),
        (11, 32, "expected {str:int}, got {str(x):str(one)}"),
        (
            11,
            9,
            "expected {str:{str:int}}, got {str(k0) | str(k1):{str(x):int(0)} | {str(x):str(one)}}",
        ),
        (
            10,
            5,
            "expected {str:{str:{str:int}}}, got {str(g1):{str(k0) | str(k1):"
            "{str(x):int(0)} | {str(x):str(one)}}}",
        ),
    ]


def test_schema_values_report_once() -> None:
    # the entry-by-entry trial reports inside the dict-to-schema check; its reports
    # are dropped and the union check reports once
    source = (
        'schema P:\n    x: int\n\nm: {str:{str:P}} = {a = {k = {x = "s"}}, b = {k = {x = 2}}}\n'
    )
    assert diagnostics(source) == [
        (4, 31, "expected int, got str(s)"),
        (4, 26, "expected int, got str"),
        (4, 21, "expected int, got str"),
        (4, 1, "expected int, got str"),
    ]


def test_a_union_that_fits_where_one_entry_does_not() -> None:
    # str absorbs str(x) in the union, and str fits a string literal type (a reference
    # quirk): the union check passes where the entry "x" alone does not
    source = '_s: str = "q"\nd: {str:"y"} = {a = "x", b = _s}\n'
    assert diagnostics(source) == [(2, 17, "expected str(y), got str(x)")]


def _literal(keys: list[Type], vals: list[Type]) -> DictType:
    attrs = {str(index): DictAttr(val, None) for index, val in enumerate(vals)}
    return DictType.of_entries(keys, vals, attrs)


@pytest.mark.parametrize("exact", [False, True])
def test_check_type_builds_no_union_on_the_way_that_fits(exact: bool) -> None:
    checker = AssignabilityChecker(CheckContext(Program(""), Model()))
    checker.exact = exact
    inner = [_literal([str_lit("x")], [int_lit(n)]) for n in range(5)]
    outer = _literal([str_lit(f"k{n}") for n in range(5)], [*inner, VOID_T])
    expected = DictType(STR_T, DictType(STR_T, INT_T))
    assert checker.check_type(outer, expected, None)
    pending = [value.pending_entries() is not None for value in (outer, *inner)]
    assert pending == [not exact] * 6
    # a literal that fits is not checked against the same type again
    assert [value.fits for value in (outer, *inner)] == (
        [None] * 6 if exact else [expected, *[expected.val] * 5]
    )
    assert not checker.check_type(outer, DictType(STR_T, DictType(STR_T, STR_T)), None)
    assert outer.pending_entries() is None  # the failed trial went on with the unions


REPEATED_KEY = """\
schema App:
    data: {str:{str:{str:int}}} = {}

app: App {
    data: {"g0": {"k0": {"x": 0}, "k1": {"x": 1}}}
    data: {"g1": {"k0": {"x": "s"}, "k1": {"x": 1}}}
    data: {"g2": {"k0": {"x": 2.5}}}
}
"""


def test_a_repeated_key_reports_as_the_unions() -> None:
    # one block per group under the same key: the value types are joined per block
    # (relations.sup of two) and compared on their entries; messages as on main
    assert diagnostics(REPEATED_KEY) == [
        (6, 26, "expected int, got str(s)"),
        (6, 19, "expected {str:int}, got {str(x):str(s)}"),
        (
            6,
            12,
            "expected {str:{str:int}}, got {str(k0) | str(k1):{str(x):str(s)} | {str(x):int(1)}}",
        ),
        (
            6,
            5,
            "expected {str:{str:{str:int}}}, got {str(g1):{str(k0) | str(k1):"
            "{str(x):str(s)} | {str(x):int(1)}}}",
        ),
        (7, 26, "expected int, got float(2.5)"),
        (7, 19, "expected {str:int}, got {str(x):float(2.5)}"),
        (7, 12, "expected {str:{str:int}}, got {str(k0):{str(x):float(2.5)}}"),
        (7, 5, "expected {str:{str:{str:int}}}, got {str(g2):{str(k0):{str(x):float(2.5)}}}"),
    ]


def test_subsume_decides_on_entries_without_unions() -> None:
    wide = DictType(STR_T, DictType(STR_T, DictType(STR_T, INT_T)))
    inner = _literal(
        [str_lit(f"k{n}") for n in range(10)],
        [_literal([str_lit("x")], [int_lit(n)]) for n in range(10)],
    )
    block = _literal([str_lit("g")], [inner])
    assert subsume(block, wide, False)  # each entry fits: the literal fits
    assert not subsume(wide, block, False)  # no entry takes {str:int}
    assert inner.pending_part(1) is not None  # the union of ten dicts is not built


def test_subsume_past_the_union_limit_builds_the_union() -> None:
    # 65 distinct keys: their union is ``any``, which fits ``str`` only with
    # check_left_any; the entries alone would say it fits
    keys: list[Type] = [str_lit(f"a{n}") for n in range(65)]
    vals: list[Type] = [INT_T] * 65
    for check_left_any in (False, True):
        lazy = _literal(keys, vals)
        built = _literal(keys, vals)
        assert built.key is not None and built.val is not None
        expected = DictType(STR_T, INT_T)
        answer = subsume(lazy, expected, check_left_any)
        assert answer == subsume(built, expected, check_left_any) == check_left_any


MERGED_KEYS = """\
d = {
    a = 1
    a = "x"
    a = {k = 1}
    b = a + 1
}
e = {
    "a": [1]
    **{a = 2.5}
    a = "y"
    c = a - 1
}
g = d.a - 1
h = e.a * "z"
i = {x = 1, x = 2, x = 3}.x + "w"
"""


def test_a_key_set_again_has_the_merged_type() -> None:
    # read later in the literal (the key's symbol) and through the literal's type
    # (its attribute, widened); an attribute of a ``**`` value is merged, not extended
    assert [message for _, _, message in diagnostics(MERGED_KEYS)] == [
        "unsupported operand type(s) for +: 'int | str | {str(k):int(1)}' and 'int(1)'",
        "unsupported operand type(s) for -: 'float | str(y)' and 'int(1)'",
        "unsupported operand type(s) for -: 'int | str | {str:int}' and 'int(1)'",
        "unsupported operand type(s) for *: 'float | str' and 'str(z)'",
        "unsupported operand type(s) for +: 'int' and 'str(w)'",
    ]


def test_a_merged_key_merges_when_read_one_value_after_the_other() -> None:
    values: list[Type] = [
        _literal([str_lit("x")], [int_lit(1)]),
        str_lit("s"),
        _literal([str_lit("y")], [int_lit(2)]),
    ]
    first = DictAttr(int_lit(0), None, wide=False)
    merged = MergedAttr(first, values[0], None)
    for value in values[1:]:
        merged.add(value, None)
    assert merged.count == 3
    assert values[0].pending_entries() is not None  # nothing merged before a read
    expected: list[Type] = []
    so_far: Type = INT_T  # the first attribute's type, widened
    for value in values:
        so_far = sup([so_far, value])
        expected.append(so_far)
        so_far = widen(so_far)
    assert [merged.merged(count).ty_str() for count in (1, 2, 3)] == [t.ty_str() for t in expected]
    assert merged.type.ty_str() == widen(expected[-1]).ty_str() == "int | {str:int} | str"
