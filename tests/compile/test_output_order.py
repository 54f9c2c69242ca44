"""The order of a package's variables in the output: where each is first set, or where
its last unification stands (as the reference prints them). The compiler takes the
slot order when no unification moves a variable; this holds it to the rule, computed
here from the statements, on every test program."""

from __future__ import annotations

from pathlib import Path

from kclpy.compile.stmts import PackageCompiler
from kclpy.loader import Loader
from kclpy.sema import resolve_program
from kclpy.syntax import ast
from kclpy.syntax.targets import walk_setters

ROOT = Path(__file__).resolve().parents[2]

UNIFIED = """\
schema S:
    a?: int
    b?: int

x = 1
s: S {a = 1}
y = 2
if True:
    z = 3
s: S {b = 2}
w = 4
"""


def _expected(modules: list[ast.Module], names: list[str]) -> list[int]:
    place: dict[str, tuple[int, int]] = {}
    for index, module in enumerate(modules):

        def note(name: str, stmt: ast.Stmt, _guards: object, index: int = index) -> None:
            if name not in place or isinstance(stmt, ast.UnificationStmt):
                place[name] = (index, stmt.span.start)

        walk_setters(module.body, [], note)
    return sorted(range(len(names)), key=lambda slot: place[names[slot]])


def _check(folder: Path, files: list[Path]) -> int:
    program = Loader(str(folder), {}, {}).load([str(path) for path in files])
    if program.has_errors:
        return 0
    model = resolve_program(program)
    for pkgpath, modules in program.packages.items():
        code = PackageCompiler(pkgpath, modules, model).compile()
        assert code.output == _expected(modules, code.slot_names), (pkgpath, files)
    return 1


def test_a_unified_variable_moves_to_its_last_unification(tmp_path: Path) -> None:
    main = tmp_path / "main.k"
    main.write_text(UNIFIED, encoding="utf-8")
    program = Loader(str(tmp_path), {}, {}).load([str(main)])
    assert not program.has_errors
    code = PackageCompiler("__main__", program.packages["__main__"], resolve_program(program))
    package = code.compile()
    assert [package.slot_names[slot] for slot in package.output] == ["S", "x", "y", "z", "s", "w"]
    assert _check(tmp_path, [main])


def test_every_test_program_outputs_in_the_order_of_the_rule() -> None:
    checked = sum(_check(path.parent, [path]) for path in sorted((ROOT / "tests").rglob("*.k")))
    assert checked > 50
