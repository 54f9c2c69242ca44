"""The compiler leaves no per-unit reference cycles behind.

`kcl run` pauses the cyclic garbage collector (see ``kclpy.cli.run``) and relies on
reference counting alone, so anything the compiler leaves in a cycle stays in memory
until the process ends: a cycle through every unit's ``ExprCompiler`` once doubled the
peak memory of a program of 100k assignments. This compiles a program of many units
with the collector off and counts the compilers and emitters only the collector could
free. (The package compiler itself is still in a cycle, with one ``Setter`` per
statement: a smaller leak, left for later.)
"""

from __future__ import annotations

import collections
import gc
from pathlib import Path

from kclpy.compile.stmts import PackageCompiler
from kclpy.loader import Loader
from kclpy.sema import resolve_program

PROGRAM = "\n".join(
    [
        "schema Item:",
        "    name: str",
        "    port: int = 80",
        *(f'a{i} = {i}\ns{i} = "x{i}"\nl{i} = [{i}, {{k = {i}}}]' for i in range(200)),
        "items = [Item {name = str(i)} for i in range(3)]",
        "total = sum([x for x in [a0, a1, a2] if x > 0])",
    ]
)


def test_compiling_leaves_no_cycles(tmp_path: Path) -> None:
    main = tmp_path / "main.k"
    main.write_text(PROGRAM + "\n", encoding="utf-8")
    program = Loader(str(tmp_path), {}, {}).load([str(main)])
    assert not program.has_errors
    enabled = gc.isenabled()
    gc.collect()
    gc.disable()
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        model = resolve_program(program)
        codes = [
            PackageCompiler(pkgpath, modules, model).compile()
            for pkgpath, modules in program.packages.items()
        ]
        gc.collect()
        left = collections.Counter(type(item).__name__ for item in gc.garbage)
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
        if enabled:
            gc.enable()
    assert codes
    per_unit = {name: left[name] for name in ("ExprCompiler", "Emitter", "Code") if left[name] > 5}
    assert not per_unit, f"compiled units left in reference cycles: {per_unit}"
