"""The ``collection`` system module: ``union_all(data)``.

``union_all`` folds a list with the ``|`` operator: ``union_all([a, b, c])`` is
``a | b | c`` (None and Undefined items are skipped; an empty list gives ``{}``).
The reference declares this function but has no runtime implementation in 0.13.2
(calling it fails with "unknown kcl_collection_union_all"); this one does what the
declaration and the documentation describe.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Final

from kclpy.vm.builtins.registry import needs_context
from kclpy.vm.values import UNDEFINED, KclRuntimeError

if TYPE_CHECKING:
    from kclpy.vm.builtins.context import RuntimeContext


def _union(left: Any, right: Any, rebuild: Any) -> Any:
    from kclpy.vm import merge

    if left is None or left is UNDEFINED:
        return right
    if right is None or right is UNDEFINED:
        return left
    if type(left) is int and type(right) is int:
        return left | right
    if isinstance(left, list) and isinstance(right, list):
        return merge.bitwise_union(left, right, rebuild)
    if isinstance(left, dict) and isinstance(right, dict):
        return merge.bitwise_union(left, right, rebuild)
    from kclpy.vm.builtins.convert import type_name

    raise KclRuntimeError(
        f"unsupported operand type(s) for |: '{type_name(left)}' and '{type_name(right)}'"
    )


@needs_context
def union_all(ctx: RuntimeContext, data: Any) -> Any:
    """``data[0] | data[1] | ...``; ``{}`` for an empty list."""
    if not isinstance(data, list):
        from kclpy.vm.builtins.convert import type_name

        raise KclRuntimeError(f"union_all() expected a list, got {type_name(data)}")
    rebuild = getattr(ctx, "rebuild", None)
    result: Any = UNDEFINED
    for item in data:
        result = _union(result, item, rebuild)
    return {} if result is UNDEFINED else result


MEMBERS: Final[dict[str, Any]] = {"union_all": union_all}
