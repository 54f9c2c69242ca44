"""The implementations of the names :mod:`kclpy.syntax.universe` declares, bound by name.

Takes the declarations (builtin functions, string methods, system modules and their
members) and the Python functions that implement them: :data:`BUILTINS
<kclpy.vm.builtins.core.BUILTINS>`, :func:`~kclpy.vm.builtins.options.option`,
:data:`STRING_METHODS <kclpy.vm.builtins.strings.STRING_METHODS>` and, for each
system module, the ``MEMBERS`` dict of its module under
:mod:`kclpy.vm.builtins.modules`. Returns the adapter of each function
(:mod:`kclpy.vm.builtins.adapt`), made on first use, which is how the VM calls it.
Each table is checked against its declaration when it is first bound: a name
declared but not implemented, or
implemented but not declared, is a bug in kclpy (:class:`BindingError`), never a
user error.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping
from types import ModuleType

from kclpy.lazy_table import LazyTable
from kclpy.syntax import universe
from kclpy.syntax.universe import SYSTEM_MODULES
from kclpy.values import Value
from kclpy.vm.builtins.adapt import Adapter, BindingError, MethodAdapter, adapter, method_adapter
from kclpy.vm.builtins.marks import needs_context, takes_context
from kclpy.vm.objects import Member

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Final, TypeGuard


__all__ = [
    "RUNTIME_BUILTINS",
    "BindingError",
    "bind",
    "builtin_functions",
    "implementations",
    "needs_context",
    "string_methods",
    "system_module",
    "takes_context",
]

RUNTIME_BUILTINS: Final = frozenset({"option"})
"""Declared builtins that the runtime itself implements (they read the run's options)."""

_loaded: dict[str, dict[str, object]] = {}
_adapted: dict[str, LazyTable[Member]] = {}  # system modules by name
_functions: dict[str, LazyTable[Adapter]] = {}  # the builtin functions (one entry)
_methods: dict[str, LazyTable[MethodAdapter]] = {}  # the string methods (one entry)


def bind(
    owner: str,
    declared: Collection[str],
    implemented: Mapping[str, object],
    elsewhere: Collection[str] = (),
) -> dict[str, object]:
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


def builtin_functions() -> Mapping[str, Adapter]:
    """The adapters of the builtin functions, ``option`` included, by KCL name."""
    table = _functions.get("builtins")
    if table is None:
        from kclpy.vm.builtins.core import BUILTINS
        from kclpy.vm.builtins.options import option

        declared = universe.builtin_functions()
        implemented = bind("builtins", declared, BUILTINS, RUNTIME_BUILTINS)
        implemented["option"] = option

        def make(name: str) -> Adapter:
            function = _implementation("builtins", name, implemented[name])
            return adapter("builtins", name, declared[name].signature, function)

        table = _functions["builtins"] = LazyTable(implemented, make)
    return table


def string_methods() -> Mapping[str, MethodAdapter]:
    """The adapters of the methods of strings, by KCL name; each takes the string first."""
    table = _methods.get("str")
    if table is None:
        from kclpy.vm.builtins.strings import STRING_METHODS

        declared = universe.string_methods()
        implemented = bind("string methods", declared, STRING_METHODS)

        def make(name: str) -> MethodAdapter:
            method = _implementation("string methods", name, implemented[name])
            return method_adapter("string methods", name, declared[name].signature, method)

        table = _methods["str"] = LazyTable(implemented, make)
    return table


def implementations(name: str) -> dict[str, object] | None:
    """The Python functions (and values) of system module ``name``, by member name;
    None when there is no such module."""
    members = _loaded.get(name)
    if members is None:
        if name not in SYSTEM_MODULES:
            return None
        implemented = _import_module(name).MEMBERS
        declared = universe.module_members(name)
        members = _loaded[name] = bind(f"system module {name}", declared, implemented)
    return members


def system_module(name: str) -> Mapping[str, Member] | None:
    """The members of system module ``name`` as the VM sees them (functions by their
    adapters, values as they are), or None when there is no such module."""
    members = _adapted.get(name)
    if members is None:
        implemented = implementations(name)
        if implemented is None:
            return None
        declared = universe.module_members(name)
        members = _adapted[name] = _adapt(f"system module {name}", name, declared, implemented)
    return members


def _adapt(
    owner: str, module: str, declared: Mapping[str, universe.Declaration], table: dict[str, object]
) -> LazyTable[Member]:
    def make(name: str) -> Member:
        value = table[name]
        declaration = declared[name]
        if declaration.is_function:
            label = f"{module}.{name}"
            return adapter(owner, label, declaration.signature, _implementation(owner, name, value))
        if isinstance(value, bool | int | float | str):  # a constant (units.Ki)
            return value
        raise BindingError(f"{owner}: {name} is neither a function nor a constant")

    return LazyTable(table, make)


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


def _implementation(owner: str, name: str, value: object) -> Callable[..., Value]:
    """``value`` as the implementation of a declared function: a Python callable, whose
    parameters the adapter checks against the declaration as it binds them."""
    if not _is_function(value):
        raise BindingError(f"{owner}: {name} is declared a function but is not callable")
    return value


def _is_function(value: object) -> TypeGuard[Callable[..., Value]]:
    """Whether ``value`` is callable (its results are taken as the declaration's values)."""
    return callable(value)
