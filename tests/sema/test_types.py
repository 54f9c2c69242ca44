"""Type relations: subsumption, assignability, supremum, widening and type names."""

from __future__ import annotations

from kclpy.sema.relations import assignable_to, equal, is_upper_bound, subsume, sup, widen
from kclpy.sema.types import (
    ANY,
    BOOL_T,
    FLOAT_T,
    INT_T,
    NONE,
    STR_T,
    DictType,
    FuncType,
    ListType,
    ModuleType,
    NumMulType,
    Param,
    UnionType,
    bool_lit,
    float_lit,
    int_lit,
    str_lit,
)


def test_type_names_match_the_reference() -> None:
    assert int_lit(1).ty_str() == "int(1)"
    assert float_lit(0.0).ty_str() == "float(0)"
    assert float_lit(1.5).ty_str() == "float(1.5)"
    assert bool_lit(True).ty_str() == "bool(True)"
    assert str_lit("TCP").ty_str() == "str(TCP)"
    assert NumMulType(1, "Ki").ty_str() == "number_multiplier(1Ki)"
    assert ListType(UnionType((int_lit(1), STR_T))).ty_str() == "[int(1) | str]"
    assert DictType(STR_T, ANY).ty_str() == "{str:any}"
    assert NONE.ty_str() == "NoneType"
    assert FuncType([Param("x", INT_T)], STR_T).ty_str() == "(int) -> str"
    assert ModuleType("math", "system").ty_str() == "module 'math'"


def test_assignability_basics() -> None:
    assert assignable_to(INT_T, FLOAT_T)
    assert not assignable_to(FLOAT_T, INT_T)
    assert not assignable_to(BOOL_T, INT_T)
    assert assignable_to(NONE, INT_T)
    assert assignable_to(int_lit(1), INT_T)
    assert assignable_to(bool_lit(True), FLOAT_T)  # a reference quirk
    assert not assignable_to(str_lit("a"), FLOAT_T)
    assert assignable_to(STR_T, UnionType((str_lit("a"), str_lit("b"))))
    assert not assignable_to(str_lit("c"), UnionType((str_lit("a"), str_lit("b"))))
    assert assignable_to(ListType(int_lit(1)), ListType(FLOAT_T))
    assert not assignable_to(ModuleType("math", "system"), ANY)


def test_unions_and_number_multipliers() -> None:
    union = UnionType((INT_T, STR_T))
    assert subsume(INT_T, union, False)
    assert not subsume(union, INT_T, False)
    assert is_upper_bound(union, STR_T)
    assert not assignable_to(NumMulType(1, "Ki"), INT_T)
    assert assignable_to(NumMulType(1, "Ki"), NumMulType(literal=False))
    assert not assignable_to(NumMulType(1, "Ki"), NumMulType(2, "Ki"))


def test_sup_drops_subsumed_members_and_keeps_order() -> None:
    assert sup([]) is ANY
    assert sup([int_lit(1), INT_T]) is INT_T
    assert sup([INT_T, FLOAT_T]) is FLOAT_T
    assert sup([int_lit(1), int_lit(2)]).ty_str() == "int(1) | int(2)"
    assert sup([STR_T, INT_T, STR_T]).ty_str() == "str | int"
    assert equal(sup([ListType(INT_T), ListType(INT_T)]), ListType(INT_T))


def test_widening_of_literals() -> None:
    assert widen(int_lit(1)) is INT_T
    assert widen(NONE) is ANY
    assert widen(ListType(str_lit("a"))).ty_str() == "[str]"
    assert widen(UnionType((int_lit(1), int_lit(2)))) is INT_T
    assert widen(NumMulType(1, "Ki")).ty_str() == "number_multiplier(1Ki)"
