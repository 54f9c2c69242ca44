"""Calling builtins as the VM does: through their adapters (kclpy.vm.builtins.adapt),
with a stand-in host whose context is the test's own fake context."""

from __future__ import annotations

from typing import Any

from kclpy.vm.builtins import registry


class FakeHost:
    """The part of the interpreter an adapter uses: the context of a call."""

    def __init__(self, context: Any) -> None:
        self._context = context

    def context(self, package: Any) -> Any:
        return self._context


def call_builtin(name: str, context: Any, args: Any, kwargs: dict[str, Any]) -> Any:
    """``name(*args, **kwargs)`` of a builtin function."""
    adapter = registry.builtin_functions()[name]
    return adapter(FakeHost(context), None, list(args), dict(kwargs))  # type: ignore[arg-type]


def call_method(name: str, receiver: str, args: Any, kwargs: dict[str, Any]) -> Any:
    """``receiver.name(*args, **kwargs)`` of a string method."""
    adapter = registry.string_methods()[name]
    return adapter(receiver, FakeHost(None), None, list(args), dict(kwargs))  # type: ignore[arg-type]


def call_member(module: str, name: str, context: Any, args: Any, kwargs: dict[str, Any]) -> Any:
    """``module.name(*args, **kwargs)`` of a system module."""
    members = registry.system_module(module)
    assert members is not None
    adapter: Any = members[name]
    return adapter(FakeHost(context), None, list(args), dict(kwargs))
