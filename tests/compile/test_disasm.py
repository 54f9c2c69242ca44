"""Codegen goldens: the disassembly of small programs (``pytest --update-goldens`` rewrites)."""

from __future__ import annotations

from pathlib import Path

import pytest

from kclpy.compile.disasm import disassemble_package
from kclpy.compile.stmts import PackageCompiler
from kclpy.loader import Program
from kclpy.sema import resolve_program
from kclpy.syntax import parse_source

GOLDENS = Path(__file__).parent / "goldens"

PROGRAMS = {
    "assign_and_order": "a = b + 1\nb = 2\n_c = [x * 2 for x in [1, 2] if x > 1]\n",
    "schema_and_config": (
        'schema P:\n    name: str\n    n: int = 1\n    check:\n        n > 0, "n"\n'
        'p = P {name = "x", n: 2}\nq = {a.b = 1, **p, if True: c = 3}\n'
    ),
    "lambda_and_quantifier": (
        "f = lambda x: int, y = 1 {\n    z = x + y\n    z * 2\n}\n"
        "ok = all v in [1, 2] { v > 0 }\nm = map k, v in {a = 1} { k }\n"
    ),
}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_disassembly_matches_golden(name: str, update_goldens: bool) -> None:
    module, diagnostics = parse_source(PROGRAMS[name], "main.k")
    assert not diagnostics
    program = Program("")
    program.packages["__main__"] = [module]
    compiler = PackageCompiler("__main__", [module], resolve_program(program))
    package = compiler.compile()
    assert not compiler.diagnostics
    text = disassemble_package(package, {"main.k": module.file})
    golden = GOLDENS / f"{name}.disasm"
    if update_goldens:
        golden.write_text(text, encoding="utf-8")
    assert golden.exists(), f"no golden {golden.name}: run pytest --update-goldens"
    assert text == golden.read_text(encoding="utf-8")
