"""Package declarations: imports, schema and rule types, global variables, lambdas.

Before a package's statements are walked, its top-level names are declared so
that uses may come before definitions: imports (whose user packages are checked
first), schemas and rules (then built: base, protocol, mixins, attributes,
parameters, index signature, decorators, with the inheritance rules), global
variables (a second ``=`` of an exported name is the ImmutableError ``Can not
change the value of 'a'``), and the signatures of top-level lambdas.
"""

from __future__ import annotations

from collections.abc import Iterable

from kclpy.diag import Code, Label
from kclpy.loader import iter_imports
from kclpy.sema.annotations import RESERVED_TYPE_NAMES
from kclpy.sema.base import is_private
from kclpy.sema.builtins import DECORATORS
from kclpy.sema.config import literal_keys
from kclpy.sema.names import dotted_name, target_parts
from kclpy.sema.relations import is_upper_bound
from kclpy.sema.stmts import StmtsMixin, left_identifiers
from kclpy.sema.symbols import MAIN, IndexSignatureInfo, SchemaInfo, Symbol, SymbolKind
from kclpy.sema.types import (
    ANY,
    MODULE_PLUGIN,
    MODULE_SYSTEM,
    MODULE_USER,
    FuncType,
    ModuleType,
    SchemaType,
    Type,
    members_all,
)
from kclpy.source import Span
from kclpy.syntax import ast
from kclpy.syntax.universe import SYSTEM_MODULES, is_plugin

_RESERVED_LIST = "[" + ", ".join(f'"{name}"' for name in RESERVED_TYPE_NAMES) + "]"
SchemaNode = ast.SchemaStmt | ast.RuleStmt


class DeclareMixin(StmtsMixin):
    """The declaration passes run on a package before its statements are walked."""

    checked: set[str]
    unique_check = True

    def check_package(self, pkgpath: str) -> None:
        if pkgpath in self.checked:
            return
        self.checked.add(pkgpath)
        modules = self.program.packages.get(pkgpath, [])
        saved = (self.pkgpath, self.scope, self.module, self.scope_level)
        self.pkgpath = pkgpath
        self.scope = self.package_scope(pkgpath)
        self.scope_level = 0
        try:
            for module in modules:
                self.model.files[module.file.path] = module.file
                self.declare_imports(module)
            if pkgpath == MAIN:
                self.merged_away = self._merge_groups(modules)
            infos = self.declare_schemas(modules)
            self.declare_globals(modules)
            self.build_schemas(infos)
            self.declare_lambdas(modules)
            for module in modules:
                self.module = module
                self.stmts(module.body)
        finally:
            self.pkgpath, self.scope, self.module, self.scope_level = saved

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
            self.silent_entries.update(overridden_entries(entries))
            for stmt, value in zip(group, values, strict=True):
                if value is not None:
                    self.group_entries[value.config.id] = entries
                    self.required_siblings[value.id] = keys if stmt is group[-1] else None
            merged.update(stmt.id for stmt in group[:-1])
        return merged

    # ------------------------------------------------------------------ imports

    def declare_imports(self, module: ast.Module) -> None:
        table = self.program.imports_of(module)
        seen: dict[str, str] = {}
        for stmt in iter_imports(module.body):
            name = stmt.name
            previous = seen.get(name)
            if previous is not None and previous != stmt.path:
                self.compile_error(
                    f"the name '{name}' is defined multiple times, '{name}' must be defined "
                    "only once",
                    stmt.span,
                )
            seen.setdefault(name, stmt.path)
            target = table.get(name)
            module_type = self._module_type(stmt, target)
            existing = self.scope.symbols.get(name)
            if existing is not None and existing.kind == SymbolKind.MODULE:
                existing.references.append(stmt.span)
                self.bindings[stmt.id] = existing
            else:
                symbol = self.define(name, SymbolKind.MODULE, module_type, stmt.span, stmt)
                self.bindings[stmt.id] = symbol
            if isinstance(module_type, ModuleType) and module_type.kind == MODULE_USER:
                self.module = None
                self.check_package(module_type.pkgpath)

    def _module_type(self, stmt: ast.ImportStmt, target: str | None) -> Type:
        path = stmt.path
        if is_plugin(path):
            return ModuleType(path, MODULE_PLUGIN)
        if path in SYSTEM_MODULES:
            return ModuleType(path, MODULE_SYSTEM)
        if target is None or target not in self.program.packages:
            return ANY
        return ModuleType(target, MODULE_USER)

    # ------------------------------------------------------------------ schemas

    def declare_schemas(self, modules: list[ast.Module]) -> list[SchemaInfo]:
        infos: list[SchemaInfo] = []
        for module in modules:
            for stmt in module.body:
                if not isinstance(stmt, ast.SchemaStmt | ast.RuleStmt):
                    continue
                if stmt.name in self.scope.symbols:
                    self.report(
                        Code.UNIQUE_KEY_ERROR, f"Unique key error name '{stmt.name}'", stmt.span
                    )
                    continue
                info = SchemaInfo(stmt.name, self.pkgpath, stmt, module.file.path)
                kind = SymbolKind.RULE if info.is_rule else SymbolKind.SCHEMA
                symbol = self.define(stmt.name, kind, SchemaType(info, False), stmt.name_span, stmt)
                self.bindings[stmt.id] = symbol
                info.symbol = symbol
                self.model.schemas[info.full_name] = info
                infos.append(info)
        return infos

    def build_schemas(self, infos: list[SchemaInfo]) -> None:
        for info in infos:
            self._link(info)
        self._report_cycles(infos)
        for info in infos:
            self.build_schema(info)

    def _link(self, info: SchemaInfo) -> None:
        """Resolve the base, protocol, mixins (or parent rules) of a schema."""
        node = info.node
        if isinstance(node, ast.RuleStmt):
            for parent in node.parents:
                found = self._schema_ref(parent)
                if found is not None and found.is_rule:
                    info.parents.append(found)
                else:
                    self._illegal_inherit(f"illegal rule type '{self._ty_str(parent)}'", parent)
            if node.for_host is not None:
                info.protocol = self._protocol_ref(node.for_host)
            return
        if node.parent is not None:
            found = self._schema_ref(node.parent)
            if found is not None and not found.is_protocol and not found.is_mixin:
                if not found.is_rule:
                    info.base = found
            else:
                got = self._ty_str(node.parent)
                self._illegal_inherit(
                    f"invalid schema inherit object type, expect schema, got '{got}'", node.parent
                )
        if node.for_host is not None:
            if not info.is_mixin:
                self._illegal_inherit("only schema mixin can inherit from protocol", node.for_host)
            else:
                info.protocol = self._protocol_ref(node.for_host)
        for mixin in node.mixins:
            self._link_mixin(info, mixin)

    def _link_mixin(self, info: SchemaInfo, mixin: ast.Expr) -> None:
        name = (dotted_name(mixin) or "").rsplit(".", 1)[-1]
        if not name.endswith("Mixin"):
            self.report(
                Code.NAME_ERROR,
                f"a valid mixin name should end with 'Mixin', got '{name}'",
                mixin.span,
            )
        found = self._schema_ref(mixin)
        if found is not None and found.is_mixin and not found.is_protocol:
            info.mixins.append(found)
        else:
            got = self._ty_str(mixin)
            self._illegal_inherit(
                f"illegal schema mixin object type, expected mixin, got '{got}'", mixin
            )

    def _protocol_ref(self, node: ast.Expr) -> SchemaInfo | None:
        found = self._schema_ref(node)
        if found is not None and found.is_protocol:
            return found
        got = self._ty_str(node)
        self._illegal_inherit(
            f"invalid schema inherit object type, expect protocol, got '{got}'", node
        )
        return None

    def _schema_ref(self, node: ast.Expr) -> SchemaInfo | None:
        found = self.expr(node)
        if isinstance(found, SchemaType) and not found.instance:
            return found.info
        return None

    def _ty_str(self, node: ast.Expr) -> str:
        found = self.types.get(node.id)
        return found.ty_str() if found is not None else "any"

    def _illegal_inherit(self, message: str, node: ast.Node) -> None:
        self.report(Code.ILLEGAL_INHERIT_ERROR, message, node.span)

    def _report_cycles(self, infos: list[SchemaInfo]) -> None:
        """Inheritance cycles: reported at every member, then broken."""
        order = {id(info): index for index, info in enumerate(infos)}
        cycles: list[list[SchemaInfo]] = []
        seen: set[int] = set()
        for info in infos:
            chain: list[SchemaInfo] = []
            current: SchemaInfo | None = info
            while current is not None and current not in chain and id(current) not in seen:
                chain.append(current)
                current = _first_parent(current)
            seen.update(id(item) for item in chain)
            if current is not None and current in chain:
                cycles.append(chain[chain.index(current) :])
        for cycle in cycles:
            members = sorted(cycle, key=lambda item: order.get(id(item), 0))
            kind = "rules" if members[0].is_rule else "schemas"
            names = ", ".join(item.full_name for item in members)
            for item in members:
                self.compile_error(
                    f"There is a circular reference between {kind} {names}", item.node.name_span
                )
            for item in members:
                item.base = None
                item.parents = []

    def build_schema(self, info: SchemaInfo, depth: int = 0) -> None:
        """Fill a schema's attributes and signature (its base and mixins first)."""
        if info.built or depth > 64:
            return
        info.built = True
        for dependency in [info.base, info.protocol, *info.mixins]:
            if dependency is not None:
                self.build_schema(dependency, depth + 1)
        saved = self.module
        node = info.node
        self._check_schema_name(info)
        if isinstance(node, ast.SchemaStmt):
            self._build_index_signature(info, node)
            self._build_attrs(info, node)
            for mixin in info.mixins:
                for name, symbol in mixin.attrs.items():
                    info.attrs.setdefault(name, symbol)
        elif info.protocol is not None:
            info.index_signature = info.protocol.index_signature
        info.func = FuncType(self._schema_params(info, node), ANY, doc=node.doc)
        self.resolve_decorators(node.decorators)
        self.module = saved

    def _check_schema_name(self, info: SchemaInfo) -> None:
        node = info.node
        name = info.name
        what = "rule" if info.is_rule else "schema"
        if name in RESERVED_TYPE_NAMES:
            self.compile_error(
                f"{what} name '{name}' cannot be the same as the built-in types ({_RESERVED_LIST})",
                node.name_span,
            )
        if isinstance(node, ast.SchemaStmt) and node.kind == "protocol":
            if not name.endswith("Protocol"):
                self.compile_error("schema protocol name must end with 'Protocol'", node.name_span)
            if node.checks or not all(isinstance(s, ast.SchemaAttr) for s in node.body):
                self.compile_error(
                    "a protocol is only allowed to define attributes in it", node.name_span
                )

    def _build_index_signature(self, info: SchemaInfo, node: ast.SchemaStmt) -> None:
        signature = node.index_signature
        if signature is None:
            return
        names = {name for name, _ in left_identifiers(node.body)}
        if signature.key_name and signature.key_name in names:
            self.report(
                Code.INDEX_SIGNATURE_ERROR,
                f"index signature attribute name '{signature.key_name}' cannot have the same "
                "name as schema attributes",
                signature.span,
            )
        key_type = self.resolve_type(signature.key_type)
        val_type = self.resolve_type(signature.value_type)
        if not members_all(key_type, 1 << 3):
            self.report(
                Code.INDEX_SIGNATURE_ERROR,
                f"invalid index signature key type: '{key_type.ty_str()}'",
                node.name_span,
            )
        info.index_signature = IndexSignatureInfo(
            signature.key_name, key_type, val_type, signature.any_other, signature
        )

    def _build_attrs(self, info: SchemaInfo, node: ast.SchemaStmt) -> None:
        base = info.base
        signature = info.index_signature
        for stmt in node.body:
            declared = self._attr_declaration(stmt)
            if declared is None:
                continue
            name, attr_type, optional, name_span = declared
            inherited = base.get_attr(name) if base is not None else None
            symbol = info.attrs.get(name)
            if symbol is None:
                symbol = self._attr_symbol(info, stmt, name, attr_type, name_span)
                symbol.optional = inherited.optional if inherited is not None else optional
            base_type = inherited.type if inherited is not None else ANY
            if not is_upper_bound(symbol.type, attr_type) or not is_upper_bound(
                base_type, attr_type
            ):
                self.type_error(
                    f"can't change schema field type of '{name}' from {symbol.type.ty_str()} "
                    f"to {attr_type.ty_str()}",
                    stmt.span,
                )
            if optional and not symbol.optional:
                self.type_error(
                    f"can't change the required schema attribute of '{name}' to optional",
                    stmt.span,
                )
            if (
                signature is not None
                and not signature.any_other
                and not is_upper_bound(signature.val_type, attr_type)
            ):
                self.report(
                    Code.INDEX_SIGNATURE_ERROR,
                    f"the type '{attr_type.ty_str()}' of schema attribute '{name}' does not meet "
                    f"the index signature definition {signature.ty_str()}",
                    stmt.span,
                )

    def _attr_declaration(self, stmt: ast.Stmt) -> tuple[str, Type, bool, Span] | None:
        if isinstance(stmt, ast.SchemaAttr):
            self.resolve_decorators(stmt.decorators)
            return stmt.name, self.resolve_type(stmt.type), stmt.optional, stmt.name_span
        if isinstance(stmt, ast.UnificationStmt):
            found = self.silent_expr(stmt.value.name)
            return stmt.target.name, found, False, stmt.target.span
        return None

    def _attr_symbol(
        self, info: SchemaInfo, stmt: ast.Stmt, name: str, attr_type: Type, span: Span
    ) -> Symbol:
        symbol = Symbol(name, SymbolKind.ATTRIBUTE, attr_type, span, self.pkgpath, stmt)
        symbol.owner = info
        if isinstance(stmt, ast.SchemaAttr):
            symbol.has_default = stmt.value is not None
            symbol.doc = stmt.doc
            symbol.decorators = stmt.decorators
        else:
            symbol.has_default = True
        info.attrs[name] = symbol
        self.model.add_occurrence(span, symbol)
        self.bindings[stmt.id] = symbol
        return symbol

    def _schema_params(self, info: SchemaInfo, node: SchemaNode) -> list:  # type: ignore[type-arg]
        names = (
            {name for name, _ in left_identifiers(node.body)}
            if isinstance(node, ast.SchemaStmt)
            else set()
        )
        for param in node.params:
            if param.name in names:
                self.compile_error(
                    f"Unexpected parameter name '{param.name}' with the same name as the "
                    "schema attribute",
                    param.span,
                )
        return self.parameter_types(node.params)

    def resolve_decorators(self, decorators: list[ast.Decorator]) -> None:
        for decorator in decorators:
            signature = DECORATORS.get(decorator.name)
            if signature is None:
                if "." in decorator.name:
                    self.type_error("decorator name must be a single identifier", decorator.span)
                else:
                    self.compile_error(f"UnKnown decorator {decorator.name}", decorator.span)
                continue
            func = ast.NameExpr(decorator.span, decorator.name)
            self.check_arguments(func, decorator.args, decorator.keywords, signature, func.span)

    # ------------------------------------------------------------------ global variables

    def declare_globals(self, modules: list[ast.Module]) -> None:
        """Declare the global variables; as in the reference, a second pass re-reads the
        annotations (which reports a variable annotated with two types at both places)."""
        for unique_check in (True, False):
            self.unique_check = unique_check
            for module in modules:
                self.module = module
                for stmt in module.body:
                    if isinstance(stmt, ast.TypeAliasStmt):
                        self.stmt(stmt)
                self._declare_stmts(module.body)

    def _declare_stmts(self, stmts: Iterable[ast.Stmt]) -> None:
        for stmt in stmts:
            if isinstance(stmt, ast.AssignStmt):
                if stmt.id not in self.merged_away:
                    self._declare_assign(stmt)
            elif isinstance(stmt, ast.UnificationStmt):
                self._declare_unification(stmt)
            elif isinstance(stmt, ast.IfStmt):
                self._declare_stmts(stmt.body)
                self._declare_stmts(stmt.orelse)

    def _declare_assign(self, stmt: ast.AssignStmt) -> None:
        for target in stmt.targets:
            root, _ = target_parts(target)
            if root is None:
                continue
            name = root.name
            existing = self.scope.symbols.get(name)
            if existing is not None and not is_private(name) and self.unique_check:
                self._immutable(name, target.span, existing)
                continue
            if stmt.type is not None:
                declared = self.resolve_type(stmt.type)
                if existing is not None and not is_upper_bound(existing.type, declared):
                    self.type_error(
                        f"can not change the type of '{name}' to {existing.type.ty_str()}",
                        target.span,
                        Label(existing.span, f"expected {existing.type.ty_str()}"),
                    )
            else:
                declared = existing.type if existing is not None else ANY
            if existing is not None:
                existing.type = declared
                self.bindings[root.id] = existing
            else:
                symbol = self.define(name, SymbolKind.VARIABLE, declared, root.span, stmt)
                self.bindings[root.id] = symbol

    def _immutable(self, name: str, span: Span, existing: Symbol) -> None:
        self.report(
            Code.IMMUTABLE_ERROR,
            f"Can not change the value of '{name}', because it was declared immutable",
            span,
            Label(existing.span, f"The variable '{name}' is declared here"),
        )
        if not self.suppress:
            self.diagnostics[-1].notes.append(
                f"change the variable name to '_{name}' to make it mutable"
            )

    def _declare_unification(self, stmt: ast.UnificationStmt) -> None:
        name = stmt.target.name
        found = self.silent_expr(stmt.value.name)
        existing = self.scope.symbols.get(name)
        if existing is not None and existing.kind == SymbolKind.VARIABLE:
            existing.type = found
        else:
            symbol = self.define(name, SymbolKind.VARIABLE, found, stmt.target.span, stmt)
            self.bindings[stmt.target.id] = symbol

    # ------------------------------------------------------------------ lambdas

    def declare_lambdas(self, modules: list[ast.Module]) -> None:
        signatures: dict[str, FuncType | None] = {}
        for module in modules:
            for stmt in module.body:
                if not isinstance(stmt, ast.AssignStmt) or len(stmt.targets) != 1:
                    continue
                target = stmt.targets[0]
                if not isinstance(target, ast.NameExpr):
                    continue
                if target.name in signatures:
                    signatures[target.name] = None
                    continue
                value = stmt.value
                if stmt.type is None and isinstance(value, ast.LambdaExpr):
                    self.suppress += 1
                    try:
                        params = self.parameter_types(value.params)
                    finally:
                        self.suppress -= 1
                    signatures[target.name] = FuncType(params, ANY)
                else:
                    signatures[target.name] = None
        self.lambda_sigs[self.pkgpath] = {
            name: sig for name, sig in signatures.items() if sig is not None
        }


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
    value = stmt.value if isinstance(stmt, ast.AssignStmt | ast.UnificationStmt) else None
    return value if isinstance(value, ast.SchemaExpr) else None


def _first_parent(info: SchemaInfo) -> SchemaInfo | None:
    if info.base is not None:
        return info.base
    return info.parents[0] if info.parents else None


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
