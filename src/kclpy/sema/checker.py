"""The checker: its parts built and connected, and ``check_program``, the entry point.

The checker is a shared :class:`~kclpy.sema.base.CheckContext` (program, model,
scopes, current schema, expected types, reporting) and cooperating parts, each
holding the context and the parts it calls (mypy's checker / expression-checker
split is the model): package declarations (``declare``), schemas and rules
(``schemas``), statements (``stmts``), expressions (``exprs``), configs and schema
expressions (``config``), calls and lambdas (``calls``), names and members
(``names``), annotations, assignability and operators.

``check_program(program)`` checks the packages one at a time in import order
(``sema.interface.check_order``): each is resolved (``sema.resolve``: the binding of
every name use, which the walk reads), declared and walked, reading the interfaces of
the packages it imports, into a ``CheckedPackage``. It returns the :class:`Model`
with the diagnostics in the reference's order (``sema.interface.ordered_diagnostics``);
given a ``PackageMemo``, a package whose product the store holds is not checked
again. Errors stop a run; warnings do not.
"""

from __future__ import annotations

import gc
from collections.abc import Sequence

from kclpy.depth import TOO_DEEP, innermost_span
from kclpy.diag import Code, Diagnostic, make_error
from kclpy.loader import Program
from kclpy.sema.annotations import AnnotationResolver
from kclpy.sema.assign import AssignabilityChecker
from kclpy.sema.base import CheckContext
from kclpy.sema.calls import CallChecker
from kclpy.sema.config import ConfigChecker
from kclpy.sema.declare import DeclarationChecker
from kclpy.sema.exprs import ExpressionChecker
from kclpy.sema.interface import (
    CheckedPackage,
    ImportMark,
    PackageMemo,
    builtin_symbols,
    check_order,
    depends_of,
    install,
    make_product,
    ordered_diagnostics,
    roots,
    table_sizes,
    usable,
)
from kclpy.sema.model import Model
from kclpy.sema.names import NameResolver
from kclpy.sema.operators import OperatorChecker
from kclpy.sema.schemas import SchemaBuilder
from kclpy.sema.stmts import StatementChecker
from kclpy.sema.symbols import MAIN

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

    def __init__(self, program: Program, model: Model, memo: PackageMemo | None = None) -> None:
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
        self.declarations = DeclarationChecker(ctx)
        self.memo = memo
        self.products: dict[str, CheckedPackage] = {}
        self.current: tuple[str, list[Diagnostic], list[ImportMark]] | None = None
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
        builtins = memo.builtins if memo is not None else builtin_symbols()
        for name, symbol in builtins.items():
            ctx.model.builtin_names[name].symbol = symbol

    def close(self) -> None:
        """Drop what the parts hold: they refer to one another and to their own bound
        methods, cycles that keep the context, the symbols and the program alive to the
        end of a ``kcl run`` (whose cycle collector is paused)."""
        for part in self.parts:
            vars(part).clear()
        self.parts.clear()

    def run(self) -> None:
        """Check (or take from the memo) every package, imported ones first. Every
        package's table of names exists from the start: a package of an import cycle
        that is read before it is checked reads as empty (as the reference, which reads
        it mid-way)."""
        for pkgpath in self.ctx.program.packages:
            self.ctx.package_names(pkgpath)
        for pkgpath in check_order(self.ctx.program):
            product = self.stored(pkgpath)
            if product is not None:
                install(self.ctx.model, product, reused=True)
            else:
                product = self.check_package(pkgpath)
            self.products[pkgpath] = product

    def key(self, pkgpath: str) -> str | None:
        memo = self.memo
        return memo.keys.get(pkgpath) if memo is not None and pkgpath != MAIN else None

    def stored(self, pkgpath: str) -> CheckedPackage | None:
        """The memo's product for the package, when it serves this program."""
        key = self.key(pkgpath)
        if key is None or self.memo is None:
            return None
        product = self.memo.store.get(key)
        modules = self.ctx.program.packages.get(pkgpath, [])
        return product if usable(product, modules, self.products) else None

    def check_package(self, pkgpath: str) -> CheckedPackage:
        """Check one package into its product (stored when it has a key)."""
        ctx = self.ctx
        model = ctx.model
        sizes = table_sizes(model)
        diagnostics: list[Diagnostic] = []
        imports: list[ImportMark] = []
        ctx.diagnostics = diagnostics
        self.current = (pkgpath, diagnostics, imports)
        self.declarations.check_package(pkgpath, imports)
        key = self.key(pkgpath)
        modules = ctx.program.packages.get(pkgpath, [])
        reported = (diagnostics, imports)
        depends = depends_of(imports, self.products)
        product = make_product(model, pkgpath, modules, reported, sizes, depends, bool(key))
        self.current = None
        if key is not None and self.memo is not None:
            self.memo.store.put(key, product)
            model.shared.add(pkgpath)
        install(model, product, reused=False)
        return product

    def diagnostics(self) -> list[Diagnostic]:
        """The diagnostics of the packages checked so far, in the reference's order;
        the packages' names put in the order the reference starts checking them."""
        reported: dict[str, tuple[Sequence[Diagnostic], Sequence[ImportMark]]] = {
            pkgpath: (product.diagnostics, product.imports)
            for pkgpath, product in self.products.items()
        }
        if self.current is not None:
            pkgpath, diagnostics, imports = self.current
            reported[pkgpath] = (diagnostics, imports)
        found, started = ordered_diagnostics(roots(self.ctx.program), reported)
        tables = self.ctx.model.packages_names
        ordered = {pkgpath: tables[pkgpath] for pkgpath in started if pkgpath in tables}
        ordered.update(tables)
        tables.clear()
        tables.update(ordered)
        return found


def check_program(
    program: Program,
    keep_scopes: bool = False,
    memo: PackageMemo | None = None,
    tool_facts: bool = True,
) -> Model:
    """Resolve and type-check a loaded program; the model holds the diagnostics
    and (``resolution``) the bindings the compiler reads.

    ``keep_scopes`` keeps the declarations of every region (for editors: the names
    around a position, ``Model.names_at``); the package's names, bindings and types
    are always kept. With a ``memo`` (whose store serves programs checked with the same
    ``keep_scopes`` and ``tool_facts``), the packages its store holds are not checked
    again (``sema.interface``).
    With ``tool_facts`` False (a run, which lets the model's tool tables go before
    compiling) the checker completes no uses (``Model.completed``).
    """
    model = Model(keep_scopes, tool_facts)
    model.homes = program.homes
    checker = Checker(program, model, memo)
    failure: list[Diagnostic] = []
    collecting = gc.isenabled()
    gc.disable()  # the walk makes no garbage cycles; scanning the big AST again and again did
    try:
        checker.run()  # each package resolved, then checked
    except RecursionError as error:  # beyond kclpy.depth's budget: say where
        failure.append(make_error(Code.COMPILE_ERROR, TOO_DEEP, innermost_span(error)))
    except (MemoryError, SystemError):  # memory ran out: the driver reports it (E3R01)
        raise
    except Exception as error:  # a bug in the checker is an internal error, not a traceback
        failure.append(
            make_error(Code.INTERNAL_ERROR, f"internal error in the type checker: {error!r}", None)
        )
    finally:
        found = checker.diagnostics()
        checker.close()
        if collecting:
            gc.enable()
    model.diagnostics[:] = dedupe([*found, *failure])
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
