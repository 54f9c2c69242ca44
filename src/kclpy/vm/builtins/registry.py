"""Lookup of builtin functions and system modules, loaded lazily by name.

A system module is a Python module under :mod:`kclpy.vm.builtins.modules` whose
``MEMBERS`` dict maps each KCL member name to a function or a constant.
"""

from __future__ import annotations

from collections.abc import Callable
from types import ModuleType
from typing import Any, TypeVar

from kclpy.syntax.universe import SYSTEM_MODULES

F = TypeVar("F", bound=Callable[..., Any])

_loaded: dict[str, dict[str, Any]] = {}


def needs_context(function: F) -> F:
    """Mark a builtin that takes the BuiltinContext as its first argument."""
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
        members = _import_module(name).MEMBERS
        _loaded[name] = members
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
