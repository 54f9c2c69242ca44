"""Builtins see the run only through ``BuiltinContext``, and use only what it declares.

Every function of the builtins that takes a parameter annotated ``BuiltinContext``
may read only the context's public names from it, never ``getattr`` on it: the
context stays the small explicit object it is, not a door back into the VM.
"""

from __future__ import annotations

import ast
from pathlib import Path

import kclpy.vm.builtins as builtins_package
import kclpy.vm.builtins.options as options_module
from kclpy.vm.builtins.context import BuiltinContext

PUBLIC = {name for name in dir(BuiltinContext) if not name.startswith("_")} | {"call", "union"}


def context_uses(tree: ast.Module) -> list[tuple[str, str]]:
    """(function, name) for each attribute read from, or getattr on, a context parameter."""
    uses: list[tuple[str, str]] = []
    for function in ast.walk(tree):
        if not isinstance(function, ast.FunctionDef):
            continue
        params = {
            arg.arg
            for arg in function.args.args
            if arg.annotation is not None and ast.unparse(arg.annotation) == "BuiltinContext"
        }
        for node in ast.walk(function):
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
                if node.value.id in params:
                    uses.append((function.name, node.attr))
            elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
                arguments = node.args
                if node.func.id in ("getattr", "hasattr") and arguments:
                    first = arguments[0]
                    if isinstance(first, ast.Name) and first.id in params:
                        uses.append((function.name, f"{node.func.id}()"))
    return uses


def test_builtins_use_only_what_the_context_declares() -> None:
    folder = Path(builtins_package.__file__).parent
    used: dict[str, set[str]] = {}
    for path in [*sorted(folder.rglob("*.py")), Path(options_module.__file__)]:
        for function, name in context_uses(ast.parse(path.read_text(encoding="utf-8"))):
            used.setdefault(name, set()).add(f"{path.name}:{function}")
    assert used, "no builtin takes the context: the scan is broken"
    undeclared = {name: places for name, places in used.items() if name not in PUBLIC}
    assert undeclared == {}


def test_the_scan_sees_an_undeclared_read() -> None:
    tree = ast.parse(
        "def f(ctx: BuiltinContext) -> None:\n"
        "    ctx.rebuild(1)\n"
        "    getattr(ctx, 'interpreter')\n"
        "    ctx.root\n"
    )
    assert sorted(context_uses(tree)) == [("f", "getattr()"), ("f", "rebuild"), ("f", "root")]
