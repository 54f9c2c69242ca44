"""Config merging: the union ``:``, override ``=`` and insert ``+=`` operators.

Pure functions over runtime values. Merging never mutates its inputs except the
config under construction passed to :func:`apply_entry`, which the caller owns.
Schema instances are not rebuilt here: a union whose base is a schema instance is
reported through the ``rebuild`` callback, which the VM provides.
"""

from __future__ import annotations

from collections.abc import Callable

from kclpy.values import (
    OP_INSERT,
    OP_OVERRIDE,
    OP_UNION,
    UNDEFINED,
    Config,
    SchemaInstance,
    UndefinedType,
    Value,
)
from kclpy.values.errors import KclRuntimeError
from kclpy.vm.typecheck import value_type_name

Rebuild = Callable[[SchemaInstance, dict[str, Value]], Value]


class MergeConflict(KclRuntimeError):
    """Two values of one attribute cannot be unified."""

    def __init__(self, path: list[str], old: Value, new: Value) -> None:
        dotted = ".".join(path)
        key = path[-1] if path else ""
        message = (
            f"conflicting values on the attribute '{key}' between :\n"
            f"    {short_repr(old)}\nand\n    {short_repr(new)}\n"
            f"with union path :\n    {dotted}\n"
            f"try operator '=' to override the attribute, like:\n"
            f"    {dotted} = {short_repr(new)}"
        )
        super().__init__(message)
        self.path = path


def short_repr(value: Value) -> str:
    if isinstance(value, dict):
        return "{...}"
    if isinstance(value, list):
        return "[...]"
    if isinstance(value, str):
        return f'"{value}"'
    if value is None:
        return "None"
    if value is True:
        return "True"
    if value is False:
        return "False"
    return str(value)


def conflicts(new: Value, old: Value) -> bool:
    """Whether ``new`` cannot be unified with ``old`` (the reference's value_subsume)."""
    if new is None or old is None or new is UNDEFINED or old is UNDEFINED:
        return False
    if isinstance(new, dict):
        return not isinstance(old, dict)
    if isinstance(new, list):
        if not isinstance(old, list) or len(new) != len(old):
            return True
        return any(conflicts(n, o) for n, o in zip(new, old, strict=True))
    if type(new) is not type(old):
        if isinstance(new, int | float) and isinstance(old, int | float):
            return bool(new != old) or isinstance(new, bool) or isinstance(old, bool)
        return True
    return bool(new != old)


def union(old: Value, new: Value, path: list[str], rebuild: Rebuild | None = None) -> Value:
    """``old`` unified with ``new`` (the config ``:`` semantics, recursively)."""
    if new is UNDEFINED or new is None:
        return old if old is not UNDEFINED else new
    if old is None or old is UNDEFINED:
        return new
    if isinstance(old, dict) and isinstance(new, dict):
        if isinstance(old, SchemaInstance) and rebuild is not None:
            return rebuild(old, new)
        return union_dicts(old, new, path, rebuild)
    if isinstance(old, list) and isinstance(new, list):
        if len(old) != len(new):
            raise MergeConflict(path, old, new)
        return [union(o, n, path, rebuild) for o, n in zip(old, new, strict=True)]
    if conflicts(new, old):
        raise MergeConflict(path, old, new)
    return new


def union_dicts(
    old: dict[str, Value], new: dict[str, Value], path: list[str], rebuild: Rebuild | None = None
) -> Config:
    """A new config: ``old``'s entries, then ``new``'s applied with their own operators."""
    result = Config(old)
    old_ops = getattr(old, "ops", None)
    if old_ops:
        result.ops.update(old_ops)
    new_ops: dict[str, int] = getattr(new, "ops", None) or {}
    for key, value in new.items():
        apply_entry(result, key, value, new_ops.get(key, OP_UNION), path, rebuild)
    return result


def apply_entry(
    config: Config,
    key: str,
    value: Value,
    op: int,
    path: list[str] | None = None,
    rebuild: Rebuild | None = None,
    written: bool = False,
) -> None:
    """Apply one entry ``key op value`` to a config being built (mutates ``config``).

    ``written``: the entry is written in the config literal itself (not merged in
    from another config); then a ``+=`` makes the key's operator insert even after
    other entries (``val = [2]`` then ``val += [1]`` inserts [2, 1] into a schema
    default), while in a union ``a | {v += [1]}`` an earlier ``=`` stays."""
    if op == OP_UNION:
        if key in config:
            old = config[key]
            if not isinstance(value, dict) and conflicts(value, old):
                raise MergeConflict([*(path or []), key], old, value)
            config[key] = union(old, value, [*(path or []), key], rebuild)
        else:
            config[key] = value
        # recorded (not just the default): `**` tells a `:` entry from a value
        # without an operator (a schema's computed attribute)
        config.ops[key] = OP_UNION
    elif op == OP_OVERRIDE:
        config[key] = value
        config.ops[key] = OP_OVERRIDE
    else:
        existed = key in config
        old = config.get(key, UNDEFINED)
        config[key] = insert(old, value)
        if written or not existed:
            config.ops[key] = OP_INSERT


def insert(old: Value, value: Value, index: int | None = None) -> list[Value]:
    """``old += value`` for lists (None/Undefined start from an empty list)."""
    if old is None or isinstance(old, UndefinedType):
        old = []
    if not isinstance(old, list):
        raise KclRuntimeError("only list type can in inserted", "IllegalAttributeError")
    items = value if isinstance(value, list) else [value]
    if index is None:
        return [*old, *items]
    return [*old[:index], *items, *old[index:]]


def nest(path: tuple[str, ...], value: Value, op: int) -> tuple[str, Value, int]:
    """``a.b.c op v`` as the entry ``a: {b: {c op v}}``; returns (key, value, op)."""
    if len(path) == 1:
        return path[0], value, op
    inner = Config()
    inner[path[-1]] = value
    if op != OP_UNION:
        inner.ops[path[-1]] = op
    for key in reversed(path[1:-1]):
        outer = Config()
        outer[key] = inner
        inner = outer
    return path[0], inner, OP_UNION


def bitwise_union(left: Value, right: Value, rebuild: Rebuild | None = None) -> Value:
    """The ``|`` operator on configs and lists (ints and None are handled by the caller)."""
    if isinstance(left, list) and isinstance(right, list):
        merged = [_union_item(a, b, rebuild) for a, b in zip(left, right, strict=False)]
        longer = left if len(left) > len(right) else right
        return merged + longer[len(merged) :]
    if not isinstance(left, dict) or not isinstance(right, dict):
        raise _unsupported(left, right)
    if isinstance(left, SchemaInstance) and rebuild is not None:
        return rebuild(left, right)
    return union_dicts(left, right, [], rebuild)


def _union_item(left: Value, right: Value, rebuild: Rebuild | None) -> Value:
    """One item of a list ``|`` list: containers of one kind unite, None keeps the
    container, a scalar replaces it (as in the reference)."""
    if not isinstance(left, dict | list):
        return right
    if right is None or right is UNDEFINED:
        return left
    if not isinstance(right, dict | list):
        return right
    if isinstance(left, list) != isinstance(right, list):
        expected, got = ("list", "dict") if isinstance(left, list) else ("dict", "list")
        raise KclRuntimeError(f'union failure, expect "{expected}", got "{got}"')
    return bitwise_union(left, right, rebuild)


def bit_or(left: Value, right: Value, rebuild: Rebuild | None = None) -> Value:
    """The ``|`` operator: ints, and the union of configs, schema instances and lists
    (None and Undefined give the other side)."""
    if left is None or left is UNDEFINED:
        return right
    if right is None or right is UNDEFINED:
        return left
    if type(left) is int and type(right) is int:
        return left | right
    if isinstance(left, list) and isinstance(right, list):
        return bitwise_union(left, right, rebuild)
    if isinstance(left, dict) and isinstance(right, dict):
        if (
            isinstance(right, SchemaInstance)
            and not isinstance(left, SchemaInstance)
            and rebuild is not None
        ):
            return rebuild(right, union_dicts(left, right, [], rebuild))
        return bitwise_union(left, right, rebuild)
    raise _unsupported(left, right)


def _unsupported(left: Value, right: Value) -> KclRuntimeError:
    return KclRuntimeError(
        f"unsupported operand type(s) for |: "
        f"'{value_type_name(left)}' and '{value_type_name(right)}'"
    )
