"""The ``runtime`` system module: ``catch(func)``.

``catch`` calls a zero-argument function. It returns Undefined when the call succeeds
and the error message (a string) when it fails: an ``assert`` message, ``"boom"``
from ``assert False, "boom"``, ``"list index out of range: 5"``...
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

from kclpy.values import UNDEFINED, Value
from kclpy.values.errors import KclRuntimeError
from kclpy.vm.builtins.marks import needs_context

if TYPE_CHECKING:
    from kclpy.vm.builtins.context import BuiltinContext


@needs_context
def catch(ctx: BuiltinContext, func: Value) -> Value:
    """Run ``func()``; Undefined on success, else the message of the error it raised."""
    try:
        ctx.call(func, [], {})
    except KclRuntimeError as error:
        # a failed check reports its own message, without "Check failed on ..."
        return error.check_message or error.message
    return UNDEFINED


MEMBERS: Final[dict[str, object]] = {"catch": catch}
