"""Value access and config building, the operations the dispatch loop delegates.

Pure functions of runtime values: indexing, slicing, iteration, ``{x:json}`` string
formatting, the copy-on-write path assignment of ``a.b[i] = v`` in a lambda, the
entries of a config literal (``k: v``, ``k = v``, ``k += v``, ``l[i] = v``, ``**v``)
and the key order of a filtered dict.
Where a schema instance must be built again (an attribute set on it, a union with
it), they take the schema builder's ``rebuild`` callback, as :mod:`kclpy.vm.merge` does.
Failures raise :class:`KclRuntimeError` with the reference's words.
"""

from __future__ import annotations

from collections.abc import Iterator

from kclpy.values import (
    OP_INSERT,
    OP_OVERRIDE,
    OP_UNION,
    OPS_BY_TEXT,
    UNDEFINED,
    Config,
    SchemaInstance,
    Value,
)
from kclpy.values.errors import KclRuntimeError
from kclpy.vm import merge
from kclpy.vm.builtins.convert import to_str
from kclpy.vm.merge import Rebuild
from kclpy.vm.typecheck import value_type_name

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import TypeAlias

    # a CONFIG_CONST template: (key, constant) pairs, (key, operator text) pairs, and the
    # (key, template) of each nested literal (whose pair holds None)
    ConstTemplate: TypeAlias = tuple[
        tuple[tuple[str, Value], ...],
        tuple[tuple[str, str], ...],
        tuple[tuple[str, "ConstTemplate"], ...],
    ]


def get_item(value: Value, index: Value) -> Value:
    """``value[index]``: list and string items, dict entries (Undefined when absent)."""
    if type(value) is list or type(value) is str:
        if type(index) is not int:
            raise KclRuntimeError(
                f"{type(value).__name__} indices must be integers, not {value_type_name(index)}"
            )
        try:
            return value[index]
        except IndexError:
            raise KclRuntimeError(f"{type(value).__name__} index out of range: {index}") from None
    if isinstance(value, dict):
        if index is None or index is UNDEFINED:
            return UNDEFINED
        if type(index) is not str:
            raise KclRuntimeError(f"invalid dict/schema key type: '{value_type_name(index)}'")
        return value.get(index, UNDEFINED)
    raise KclRuntimeError(f"'{value_type_name(value)}' object is not subscriptable")


def get_slice(value: Value, lower: Value, upper: Value, step: Value) -> Value:
    """``value[lower:upper:step]`` of a list or string."""
    if step == 0:
        raise KclRuntimeError("slice step cannot be zero")
    if not isinstance(value, list | str):
        raise KclRuntimeError(f"'{value_type_name(value)}' object is not subscriptable")
    return value[slice(_bound(lower), _bound(upper), _bound(step))]


def _bound(value: Value) -> int | None:
    """A slice bound: an int or None."""
    if value is None or isinstance(value, int):
        return value
    raise KclRuntimeError(f"slice indices must be integers or None, not {value_type_name(value)}")


def iterate(value: Value, count: int) -> Iterator[Value] | Iterator[tuple[Value, Value]]:
    """The iterator of a ``for`` with ``count`` loop variables (2: index or key, item)."""
    if isinstance(value, list | str):
        return enumerate(value) if count == 2 else iter(value)
    if isinstance(value, dict):
        return iter(list(value.items())) if count == 2 else iter(list(value))
    raise KclRuntimeError(f"'{value_type_name(value)}' object is not iterable")


def iterate_values(value: Value) -> list[Value]:
    """The items ``[*value]`` spreads: a list's items, a dict's keys, a string's characters."""
    if isinstance(value, list):
        return value
    if isinstance(value, dict | str):
        return list(value)
    raise KclRuntimeError(f"'{value_type_name(value)}' object is not iterable")


def format_value(value: Value, spec: str | None) -> str:
    """``${value}`` in a string, or ``${value: #json}`` / ``#yaml``."""
    if spec is None:
        return to_str(value)
    from kclpy.values.json_writer import to_json
    from kclpy.values.yaml_writer import to_yaml

    text = spec.strip().lstrip("#").strip().lower()
    if text == "json":
        return to_json(value)
    if text == "yaml":
        return to_yaml(value)
    raise KclRuntimeError(f"invalid format spec '{spec}'", "InvalidFormatSpec")


def set_path(
    base: Value, path: tuple[str | None, ...], indices: list[Value], value: Value, rebuild: Rebuild
) -> Value:
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
        items[key] = set_path(items[key], path[1:], indices, value, rebuild)
        return items
    if isinstance(base, dict):
        if type(key) is not str:
            raise KclRuntimeError(f"invalid dict/schema key type: '{value_type_name(key)}'")
        inner = base.get(key, UNDEFINED)
        if len(path) > 1 and (inner is UNDEFINED or inner is None):
            inner = Config()
        if isinstance(base, SchemaInstance):
            # an attribute set on an instance builds it again (checks run again)
            delta = Config()
            delta[key] = set_path(inner, path[1:], indices, value, rebuild)
            delta.ops[key] = OP_OVERRIDE
            return rebuild(base, delta)
        result = Config(base)
        if isinstance(base, Config) and base.ops:
            result.ops.update(base.ops)
        result[key] = set_path(inner, path[1:], indices, value, rebuild)
        return result
    raise KclRuntimeError(f"invalid value '{value_type_name(base)}' to set attribute '{key}'")


def config_entry(
    config: Config, path: tuple[str, ...], value: Value, op: int, rebuild: Rebuild
) -> None:
    """``a.b.c op value`` in a config literal."""
    if len(path) == 1:
        merge.apply_entry(config, path[0], value, op, None, rebuild, written=True)
        return
    key, nested, nested_op = merge.nest(path, value, op)
    merge.apply_entry(config, key, nested, nested_op, [], rebuild, written=True)


def const_config(template: ConstTemplate) -> Config:
    """A new config from a CONFIG_CONST template ``(pairs, ops, nested)``: what its
    ``name = constant`` entries build one by one (each key's operator recorded, as
    :func:`kclpy.vm.merge.apply_entry` records it), nested literals built afresh."""
    pairs, ops, nested = template
    config = Config(pairs)
    config.ops = {key: OPS_BY_TEXT[text] for key, text in ops}
    for key, inner in nested:
        config[key] = const_config(inner)
    return config


def config_dynamic_entry(
    config: Config, key: Value, value: Value, op: int, rebuild: Rebuild
) -> None:
    """``"${name}": value``: a computed key, which must be a string."""
    if type(key) is not str:
        raise KclRuntimeError(
            f"A attribute must be string type, got '{value_type_name(key)}'",
            "IllegalAttributeError",
        )
    merge.apply_entry(config, key, value, op, [], rebuild, written=True)


def config_index_entry(
    config: Config, path: tuple[str, ...], index: Value, value: Value, op: int, rebuild: Rebuild
) -> None:
    """``l[i] = v``, ``l[i]: v`` and ``l[i] += [v]`` entries of a config."""
    key = path[0]
    current = config.get(key, UNDEFINED)
    if (current is UNDEFINED or current is None) and op == OP_INSERT:
        current = []
    if not isinstance(current, list):
        raise KclRuntimeError(f"invalid value '{value_type_name(current)}' to set index of '{key}'")
    if not isinstance(index, int):
        raise KclRuntimeError(f"list indices must be integers, not {value_type_name(index)}")
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
            items[index] = merge.union(items[index], value, [key], rebuild)
        else:
            items[index] = value
    config[key] = items


def config_unpack(config: Config, value: Value, rebuild: Rebuild) -> None:
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
        merge.apply_entry(config, key, item, op, [], rebuild)


def swap_removed_order(kept: dict[str, Value], target: dict[str, Value]) -> dict[str, Value]:
    """``kept`` in the reference's order: it filters a copy of ``target`` by
    ``swap_remove``-ing each failing key in turn (the last key takes its place)."""
    order = list(target)
    if len(order) == len(kept):
        return kept
    position = {key: index for index, key in enumerate(order)}
    for key in list(order):
        if key in kept:
            continue
        index = position.pop(key)
        last = order.pop()
        if last != key:
            order[index] = last
            position[last] = index
    result = Config((key, kept[key]) for key in order)
    result.ops = getattr(kept, "ops", result.ops)
    return result
