"""The checker: the parts combined, and ``check_program``, the stage's entry point.

``check_program(program)`` declares and checks every package (imported ones
first, as the reference does), then returns the :class:`Model` with the
diagnostics in source order. Errors stop a run; warnings do not.
"""

from __future__ import annotations

import gc

from kclpy.depth import TOO_DEEP, innermost_span
from kclpy.diag import Code, Diagnostic, make_error
from kclpy.loader import Program
from kclpy.sema.builtins import BUILTIN_DOCS, BUILTIN_FUNCTIONS
from kclpy.sema.declare import DeclareMixin
from kclpy.sema.model import Model
from kclpy.sema.resolve import resolve_program
from kclpy.sema.symbols import MAIN, Symbol, SymbolKind


class Checker(DeclareMixin):
    """Resolution and type checking of a whole program."""

    def __init__(self, program: Program, model: Model) -> None:
        super().__init__(program, model)
        self.expr_handlers = self.init_expr_handlers()
        self.stmt_handlers = self.init_stmt_handlers()
        self.checked: set[str] = set()
        for name, signature in BUILTIN_FUNCTIONS.items():
            symbol = Symbol(name, SymbolKind.BUILTIN, signature)
            symbol.doc = BUILTIN_DOCS.get(name, "")
            self.builtin_scope.symbols[name] = symbol

    def run(self) -> None:
        if MAIN in self.program.packages:
            self.check_package(MAIN)
        for pkgpath in list(self.program.packages):
            self.check_package(pkgpath)


def check_program(program: Program, keep_scopes: bool = False) -> Model:
    """Resolve and type-check a loaded program; the model holds the diagnostics
    and (``resolution``) the bindings the compiler reads.

    ``keep_scopes`` keeps the tree of nested scopes (for editors); package scopes,
    bindings and types are always kept.
    """
    model = Model(keep_scopes)
    checker = Checker(program, model)
    collecting = gc.isenabled()
    gc.disable()  # the walk makes no garbage cycles; scanning the big AST again and again did
    try:
        checker.run()
        resolve_program(program, model)  # the run-time binding of every name use
    except RecursionError as error:  # beyond kclpy.depth's budget: say where
        model.diagnostics.append(make_error(Code.COMPILE_ERROR, TOO_DEEP, innermost_span(error)))
    except Exception as error:  # a bug in the checker is an internal error, not a traceback
        model.diagnostics.append(
            make_error(Code.INTERNAL_ERROR, f"internal error in the type checker: {error!r}", None)
        )
    finally:
        if collecting:
            gc.enable()
    model.diagnostics[:] = dedupe(model.diagnostics)
    return model


def dedupe(diagnostics: list[Diagnostic]) -> list[Diagnostic]:
    """Drop repeated reports of the same problem at the same place; sort by position."""
    seen: set[tuple[str, str, str, int]] = set()
    unique: list[Diagnostic] = []
    for diagnostic in diagnostics:
        span = diagnostic.span
        key = (
            diagnostic.code.kind,
            diagnostic.message,
            span.file.path if span is not None else "",
            span.start if span is not None else -1,
        )
        if key not in seen:
            seen.add(key)
            unique.append(diagnostic)
    return unique
