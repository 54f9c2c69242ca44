"""Host plugins: Python functions that KCL code calls as ``import kcl_plugin.<name>``.

A host registers a plugin with :func:`register` (``kclpy.plugin.register`` is the
public name), or an installed package provides one through the entry-point group
``kclpy.plugins`` (each entry point loads to a mapping of function names to
callables; the entry point's name is the plugin name).

Arguments and results cross as JSON-shaped values (:data:`JsonValue`), exactly as
with the reference's plugin agent: the arguments are converted to JSON data (schemas
arrive as dicts, Undefined entries are left out) and the result is JSON-encoded and
decoded, so only JSON data comes back (:data:`PluginFunction` is the type of a plugin
function; what it returns is checked at the call). An exception raised by a
plugin becomes an EvaluationError at the call site with the plugin's message. An
unknown plugin or function is an error (the reference silently returns None).
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Mapping
from typing import TypeAlias

from kclpy.values import UNDEFINED, NumberMultiplier, Value
from kclpy.values.errors import KclRuntimeError

ENTRY_POINT_GROUP = "kclpy.plugins"

JsonValue: TypeAlias = "bool | int | float | str | list[JsonValue] | dict[str, JsonValue] | None"
"""What a plugin function takes (each argument) and returns."""
PluginFunction: TypeAlias = Callable[..., JsonValue]
"""A plugin function: called with JSON values, positional and keyword, as the KCL
call gives them (plugins declare no signature)."""

_lock = threading.Lock()
_registry: dict[str, dict[str, PluginFunction]] = {}
_entry_points_loaded = False


def register(name: str, functions: Mapping[str, PluginFunction]) -> None:
    """Make ``functions`` callable from KCL as ``kcl_plugin.<name>.<function>``."""
    if not name or not name.isidentifier():
        raise ValueError(f"invalid plugin name {name!r}")
    for function_name, function in functions.items():
        if not callable(function):
            raise TypeError(f"plugin function {name}.{function_name} is not callable")
    with _lock:
        _registry[name] = dict(functions)


def unregister(name: str) -> None:
    with _lock:
        _registry.pop(name, None)


def registered() -> dict[str, list[str]]:
    """Plugin names and their function names (entry points included)."""
    _load_entry_points()
    with _lock:
        return {name: sorted(functions) for name, functions in _registry.items()}


def _load_entry_points() -> None:
    global _entry_points_loaded
    if _entry_points_loaded:
        return
    from importlib.metadata import entry_points

    found = entry_points(group=ENTRY_POINT_GROUP)
    with _lock:
        _entry_points_loaded = True
        for entry in found:
            if entry.name in _registry:
                continue
            try:
                functions = entry.load()
            except Exception:  # a broken plugin package must not break every run
                continue
            if isinstance(functions, Mapping):
                _registry[entry.name] = dict(functions)


def plugin_members(pkgpath: str) -> dict[str, Callable[..., Value]]:
    """The members of ``kcl_plugin.<name>``: wrappers that call the host functions."""
    name = pkgpath.split(".", 1)[1] if "." in pkgpath else pkgpath
    _load_entry_points()
    with _lock:
        functions = _registry.get(name)
    if functions is None:
        raise KclRuntimeError(
            f"the plugin package `kcl_plugin.{name}` is not found, "
            "please confirm if plugin mode is enabled",
            "CannotFindModule",
        )
    return _Members(name, functions)


class _Members(dict[str, Callable[..., Value]]):
    """Plugin members; looking up a missing function is a clear error."""

    def __init__(self, plugin: str, functions: Mapping[str, PluginFunction]) -> None:
        super().__init__({key: _wrap(plugin, key, fn) for key, fn in functions.items()})
        self.plugin = plugin

    def __missing__(self, key: str) -> Callable[..., Value]:
        raise KclRuntimeError(f"the plugin '{self.plugin}' has no function '{key}'")

    def __contains__(self, key: object) -> bool:
        return True


def _wrap(plugin: str, name: str, function: PluginFunction) -> Callable[..., Value]:
    """The adapter of a host function: (host, package, args, kwargs) -> its JSON result
    (plugins declare no signature: every argument goes to the function as it is)."""

    def call(host: object, package: object, args: list[Value], kwargs: dict[str, Value]) -> Value:
        try:
            json_args = [_to_json(value) for value in args]
            json_kwargs = {key: _to_json(value) for key, value in kwargs.items()}
        except TypeError as error:
            raise KclRuntimeError(
                f"kcl_plugin.{plugin}.{name}: arguments are not JSON data: {error}"
            ) from None
        try:
            result: object = function(*json_args, **json_kwargs)
        except (KclRuntimeError, MemoryError):  # (memory running out: E3R01 at the call)
            raise
        except Exception as error:
            raise KclRuntimeError(str(error) or type(error).__name__) from None
        try:
            decoded: object = json.loads(json.dumps(result))
        except (TypeError, ValueError) as error:
            raise KclRuntimeError(
                f"kcl_plugin.{plugin}.{name} returned a value that is not JSON data: {error}"
            ) from None
        return _from_json(decoded)

    call.__name__ = name
    return call


def _to_json(value: Value) -> JsonValue:
    """A KCL value as new JSON data (Undefined: None, or left out of a list or dict)."""
    if value is UNDEFINED:
        return None
    if isinstance(value, NumberMultiplier):
        return value.value
    if isinstance(value, dict):
        return {key: _to_json(item) for key, item in value.items() if item is not UNDEFINED}
    if isinstance(value, list):
        return [_to_json(item) for item in value if item is not UNDEFINED]
    if value is None or isinstance(value, bool | int | float | str):
        return value
    raise TypeError(f"a {type(value).__name__} value")


def _from_json(data: object) -> Value:
    """What ``json.loads`` made, as a KCL value (the same data, typed)."""
    if isinstance(data, dict):
        return {str(key): _from_json(item) for key, item in data.items()}
    if isinstance(data, list):
        return [_from_json(item) for item in data]
    if data is None or isinstance(data, bool | int | float | str):
        return data
    raise TypeError(f"json.loads made a {type(data).__name__}")  # (it makes no other)
