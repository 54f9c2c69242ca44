"""What a builtin's implementation says about itself to the adapter that calls it.

Two marks, read once when the adapter is made (:mod:`kclpy.vm.builtins.adapt`):
:func:`needs_context` (the function takes a
:class:`~kclpy.vm.builtins.context.BuiltinContext` first) and :func:`on_mismatch`
(what an argument of the wrong type does: the reference answers some with
Undefined, some with an error of its own words, and treats some as not given).
Imports nothing from the VM, so every implementation module may use it without
importing the registry that imports them.
"""

from __future__ import annotations

from collections.abc import Callable

from kclpy.values import Value

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Final, TypeVar

    F = TypeVar("F", bound=Callable[..., object])


class Omit:
    """A mismatching argument counts as not given (the parameter keeps its default)."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "OMIT"


OMIT: Final = Omit()


class Answer:
    """A mismatching argument makes the call give ``value`` without running."""

    __slots__ = ("value",)

    def __init__(self, value: Value) -> None:
        self.value = value


class Fail:
    """A mismatching argument is an error; ``message`` is formatted with ``function``
    (the KCL name), ``parameter``, ``python`` (the Python type name of the value)."""

    __slots__ = ("message",)

    def __init__(self, message: str) -> None:
        self.message = message


Action = Omit | Answer | Fail
# the builtins' shared answer when nothing says otherwise
WRONG_TYPE: Final = Fail("{function}() expected {expected}, got {python}")


def needs_context(function: F) -> F:
    """Mark a builtin that takes the BuiltinContext as its first argument."""
    function.__kcl_context__ = True  # type: ignore[attr-defined]
    return function


def takes_context(function: object) -> bool:
    return getattr(function, "__kcl_context__", False) is True


def on_mismatch(default: Action = WRONG_TYPE, **parameters: Action) -> Callable[[F], F]:
    """Mark what an argument that its parameter's type does not admit does: ``default``
    for every checked parameter, or the action named for the parameter."""

    def mark(function: F) -> F:
        function.__kcl_mismatch__ = (default, parameters)  # type: ignore[attr-defined]
        return function

    return mark


def mismatch_actions(function: object) -> tuple[Action, dict[str, Action]]:
    found = getattr(function, "__kcl_mismatch__", None)
    if found is None:
        return WRONG_TYPE, {}
    default, parameters = found
    return default, parameters
