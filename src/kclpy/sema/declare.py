"""Package declarations: imports, schema and rule types, global variables, lambdas.

Before a package's statements are walked, its name uses are resolved (the walk
reads their bindings) and its top-level names are declared so that uses may come
before definitions: imports (whose user packages are checked
first), schemas and rules (declared and built by ``schemas.SchemaBuilder``), global
variables (a second ``=`` of an exported name is the ImmutableError ``Can not
change the value of 'a'``), and the signatures of top-level lambdas.

:class:`DeclarationChecker` is the part of the checker that runs these passes
and then has the statement checker walk the package; it holds the context and
the statement, expression, annotation and call checkers.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from kclpy.diag import Code, Label
from kclpy.loader import iter_imports
from kclpy.sema.base import CheckContext, is_private
from kclpy.sema.config import literal_keys
from kclpy.sema.relations import is_upper_bound
from kclpy.sema.resolve import Resolver, dotted_name, target_parts
from kclpy.sema.symbols import MAIN, Symbol, SymbolKind
from kclpy.sema.types import (
    ANY,
    MODULE_PLUGIN,
    MODULE_SYSTEM,
    MODULE_USER,
    FuncType,
    ModuleType,
    Type,
)
from kclpy.source import Span
from kclpy.syntax import ast
from kclpy.syntax.universe import SYSTEM_MODULES, is_plugin

if TYPE_CHECKING:
    from kclpy.sema.annotations import AnnotationResolver
    from kclpy.sema.calls import CallChecker
    from kclpy.sema.checker import Checker
    from kclpy.sema.exprs import ExpressionChecker
    from kclpy.sema.schemas import SchemaBuilder
    from kclpy.sema.stmts import StatementChecker


class DeclarationChecker:
    """The declaration passes run on a package before its statements are walked."""

    statements: StatementChecker
    schemas: SchemaBuilder
    exprs: ExpressionChecker
    annotations: AnnotationResolver
    calls: CallChecker

    def __init__(self, ctx: CheckContext) -> None:
        self.ctx = ctx
        self.checked: set[str] = set()  # packages declared and walked (or under way)
        self.unique_check = True  # the first pass over globals reports a second ``=``
        self.resolver = Resolver(ctx.model)

    def connect(self, checker: Checker) -> None:
        self.statements = checker.statements
        self.schemas = checker.schemas
        self.exprs = checker.exprs
        self.annotations = checker.annotations
        self.calls = checker.calls

    def check_package(self, pkgpath: str) -> None:
        if pkgpath in self.checked:
            return
        self.checked.add(pkgpath)
        ctx = self.ctx
        modules = ctx.program.packages.get(pkgpath, [])
        saved = (ctx.pkgpath, ctx.scope, ctx.scope_level)
        ctx.pkgpath = pkgpath
        ctx.scope = ctx.package_scope(pkgpath)
        ctx.scope_level = 0
        try:
            self.resolve_package(pkgpath, modules)
            for module in modules:
                ctx.model.files[module.file.path] = module.file
                self.declare_imports(module)
            if pkgpath == MAIN:
                ctx.merged_away = self._merge_groups(modules)
            infos = self.schemas.declare_schemas(modules)
            self.declare_globals(modules)
            self.schemas.build_schemas(infos)
            self.declare_lambdas(modules)
            for module in modules:
                self.statements.stmts(module.body)
        finally:
            ctx.pkgpath, ctx.scope, ctx.scope_level = saved

    def resolve_package(self, pkgpath: str, modules: list[ast.Module]) -> None:
        """The run-time binding of every name use of the package (``sema.resolve``),
        which the walk reads for every name it reads."""
        self.resolver.package(modules, self.ctx.program.imports_of, pkgpath)

    def _merge_groups(self, modules: list[ast.Module]) -> set[int]:
        """Main-package unifications of one name act as one config (the last statement):
        their entries are siblings, and the required-attribute check runs once."""
        merged: set[int] = set()
        for group in merge_groups(modules):
            values = [_schema_value(stmt) for stmt in group]
            entries = [e for value in values if value for e in value.config.entries]
            keys: set[str] | None = set()
            for value in values:
                found = literal_keys(value.config.entries) if value else None
                keys = None if keys is None or found is None else keys | found
            self.ctx.silent_entries.update(overridden_entries(entries))
            for stmt, value in zip(group, values, strict=True):
                if value is not None:
                    self.ctx.group_entries[value.config.id] = entries
                    self.ctx.required_siblings[value.id] = keys if stmt is group[-1] else None
            merged.update(stmt.id for stmt in group[:-1])
        return merged

    # ------------------------------------------------------------------ imports

    def declare_imports(self, module: ast.Module) -> None:
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
            existing = self.ctx.scope.symbols.get(name)
            if existing is not None and existing.kind == SymbolKind.MODULE:
                existing.add_reference(stmt.span)
                self.ctx.bindings[stmt.id] = existing
            else:
                symbol = self.ctx.define(name, SymbolKind.MODULE, module_type, stmt.span, stmt)
                self.ctx.bindings[stmt.id] = symbol
            if isinstance(module_type, ModuleType) and module_type.kind == MODULE_USER:
                self.check_package(module_type.pkgpath)

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
                if stmt.id not in self.ctx.merged_away:
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
            if stmt.type is None and not self.unique_check and root.id in self.ctx.bindings:
                continue  # the second pass: see declare_globals
            name = root.name
            existing = self.ctx.scope.symbols.get(name)
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
                self.ctx.bindings[root.id] = existing
            else:
                symbol = self.ctx.define(name, SymbolKind.VARIABLE, declared, root.span, stmt)
                self.ctx.bindings[root.id] = symbol
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
        existing = self.ctx.scope.symbols.get(name)
        if existing is not None and existing.kind == SymbolKind.VARIABLE:
            existing.type = found
        else:
            symbol = self.ctx.define(name, SymbolKind.VARIABLE, found, stmt.target.span, stmt)
            self.ctx.bindings[stmt.target.id] = symbol

    # ------------------------------------------------------------------ lambdas

    def declare_lambdas(self, modules: list[ast.Module]) -> None:
        """The signatures of the package's lambdas assigned once, without annotation."""
        signatures: dict[str, FuncType] = {}
        self.ctx.lambda_sigs[self.ctx.pkgpath] = signatures
        if not any(
            type(stmt) is ast.AssignStmt and type(stmt.value) is ast.LambdaExpr
            for module in modules
            for stmt in module.body
        ):
            return  # (most packages: no walk keeping every assigned name)
        seen: set[str] = set()
        for module in modules:
            for stmt in module.body:
                if type(stmt) is not ast.AssignStmt or len(stmt.targets) != 1:
                    continue
                target = stmt.targets[0]
                if type(target) is not ast.NameExpr:
                    continue
                name = target.name
                if name in seen:  # assigned again: no signature
                    signatures.pop(name, None)
                    continue
                seen.add(name)
                value = stmt.value
                if stmt.type is None and type(value) is ast.LambdaExpr:
                    self.ctx.suppress += 1
                    try:
                        params = self.calls.parameter_types(value.params)
                    finally:
                        self.ctx.suppress -= 1
                    signatures[name] = FuncType(params, ANY)


def overridden_entries(entries: list[ast.ConfigEntry | ast.ConfigIfEntry]) -> set[int]:
    """Entries of merged unifications that a later ``=`` entry of the same key replaces
    (the reference drops them before checking)."""
    buckets: dict[str, list[ast.ConfigEntry | ast.ConfigIfEntry]] = {}
    for entry in entries:
        name = "$none"
        if isinstance(entry, ast.ConfigEntry) and entry.key is not None:
            dotted = dotted_name(entry.key)
            if dotted is not None:
                name = dotted
            elif isinstance(entry.key, ast.StringExpr):
                name = entry.key.value
        bucket = buckets.setdefault(name, [])
        if isinstance(entry, ast.ConfigEntry) and entry.op == "=":
            bucket.clear()
        bucket.append(entry)
    kept = {id(entry) for bucket in buckets.values() for entry in bucket}
    return {entry.id for entry in entries if id(entry) not in kept}


def _schema_value(stmt: ast.Stmt) -> ast.SchemaExpr | None:
    value = stmt.value if isinstance(stmt, (ast.AssignStmt, ast.UnificationStmt)) else None
    return value if isinstance(value, ast.SchemaExpr) else None


def merge_groups(modules: list[ast.Module]) -> list[list[ast.Stmt]]:
    """Statements the reference folds into the last unification of the same name."""
    groups: dict[str, list[ast.Stmt]] = {}
    for module in modules:
        for stmt in module.body:
            if isinstance(stmt, ast.UnificationStmt):
                groups.setdefault(stmt.target.name, []).append(stmt)
            elif isinstance(stmt, ast.AssignStmt) and isinstance(stmt.value, ast.SchemaExpr):
                for target in stmt.targets:
                    if not isinstance(target, ast.NameExpr):
                        continue
                    group = groups.get(target.name)
                    if group is None:
                        groups[target.name] = [stmt]
                    elif is_private(target.name):
                        group.clear()
                        group.append(stmt)
    return [group for group in groups.values() if len(group) > 1]
