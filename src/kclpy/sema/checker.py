"""The checker: its parts built and connected, and ``check_program``, the entry point.

The checker is a shared :class:`~kclpy.sema.base.CheckContext` (program, model,
scopes, current schema, expected types, reporting) and cooperating parts, each
holding the context and the parts it calls (mypy's checker / expression-checker
split is the model): package declarations (``declare``), schemas and rules
(``schemas``), statements (``stmts``), expressions (``exprs``), configs and schema
expressions (``config``), calls and lambdas (``calls``), names and members
(``names``), annotations, assignability and operators.

``check_program(program)`` resolves (``sema.resolve``: the binding of every name
use, which the walk reads), declares and checks every package (imported ones
first, as the reference does), then returns the :class:`Model` with the
diagnostics in source order; given a ``PackageReuse`` (``sema.reuse``), it takes
the packages this process checked before from its store instead. Errors stop a
run; warnings do not.
"""

from __future__ import annotations

import gc
from typing import TYPE_CHECKING

from kclpy.depth import TOO_DEEP, innermost_span
from kclpy.diag import Code, Diagnostic, make_error
from kclpy.loader import Program
from kclpy.sema.annotations import AnnotationResolver
from kclpy.sema.assign import AssignabilityChecker
from kclpy.sema.base import CheckContext
from kclpy.sema.builtins import BUILTIN_FUNCTIONS
from kclpy.sema.calls import CallChecker
from kclpy.sema.config import ConfigChecker
from kclpy.sema.declare import DeclarationChecker
from kclpy.sema.exprs import ExpressionChecker
from kclpy.sema.model import Model
from kclpy.sema.names import NameResolver
from kclpy.sema.operators import OperatorChecker
from kclpy.sema.schemas import SchemaBuilder
from kclpy.sema.stmts import StatementChecker
from kclpy.sema.symbols import MAIN, Symbol, SymbolKind
from kclpy.sema.types import FuncType

if TYPE_CHECKING:  # a plain run checks without reuse: kcl build's workers import it
    from kclpy.sema.reuse import PackageReuse

Part = (
    AnnotationResolver
    | NameResolver
    | ExpressionChecker
    | ConfigChecker
    | CallChecker
    | StatementChecker
    | SchemaBuilder
    | DeclarationChecker
)


class Checker:
    """Resolution and type checking of a whole program: the context and its parts."""

    def __init__(self, program: Program, model: Model, reuse: PackageReuse | None = None) -> None:
        self.ctx = ctx = CheckContext(program, model)
        self.operators = OperatorChecker(ctx)
        self.assign = AssignabilityChecker(ctx)
        self.annotations = AnnotationResolver(ctx)
        self.names = NameResolver(ctx)
        self.exprs = ExpressionChecker(ctx)
        self.config = ConfigChecker(ctx)
        self.calls = CallChecker(ctx)
        self.statements = StatementChecker(ctx)
        self.schemas = SchemaBuilder(ctx)
        self.declarations = DeclarationChecker(ctx) if reuse is None else reuse.declarations(ctx)
        self.parts: list[Part] = [
            self.annotations,
            self.names,
            self.exprs,
            self.config,
            self.calls,
            self.statements,
            self.schemas,
            self.declarations,
        ]
        for part in self.parts:
            part.connect(self)
        for name, signature in BUILTIN_FUNCTIONS.items():
            symbol = Symbol(name, SymbolKind.BUILTIN, signature)
            symbol.doc = signature.doc if isinstance(signature, FuncType) else ""
            ctx.builtin_scope.put(name, symbol)

    def close(self) -> None:
        """Drop what the parts hold: they refer to one another and to their own bound
        methods, cycles that keep the context, the scopes and the program alive to the
        end of a ``kcl run`` (whose cycle collector is paused)."""
        for part in self.parts:
            vars(part).clear()
        self.parts.clear()

    def run(self) -> None:
        packages = self.ctx.program.packages
        if MAIN in packages:
            self.declarations.check_package(MAIN)
        for pkgpath in list(packages):
            self.declarations.check_package(pkgpath)


def check_program(
    program: Program,
    keep_scopes: bool = False,
    reuse: PackageReuse | None = None,
    tool_facts: bool = True,
) -> Model:
    """Resolve and type-check a loaded program; the model holds the diagnostics
    and (``resolution``) the bindings the compiler reads.

    ``keep_scopes`` keeps the tree of nested scopes (for editors); package scopes,
    bindings and types are always kept. With ``reuse`` (not with ``keep_scopes``),
    packages checked before by this process are taken from its store (``sema.reuse``).
    With ``tool_facts`` False (a run, which lets the model's tool tables go before
    compiling) no occurrences and references are recorded.
    """
    model = Model(keep_scopes, tool_facts)
    checker = Checker(program, model, None if keep_scopes else reuse)
    collecting = gc.isenabled()
    gc.disable()  # the walk makes no garbage cycles; scanning the big AST again and again did
    try:
        checker.run()  # each package resolved, then checked
    except RecursionError as error:  # beyond kclpy.depth's budget: say where
        model.diagnostics.append(make_error(Code.COMPILE_ERROR, TOO_DEEP, innermost_span(error)))
    except (MemoryError, SystemError):  # memory ran out: the driver reports it (E3R01)
        raise
    except Exception as error:  # a bug in the checker is an internal error, not a traceback
        model.diagnostics.append(
            make_error(Code.INTERNAL_ERROR, f"internal error in the type checker: {error!r}", None)
        )
    finally:
        checker.close()
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
