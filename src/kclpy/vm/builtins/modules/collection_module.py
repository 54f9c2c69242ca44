"""The ``collection`` system module: ``union_all(num)``.

``union_all`` folds a list with the ``|`` operator: ``union_all([a, b, c])`` is
``a | b | c`` (None and Undefined items are skipped; an empty list gives ``{}``).
The reference declares this function but has no runtime implementation in 0.13.2
(calling it fails with "unknown kcl_collection_union_all"); this one does what the
declaration and the documentation describe.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

from kclpy.values import UNDEFINED, Value
from kclpy.vm.builtins.marks import Fail, needs_context, on_mismatch

if TYPE_CHECKING:
    from kclpy.vm.builtins.context import BuiltinContext


@needs_context
@needs_context
@on_mismatch(Fail("union_all() expected a list, got {kcl}"))
def union_all(ctx: BuiltinContext, num: list[Value]) -> Value:
    """``num[0] | num[1] | ...``; ``{}`` for an empty list."""
    result: Value = UNDEFINED
    for item in num:
        result = ctx.union(result, item)
    return {} if result is UNDEFINED else result


MEMBERS: Final[dict[str, object]] = {"union_all": union_all}
