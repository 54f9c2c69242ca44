"""The ``collection`` system module: ``union_all(data)``.

``union_all`` folds a list with the ``|`` operator: ``union_all([a, b, c])`` is
``a | b | c`` (None and Undefined items are skipped; an empty list gives ``{}``).
The reference declares this function but has no runtime implementation in 0.13.2
(calling it fails with "unknown kcl_collection_union_all"); this one does what the
declaration and the documentation describe.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Final

from kclpy.values import UNDEFINED
from kclpy.values.errors import KclRuntimeError
from kclpy.vm.builtins.registry import needs_context

if TYPE_CHECKING:
    from kclpy.vm.builtins.context import BuiltinContext


@needs_context
def union_all(ctx: BuiltinContext, data: Any) -> Any:
    """``data[0] | data[1] | ...``; ``{}`` for an empty list."""
    if not isinstance(data, list):
        from kclpy.vm.builtins.convert import type_name

        raise KclRuntimeError(f"union_all() expected a list, got {type_name(data)}")
    result: Any = UNDEFINED
    for item in data:
        result = ctx.union(result, item)
    return {} if result is UNDEFINED else result


MEMBERS: Final[dict[str, Any]] = {"union_all": union_all}
