"""The compiler reads the resolver's bindings: a use it was not given is an internal
error with a position, never a traceback or a silent guess."""

from __future__ import annotations

from kclpy.compile.stmts import PackageCompiler
from kclpy.diag import Code
from kclpy.loader import Program
from kclpy.sema import Model, resolve_program
from kclpy.syntax import parse_source

TEXT = "a = 1\nb = [a + x for x in [1]]\nf = lambda y { y + a }\n"
TYPED = "schema S:\n    n: int\n\nschema T(S):\n    s: S\n\nv = 1 as int\n"


def parsed(text: str) -> Program:
    module, diagnostics = parse_source(text, "main.k")
    assert not diagnostics
    program = Program("")
    program.packages["__main__"] = [module]
    return program


def compile_with(model: Model | None, program: Program | None = None) -> PackageCompiler:
    program = program or parsed(TEXT)
    modules = program.packages["__main__"]
    compiler = PackageCompiler("__main__", modules, model or resolve_program(program))
    compiler.compile()
    return compiler


def test_a_resolved_program_compiles_cleanly() -> None:
    assert compile_with(None).diagnostics == []


def test_unresolved_uses_are_internal_errors_at_the_use() -> None:
    diagnostics = compile_with(Model()).diagnostics
    assert {d.code for d in diagnostics} == {Code.INTERNAL_ERROR}
    lines = sorted({d.span.file.pos(d.span.start).line for d in diagnostics if d.span})
    assert lines == [2, 3]


def test_unresolved_type_names_are_internal_errors_at_the_name() -> None:
    program = parsed(TYPED)
    model = resolve_program(program)
    assert compile_with(model, program).diagnostics == []
    model.type_resolution.clear()  # the values are resolved, the type names are not
    diagnostics = compile_with(model, program).diagnostics
    assert {d.code for d in diagnostics} == {Code.INTERNAL_ERROR}
    lines = sorted({d.span.file.pos(d.span.start).line for d in diagnostics if d.span})
    assert lines == [2, 4, 5, 7]
