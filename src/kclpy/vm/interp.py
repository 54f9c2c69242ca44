"""The interpreter: one dispatch loop over the instructions of a ``Code``.

Each running code has its own operand stack; calls of lambdas, lazy computation
of package variables and schema attributes, and schema instantiation re-enter
:meth:`Interpreter.execute`, bounded by ``MAX_DEPTH`` so that unbounded KCL
recursion ends in an EvaluationError instead of exhausting the Python stack.

The interpreter is one of three cooperating parts: it owns the loop and what the
loop calls that runs code (names, package variables, modules, attributes, calls);
the state of the run is the :class:`~kclpy.vm.runtime.Runtime` it is given; the
schema machinery is its :class:`~kclpy.vm.schemas.SchemaBuilder`; value access and
config entries are the functions of :mod:`kclpy.vm.access`. Builtins get a
:class:`~kclpy.vm.builtins.context.BuiltinContext`, never the interpreter.
A failing instruction records its position on the error (``KclRuntimeError.locate``).
"""

from __future__ import annotations

import functools
import sys
from collections.abc import Callable, Iterator, Mapping

from kclpy.compile.code import (
    FALLBACK_BUILTIN,
    FALLBACK_GLOBAL,
    FALLBACK_IMPORT,
    Code,
    FunctionProto,
    PackageCode,
    SchemaHeader,
)
from kclpy.compile.opcodes import OPERATORS, Op
from kclpy.syntax import universe
from kclpy.syntax.universe import is_plugin
from kclpy.values import (
    OP_UNION,
    OPS_BY_TEXT,
    UNDEFINED,
    Config,
    NumberMultiplier,
    Value,
)
from kclpy.values.errors import KclRuntimeError
from kclpy.vm import merge
from kclpy.vm.access import (
    config_dynamic_entry,
    config_entry,
    config_index_entry,
    config_unpack,
    const_config,
    format_value,
    get_item,
    get_slice,
    iterate,
    iterate_values,
    set_path,
    swap_removed_order,
)
from kclpy.vm.builtins import adapt, registry
from kclpy.vm.builtins.context import BuiltinContext
from kclpy.vm.builtins.convert import to_str, truthy
from kclpy.vm.limits import LimitExceeded, limit_error
from kclpy.vm.objects import (
    CONTAINERS,
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
from kclpy.vm.operators import BINARY, COMPARE, STRICT_BINARY, UNARY
from kclpy.vm.runtime import Runtime
from kclpy.vm.schemas import SchemaBuilder, check_failure
from kclpy.vm.typecheck import value_type_name

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

MAX_DEPTH = 2000
_ENTRY_OPS = [OPS_BY_TEXT.get(name, OP_UNION) for name in OPERATORS]
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
CONFIG_CONST = int(Op.CONFIG_CONST)
JUMP = int(Op.JUMP)
JUMP_IF_FALSE = int(Op.JUMP_IF_FALSE)
FOR_ITER_BACK = int(Op.FOR_ITER_BACK)
LIST_APPEND = int(Op.LIST_APPEND)
CALL = int(Op.CALL)
RETURN = int(Op.RETURN)
POP = int(Op.POP)
LOAD_NONE = int(Op.LOAD_NONE)
STORE_ATTR_SELF = int(Op.STORE_ATTR_SELF)
APPEND_LOCAL = int(Op.APPEND_LOCAL)
FOR_ITER_LOCAL_BACK = int(Op.FOR_ITER_LOCAL_BACK)
GET_ITEM = int(Op.GET_ITEM)
LOAD_BUILTIN = int(Op.LOAD_BUILTIN)
CHECK = int(Op.CHECK)
# the instructions of execute_rare, the more frequent first
SCHEMA_NEW = int(Op.SCHEMA_NEW)
DUP = int(Op.DUP)
ROT3 = int(Op.ROT3)
SWAP = int(Op.SWAP)
JUMP_IF_FALSE_OR_POP = int(Op.JUMP_IF_FALSE_OR_POP)
JUMP_IF_TRUE = int(Op.JUMP_IF_TRUE)
BUILD_LIST = int(Op.BUILD_LIST)
LIST_CONST = int(Op.LIST_CONST)
LOAD_TRUE = int(Op.LOAD_TRUE)
LOAD_FALSE = int(Op.LOAD_FALSE)
CONFIG_ENTRY_DYN = int(Op.CONFIG_ENTRY_DYN)
FILTER_ADD = int(Op.FILTER_ADD)
GET_ITER = int(Op.GET_ITER)
FOR_ITER_LOCAL = int(Op.FOR_ITER_LOCAL)
FOR_ITER = int(Op.FOR_ITER)
LOAD_UNDEFINED = int(Op.LOAD_UNDEFINED)
LOAD_UNIT = int(Op.LOAD_UNIT)
LOAD_DEREF = int(Op.LOAD_DEREF)
STORE_GLOBAL = int(Op.STORE_GLOBAL)
LOAD_IMPORT = int(Op.LOAD_IMPORT)
LOAD_CONFIG_KEY = int(Op.LOAD_CONFIG_KEY)
UNARY_OP = int(Op.UNARY)
JUMP_IF_TRUE_OR_POP = int(Op.JUMP_IF_TRUE_OR_POP)
GET_ATTR_OPT = int(Op.GET_ATTR_OPT)
GET_ITEM_OPT = int(Op.GET_ITEM_OPT)
SLICE = int(Op.SLICE)
LIST_EXTEND = int(Op.LIST_EXTEND)
CONFIG_ENTRY_INDEX = int(Op.CONFIG_ENTRY_INDEX)
CONFIG_UNPACK = int(Op.CONFIG_UNPACK)
BUILD_STRING = int(Op.BUILD_STRING)
FORMAT_VALUE = int(Op.FORMAT_VALUE)
MAKE_FUNCTION = int(Op.MAKE_FUNCTION)
CALL_EX = int(Op.CALL_EX)
TYPE_CHECK = int(Op.TYPE_CHECK)
AS_TYPE = int(Op.AS_TYPE)
ASSERT = int(Op.ASSERT)
EXPR_OUTPUT = int(Op.EXPR_OUTPUT)
MAKE_SCHEMA = int(Op.MAKE_SCHEMA)
UNION = int(Op.UNION)
FILTER_NEW = int(Op.FILTER_NEW)
FILTER_END = int(Op.FILTER_END)
SET_PATH = int(Op.SET_PATH)
JUMP_IF_NONE = int(Op.JUMP_IF_NONE)
NOP = int(Op.NOP)


def _not_a_comparison(left: Value, right: Value) -> bool:
    raise KclRuntimeError("internal error: COMPARE of an operator that is not a comparison")


# COMPARE operators by operand (the compiler emits only comparison operators)
_COMPARE_OPS: list[Callable[[Value, Value], bool]] = [
    COMPARE.get(name, _not_a_comparison) for name in OPERATORS
]


class Interpreter:
    """Runs the compiled packages of one run (see the module docstring)."""

    def __init__(self, runtime: Runtime) -> None:
        self.runtime = runtime
        self.schemas = SchemaBuilder(runtime, self)
        self.types = self.schemas.types
        self.rebuild_in = self.schemas.rebuild_in
        self.instances = adapt.method_adapter(
            "schema member functions",
            "instances",
            universe.schema_member_functions()["instances"].signature,
            self.schemas.schema_instances,
        )
        self.depth = 0  # nested executions (MAX_DEPTH)
        self.binary_ops = operand_table(BINARY)

    def set_strict_range_check(self, strict: bool) -> None:
        """``-r``: arithmetic results must fit 32-bit ints and floats."""
        self.binary_ops = operand_table(STRICT_BINARY if strict else BINARY)

    def execute(
        self, code: Code, scope: Scope, package: PackageState, frame: Frame | None
    ) -> Value:
        """Run ``code`` to its RETURN and give the returned value."""
        self.depth += 1
        if self.depth > MAX_DEPTH:
            self.depth -= 1
            raise KclRuntimeError("maximum recursion depth exceeded", "RecursionError")
        here = Frame(code, scope, package, frame)
        ops = code.ops
        consts = code.consts
        names = code.names
        values: list[Any] = scope.values
        stack: list[Any] = []
        push = stack.append
        pop = stack.pop
        configs: list[Config] = []
        binary_ops = self.binary_ops
        compare_ops = _COMPARE_OPS
        pc = 0
        rebuild = self.rebuild_in(package)
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
                        stack[-1] = merge.bit_or(stack[-1], right, rebuild)
                    else:
                        stack[-1] = function(stack[-1], right)
                elif op == STORE_LOCAL:
                    values[arg] = pop()
                elif op == FOR_ITER_LOCAL_BACK:  # the end of an iteration (a rotated loop)
                    item = next(stack[-1], _STOP)
                    if item is _STOP:
                        pop()
                    else:
                        values[arg >> 32] = item
                        pc = arg & 0xFFFFFFFF
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
                    config_entry(stack[-1], path, value, OPS_BY_TEXT[op_text], rebuild)
                elif op == LOAD_NAME:
                    name = consts[arg][0]
                    state = scope.instance
                    if state is not None and state.states.get(name) == DONE:
                        push(state.values[name])  # an attribute already computed
                    else:
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
                    kwargs: dict[str, Value] = {}
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
                    result: Value = pop()
                    return result
                elif op == BUILD_CONFIG:
                    config = Config()
                    configs.append(config)
                    push(config)
                elif op == CONFIG_END:
                    configs.pop()
                elif op == CONFIG_CONST:
                    push(const_config(consts[arg]))
                elif op == POP:
                    pop()
                elif op == STORE_ATTR_SELF:
                    instance = scope.instance
                    assert instance is not None
                    instance.values[names[arg]] = pop()
                elif op == GET_ATTR:
                    here.pc = pc
                    push(self.get_attr(pop(), names[arg], here))
                elif op == FOR_ITER_BACK:
                    item = next(stack[-1], _STOP)
                    if item is not _STOP:
                        pc = arg
                        if type(item) is tuple:
                            push(item[0])
                            push(item[1])
                        else:
                            push(item)
                    else:
                        pop()
                elif op == LIST_APPEND:
                    item = pop()
                    stack[-1].append(item)
                elif op == LOAD_BUILTIN:
                    here.pc = pc
                    push(self.builtin(names[arg]))
                elif op == GET_ITEM:
                    here.pc = pc
                    index = pop()
                    stack[-1] = get_item(stack[-1], index)
                elif op == CHECK:
                    message = pop()
                    if not truthy(pop()):
                        here.pc = pc
                        raise check_failure(message)
                else:
                    pc = self.execute_rare(op, arg, pc, stack, here, configs)
        except KclRuntimeError as error:
            locate(error, here, pc - 2)
            raise
        except RecursionError:
            failure = KclRuntimeError("maximum recursion depth exceeded", "RecursionError")
            locate(failure, here, pc - 2)
            raise failure from None
        except (LimitExceeded, MemoryError) as error:  # kclpy.vm.limits: at the expression
            failure = limit_error(error)
            locate(failure, here, pc - 2)
            raise failure from None
        finally:
            self.depth -= 1

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
        if op == SCHEMA_NEW:
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
            push(self.schemas.schema_new(pop(), arguments, kwargs, config, here))
        elif op == DUP:
            push(stack[-1])
        elif op == ROT3:
            top = pop()
            stack.insert(len(stack) - 2, top)
        elif op == SWAP:
            stack[-1], stack[-2] = stack[-2], stack[-1]
        elif op == JUMP_IF_FALSE_OR_POP:
            if not truthy(stack[-1]):
                return arg
            pop()
        elif op == JUMP_IF_TRUE:
            if truthy(pop()):
                return arg
        elif op == BUILD_LIST:
            if arg:
                items = stack[-arg:]
                del stack[-arg:]
                push(items)
            else:
                push([])
        elif op == LIST_CONST:
            push(list(consts[arg]))
        elif op == LOAD_TRUE:
            push(True)
        elif op == LOAD_FALSE:
            push(False)
        elif op == CONFIG_ENTRY_DYN:
            value = pop()
            key = pop()
            config_dynamic_entry(
                stack[-1], key, value, _ENTRY_OPS[arg], self.rebuild_in(here.package)
            )
        elif op == FILTER_ADD:
            item = pop()
            key = pop()
            target = pop()
            accumulator = stack[-1]
            if isinstance(accumulator, dict):
                accumulator[key] = target[key]
            else:
                accumulator.append(item)
        elif op == GET_ITER:
            push(iterate(pop(), arg))
        elif op == FOR_ITER_LOCAL:  # a loop's entry test; FOR_ITER_LOCAL_BACK ends each iteration
            loop_items: Iterator[Value] = stack[-1]
            for item in loop_items:
                here.scope.values[arg >> 32] = item
                break
            else:
                pop()
                return arg & 0xFFFFFFFF
        elif op == FOR_ITER:  # a loop's entry test; FOR_ITER_BACK ends each iteration
            entries: Iterator[Value | tuple[Value, Value]] = stack[-1]
            for entry in entries:
                if isinstance(entry, tuple):  # two loop variables
                    push(entry[0])
                    push(entry[1])
                else:
                    push(entry)
                break
            else:
                pop()
                return arg
        elif op == LOAD_UNDEFINED:
            push(UNDEFINED)
        elif op == LOAD_UNIT:
            number, suffix = consts[arg]
            push(NumberMultiplier(number, suffix))
        elif op == LOAD_DEREF:
            scope: Scope | None = here.scope
            for _ in range(arg >> 16):
                assert scope is not None
                scope = scope.parent
            assert scope is not None
            push(scope.values[arg & 0xFFFF])
        elif op == STORE_GLOBAL:
            here.package.values[arg] = pop()
        elif op == LOAD_IMPORT:
            push(self.import_module(consts[arg], here))
        elif op == LOAD_CONFIG_KEY:
            name, target = consts[arg]
            for config in reversed(configs):
                if name in config:
                    push(config[name])
                    return int(target)
        elif op == UNARY_OP:
            push(UNARY[OPERATORS[arg]](pop()))
        elif op == JUMP_IF_TRUE_OR_POP:
            if truthy(stack[-1]):
                return arg
            pop()
        elif op == GET_ATTR_OPT:
            value = pop()
            if (
                value is None
                or value is UNDEFINED
                or (isinstance(value, dict | list) and not value)
            ):
                push(None)
            else:
                push(self.get_attr(value, code.names[arg], here))
        elif op == GET_ITEM_OPT:
            index = pop()
            value = pop()
            if (
                value is None
                or value is UNDEFINED
                or (isinstance(value, dict | list) and not value)
            ):
                push(None)
            else:
                push(get_item(value, index))
        elif op == SLICE:
            step = pop()
            upper = pop()
            lower = pop()
            push(get_slice(pop(), lower, upper, step))
        elif op == LIST_EXTEND:
            items = pop()
            if items is not None and items is not UNDEFINED:
                stack[-1].extend(iterate_values(items))
        elif op == CONFIG_ENTRY_INDEX:
            value = pop()
            index = pop()
            path, op_text = consts[arg]
            config_index_entry(
                stack[-1], path, index, value, OPS_BY_TEXT[op_text], self.rebuild_in(here.package)
            )
        elif op == CONFIG_UNPACK:
            value = pop()
            config_unpack(stack[-1], value, self.rebuild_in(here.package))
        elif op == BUILD_STRING:
            parts = stack[-arg:] if arg else []
            if arg:
                del stack[-arg:]
            push("".join(parts))
        elif op == FORMAT_VALUE:
            push(format_value(pop(), consts[arg]))
        elif op == MAKE_FUNCTION:
            proto: FunctionProto = consts[arg & 0xFFFF]
            count = arg >> 16
            defaults = stack[-count:] if count else []
            if count:
                del stack[-count:]
            push(Function(proto, here.scope, here.package, defaults))
        elif op == CALL_EX:
            kwargs = pop()
            args = pop()
            push(self.call(pop(), list(args), dict(kwargs), here))
        elif op == TYPE_CHECK:
            push(self.types.check(pop(), consts[arg], here.package))
        elif op == AS_TYPE:
            push(self.types.check(pop(), consts[arg], here.package, strict=True))
        elif op == ASSERT:
            message = pop()
            if not truthy(pop()):
                text = "" if message is None or message is UNDEFINED else to_str(message)
                raise KclRuntimeError(text)
        elif op == EXPR_OUTPUT:
            self.runtime.record_expression(pop(), here, arg == 1)
        elif op == MAKE_SCHEMA:
            schema_header: SchemaHeader = consts[arg]
            push(SchemaType(schema_header, here.package))
        elif op == UNION:
            new = pop()
            old = pop()
            push(merge.union(old, new, [], self.rebuild_in(here.package)))
        elif op == FILTER_NEW:
            target = pop()
            push(Config() if isinstance(target, dict) else [])
        elif op == FILTER_END:
            target = pop()
            if isinstance(stack[-1], dict):
                stack[-1] = swap_removed_order(stack[-1], target)
        elif op == SET_PATH:
            value = pop()
            count = arg >> 16
            indices = stack[-count:] if count else []
            if count:
                del stack[-count:]
            push(
                set_path(pop(), consts[arg & 0xFFFF], indices, value, self.rebuild_in(here.package))
            )
        elif op == JUMP_IF_NONE:
            value = stack[-1]
            if value is None or value is UNDEFINED:
                stack[-1] = None
                return arg
        elif op == NOP:
            pass
        else:
            raise KclRuntimeError(f"internal error: unknown opcode {op}", "InternalError")
        return pc

    # ------------------------------------------------------------------ names

    def force_global(self, package: PackageState, slot: int, frame: Frame | None) -> Value:
        """The value of a package variable, running its setters the first time."""
        state = package.states[slot]
        if state in (DONE, IN_PROGRESS):
            return package.values[slot]
        package.states[slot] = IN_PROGRESS
        try:
            for code in package.code.setters[slot]:
                self.execute(code, package.scope, package, frame)
            value = package.values[slot]
            if isinstance(value, CONTAINERS):
                self.schemas.require(value)
        except BaseException:
            package.states[slot] = 0
            raise
        package.states[slot] = DONE
        return value

    def load_name(
        self, spec: tuple[str, int, int], scope: Scope, package: PackageState, frame: Frame
    ) -> Value:
        """A name the compiler could not bind: a schema attribute, else its fallback."""
        name, kind, index = spec
        state = scope.instance
        if state is not None and self.schemas.has_attribute(state, name):
            return self.schemas.force_attr(state, name, frame)
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

    def import_module(self, pkgpath: str, frame: Frame | None) -> ModuleValue:
        """The module of ``pkgpath``; a user package runs on its first import."""
        modules = self.runtime.modules
        module = modules.get(pkgpath)
        if module is not None:
            return module
        members = registry.system_module(pkgpath)
        if members is not None:
            module = ModuleValue(pkgpath, None, members)
        elif is_plugin(pkgpath):
            from kclpy.vm.plugins import plugin_members

            module = ModuleValue(pkgpath, None, plugin_members(pkgpath))
        else:
            code = self.runtime.package_codes.get(pkgpath)
            if code is None:
                raise KclRuntimeError(f"pkgpath {pkgpath} not found in the program")
            package = PackageState(code)
            module = ModuleValue(pkgpath, package, None)
            modules[pkgpath] = module
            self.run_package(package, frame)
            return module
        modules[pkgpath] = module
        return module

    def run_package(self, package: PackageState, frame: Frame | None) -> None:
        """Run the top-level walk of a package (forces its variables, runs statements)."""
        if package.started:
            return
        package.started = True
        for code in package.code.body:
            self.execute(code, package.scope, package, frame)

    def builtin(self, name: str) -> Builtin:
        """The builtin function ``name`` as a value (cached per run)."""
        cache = self.runtime.builtin_cache
        cached = cache.get(name)
        if cached is None:
            try:
                function = registry.builtin_functions()[name]
            except KeyError:
                raise KclRuntimeError(f"name '{name}' is not defined") from None
            cached = cache[name] = Builtin(name, function)
        return cached

    # ------------------------------------------------------------------ attributes

    def get_attr(self, value: Value, name: str, frame: Frame) -> Value:
        """``value.name``: dict entries, module members, string methods, ``S.instances``."""
        if isinstance(value, dict):
            return value.get(name, UNDEFINED)
        if isinstance(value, ModuleValue):
            return self.module_member(value, name, frame)
        if isinstance(value, str):
            try:
                method = registry.string_methods()[name]
            except KeyError:
                raise KclRuntimeError(f"str object attr '{name}' not found") from None
            return Builtin(name, functools.partial(method, value))
        if isinstance(value, SchemaType):
            if name == "instances":
                return Builtin("instances", functools.partial(self.instances, value))
            raise KclRuntimeError(f"schema object attr '{name}' not found")
        # the reference's words, None and Undefined included
        kind = value_type_name(value)
        raise KclRuntimeError(f"invalid value '{kind}' to load attribute '{name}'")

    def module_member(self, module: ModuleValue, name: str, frame: Frame | None) -> Value:
        """``module.name``: a system module's member or a package's variable."""
        if module.members is not None:
            if name not in module.members:
                raise KclRuntimeError(f"module '{module.name}' has no attribute '{name}'")
            member = module.members[name]
            if callable(member):
                return Builtin(f"{module.name}.{name}", member)
            result: Value = member
            return result
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

    # ------------------------------------------------------------------ calls

    def call(
        self, function: Value, args: list[Value], kwargs: dict[str, Value], frame: Frame | None
    ) -> Value:
        """Call a function value: a builtin, a lambda, or a schema type (an instance)."""
        if isinstance(function, Builtin):  # (inline: builtin calls are hot)
            package = frame.package if frame is not None else self.main_package()
            try:
                return function.call(self, package, args, kwargs)
            except KclRuntimeError:
                raise
            except TypeError as error:
                raise KclRuntimeError(_call_message(function.name, error)) from None
            except (ValueError, ArithmeticError, LookupError) as error:
                raise KclRuntimeError(str(error)) from None
        if isinstance(function, Function):
            return self.call_function(function, args, kwargs, frame)
        if isinstance(function, SchemaType):
            return self.schemas.instantiate(function, Config(), args, kwargs, frame)
        raise KclRuntimeError(f"'{value_type_name(function)}' object is not callable")

    def main_package(self) -> PackageState:
        """The main package (an empty one before the run starts)."""
        package = self.runtime.main_package
        if package is None:
            package = self.runtime.main_package = PackageState(PackageCode("__main__"))
        return package

    def call_value(self, function: Value, args: list[Value], kwargs: dict[str, Value]) -> Value:
        """A call from the host (``kcl test`` calls the program's lambdas): from main."""
        return self.call_from(function, args, kwargs, self.main_package())

    def call_from(
        self, function: Value, args: list[Value], kwargs: dict[str, Value], package: PackageState
    ) -> Value:
        """A call from outside the loop (a builtin such as ``reduce``): from ``package``."""
        return self.call(function, args, kwargs, Frame(_HOST_CODE, package.scope, package, None))

    def union(self, left: Value, right: Value) -> Value:
        """``left | right`` (for builtins)."""
        return merge.bit_or(left, right, self.rebuild_in(None))

    def context(self, package: PackageState) -> BuiltinContext:
        """What a builtin called from ``package`` may see of the run."""
        return BuiltinContext(self, package)

    def call_function(
        self, function: Function, args: list[Value], kwargs: dict[str, Value], frame: Frame | None
    ) -> Value:
        """Call a lambda: bind its parameters, check their types, run its code."""
        proto = function.proto
        parent = function.scope
        scope = Scope(proto.nlocals, parent, parent.instance)
        bind_arguments(function, scope.values, args, kwargs)
        values = scope.values
        package = function.package
        for index, param in enumerate(proto.params):
            if param.type is not None:
                values[index] = self.types.check(values[index], param.type, package)
        result = self.execute(proto.code, scope, package, frame)
        if proto.return_type is not None:
            result = self.types.check(result, proto.return_type, package)
        return result


def bind_arguments(
    function: Function, values: list[Value], args: list[Value], kwargs: dict[str, Value]
) -> None:
    """Store a lambda's arguments (and defaults) in its local slots; arity errors."""
    proto = function.proto
    params = proto.params
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


def _call_message(name: str, error: TypeError) -> str:
    text = str(error)
    if "positional argument" in text or "keyword argument" in text or "argument" in text:
        detail = text.split(") ", 1)[-1] if ") " in text else text
        return f'"{name}" {detail}' if not detail.startswith('"') else detail
    return text


def locate(error: KclRuntimeError, frame: Frame, pc: int) -> None:
    """Record the position of the instruction at ``pc`` on ``error``."""
    code = frame.code
    index = max(0, min(pc // 2, len(code.positions) - 1)) if code.positions else -1
    start, end = code.positions[index] if index >= 0 else (0, 0)
    error.locate((code.path, start, end))


def operand_table(binary: Mapping[str, BinaryFunction]) -> list[BinaryFunction | None]:
    """BINARY's functions indexed by operand; None for ``|``, which the interpreter
    handles itself (it unions configs and schemas as well as ints)."""
    return [None if name == "|" else binary.get(name) for name in OPERATORS]


_HOST_CODE = Code("<builtin>", "")
BinaryFunction = Callable[[Value, Value], Value]


def _raise_recursion_limit() -> None:
    """Leave room on the Python stack for MAX_DEPTH nested KCL frames."""
    needed = MAX_DEPTH * 6 + 1000
    if sys.getrecursionlimit() < needed:
        sys.setrecursionlimit(needed)


_raise_recursion_limit()
