"""The interpreter: one dispatch loop over the instructions of a ``Code``.

Each running code has its own operand stack; calls of lambdas, lazy computation
of package variables and schema attributes, and schema instantiation re-enter
:meth:`Interpreter.execute`, bounded by ``MAX_DEPTH`` so that unbounded KCL
recursion ends in an EvaluationError instead of exhausting the Python stack.
"""

from __future__ import annotations

import sys
from typing import Any

from kclpy.compile.code import Code, FunctionProto, PackageCode, SchemaProto
from kclpy.compile.opcodes import OPERATORS, Op
from kclpy.vm import merge
from kclpy.vm.builtins.convert import to_str, truthy
from kclpy.vm.limits import LimitExceeded, limit_error
from kclpy.vm.objects import (
    DONE,
    Builtin,
    Frame,
    Function,
    ModuleValue,
    PackageState,
    SchemaType,
    Scope,
)
from kclpy.vm.operators import COMPARE, UNARY
from kclpy.vm.runtime_base import RuntimeBase
from kclpy.vm.values import (
    OP_INSERT,
    OP_OVERRIDE,
    OP_UNION,
    UNDEFINED,
    Config,
    KclRuntimeError,
    NumberMultiplier,
)

MAX_DEPTH = 2000
_OPS_BY_TEXT = {":": OP_UNION, "=": OP_OVERRIDE, "+=": OP_INSERT}
_ENTRY_OPS = [_OPS_BY_TEXT.get(name, OP_UNION) for name in OPERATORS]
_STOP = object()

# opcode numbers as plain ints for the dispatch loop
LOAD_LOCAL = int(Op.LOAD_LOCAL)
LOAD_CONST = int(Op.LOAD_CONST)
LOAD_GLOBAL = int(Op.LOAD_GLOBAL)
LOAD_NAME = int(Op.LOAD_NAME)
STORE_LOCAL = int(Op.STORE_LOCAL)
GET_ATTR = int(Op.GET_ATTR)
BINARY_OP = int(Op.BINARY)
COMPARE_OP = int(Op.COMPARE)
CONFIG_ENTRY = int(Op.CONFIG_ENTRY)
BUILD_CONFIG = int(Op.BUILD_CONFIG)
CONFIG_END = int(Op.CONFIG_END)
JUMP = int(Op.JUMP)
JUMP_IF_FALSE = int(Op.JUMP_IF_FALSE)
FOR_ITER = int(Op.FOR_ITER)
LIST_APPEND = int(Op.LIST_APPEND)
CALL = int(Op.CALL)
RETURN = int(Op.RETURN)
POP = int(Op.POP)
LOAD_NONE = int(Op.LOAD_NONE)
STORE_ATTR_SELF = int(Op.STORE_ATTR_SELF)
APPEND_LOCAL = int(Op.APPEND_LOCAL)
FOR_ITER_LOCAL = int(Op.FOR_ITER_LOCAL)
GET_ITEM = int(Op.GET_ITEM)
LOAD_BUILTIN = int(Op.LOAD_BUILTIN)
# COMPARE operators by operand (the compiler emits only comparison operators)
_COMPARE_OPS: list[Any] = [COMPARE.get(name) for name in OPERATORS]


class Interpreter(RuntimeBase):
    """Runs compiled packages; the schema and module machinery lives in RuntimeBase."""

    def execute(self, code: Code, scope: Scope, package: PackageState, frame: Frame | None) -> Any:
        """Run ``code`` to its RETURN and give the returned value."""
        self.depth += 1
        if self.depth > MAX_DEPTH:
            self.depth -= 1
            raise KclRuntimeError("maximum recursion depth exceeded", "RecursionError")
        here = Frame(code, scope, package, frame)
        ops = code.ops
        consts = code.consts
        names = code.names
        values = scope.values
        stack: list[Any] = []
        push = stack.append
        pop = stack.pop
        configs: list[Config] = []
        binary_ops = self.binary_ops
        compare_ops = _COMPARE_OPS
        pc = 0
        saved_package = self._current_package
        self._current_package = package
        try:
            while True:
                op = ops[pc]
                arg = ops[pc + 1]
                pc += 2
                if op == LOAD_LOCAL:
                    push(values[arg])
                elif op == LOAD_CONST:
                    push(consts[arg])
                elif op == BINARY_OP:
                    right = pop()
                    function = binary_ops[arg]
                    if function is None:  # `|`: may union configs and schemas
                        here.pc = pc
                        stack[-1] = self.bit_or(stack[-1], right, here)
                    else:
                        stack[-1] = function(stack[-1], right)
                elif op == STORE_LOCAL:
                    values[arg] = pop()
                elif op == FOR_ITER_LOCAL:
                    item = next(stack[-1], _STOP)
                    if item is _STOP:
                        pop()
                        pc = arg & 0xFFFFFFFF
                    else:
                        values[arg >> 32] = item
                elif op == JUMP:
                    pc = arg
                elif op == APPEND_LOCAL:
                    values[arg].append(pop())
                elif op == COMPARE_OP:
                    right = pop()
                    stack[-1] = compare_ops[arg](stack[-1], right)
                elif op == JUMP_IF_FALSE:
                    if not truthy(pop()):
                        pc = arg
                elif op == CONFIG_ENTRY:
                    value = pop()
                    path, op_text = consts[arg]
                    here.pc = pc
                    self.config_entry(stack[-1], path, value, _OPS_BY_TEXT[op_text], here)
                elif op == LOAD_NAME:
                    here.pc = pc
                    push(self.load_name(consts[arg], scope, package, here))
                elif op == LOAD_GLOBAL:
                    if package.states[arg] == DONE:
                        push(package.values[arg])
                    else:
                        here.pc = pc
                        push(self.force_global(package, arg, here))
                elif op == CALL:
                    count = arg & 0xFFFF
                    keywords_index = arg >> 16
                    if count:
                        arguments = stack[-count:]
                        del stack[-count:]
                    else:
                        arguments = []
                    function = pop()
                    kwargs: dict[str, Any] = {}
                    if keywords_index:
                        keyword_names = consts[keywords_index - 1]
                        split = len(arguments) - len(keyword_names)
                        kwargs = dict(zip(keyword_names, arguments[split:], strict=True))
                        arguments = arguments[:split]
                    here.pc = pc
                    push(self.call(function, arguments, kwargs, here))
                elif op == LOAD_NONE:
                    push(None)
                elif op == RETURN:
                    return pop()
                elif op == BUILD_CONFIG:
                    config = Config()
                    configs.append(config)
                    push(config)
                elif op == CONFIG_END:
                    configs.pop()
                elif op == POP:
                    pop()
                elif op == STORE_ATTR_SELF:
                    instance = scope.instance
                    assert instance is not None
                    instance.values[names[arg]] = pop()
                elif op == GET_ATTR:
                    here.pc = pc
                    push(self.get_attr(pop(), names[arg], here))
                elif op == FOR_ITER:
                    item = next(stack[-1], _STOP)
                    if item is _STOP:
                        pop()
                        pc = arg
                    elif type(item) is tuple:
                        push(item[0])
                        push(item[1])
                    else:
                        push(item)
                elif op == LIST_APPEND:
                    item = pop()
                    stack[-1].append(item)
                elif op == LOAD_BUILTIN:
                    here.pc = pc
                    push(self.builtin(names[arg]))
                elif op == GET_ITEM:
                    here.pc = pc
                    index = pop()
                    stack[-1] = self.get_item(stack[-1], index)
                else:
                    pc = self.execute_rare(op, arg, pc, stack, here, configs)
        except KclRuntimeError as error:
            self.locate(error, here, pc - 2)
            raise
        except RecursionError:
            failure = KclRuntimeError("maximum recursion depth exceeded", "RecursionError")
            self.locate(failure, here, pc - 2)
            raise failure from None
        except (LimitExceeded, MemoryError) as error:  # kclpy.vm.limits: at the expression
            failure = limit_error(error)
            self.locate(failure, here, pc - 2)
            raise failure from None
        finally:
            self.depth -= 1
            self._current_package = saved_package

    def execute_rare(
        self,
        op: int,
        arg: int,
        pc: int,
        stack: list[Any],
        here: Frame,
        configs: list[Config],
    ) -> int:
        """The less frequent instructions; returns the next pc."""
        push = stack.append
        pop = stack.pop
        code = here.code
        consts = code.consts
        here.pc = pc
        if op == Op.LOAD_UNDEFINED:
            push(UNDEFINED)
        elif op == Op.LOAD_TRUE:
            push(True)
        elif op == Op.LOAD_FALSE:
            push(False)
        elif op == Op.LOAD_UNIT:
            number, suffix = consts[arg]
            push(NumberMultiplier(number, suffix))
        elif op == Op.LOAD_DEREF:
            scope: Scope | None = here.scope
            for _ in range(arg >> 16):
                assert scope is not None
                scope = scope.parent
            assert scope is not None
            push(scope.values[arg & 0xFFFF])
        elif op == Op.STORE_GLOBAL:
            here.package.values[arg] = pop()
        elif op == Op.LOAD_BUILTIN:
            push(self.builtin(code.names[arg]))
        elif op == Op.LOAD_IMPORT:
            push(self.import_module(consts[arg], here))
        elif op == Op.LOAD_CONFIG_KEY:
            name, target = consts[arg]
            for config in reversed(configs):
                if name in config:
                    push(config[name])
                    return int(target)
        elif op == Op.DUP:
            push(stack[-1])
        elif op == Op.SWAP:
            stack[-1], stack[-2] = stack[-2], stack[-1]
        elif op == Op.ROT3:
            top = pop()
            stack.insert(len(stack) - 2, top)
        elif op == Op.UNARY:
            push(UNARY[OPERATORS[arg]](pop()))
        elif op == Op.JUMP_IF_TRUE:
            if truthy(pop()):
                return arg
        elif op == Op.JUMP_IF_FALSE_OR_POP:
            if not truthy(stack[-1]):
                return arg
            pop()
        elif op == Op.JUMP_IF_TRUE_OR_POP:
            if truthy(stack[-1]):
                return arg
            pop()
        elif op == Op.GET_ATTR_OPT:
            value = pop()
            if (
                value is None
                or value is UNDEFINED
                or (isinstance(value, dict | list) and not value)
            ):
                push(None)
            else:
                push(self.get_attr(value, code.names[arg], here))
        elif op == Op.GET_ITEM:
            index = pop()
            push(self.get_item(pop(), index))
        elif op == Op.GET_ITEM_OPT:
            index = pop()
            value = pop()
            if (
                value is None
                or value is UNDEFINED
                or (isinstance(value, dict | list) and not value)
            ):
                push(None)
            else:
                push(self.get_item(value, index))
        elif op == Op.SLICE:
            step = pop()
            upper = pop()
            lower = pop()
            push(self.get_slice(pop(), lower, upper, step))
        elif op == Op.BUILD_LIST:
            if arg:
                items = stack[-arg:]
                del stack[-arg:]
                push(items)
            else:
                push([])
        elif op == Op.LIST_EXTEND:
            items = pop()
            if items is not None and items is not UNDEFINED:
                stack[-1].extend(self.iterate_values(items))
        elif op == Op.CONFIG_ENTRY_DYN:
            value = pop()
            key = pop()
            self.config_dynamic_entry(stack[-1], key, value, _ENTRY_OPS[arg], here)
        elif op == Op.CONFIG_ENTRY_INDEX:
            value = pop()
            index = pop()
            path, op_text = consts[arg]
            self.config_index_entry(stack[-1], path, index, value, _OPS_BY_TEXT[op_text])
        elif op == Op.CONFIG_UNPACK:
            value = pop()
            self.config_unpack(stack[-1], value)
        elif op == Op.BUILD_STRING:
            parts = stack[-arg:] if arg else []
            if arg:
                del stack[-arg:]
            push("".join(parts))
        elif op == Op.FORMAT_VALUE:
            push(self.format_value(pop(), consts[arg]))
        elif op == Op.MAKE_FUNCTION:
            proto: FunctionProto = consts[arg & 0xFFFF]
            count = arg >> 16
            defaults = stack[-count:] if count else []
            if count:
                del stack[-count:]
            push(Function(proto, here.scope, here.package, defaults))
        elif op == Op.CALL_EX:
            kwargs = pop()
            args = pop()
            push(self.call(pop(), list(args), dict(kwargs), here))
        elif op == Op.SCHEMA_NEW:
            config = pop()
            count = arg & 0xFFFF
            arguments = stack[-count:] if count else []
            if count:
                del stack[-count:]
            kwargs = {}
            keywords_index = arg >> 16
            if keywords_index:
                keyword_names = consts[keywords_index - 1]
                split = len(arguments) - len(keyword_names)
                kwargs = dict(zip(keyword_names, arguments[split:], strict=True))
                arguments = arguments[:split]
            push(self.schema_new(pop(), arguments, kwargs, config, here))
        elif op == Op.TYPE_CHECK:
            push(self.types.check(pop(), consts[arg]))
        elif op == Op.AS_TYPE:
            push(self.cast(pop(), consts[arg]))
        elif op == Op.GET_ITER:
            push(self.iterate(pop(), arg))
        elif op == Op.ASSERT:
            message = pop()
            if not truthy(pop()):
                text = "" if message is None or message is UNDEFINED else to_str(message)
                raise KclRuntimeError(text)
        elif op == Op.CHECK:
            message = pop()
            if not truthy(pop()):
                raise self.check_failure(message, here)
        elif op == Op.EXPR_OUTPUT:
            self.expression_output(pop(), here)
        elif op == Op.MAKE_SCHEMA:
            schema_proto: SchemaProto = consts[arg]
            push(SchemaType(schema_proto, here.package))
        elif op == Op.UNION:
            new = pop()
            old = pop()
            push(merge.union(old, new, [], self.rebuild))
        elif op == Op.FILTER_NEW:
            target = pop()
            push(Config() if isinstance(target, dict) else [])
        elif op == Op.FILTER_ADD:
            item = pop()
            key = pop()
            target = pop()
            accumulator = stack[-1]
            if isinstance(accumulator, dict):
                accumulator[key] = target[key]
            else:
                accumulator.append(item)
        elif op == Op.FILTER_END:
            target = pop()
            if isinstance(stack[-1], dict):
                stack[-1] = swap_removed_order(stack[-1], target)
        elif op == Op.SET_PATH:
            value = pop()
            count = arg >> 16
            indices = stack[-count:] if count else []
            if count:
                del stack[-count:]
            push(self.set_path(pop(), consts[arg & 0xFFFF], indices, value))
        elif op == Op.JUMP_IF_NONE:
            value = stack[-1]
            if value is None or value is UNDEFINED:
                stack[-1] = None
                return arg
        elif op == Op.NOP:
            pass
        else:
            raise KclRuntimeError(f"internal error: unknown opcode {op}", "InternalError")
        return pc


def swap_removed_order(kept: dict[str, Any], target: dict[str, Any]) -> dict[str, Any]:
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


def _raise_recursion_limit() -> None:
    """Leave room on the Python stack for MAX_DEPTH nested KCL frames."""
    needed = MAX_DEPTH * 6 + 1000
    if sys.getrecursionlimit() < needed:
        sys.setrecursionlimit(needed)


_raise_recursion_limit()

__all__ = ["Builtin", "Interpreter", "ModuleValue", "PackageCode"]
