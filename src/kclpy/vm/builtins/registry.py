"""Lookup of builtin functions and system modules, loaded lazily by name.

A system module is a Python module under :mod:`kclpy.vm.builtins.modules` whose
``MEMBERS`` dict maps each KCL member name to a function or a constant.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any, TypeVar

from kclpy.loader import SYSTEM_MODULES

F = TypeVar("F", bound=Callable[..., Any])

_loaded: dict[str, dict[str, Any]] = {}


def needs_context(function: F) -> F:
    """Mark a builtin that takes the RuntimeContext as its first argument."""
    function.__kcl_context__ = True  # type: ignore[attr-defined]
    return function


def takes_context(function: object) -> bool:
    return getattr(function, "__kcl_context__", False) is True


def system_module(name: str) -> dict[str, Any] | None:
    """The members of system module ``name``, or None when there is no such module."""
    members = _loaded.get(name)
    if members is None:
        if name not in SYSTEM_MODULES:
            return None
        module = importlib.import_module(f"kclpy.vm.builtins.modules.{name}_module")
        members = module.MEMBERS
        _loaded[name] = members
    return members
