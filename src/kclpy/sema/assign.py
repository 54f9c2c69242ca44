"""Assignability checks that report: ``expected T, got U`` and its variants.

``check_type`` is the reference's recursive check: lists and dicts element-wise,
a dict against a schema by its literal keys (a dict literal is converted to the
schema at runtime), unions member-wise, everything else by ``assignable_to``.
:class:`AssignabilityChecker` is the part of the checker that makes these
checks and reports them; ``expect_for_value`` says what a value expected to
have a type is walked under (the expression checker's ``upgrade_type_for_expr``
walks it so, and nested config values are checked against attribute types).
"""

from __future__ import annotations

from kclpy.diag import Label
from kclpy.sema.base import CheckContext, Expect
from kclpy.sema.relations import assignable_to, sup
from kclpy.sema.symbols import SchemaInfo, SchemaType
from kclpy.sema.types import (
    ANY_F,
    LIST,
    LITERAL,
    PRIMITIVE,
    STR,
    VOID,
    DictType,
    ListType,
    LitType,
    Type,
    UnionType,
)
from kclpy.sema.upgrade import literal_key_names
from kclpy.source import Span

_CONTEXT_KINDS = LIST | (1 << 8) | (1 << 10)  # list, dict, union


class AssignabilityChecker:
    """``must_assignable_to`` and the checks it is made of (it holds the context)."""

    def __init__(self, ctx: CheckContext) -> None:
        self.ctx = ctx
        self.exact = False  # in an exact check after a failed trial: no more trials

    def must_assignable_to(
        self,
        value: Type,
        expected: Type,
        span: Span | None,
        def_span: Span | None = None,
        attr_span: Span | None = None,
    ) -> None:
        if expected.flags & ANY_F and not value.flags & ((1 << 14) | 1):
            return
        if self.check_type(value, expected, span):
            return
        got = value.ty_str()
        want = expected.ty_str()
        extra: list[Label] = []
        if def_span is not None:
            extra.append(
                Label(def_span, f"variable is defined here, its type is {want}, but got {got}")
            )
        if attr_span is not None:
            extra.append(Label(attr_span, "config attribute is defined here"))
        self.ctx.type_error(f"expected {want}, got {got}", span, *extra)

    def check_type(self, value: Type, expected: Type, span: Span | None) -> bool:
        if value.flags & LITERAL and expected.flags == value.flags & PRIMITIVE:
            return True  # the commonest case: a literal where its base type is expected
        if isinstance(value, ListType) and isinstance(expected, ListType):
            return self.check_type(value.elem, expected.elem, span)
        if isinstance(value, DictType):
            if isinstance(expected, DictType):
                pending = value.pending_entries()
                if pending is not None and not self.exact:
                    return self._check_entries(value, pending, expected, span)
                return self.check_type(value.key, expected.key, span) and self.check_type(
                    value.val, expected.val, span
                )
            if isinstance(expected, SchemaType):
                return self.dict_assignable_to_schema(value, expected.info, span)
        if isinstance(value, UnionType):
            return all(self.check_type(member, expected, span) for member in value.types)
        if isinstance(expected, UnionType):
            return any(self.check_type(value, member, span) for member in expected.types)
        return assignable_to(value, expected)

    def _check_entries(
        self,
        value: DictType,
        entries: tuple[list[Type], list[Type]],
        expected: DictType,
        span: Span | None,
    ) -> bool:
        """``check_type`` of a config literal's dict type against a dict type, made on
        the entries' key and value types one by one instead of on their unions.

        The unions (``relations.sup``) compare their members pairwise: for a literal of
        n nested configs that is n² structural comparisons, and a nested literal builds
        one union per level. Checking the entries one by one gives the same answer when
        each fits without a report: every member of the union is one of them (or the
        union is ``any``, which fits anything), and ``check_type`` of a union checks its
        members. Otherwise the reports of the trial are dropped and the unions are
        checked, as before, with no trial below (so a failing nest costs twice, not
        twice per level)."""
        if value.fits is expected:
            return True
        ctx = self.ctx
        diagnostics = ctx.diagnostics
        reported = len(diagnostics)
        keys, vals = entries
        if (
            self._each_fits(keys, expected.key, span)
            and self._each_fits(vals, expected.val, span)
            and len(diagnostics) == reported
        ):
            if not ctx.suppress:  # (a suppressed report would not be seen)
                value.fits = expected
            return True
        del diagnostics[reported:]
        self.exact = True
        try:
            return self.check_type(value.key, expected.key, span) and self.check_type(
                value.val, expected.val, span
            )
        finally:
            self.exact = False

    def _each_fits(self, members: list[Type], expected: Type, span: Span | None) -> bool:
        previous: Type | None = None
        for member in members:
            if member is previous or member.flags & VOID:
                continue  # (the union has no void member: void is the bottom type)
            if not self.check_type(member, expected, span):
                return False
            previous = member
        return True

    def dict_assignable_to_schema(
        self, value: DictType, info: SchemaInfo, span: Span | None
    ) -> bool:
        """A dict fits a schema unless a literal key has a value of the wrong type."""
        signature = info.index_signature
        attrs = value.attrs or {}
        if signature is not None:
            val = _index_signature_values(value, info)
            if not attrs:
                if not self.check_type(val, signature.val_type, span):
                    self.ctx.type_error(
                        "expected schema index signature value type "
                        f"{signature.val_type.ty_str()}, got {val.ty_str()}",
                        span,
                    )
                return True
            for name, attr in attrs.items():
                declared = info.attrs.get(name) if signature.any_other else None
                if declared is not None:
                    self.must_assignable_to(attr.type, declared.type, span, declared.span)
                else:
                    self.must_assignable_to(attr.type, signature.val_type, attr.span)
            return True
        names = literal_key_names(value)
        if names is not None:  # their union is one literal when there is one name
            only = next(iter(names)) if len(names) == 1 else None
        else:
            key = value.key
            only = str(key.value) if isinstance(key, LitType) and key.flags & STR else None
        if only is not None:
            declared = info.attrs.get(only)
            given = attrs.get(only)
            if declared is not None and given is not None:
                self.must_assignable_to(given.type, declared.type, span, declared.span)
        return True


def expect_for_value(expected: Type, span: Span | None) -> Expect | None:
    """The stack entry a value expected to have ``expected`` is walked under."""
    if isinstance(expected, SchemaType) or expected.flags & _CONTEXT_KINDS:
        return Expect(expected, span)
    return None


def _index_signature_values(value: DictType, info: SchemaInfo) -> Type:
    """The value types of the keys a schema's index signature must accept."""
    key, val = value.key, value.val
    if isinstance(key, UnionType) and isinstance(val, UnionType):
        picked: list[Type] = []
        for index, member in enumerate(key.types):
            if (
                isinstance(member, LitType)
                and member.flags & STR
                and str(member.value) not in info.attrs
                and index < len(val.types)
            ):
                picked.append(val.types[index])
        return sup(picked)
    return val
