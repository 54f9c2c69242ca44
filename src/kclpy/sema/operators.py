"""Static operator rules: which operand types each operator accepts, and the result.

The rules are the reference's (its ``calculation`` table). An operand typed
``any`` switches the check off; literal unions are widened first (``1 | 2`` is
``int``). Rejected operands are a TypeError ``unsupported operand type(s) for
+: 'int' and 'str'``; a literal zero divisor is ``integer division or modulo by
zero``; an ``as`` between unrelated types is ``Conversion of type ... may be a
mistake``. :class:`OperatorChecker` is the part of the checker that applies
them (it holds the context, to report).
"""

from __future__ import annotations

from kclpy.sema.base import CheckContext
from kclpy.sema.relations import is_upper_bound, sup, widen, widen_union
from kclpy.sema.symbols import SchemaType
from kclpy.sema.types import (
    ANY,
    ANY_F,
    BOOL,
    BOOL_T,
    DICT,
    FLOAT,
    FLOAT_T,
    INT,
    INT_T,
    ITERABLE,
    LIST,
    NONE_F,
    NUMBER,
    PRIMITIVE,
    SCHEMA,
    STR,
    STR_T,
    DictAttr,
    DictType,
    ListType,
    LitType,
    Type,
    members_all,
)
from kclpy.source import Span

DIV_ZERO = "integer division or modulo by zero"
_MUL_VALUES = INT | FLOAT | STR | LIST


def _is_zero(t: Type) -> bool:
    return isinstance(t, LitType) and not t.flags & BOOL and t.value == 0


def _number_result(left: Type, right: Type) -> Type:
    return FLOAT_T if (left.flags | right.flags) & FLOAT else INT_T


class OperatorChecker:
    """``binary``, ``unary``, ``compare`` and ``cast``."""

    def __init__(self, ctx: CheckContext) -> None:
        self.ctx = ctx

    def binary(self, left: Type, right: Type, op: str, span: Span | None) -> Type:
        t1 = widen_union(left)
        t2 = widen_union(right)
        if (t1.flags | t2.flags) & ANY_F:
            return ANY
        ok, result = self._binary_result(t1, t2, op, span)
        if not ok:
            self.ctx.type_error(
                f"unsupported operand type(s) for {op}: '{left.ty_str()}' and '{right.ty_str()}'",
                span,
            )
        return result

    def _binary_result(self, t1: Type, t2: Type, op: str, span: Span | None) -> tuple[bool, Type]:
        f1, f2 = t1.flags, t2.flags
        numbers = bool(f1 & NUMBER and f2 & NUMBER)
        if op == "+":
            if numbers:
                return True, _number_result(t1, t2)
            if f1 & STR and f2 & STR:
                return True, STR_T
            if isinstance(t1, ListType) and isinstance(t2, ListType):
                return True, ListType(sup([t1.elem, t2.elem]))
            return False, ANY
        if op in ("-", "**"):
            return numbers, (_number_result(t1, t2) if numbers else ANY)
        if op == "*":
            if numbers:
                return True, _number_result(t1, t2)
            if f1 & INT and members_all(t2, _MUL_VALUES):
                return True, t2
            if members_all(t1, _MUL_VALUES) and f2 & INT:
                return True, t1
            return False, ANY
        if op in ("/", "//", "%"):
            if not numbers:
                return False, ANY
            if _is_zero(t2):
                self.ctx.type_error(DIV_ZERO, span)
            return True, (INT_T if op == "%" else _number_result(t1, t2))
        if op in ("<<", ">>", "^", "&"):
            ok = bool(f1 & INT and f2 & INT)
            return ok, (INT_T if ok else ANY)
        if op == "|":
            return self._union_result(t1, t2)
        if op == "and":
            return True, BOOL_T
        if op == "or":
            return True, sup([t1, t2])
        return True, ANY

    def _union_result(self, t1: Type, t2: Type) -> tuple[bool, Type]:
        f1, f2 = t1.flags, t2.flags
        if f1 & INT and f2 & INT:
            return True, INT_T
        if f1 & NONE_F:
            return True, t2
        if f2 & NONE_F:
            return True, t1
        if isinstance(t1, ListType) and isinstance(t2, ListType):
            return True, ListType(sup([t1.elem, t2.elem]))
        if isinstance(t1, DictType) and isinstance(t2, DictType):
            attrs: dict[str, DictAttr] = dict(t1.attrs or {})
            attrs.update(t2.attrs or {})
            return True, DictType(sup([t1.key, t2.key]), sup([t1.val, t2.val]), attrs)
        if f1 & SCHEMA and f2 & (SCHEMA | DICT):
            return True, t1
        return False, ANY

    def cast(self, left: Type, right: Type, span: Span | None) -> Type:
        """``value as T``."""
        if (widen_union(left).flags | widen_union(right).flags) & ANY_F:
            return ANY
        if isinstance(right, SchemaType) and not right.instance:
            right = SchemaType(right.info, True)
        if not is_upper_bound(widen(left), right):
            self.ctx.type_error(
                f"Conversion of type '{_full_str(left)}' to type '{_full_str(right)}' may be a "
                "mistake because neither type sufficiently overlaps with the other",
                span,
            )
        return right

    def unary(self, operand: Type, op: str, span: Span | None) -> Type:
        if operand.flags & ANY_F:
            return ANY
        value = widen_union(operand)
        flags = value.flags
        if op in ("+", "-"):
            ok = bool(flags & NUMBER)
        elif op == "~":
            ok = bool(flags & (INT | BOOL))
        else:
            ok = True
        if ok:
            return value
        self.ctx.type_error(f"bad operand type for unary {op}: '{operand.ty_str()}'", span)
        return ANY

    def compare(self, left: Type, right: Type, op: str, span: Span | None) -> Type:
        t1 = widen_union(left)
        t2 = widen_union(right)
        if (t1.flags | t2.flags) & ANY_F:
            return ANY
        numeric = NUMBER | BOOL
        if members_all(t1, numeric) and members_all(t2, numeric) and op not in ("in", "not in"):
            return BOOL_T
        if op in ("==", "!="):
            if isinstance(t1, ListType) and isinstance(t2, ListType):
                return BOOL_T
            if t1.flags & (DICT | SCHEMA) and t2.flags & (DICT | SCHEMA):
                return BOOL_T
            if members_all(t1, PRIMITIVE) and members_all(t2, PRIMITIVE):
                return BOOL_T
        if op in ("in", "not in") and t2.flags & ITERABLE:
            return BOOL_T
        if (t1.flags | t2.flags) & NONE_F and op in ("==", "!=", "is", "is not", "not"):
            return BOOL_T
        self.ctx.type_error(
            f"unsupported operand type(s) for {op}: '{t1.ty_str()}' and '{t2.ty_str()}'", span
        )
        return ANY


def _full_str(t: Type) -> str:
    if isinstance(t, SchemaType):
        return t.info.full_name
    if isinstance(t, ListType):
        return f"[{_full_str(t.elem)}]"
    if isinstance(t, DictType):
        return f"{{{_full_str(t.key)}:{_full_str(t.val)}}}"
    return t.ty_str()
