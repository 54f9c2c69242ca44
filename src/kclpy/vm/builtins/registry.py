"""The implementations of the names :mod:`kclpy.syntax.universe` declares, bound by name.

Takes the declarations (builtin functions, string methods, system modules and their
members) and the Python functions that implement them: :data:`BUILTINS
<kclpy.vm.builtins.core.BUILTINS>`, :data:`STRING_METHODS
<kclpy.vm.builtins.strings.STRING_METHODS>` and, for each system module, the
``MEMBERS`` dict of its module under :mod:`kclpy.vm.builtins.modules`. Returns the
implementation of a name, loaded on first use. Each table is checked against its
declaration when it is first bound: a name declared but not implemented, or
implemented but not declared, is a bug in kclpy (:class:`BindingError`), never a
user error.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping
from types import ModuleType
from typing import Any, TypeVar

from kclpy.syntax import universe
from kclpy.syntax.universe import SYSTEM_MODULES

F = TypeVar("F", bound=Callable[..., Any])

RUNTIME_BUILTINS = frozenset({"option"})
"""Declared builtins that the runtime itself implements (they read the run's options)."""

_loaded: dict[str, dict[str, Any]] = {}


class BindingError(AssertionError):
    """Declarations and implementations of builtins disagree: a bug in kclpy."""


def needs_context(function: F) -> F:
    """Mark a builtin that takes the BuiltinContext as its first argument."""
    function.__kcl_context__ = True  # type: ignore[attr-defined]
    return function


def takes_context(function: object) -> bool:
    return getattr(function, "__kcl_context__", False) is True


def bind(
    owner: str,
    declared: Collection[str],
    implemented: Mapping[str, Any],
    elsewhere: Collection[str] = (),
) -> dict[str, Any]:
    """``implemented`` when it implements exactly the ``declared`` names (but those
    implemented ``elsewhere``); otherwise a :class:`BindingError` naming the difference."""
    missing = sorted(set(declared) - set(implemented) - set(elsewhere))
    extra = sorted(set(implemented) - set(declared))
    if missing or extra:
        raise BindingError(
            f"{owner}: declared in kclpy.syntax.universe but not implemented: {missing}; "
            f"implemented but not declared: {extra}"
        )
    return dict(implemented)


def builtin_functions() -> Mapping[str, Callable[..., Any]]:
    """The builtin functions but those in :data:`RUNTIME_BUILTINS`, by KCL name."""
    table = _loaded.get("#builtins")
    if table is None:
        from kclpy.vm.builtins.core import BUILTINS

        declared = universe.builtin_functions()
        table = _loaded["#builtins"] = bind("builtins", declared, BUILTINS, RUNTIME_BUILTINS)
    return table


def string_methods() -> Mapping[str, Callable[..., Any]]:
    """The methods of strings, by KCL name; each takes the string first."""
    table = _loaded.get("#str")
    if table is None:
        from kclpy.vm.builtins.strings import STRING_METHODS

        declared = universe.string_methods()
        table = _loaded["#str"] = bind("string methods", declared, STRING_METHODS)
    return table


def system_module(name: str) -> dict[str, Any] | None:
    """The members of system module ``name``, or None when there is no such module."""
    members = _loaded.get(name)
    if members is None:
        if name not in SYSTEM_MODULES:
            return None
        implemented = _import_module(name).MEMBERS
        declared = universe.module_members(name)
        members = _loaded[name] = bind(f"system module {name}", declared, implemented)
    return members


def _import_module(name: str) -> ModuleType:
    """The implementation of system module ``name``, imported on first use only
    (plain imports, so the import contracts see them)."""
    module: ModuleType
    match name:
        case "base32":
            from kclpy.vm.builtins.modules import base32_module as module
        case "base64":
            from kclpy.vm.builtins.modules import base64_module as module
        case "collection":
            from kclpy.vm.builtins.modules import collection_module as module
        case "crypto":
            from kclpy.vm.builtins.modules import crypto_module as module
        case "datetime":
            from kclpy.vm.builtins.modules import datetime_module as module
        case "file":
            from kclpy.vm.builtins.modules import file_module as module
        case "json":
            from kclpy.vm.builtins.modules import json_module as module
        case "manifests":
            from kclpy.vm.builtins.modules import manifests_module as module
        case "math":
            from kclpy.vm.builtins.modules import math_module as module
        case "net":
            from kclpy.vm.builtins.modules import net_module as module
        case "regex":
            from kclpy.vm.builtins.modules import regex_module as module
        case "runtime":
            from kclpy.vm.builtins.modules import runtime_module as module
        case "template":
            from kclpy.vm.builtins.modules import template_module as module
        case "toml":
            from kclpy.vm.builtins.modules import toml_module as module
        case "units":
            from kclpy.vm.builtins.modules import units_module as module
        case "yaml":
            from kclpy.vm.builtins.modules import yaml_module as module
        case _:
            raise KeyError(name)
    return module
