"""The runtime services the dispatch loop calls: names, modules, access, calls, configs.

Schema instantiation lives in :mod:`kclpy.vm.schemas`; this class adds everything
else that is too large to inline into the loop.
"""

from __future__ import annotations

import functools
from typing import Any

from kclpy.compile.code import (
    FALLBACK_BUILTIN,
    FALLBACK_GLOBAL,
    FALLBACK_IMPORT,
    PackageCode,
    TypeRef,
)
from kclpy.syntax.universe import is_plugin
from kclpy.vm import merge
from kclpy.vm.builtins import registry
from kclpy.vm.builtins.convert import to_str
from kclpy.vm.objects import (
    DONE,
    IN_PROGRESS,
    Builtin,
    Frame,
    Function,
    ModuleValue,
    PackageState,
    SchemaType,
    Scope,
)
from kclpy.vm.schemas import SchemaRuntime
from kclpy.vm.typecheck import value_type_name
from kclpy.vm.values import (
    OP_INSERT,
    OP_OVERRIDE,
    OP_UNION,
    UNDEFINED,
    Config,
    KclRuntimeError,
    SchemaInstance,
)


class RuntimeBase(SchemaRuntime):
    """State of one program run plus the operations the loop delegates."""

    # ------------------------------------------------------------------ globals

    def force_global(self, package: PackageState, slot: int, frame: Frame) -> Any:
        """The value of a package variable, running its setters the first time."""
        state = package.states[slot]
        if state == DONE:
            return package.values[slot]
        if state == IN_PROGRESS:
            return package.values[slot]
        package.states[slot] = IN_PROGRESS
        try:
            for code in package.code.setters[slot]:
                self.execute(code, package.scope, package, frame)
            value = package.values[slot]
            if isinstance(value, dict | list):
                self.require(value)
        except BaseException:
            package.states[slot] = 0
            raise
        package.states[slot] = DONE
        return value

    def load_name(
        self, spec: tuple[str, int, int], scope: Scope, package: PackageState, frame: Frame
    ) -> Any:
        name, kind, index = spec
        state = scope.instance
        if state is not None and self.has_attribute(state, name):
            return self.force_attr(state, name, frame)
        if kind == FALLBACK_GLOBAL:
            if package.states[index] == DONE:
                return package.values[index]
            return self.force_global(package, index, frame)
        if kind == FALLBACK_IMPORT:
            return self.import_module(frame.code.consts[index], frame)
        if kind == FALLBACK_BUILTIN:
            return self.builtin(frame.code.names[index])
        return UNDEFINED

    # ------------------------------------------------------------------ modules

    def import_module(self, pkgpath: str, frame: Frame) -> ModuleValue:
        module = self.modules.get(pkgpath)
        if module is not None:
            return module
        members = registry.system_module(pkgpath)
        if members is not None:
            module = ModuleValue(pkgpath, None, members)
        elif is_plugin(pkgpath):
            module = ModuleValue(pkgpath, None, self.plugin_members(pkgpath))
        else:
            code = self.package_codes.get(pkgpath)
            if code is None:
                raise KclRuntimeError(f"pkgpath {pkgpath} not found in the program")
            package = PackageState(code)
            module = ModuleValue(pkgpath, package, None)
            self.modules[pkgpath] = module
            self.run_package(package, frame)
            return module
        self.modules[pkgpath] = module
        return module

    def run_package(self, package: PackageState, frame: Frame | None) -> None:
        """Run the top-level walk of a package (forces its variables, runs statements)."""
        if package.started:
            return
        package.started = True
        for code in package.code.body:
            self.execute(code, package.scope, package, frame)

    def plugin_members(self, pkgpath: str) -> dict[str, Any]:
        from kclpy.vm.plugins import plugin_members

        return plugin_members(pkgpath)

    def builtin(self, name: str) -> Any:
        cached = self.builtin_cache.get(name)
        if cached is None:
            if name == "option":
                cached = Builtin("option", self.option, False)
            else:
                function = registry.builtin_functions().get(name)
                if function is None:
                    raise KclRuntimeError(f"name '{name}' is not defined")
                cached = Builtin(name, function, registry.takes_context(function))
            self.builtin_cache[name] = cached
        return cached

    # ------------------------------------------------------------------ access

    def get_attr(self, value: Any, name: str, frame: Frame) -> Any:
        if isinstance(value, dict):
            if isinstance(value, SchemaInstance):
                return value.get(name, UNDEFINED)
            return value.get(name, UNDEFINED)
        if isinstance(value, ModuleValue):
            return self.module_member(value, name, frame)
        if isinstance(value, str):
            method = registry.string_methods().get(name)
            if method is None:
                raise KclRuntimeError(f"str object attr '{name}' not found")
            return Builtin(name, functools.partial(method, value), False)
        if isinstance(value, SchemaType):
            if name == "instances":
                return Builtin("instances", functools.partial(self.schema_instances, value), False)
            raise KclRuntimeError(f"schema object attr '{name}' not found")
        # the reference's words, None and Undefined included
        kind = value_type_name(value)
        raise KclRuntimeError(f"invalid value '{kind}' to load attribute '{name}'")

    def module_member(self, module: ModuleValue, name: str, frame: Frame) -> Any:
        if module.members is not None:
            if name not in module.members:
                raise KclRuntimeError(f"module '{module.name}' has no attribute '{name}'")
            member = module.members[name]
            if callable(member) and not isinstance(member, type):
                return Builtin(f"{module.name}.{name}", member, registry.takes_context(member))
            return member
        package = module.package
        assert package is not None
        if name.startswith("_"):
            raise KclRuntimeError(
                f"cannot reference private member '{name}' from module '{module.name}'"
            )
        slot = package.code.slot_of(name)
        if slot < 0:
            raise KclRuntimeError(f"module '{module.name}' has no attribute '{name}'")
        return self.force_global(package, slot, frame)

    def get_item(self, value: Any, index: Any) -> Any:
        kind = type(value)
        if kind is list or kind is str:
            if type(index) is not int:
                raise KclRuntimeError(
                    f"{kind.__name__} indices must be integers, not {value_type_name(index)}"
                )
            try:
                return value[index]
            except IndexError:
                raise KclRuntimeError(f"{kind.__name__} index out of range: {index}") from None
        if isinstance(value, dict):
            if index is None or index is UNDEFINED:
                return UNDEFINED
            if type(index) is not str:
                raise KclRuntimeError(f"invalid dict/schema key type: '{value_type_name(index)}'")
            return value.get(index, UNDEFINED)
        if value is None or value is UNDEFINED:
            raise KclRuntimeError(f"'{value_type_name(value)}' object is not subscriptable")
        raise KclRuntimeError(f"'{value_type_name(value)}' object is not subscriptable")

    def get_slice(self, value: Any, lower: Any, upper: Any, step: Any) -> Any:
        if step == 0:
            raise KclRuntimeError("slice step cannot be zero")
        if not isinstance(value, list | str):
            raise KclRuntimeError(f"'{value_type_name(value)}' object is not subscriptable")
        return value[slice(lower, upper, step)]

    def iterate(self, value: Any, count: int) -> Any:
        if isinstance(value, list):
            return enumerate(value) if count == 2 else iter(value)
        if isinstance(value, dict):
            return iter(list(value.items())) if count == 2 else iter(list(value))
        if isinstance(value, str):
            return enumerate(value) if count == 2 else iter(value)
        if value is None or value is UNDEFINED:
            raise KclRuntimeError(f"'{value_type_name(value)}' object is not iterable")
        raise KclRuntimeError(f"'{value_type_name(value)}' object is not iterable")

    def iterate_values(self, value: Any) -> list[Any]:
        if isinstance(value, list):
            return value
        if isinstance(value, dict):
            return list(value)
        if isinstance(value, str):
            return list(value)
        raise KclRuntimeError(f"'{value_type_name(value)}' object is not iterable")

    def format_value(self, value: Any, spec: str | None) -> str:
        if spec is None:
            return to_str(value)
        from kclpy.vm.serialize import to_json, to_yaml

        text = spec.strip().lstrip("#").strip().lower()
        if text == "json":
            return to_json(value)
        if text == "yaml":
            return to_yaml(value)
        raise KclRuntimeError(f"invalid format spec '{spec}'", "InvalidFormatSpec")

    def set_path(
        self, base: Any, path: tuple[str | None, ...], indices: list[Any], value: Any
    ) -> Any:
        """A copy of ``base`` with ``value`` at ``path`` (None steps take ``indices``)."""
        if not path:
            return value
        step = path[0]
        key = indices.pop(0) if step is None else step
        if isinstance(base, list):
            if type(key) is not int:
                raise KclRuntimeError(f"list indices must be integers, not {value_type_name(key)}")
            if not -len(base) <= key < len(base):
                raise KclRuntimeError(
                    f"index out of bounds: the len is {len(base)} but the index is {key}"
                )
            items = list(base)
            items[key] = self.set_path(items[key], path[1:], indices, value)
            return items
        if isinstance(base, dict):
            if type(key) is not str:
                raise KclRuntimeError(f"invalid dict/schema key type: '{value_type_name(key)}'")
            if isinstance(base, SchemaInstance):
                # an attribute set on an instance builds it again (checks run again)
                inner = base.get(key, UNDEFINED)
                if len(path) > 1 and (inner is UNDEFINED or inner is None):
                    inner = Config()
                delta = Config()
                delta[key] = self.set_path(inner, path[1:], indices, value)
                delta.ops[key] = OP_OVERRIDE
                return self.rebuild(base, delta)
            result = Config(base)
            ops = getattr(base, "ops", None)
            if ops:
                result.ops.update(ops)
            inner = base.get(key, UNDEFINED)
            if len(path) > 1 and (inner is UNDEFINED or inner is None):
                inner = Config()
            result[key] = self.set_path(inner, path[1:], indices, value)
            return result
        raise KclRuntimeError(f"invalid value '{value_type_name(base)}' to set attribute '{key}'")

    # ------------------------------------------------------------------ operators

    def bit_or(self, left: Any, right: Any, frame: Frame) -> Any:
        if left is None or left is UNDEFINED:
            return right
        if right is None or right is UNDEFINED:
            return left
        lk = type(left)
        if lk is int and type(right) is int:
            return left | right
        if isinstance(left, list) and isinstance(right, list):
            return merge.bitwise_union(left, right, self.rebuild)
        if isinstance(left, dict) and isinstance(right, dict):
            if isinstance(right, SchemaInstance) and not isinstance(left, SchemaInstance):
                return self.rebuild(right, merge.union_dicts(left, right, [], self.rebuild))
            return merge.bitwise_union(left, right, self.rebuild)
        raise KclRuntimeError(
            f"unsupported operand type(s) for |: "
            f"'{value_type_name(left)}' and '{value_type_name(right)}'"
        )

    def cast(self, value: Any, type_ref: TypeRef | None) -> Any:
        return self.types.check(value, type_ref, strict=True)

    # ------------------------------------------------------------------ configs

    def config_entry(
        self, config: Config, path: tuple[str, ...], value: Any, op: int, frame: Frame
    ) -> None:
        key, nested, nested_op = merge.nest(path, value, op)
        merge.apply_entry(config, key, nested, nested_op, [], self.rebuild, written=True)

    def config_dynamic_entry(
        self, config: Config, key: Any, value: Any, op: int, frame: Frame
    ) -> None:
        if type(key) is not str:
            raise KclRuntimeError(
                f"A attribute must be string type, got '{value_type_name(key)}'",
                "IllegalAttributeError",
            )
        merge.apply_entry(config, key, value, op, [], self.rebuild, written=True)

    def config_index_entry(
        self, config: Config, path: tuple[str, ...], index: Any, value: Any, op: int
    ) -> None:
        """``l[i] = v``, ``l[i]: v`` and ``l[i] += [v]`` entries of a config."""
        key = path[0]
        current = config.get(key, UNDEFINED)
        if (current is UNDEFINED or current is None) and op == OP_INSERT:
            current = []
        if not isinstance(current, list):
            raise KclRuntimeError(
                f"invalid value '{value_type_name(current)}' to set index of '{key}'"
            )
        items = list(current)
        if op == OP_INSERT:
            if index < 0:  # counted from the end, as a list index
                if index < -len(items):
                    raise KclRuntimeError(
                        f"index out of bounds: the len is {len(items)} but the index is {index}"
                    )
                index += len(items)
            if index > len(items):
                raise KclRuntimeError(
                    f"insertion index (is {index}) should be <= len (is {len(items)})"
                )
            items = merge.insert(items, value, index)
        else:
            if not -len(items) <= index < len(items):
                raise KclRuntimeError(f"list index out of range: {index}")
            if op == OP_UNION:
                items[index] = merge.union(items[index], value, [key], self.rebuild)
            else:
                items[index] = value
        config[key] = items

    def config_unpack(self, config: Config, value: Any) -> None:
        """``**value``: each entry applied with its own operator (``:`` entries unify and
        may conflict, as a schema instance's attributes given by ``:`` in its config);
        an entry without one (a computed schema attribute, a value from a
        comprehension) replaces the earlier value."""
        if value is None or value is UNDEFINED:
            return
        if not isinstance(value, dict):
            raise KclRuntimeError(
                f"only dict and schema can be used ** unpack, got '{value_type_name(value)}'"
            )
        ops: dict[str, int] = getattr(value, "ops", None) or {}
        united = (value.config or {}) if isinstance(value, SchemaInstance) else {}
        for key, item in value.items():
            op = ops.get(key, OP_UNION if key in united else OP_OVERRIDE)
            merge.apply_entry(config, key, item, op, [], self.rebuild)

    # ------------------------------------------------------------------ calls

    def call(self, function: Any, args: list[Any], kwargs: dict[str, Any], frame: Frame) -> Any:
        if isinstance(function, Builtin):
            return self.call_builtin(function, args, kwargs)
        if isinstance(function, Function):
            return self.call_function(function, args, kwargs, frame)
        if isinstance(function, SchemaType):
            return self.instantiate(function, Config(), args, kwargs, frame)
        raise KclRuntimeError(f"'{value_type_name(function)}' object is not callable")

    def call_builtin(self, function: Builtin, args: list[Any], kwargs: dict[str, Any]) -> Any:
        try:
            if function.needs_context:
                return function.function(self.context, *args, **kwargs)
            return function.function(*args, **kwargs)
        except KclRuntimeError:
            raise
        except TypeError as error:
            raise KclRuntimeError(_call_message(function.name, error)) from None
        except (ValueError, ArithmeticError, LookupError) as error:
            raise KclRuntimeError(str(error)) from None

    def call_function(
        self, function: Function, args: list[Any], kwargs: dict[str, Any], frame: Frame | None
    ) -> Any:
        proto = function.proto
        params = proto.params
        parent = function.scope
        scope = Scope(proto.nlocals, parent, parent.instance)
        values = scope.values
        if len(args) > len(params):
            raise KclRuntimeError(
                f'"{proto.name}" takes {len(params)} positional argument'
                f"{'s' if len(params) != 1 else ''} but {len(args)} were given"
            )
        for index, value in enumerate(args):
            values[index] = value
        first_default = len(params) - len(function.defaults)
        for index in range(len(args), len(params)):
            param = params[index]
            if param.name in kwargs:
                values[index] = kwargs.pop(param.name)
            elif index >= first_default:
                values[index] = function.defaults[index - first_default]
            else:
                raise KclRuntimeError(
                    f"expected {first_default} positional argument"
                    f"{'s' if first_default != 1 else ''}, found {len(args)}"
                )
        if kwargs:
            name = next(iter(kwargs))
            raise KclRuntimeError(f"\"{proto.name}\" got an unexpected keyword argument '{name}'")
        saved = self._current_package
        self._current_package = function.package
        try:
            for index, param in enumerate(params):
                if param.type is not None:
                    values[index] = self.types.check(values[index], param.type)
            result = self.execute(proto.code, scope, function.package, frame)
            if proto.return_type is not None:
                result = self.types.check(result, proto.return_type)
        finally:
            self._current_package = saved
        return result


def _call_message(name: str, error: TypeError) -> str:
    text = str(error)
    if "positional argument" in text or "keyword argument" in text or "argument" in text:
        detail = text.split(") ", 1)[-1] if ") " in text else text
        return f'"{name}" {detail}' if not detail.startswith('"') else detail
    return text


__all__ = ["PackageCode", "RuntimeBase"]
