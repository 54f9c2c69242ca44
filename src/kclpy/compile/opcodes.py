"""The instruction set of the kclpy VM.

Code is a flat list ``[op, arg, op, arg, ...]``; every instruction has one integer
operand (0 when unused). ``STACK_EFFECT`` gives each opcode's net effect on the
operand stack, as a number or, for variable effects, a function of the operand;
``OPERAND`` says how the disassembler shows the operand.

Notation in the comments: ``a b -> c`` pops ``b`` (top) then ``a`` and pushes ``c``.
"""

from __future__ import annotations

from collections.abc import Callable

from kclpy.enumeration import IntEnumeration

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Final


class Op(IntEnumeration):
    # --- stack
    NOP = 0  # -
    POP = 1  # a ->
    DUP = 2  # a -> a a
    SWAP = 3  # a b -> b a
    ROT3 = 4  # a b c -> c a b
    # --- constants and names
    LOAD_CONST = 10  # -> consts[arg]
    LOAD_NONE = 11  # -> None
    LOAD_UNDEFINED = 12  # -> Undefined
    LOAD_TRUE = 13  # -> True
    LOAD_FALSE = 14  # -> False
    LOAD_UNIT = 15  # -> NumberMultiplier(*consts[arg])
    LOAD_LOCAL = 16  # -> locals[arg]
    STORE_LOCAL = 17  # a ->            locals[arg] = a
    LOAD_DEREF = 18  # -> value of local (arg & 0xFFFF) in the scope (arg >> 16) levels up
    LOAD_GLOBAL = 19  # -> the (lazily computed) module variable in slot arg
    STORE_GLOBAL = 20  # a ->            module slot arg = a (a setter of the variable)
    LOAD_BUILTIN = 21  # -> builtin function names[arg]
    LOAD_IMPORT = 22  # -> the module imported as consts[arg] (a pkgpath)
    LOAD_NAME = 23  # -> attribute consts[arg][0] of the schema being built, else the
    #                   fallback consts[arg][1:] = (kind, index): global slot, import,
    #                   builtin, or Undefined
    STORE_ATTR_SELF = 24  # a ->        set attribute names[arg] of the schema being built
    LOAD_CONFIG_KEY = 25  # -> value of key consts[arg][0] in the nearest config under
    #                        construction that has it, then jump to consts[arg][1];
    #                        falls through (pushing nothing) when no config has it
    # --- operators (arg: operator index in OPERATORS)
    UNARY = 30  # a -> op a
    BINARY = 31  # a b -> a op b
    COMPARE = 32  # a b -> a op b
    # --- control flow (arg: target offset)
    JUMP = 40  # -
    JUMP_IF_FALSE = 41  # a ->
    JUMP_IF_TRUE = 42  # a ->
    JUMP_IF_FALSE_OR_POP = 43  # a -> a (jump) | -  (fall through)
    JUMP_IF_TRUE_OR_POP = 44  # a -> a (jump) | -
    JUMP_IF_NONE = 45  # a -> a; when a is None/Undefined: a becomes None, jump (a?.f())
    # --- access
    GET_ATTR = 50  # a -> a.names[arg]
    GET_ATTR_OPT = 51  # a -> a?.names[arg]
    GET_ITEM = 52  # a i -> a[i]
    GET_ITEM_OPT = 53  # a i -> a?[i]
    SLICE = 54  # a lo hi step -> a[lo:hi:step]
    # --- building values
    BUILD_LIST = 60  # x1..xn -> [x1..xn]
    LIST_CONST = 72  # -> a new list of the literals in the tuple consts[arg]
    LIST_APPEND = 61  # l x -> l         (l.append(x); Undefined kept)
    APPEND_LOCAL = 71  # x ->            (locals[arg].append(x): a comprehension's list)
    LIST_EXTEND = 62  # l x -> l         (*x; None/Undefined skipped)
    BUILD_CONFIG = 63  # -> {}            (also enters the config scope for sibling names)
    CONFIG_END = 64  # c -> c            (leaves the config scope)
    CONFIG_ENTRY = 65  # c v -> c        key path consts[arg] = (keys, op)
    CONFIG_ENTRY_DYN = 66  # c k v -> c  computed key k, op OPERATORS index arg
    CONFIG_UNPACK = 67  # c x -> c       (**x)
    CONFIG_ENTRY_INDEX = 68  # c i v -> c  key consts[arg] = (keys, op), list index i
    CONFIG_CONST = 73  # -> a new config from the template consts[arg] = (pairs, ops,
    #                   nested): the (key, constant) pairs in order, the (key, operator
    #                   text) pairs, the (key, template) of each nested config literal
    BUILD_STRING = 69  # s1..sn -> "s1..sn"
    FORMAT_VALUE = 70  # a -> str(a), with spec consts[arg] (None, "#json", "#yaml")
    # --- functions, schemas, calls
    MAKE_FUNCTION = 80  # defaults.. -> function (consts[arg] is a FunctionProto)
    CALL = 81  # f a1..an -> f(...)  arg = n | (keyword-names const index + 1) << 16
    CALL_EX = 82  # f args kwargs -> f(*args, **kwargs)
    SCHEMA_NEW = 83  # s a1..an config -> instance; arg as CALL
    TYPE_CHECK = 84  # a -> a converted/checked against type consts[arg]
    AS_TYPE = 85  # a -> a as type consts[arg]
    # --- iteration
    GET_ITER = 90  # a -> iterator      (arg: 1 or 2 loop variables)
    FOR_ITER = 91  # it -> it x | it k v (2 variables) | - (exhausted: pop, jump to arg)
    FOR_ITER_LOCAL = 92  # it -> it       (one loop variable stored in locals[arg >> 32];
    #                   exhausted: pop, jump to arg & 0xFFFFFFFF)
    # the backward tests that end each iteration of a rotated loop (the entry test is
    # FOR_ITER / FOR_ITER_LOCAL): the next item jumps back to the body at the target;
    # exhausted: pop, fall through
    FOR_ITER_BACK = 93  # it -> it x | it k v (2 variables, jump to arg) | - (exhausted)
    FOR_ITER_LOCAL_BACK = 94  # it -> it  (locals[arg >> 32] = x, jump to arg & 0xFFFFFFFF)
    #                   | - (exhausted)
    # --- statements
    ASSERT = 100  # cond msg ->        (fails with msg when cond is falsy)
    EXPR_OUTPUT = 101  # a ->           (a bare top-level expression is output; arg 1: schema expr)
    RETURN = 102  # a -> (returns a)
    CHECK = 103  # cond msg ->          (fails the instance check with msg when cond is falsy)
    MAKE_SCHEMA = 104  # -> schema type built from consts[arg] (a SchemaProto)
    UNION = 105  # a b -> a | b as a config union (entry operators apply)
    FILTER_NEW = 106  # t -> acc          ({} for dicts/schemas, [] otherwise)
    FILTER_ADD = 107  # acc t k v -> acc  (dict: acc[k] = t[k]; list: append v)
    SET_PATH = 108  # a i1..ik v -> a'   a copy of a with the path consts[arg & 0xFFFF] set
    #                   to v; the path's None steps take the indices i1..ik (k = arg >> 16)
    FILTER_END = 109  # acc t -> acc'   (dict: the keys in the reference's order, as if t's
    #                   failing keys were swap-removed from a copy of t in iteration order)


# Operators used by UNARY, BINARY, COMPARE and dynamic config entries.
OPERATORS: Final[tuple[str, ...]] = (
    "+", "-", "*", "/", "//", "%", "**", "<<", ">>", "&", "|", "^", "and", "or",
    "==", "!=", "<", "<=", ">", ">=", "in", "not in", "is", "is not",
    "not", "~", "u+", "u-",
    ":", "=", "+=",
)  # fmt: skip
OPERATOR_INDEX: Final[dict[str, int]] = {name: index for index, name in enumerate(OPERATORS)}


def _call_effect(arg: int) -> int:
    positional = arg & 0xFFFF
    keywords_const = arg >> 16
    del keywords_const  # keyword values are counted in the low 16 bits too
    return -positional


# Net stack effect per opcode: an int, or a function of the operand.
STACK_EFFECT: Final[dict[Op, int | Callable[[int], int]]] = {
    Op.NOP: 0,
    Op.POP: -1,
    Op.DUP: 1,
    Op.SWAP: 0,
    Op.ROT3: 0,
    Op.LOAD_CONST: 1,
    Op.LOAD_NONE: 1,
    Op.LOAD_UNDEFINED: 1,
    Op.LOAD_TRUE: 1,
    Op.LOAD_FALSE: 1,
    Op.LOAD_UNIT: 1,
    Op.LOAD_LOCAL: 1,
    Op.STORE_LOCAL: -1,
    Op.LOAD_DEREF: 1,
    Op.LOAD_GLOBAL: 1,
    Op.STORE_GLOBAL: -1,
    Op.LOAD_BUILTIN: 1,
    Op.LOAD_IMPORT: 1,
    Op.LOAD_NAME: 1,
    Op.STORE_ATTR_SELF: -1,
    Op.LOAD_CONFIG_KEY: 1,
    Op.UNARY: 0,
    Op.BINARY: -1,
    Op.COMPARE: -1,
    Op.JUMP: 0,
    Op.JUMP_IF_FALSE: -1,
    Op.JUMP_IF_TRUE: -1,
    Op.JUMP_IF_FALSE_OR_POP: -1,
    Op.JUMP_IF_TRUE_OR_POP: -1,
    Op.JUMP_IF_NONE: 0,
    Op.GET_ATTR: 0,
    Op.GET_ATTR_OPT: 0,
    Op.GET_ITEM: -1,
    Op.GET_ITEM_OPT: -1,
    Op.SLICE: -3,
    Op.BUILD_LIST: lambda n: 1 - n,
    Op.LIST_CONST: 1,
    Op.CONFIG_CONST: 1,
    Op.LIST_APPEND: -1,
    Op.APPEND_LOCAL: -1,
    Op.LIST_EXTEND: -1,
    Op.BUILD_CONFIG: 1,
    Op.CONFIG_END: 0,
    Op.CONFIG_ENTRY: -1,
    Op.CONFIG_ENTRY_DYN: -2,
    Op.CONFIG_UNPACK: -1,
    Op.CONFIG_ENTRY_INDEX: -2,
    Op.BUILD_STRING: lambda n: 1 - n,
    Op.FORMAT_VALUE: 0,
    Op.MAKE_FUNCTION: lambda n: 1 - (n >> 16),
    Op.CALL: _call_effect,
    Op.CALL_EX: -2,
    Op.SCHEMA_NEW: lambda arg: -1 - (arg & 0xFFFF),
    Op.TYPE_CHECK: 0,
    Op.AS_TYPE: 0,
    Op.GET_ITER: 0,
    Op.FOR_ITER: 1,  # (2 with two loop variables; -1 when exhausted)
    Op.FOR_ITER_LOCAL: 0,  # (-1 when exhausted)
    Op.FOR_ITER_BACK: 1,  # (2 with two loop variables; -1 when exhausted)
    Op.FOR_ITER_LOCAL_BACK: 0,  # (-1 when exhausted)
    Op.ASSERT: -2,
    Op.EXPR_OUTPUT: -1,
    Op.RETURN: -1,
    Op.CHECK: -2,
    Op.MAKE_SCHEMA: 1,
    Op.UNION: -1,
    Op.FILTER_NEW: 0,
    Op.FILTER_ADD: -3,
    Op.FILTER_END: -1,
    Op.SET_PATH: lambda arg: -1 - (arg >> 16),
}

# How the disassembler shows the operand.
OPERAND: Final[dict[Op, str]] = {
    Op.LOAD_CONST: "const",
    Op.LOAD_UNIT: "const",
    Op.LOAD_LOCAL: "local",
    Op.STORE_LOCAL: "local",
    Op.LOAD_DEREF: "deref",
    Op.LOAD_GLOBAL: "global",
    Op.STORE_GLOBAL: "global",
    Op.MAKE_SCHEMA: "const",
    Op.SET_PATH: "const",
    Op.LOAD_CONFIG_KEY: "const",
    Op.LOAD_BUILTIN: "name",
    Op.LOAD_IMPORT: "const",
    Op.LOAD_NAME: "const",
    Op.STORE_ATTR_SELF: "name",
    Op.UNARY: "operator",
    Op.BINARY: "operator",
    Op.COMPARE: "operator",
    Op.JUMP: "target",
    Op.JUMP_IF_FALSE: "target",
    Op.JUMP_IF_TRUE: "target",
    Op.JUMP_IF_FALSE_OR_POP: "target",
    Op.JUMP_IF_TRUE_OR_POP: "target",
    Op.JUMP_IF_NONE: "target",
    Op.FOR_ITER: "target",
    Op.FOR_ITER_LOCAL: "target+local",
    Op.FOR_ITER_BACK: "target",
    Op.FOR_ITER_LOCAL_BACK: "target+local",
    Op.APPEND_LOCAL: "local",
    Op.GET_ATTR: "name",
    Op.GET_ATTR_OPT: "name",
    Op.BUILD_LIST: "count",
    Op.LIST_CONST: "const",
    Op.CONFIG_CONST: "const",
    Op.BUILD_STRING: "count",
    Op.CONFIG_ENTRY: "const",
    Op.CONFIG_ENTRY_DYN: "operator",
    Op.CONFIG_ENTRY_INDEX: "const",
    Op.FORMAT_VALUE: "const",
    Op.MAKE_FUNCTION: "function",
    Op.CALL: "call",
    Op.SCHEMA_NEW: "call",
    Op.TYPE_CHECK: "const",
    Op.AS_TYPE: "const",
    Op.GET_ITER: "count",
}
