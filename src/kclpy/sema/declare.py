"""Package declarations: imports, schema and rule types, global variables, lambdas.

Before a package's statements are walked, its name uses are resolved (the walk
reads their bindings) and its top-level names are declared so that uses may come
before definitions: imports (of user packages checked before, whose interfaces the
model holds; each is marked where its diagnostics go), schemas and rules (declared
and built by the schemas part), global variables (a second ``=`` of an exported
name is the ImmutableError ``Can not change the value of 'a'``), and the
signatures of top-level lambdas (the calls part's).

:class:`DeclarationChecker` is the part of the checker that runs these passes
and then has the statement part walk the package; it holds the context and the
parts it calls, by their protocols (``sema.shared``).
"""

from __future__ import annotations

from collections.abc import Iterable

from kclpy.diag import Code, Label
from kclpy.loader import iter_imports
from kclpy.sema.base import CheckContext, is_private
from kclpy.sema.interface import ImportMark
from kclpy.sema.relations import is_upper_bound
from kclpy.sema.resolve import Resolver
from kclpy.sema.symbols import MAIN, Symbol, SymbolKind
from kclpy.sema.types import (
    ANY,
    MODULE_PLUGIN,
    MODULE_SYSTEM,
    MODULE_USER,
    ModuleType,
    Type,
)
from kclpy.source import Span
from kclpy.syntax import ast
from kclpy.syntax.targets import target_parts
from kclpy.syntax.universe import SYSTEM_MODULES, is_plugin

TYPE_CHECKING = False
if TYPE_CHECKING:
    from kclpy.sema.shared import (
        Annotations,
        Calls,
        Configs,
        Expressions,
        Parts,
        Schemas,
        Statements,
    )


class DeclarationChecker:
    """The declaration passes run on a package before its statements are walked."""

    statements: Statements
    schemas: Schemas
    exprs: Expressions
    annotations: Annotations
    calls: Calls
    config: Configs

    def __init__(self, ctx: CheckContext) -> None:
        self.ctx = ctx
        self.unique_check = True  # the first pass over globals reports a second ``=``
        self.declared: set[int] = set()  # the roots the first pass declared
        self.resolver = Resolver(ctx.model)

    def connect(self, parts: Parts) -> None:
        self.statements = parts.statements
        self.schemas = parts.schemas
        self.exprs = parts.exprs
        self.annotations = parts.annotations
        self.calls = parts.calls
        self.config = parts.config

    def check_package(self, pkgpath: str, imports: list[ImportMark]) -> None:
        """Declare and walk a package (the packages it imports checked before);
        ``imports`` gets a mark for each import of a user package."""
        ctx = self.ctx
        modules = ctx.program.packages.get(pkgpath, [])
        ctx.pkgpath = pkgpath
        ctx.names = ctx.package_names(pkgpath)
        ctx.nesting = 0
        ctx.global_names = {}
        self.resolver.package(modules, ctx.program.imports_of, pkgpath)
        ctx.model.hold(pkgpath, modules)
        for module in modules:
            self.declare_imports(module, imports)
        if pkgpath == MAIN:
            self.config.merge_unifications(modules)
        infos = self.schemas.declare_schemas(modules)
        self.declare_globals(modules)
        self.schemas.build_schemas(infos)
        self.calls.declare_lambdas(modules)
        for module in modules:
            self.statements.stmts(module.body)

    # ------------------------------------------------------------------ imports

    def declare_imports(self, module: ast.Module, imports: list[ImportMark]) -> None:
        table = self.ctx.program.imports_of(module)
        seen: dict[str, str] = {}
        for stmt in iter_imports(module.body):
            name = stmt.name
            previous = seen.get(name)
            if previous is not None and previous != stmt.path:
                self.ctx.compile_error(
                    f"the name '{name}' is defined multiple times, '{name}' must be defined "
                    "only once",
                    stmt.span,
                )
            seen.setdefault(name, stmt.path)
            target = table.get(name)
            module_type = self._module_type(stmt, target)
            existing = self.ctx.package_symbol(name)
            if existing is not None and existing.kind == SymbolKind.MODULE:
                self.ctx.defines(stmt, existing)  # (a second import of it: a use)
            else:
                symbol = self.ctx.define(name, SymbolKind.MODULE, module_type, stmt.span, stmt)
                self.ctx.defines(stmt, symbol)
            if isinstance(module_type, ModuleType) and module_type.kind == MODULE_USER:
                imports.append((len(self.ctx.diagnostics), module_type.pkgpath))

    def _module_type(self, stmt: ast.ImportStmt, target: str | None) -> Type:
        path = stmt.path
        if is_plugin(path):
            return ModuleType(path, MODULE_PLUGIN)
        if path in SYSTEM_MODULES:
            return ModuleType(path, MODULE_SYSTEM)
        if target is None or target not in self.ctx.program.packages:
            return ANY
        return ModuleType(target, MODULE_USER)

    # ------------------------------------------------------------------ global variables

    def declare_globals(self, modules: list[ast.Module]) -> None:
        """Declare the global variables; as in the reference, a second pass re-reads the
        annotations (which reports a variable annotated with two types at both places).
        The second pass has nothing to do for an unannotated target already bound (it
        keeps its symbol and its type): it takes only the statements the first pass
        found to need it, in the same order."""
        again: list[list[ast.Stmt]] = []
        self.unique_check = True
        self.declared = set()
        for module in modules:
            for stmt in module.body:
                if isinstance(stmt, ast.TypeAliasStmt):
                    self.statements.stmt(stmt)
            pending: list[ast.Stmt] = []
            self._declare_stmts(module.body, pending)
            again.append(pending)
        self.unique_check = False
        for module, pending in zip(modules, again, strict=True):
            for stmt in module.body:
                if isinstance(stmt, ast.TypeAliasStmt):
                    self.statements.stmt(stmt)
            self._declare_stmts(pending, None)

    def _declare_stmts(self, stmts: Iterable[ast.Stmt], pending: list[ast.Stmt] | None) -> None:
        """Declare the globals ``stmts`` set; ``pending`` collects the statements the
        second pass must see again."""
        for stmt in stmts:
            if isinstance(stmt, ast.AssignStmt):
                if not self.config.merged_away(stmt):
                    unsettled = self._declare_assign(stmt)
                    if pending is not None and unsettled:
                        pending.append(stmt)
            elif isinstance(stmt, ast.UnificationStmt):
                self._declare_unification(stmt)
                if pending is not None:
                    pending.append(stmt)
            elif isinstance(stmt, ast.IfStmt):
                self._declare_stmts(stmt.body, pending)
                self._declare_stmts(stmt.orelse, pending)

    def _declare_assign(self, stmt: ast.AssignStmt) -> bool:
        """Declare the roots of an assignment's targets; whether the second pass must
        see it again (it is annotated, or left a target unbound)."""
        unsettled = stmt.type is not None
        for target in stmt.targets:
            root = target if type(target) is ast.NameExpr else target_parts(target)[0]
            if root is None:
                continue
            if stmt.type is None and not self.unique_check and root.id in self.declared:
                continue  # the second pass: see declare_globals
            name = root.name
            existing = self.ctx.package_symbol(name)
            if existing is not None and not is_private(name) and self.unique_check:
                self._immutable(name, target.span, existing)
                unsettled = True
                continue
            if stmt.type is not None:
                declared = self.annotations.resolve_type(stmt.type)
                if existing is not None and not is_upper_bound(existing.type, declared):
                    self.ctx.type_error(
                        f"can not change the type of '{name}' to {existing.type.ty_str()}",
                        target.span,
                        Label(existing.span, f"expected {existing.type.ty_str()}"),
                    )
            else:
                declared = existing.type if existing is not None else ANY
            if existing is not None:
                existing.type = declared
            else:
                self.ctx.define(name, SymbolKind.VARIABLE, declared, root.span, stmt)
            self.declared.add(root.id)
        return unsettled

    def _immutable(self, name: str, span: Span, existing: Symbol) -> None:
        self.ctx.report(
            Code.IMMUTABLE_ERROR,
            f"Can not change the value of '{name}', because it was declared immutable",
            span,
            Label(existing.span, f"The variable '{name}' is declared here"),
        )
        if not self.ctx.suppress:
            self.ctx.diagnostics[-1].notes.append(
                f"change the variable name to '_{name}' to make it mutable"
            )

    def _declare_unification(self, stmt: ast.UnificationStmt) -> None:
        name = stmt.target.name
        found = self.exprs.silent_expr(stmt.value.name)
        existing = self.ctx.package_symbol(name)
        if existing is not None and existing.kind == SymbolKind.VARIABLE:
            existing.type = found
        else:
            self.ctx.define(name, SymbolKind.VARIABLE, found, stmt.target.span, stmt)
