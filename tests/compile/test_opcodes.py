"""Every opcode has a stack effect, a disassembly format and a handler in the VM."""

from __future__ import annotations

import ast
import inspect

from kclpy.compile.opcodes import OPERAND, STACK_EFFECT, Op
from kclpy.vm import interp

# Opcodes whose operand is not shown (unused or implicit).
NO_OPERAND = {
    Op.NOP, Op.POP, Op.DUP, Op.SWAP, Op.ROT3, Op.LOAD_NONE, Op.LOAD_UNDEFINED,
    Op.LOAD_TRUE, Op.LOAD_FALSE, Op.GET_ITEM, Op.GET_ITEM_OPT, Op.SLICE, Op.LIST_APPEND,
    Op.LIST_EXTEND, Op.BUILD_CONFIG, Op.CONFIG_END, Op.CONFIG_UNPACK, Op.CALL_EX,
    Op.ASSERT, Op.EXPR_OUTPUT, Op.RETURN, Op.CHECK, Op.UNION, Op.FILTER_NEW, Op.FILTER_ADD,
    Op.FILTER_END,
}  # fmt: skip


def _handled_opcodes() -> set[str]:
    """Names compared against ``op`` in the interpreter's dispatch code."""
    tree = ast.parse(inspect.getsource(interp))
    aliases = {
        target.id: node.value.args[0].attr
        for node in ast.walk(tree)
        if isinstance(node, ast.Assign)
        and isinstance(node.value, ast.Call)
        and isinstance(node.value.func, ast.Name)
        and node.value.func.id == "int"
        and node.value.args
        and isinstance(node.value.args[0], ast.Attribute)
        for target in node.targets
        if isinstance(target, ast.Name)
    }
    handled: set[str] = set()
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Compare)
            and isinstance(node.left, ast.Name)
            and node.left.id == "op"
        ):
            right = node.comparators[0]
            if isinstance(right, ast.Attribute):
                handled.add(right.attr)
            elif isinstance(right, ast.Name) and right.id in aliases:
                handled.add(aliases[right.id])
    return handled


def test_every_opcode_has_a_stack_effect() -> None:
    assert set(STACK_EFFECT) == set(Op)


def test_every_opcode_has_a_disassembly_format() -> None:
    for op in Op:
        assert (op in OPERAND) != (op in NO_OPERAND), op


def test_every_opcode_has_a_handler() -> None:
    assert _handled_opcodes() == {op.name for op in Op}


def test_variable_stack_effects_are_functions_of_the_operand() -> None:
    build_list = STACK_EFFECT[Op.BUILD_LIST]
    assert callable(build_list) and build_list(3) == -2
