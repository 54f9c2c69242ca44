"""The checker's entry-by-entry check of config literals against dict types (hypothesis).

``AssignabilityChecker.check_type`` checks a config literal's dict type against a dict
type entry by entry, and through the unions of the entries' key and value types (the
way it always did, ``exact``) only when an entry does not fit. Property: on random
nested literal types (literals, base types, ``any``, ``None``, ``void``, lists, unions,
nested config literals) and random expected types, both ways give the same answer and
the same reports.

``relations.subsume`` decides what a config literal's entries decide without building
its unions, and ``relations.sup`` joins two types without their ``type_key``s:
properties hold both to the answers of the unions built first (the rule before), and
a sup of two to the general way. ``subsume`` answers a type against itself at once:
a property holds that answer to the one of the same type built twice. A key a config
literal sets again merges its values' types when read (``MergedAttr``): a property
holds each merge to the one made at once, entry after entry.

``KCLPY_FUZZ_EXAMPLES`` raises the number of examples.
"""

from __future__ import annotations

import os

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kclpy.loader import Program
from kclpy.sema.assign import AssignabilityChecker
from kclpy.sema.base import CheckContext
from kclpy.sema.model import Model
from kclpy.sema.relations import subsume, sup, widen
from kclpy.sema.types import (
    ANY,
    BOOL_T,
    FLOAT_T,
    INT_T,
    NONE,
    STR_T,
    VOID_T,
    DictAttr,
    DictType,
    ListType,
    MergedAttr,
    Type,
    UnionType,
    bool_lit,
    float_lit,
    int_lit,
    str_lit,
)

pytestmark = pytest.mark.filterwarnings("ignore::hypothesis.errors.HypothesisWarning")

EXAMPLES = int(os.environ.get("KCLPY_FUZZ_EXAMPLES", "300"))

# A recipe is built into fresh type objects for each side (types cache their unions).
Recipe = tuple[object, ...]

BASES = {"int": INT_T, "str": STR_T, "float": FLOAT_T, "bool": BOOL_T, "any": ANY}
SPECIALS = {"none": NONE, "void": VOID_T}

leaves = st.one_of(
    st.tuples(st.just("int"), st.integers(-2, 2)),
    st.tuples(st.just("str"), st.sampled_from(["x", "y", "k0", "k1"])),
    st.tuples(st.just("float"), st.sampled_from([0.5, 1.0])),
    st.tuples(st.just("bool"), st.booleans()),
    st.tuples(st.just("base"), st.sampled_from(sorted(BASES))),
    st.tuples(st.just("special"), st.sampled_from(sorted(SPECIALS))),
)
key_recipes = st.one_of(
    st.tuples(st.just("str"), st.sampled_from(["a", "b", "k0", "k1"])),
    st.tuples(st.just("base"), st.sampled_from(["str", "any"])),
    st.tuples(st.just("int"), st.integers(0, 1)),
)


def _extend(inner: st.SearchStrategy[Recipe]) -> st.SearchStrategy[Recipe]:
    entries = st.lists(st.tuples(key_recipes, inner), max_size=4)
    return st.one_of(
        st.tuples(st.just("literal"), entries),
        st.tuples(st.just("dict"), key_recipes, inner),
        st.tuples(st.just("list"), inner),
        st.tuples(st.just("union"), st.lists(inner, min_size=2, max_size=3)),
    )


values = st.recursive(leaves, _extend, max_leaves=12)
expected_types = st.recursive(
    st.one_of(
        st.tuples(st.just("base"), st.sampled_from(sorted(BASES))),
        st.tuples(st.just("str"), st.sampled_from(["x", "k0"])),
        st.tuples(st.just("int"), st.integers(0, 1)),
    ),
    lambda inner: st.one_of(
        st.tuples(st.just("dict"), key_recipes, inner),
        st.tuples(st.just("list"), inner),
        st.tuples(st.just("union"), st.lists(inner, min_size=2, max_size=3)),
    ),
    max_leaves=6,
)


def build(recipe: Recipe) -> Type:
    kind = recipe[0]
    if kind == "int":
        return int_lit(int(recipe[1]))  # type: ignore[call-overload]
    if kind == "str":
        return str_lit(str(recipe[1]))
    if kind == "float":
        return float_lit(float(recipe[1]))  # type: ignore[arg-type]
    if kind == "bool":
        return bool_lit(bool(recipe[1]))
    if kind == "base":
        return BASES[str(recipe[1])]
    if kind == "special":
        return SPECIALS[str(recipe[1])]
    if kind == "literal":
        pairs = [(build(key), build(val)) for key, val in recipe[1]]  # type: ignore[attr-defined]
        attrs = {f"a{index}": DictAttr(val, None) for index, (_, val) in enumerate(pairs)}
        return DictType.of_entries([key for key, _ in pairs], [val for _, val in pairs], attrs)
    if kind == "dict":
        return DictType(build(recipe[1]), build(recipe[2]))  # type: ignore[arg-type]
    if kind == "list":
        return ListType(build(recipe[1]))  # type: ignore[arg-type]
    return sup([build(member) for member in recipe[1]])  # type: ignore[attr-defined]


def check(value: Recipe, expected: Recipe, exact: bool) -> tuple[bool, list[str]]:
    model = Model()
    checker = AssignabilityChecker(CheckContext(Program(""), model))
    checker.exact = exact
    answer = checker.check_type(build(value), build(expected), None)
    return answer, [diagnostic.message for diagnostic in model.diagnostics]


def built_first(recipe: Recipe) -> Type:
    """The type of ``recipe`` with the unions of every config literal in it built."""
    built = build(recipe)
    _build_unions(built)
    return built


def _build_unions(t: Type) -> None:
    if isinstance(t, DictType):
        for part in (t.key, t.val):
            _build_unions(part)
        assert t.pending_entries() is None
    elif isinstance(t, ListType):
        _build_unions(t.elem)
    elif isinstance(t, UnionType):
        for member in t.types:
            _build_unions(member)


@settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(values, expected_types)
def test_entry_by_entry_check_answers_as_the_union_check(value: Recipe, expected: Recipe) -> None:
    assert check(value, expected, exact=False) == check(value, expected, exact=True)


@settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(values, st.one_of(values, expected_types), st.booleans())
def test_subsume_on_entries_answers_as_on_unions(
    left: Recipe, right: Recipe, check_left_any: bool
) -> None:
    lazy = subsume(build(left), build(right), check_left_any)
    assert lazy == subsume(built_first(left), built_first(right), check_left_any)


@settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(values, values)
def test_sup_of_two_is_the_general_sup(first: Recipe, second: Recipe) -> None:
    # (a list of three goes the general way; the repeated type is one member there)
    joined = sup([build(first), build(second)]).ty_str()
    left, right = built_first(first), built_first(second)
    assert joined == sup([left, right]).ty_str() == sup([left, right, right]).ty_str()


@settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(st.one_of(values, expected_types), st.booleans())
def test_a_type_fits_itself(recipe: Recipe, check_left_any: bool) -> None:
    # what ``subsume`` answers for one type object at once, two equal ones answer too
    assert subsume(build(recipe), build(recipe), check_left_any)


@settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(st.lists(values, min_size=2, max_size=5))
def test_a_merged_key_merges_as_entry_after_entry(recipes: list[Recipe]) -> None:
    first, *rest = recipes
    merged = MergedAttr(DictAttr(build(first), None, wide=False), build(rest[0]), None)
    for recipe in rest[1:]:
        merged.add(build(recipe), None)
    eager: list[str] = []
    so_far = DictAttr(build(first), None, wide=False)
    for recipe in rest:  # (what the checker did at each entry before)
        joined = sup([so_far.type, build(recipe)])
        eager.append(joined.ty_str())
        so_far = DictAttr(joined, None, wide=False)
    counts = range(len(rest), 0, -1)  # (read last first: the earlier ones are kept)
    assert [merged.merged(count).ty_str() for count in counts] == eager[::-1]
    assert merged.type.ty_str() == widen(so_far.type).ty_str() == so_far.type.ty_str()


def test_the_property_sees_both_answers() -> None:
    literal = ("literal", [(("str", "a"), ("int", 1)), (("str", "b"), ("str", "x"))])
    assert check(literal, ("dict", ("base", "str"), ("base", "any")), exact=False)[0]
    assert not check(literal, ("dict", ("base", "str"), ("base", "int")), exact=False)[0]
