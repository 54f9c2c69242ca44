"""Schema and rule declarations: the schema builder, a part of the checker.

:class:`SchemaBuilder` declares a package's schemas and rules (a symbol and a
:class:`SchemaInfo` each), links them (base, protocol, mixins, parent rules;
inheritance cycles are reported at every member and broken) and builds them:
attributes with their declared types and decorators, the index signature and the
parameters, with the reference's inheritance rules (an attribute may not change
its type or become optional). It holds the context and the expression,
annotation and call checkers it calls.
"""

from __future__ import annotations

from kclpy.diag import Code
from kclpy.sema.annotations import RESERVED_TYPE_LIST, RESERVED_TYPE_NAMES
from kclpy.sema.base import CheckContext
from kclpy.sema.builtins import DECORATORS
from kclpy.sema.relations import is_upper_bound
from kclpy.sema.resolve import schema_assigned
from kclpy.sema.symbols import IndexSignatureInfo, SchemaInfo, SchemaType, Symbol, SymbolKind
from kclpy.sema.types import ANY, FuncType, Type, members_all
from kclpy.syntax import ast
from kclpy.syntax.targets import dotted_name

TYPE_CHECKING = False
if TYPE_CHECKING:
    from kclpy.sema.shared import Annotations, Calls, Expressions, Parts

SchemaNode = ast.SchemaStmt | ast.RuleStmt


class SchemaBuilder:
    """Declaration, linking and building of a package's schemas and rules."""

    exprs: Expressions
    annotations: Annotations
    calls: Calls

    def __init__(self, ctx: CheckContext) -> None:
        self.ctx = ctx
        self._walked: dict[int, Type] = {}  # the type of each parent, mixin, host read

    def connect(self, parts: Parts) -> None:
        self.exprs = parts.exprs
        self.annotations = parts.annotations
        self.calls = parts.calls

    def declare_schemas(self, modules: list[ast.Module]) -> list[SchemaInfo]:
        infos: list[SchemaInfo] = []
        for module in modules:
            for stmt in module.body:
                if not isinstance(stmt, (ast.SchemaStmt, ast.RuleStmt)):
                    continue
                if self.ctx.package_symbol(stmt.name) is not None:
                    self.ctx.report(
                        Code.UNIQUE_KEY_ERROR, f"Unique key error name '{stmt.name}'", stmt.span
                    )
                    continue
                info = SchemaInfo(stmt.name, self.ctx.pkgpath, stmt, module.file.path)
                kind = SymbolKind.RULE if info.is_rule else SymbolKind.SCHEMA
                symbol = self.ctx.define(
                    stmt.name, kind, SchemaType(info, False), stmt.name_span, stmt
                )
                self.ctx.defines(stmt, symbol)
                info.symbol = symbol
                self.ctx.model.schemas[info.full_name] = info
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
            self.ctx.report(
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
        found = self.exprs.expr(node)
        self._walked[node.id] = found
        if isinstance(found, SchemaType) and not found.instance:
            return found.info
        return None

    def _ty_str(self, node: ast.Expr) -> str:
        """The type ``_schema_ref`` found for ``node``, for a message."""
        found = self._walked.get(node.id)
        return found.ty_str() if found is not None else "any"

    def _illegal_inherit(self, message: str, node: ast.Node) -> None:
        self.ctx.report(Code.ILLEGAL_INHERIT_ERROR, message, node.span)

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
                self.ctx.compile_error(
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

    def _check_schema_name(self, info: SchemaInfo) -> None:
        node = info.node
        name = info.name
        what = "rule" if info.is_rule else "schema"
        if name in RESERVED_TYPE_NAMES:
            builtin_types = RESERVED_TYPE_LIST
            self.ctx.compile_error(
                f"{what} name '{name}' cannot be the same as the built-in types ({builtin_types})",
                node.name_span,
            )
        if isinstance(node, ast.SchemaStmt) and node.kind == "protocol":
            if not name.endswith("Protocol"):
                self.ctx.compile_error(
                    "schema protocol name must end with 'Protocol'", node.name_span
                )
            if node.checks or not all(isinstance(s, ast.SchemaAttr) for s in node.body):
                self.ctx.compile_error(
                    "a protocol is only allowed to define attributes in it", node.name_span
                )

    def _build_index_signature(self, info: SchemaInfo, node: ast.SchemaStmt) -> None:
        signature = node.index_signature
        if signature is None:
            return
        if signature.key_name and signature.key_name in schema_assigned(self.ctx.model, node):
            self.ctx.report(
                Code.INDEX_SIGNATURE_ERROR,
                f"index signature attribute name '{signature.key_name}' cannot have the same "
                "name as schema attributes",
                signature.span,
            )
        key_type = self.annotations.resolve_type(signature.key_type)
        val_type = self.annotations.resolve_type(signature.value_type)
        if not members_all(key_type, 1 << 3):
            self.ctx.report(
                Code.INDEX_SIGNATURE_ERROR,
                f"invalid index signature key type: '{key_type.ty_str()}'",
                node.name_span,
            )
        info.index_signature = IndexSignatureInfo(
            signature.key_name, key_type, val_type, signature.any_other, signature
        )

    def _build_attrs(self, info: SchemaInfo, node: ast.SchemaStmt) -> None:
        """Each attribute's symbol, in one pass over the body: its declared type, and
        the reference's checks against what it inherits and the index signature."""
        base = info.base
        signature = info.index_signature
        attrs = info.attrs
        resolve_type = self.annotations.resolve_type
        for stmt in node.body:
            if type(stmt) is ast.SchemaAttr:  # most statements of a schema body
                if stmt.decorators:
                    self.resolve_decorators(stmt.decorators)
                name = stmt.name
                attr_type = resolve_type(stmt.type)
                optional = stmt.optional
            elif isinstance(stmt, ast.UnificationStmt):
                name = stmt.target.name
                attr_type = self.exprs.silent_expr(stmt.value.name)
                optional = False
            else:
                continue
            inherited = base.get_attr(name) if base is not None else None
            symbol = attrs.get(name)
            if symbol is None:  # (its own type bounds itself)
                symbol = self._attr_symbol(info, stmt, attr_type)
                symbol.optional = inherited.optional if inherited is not None else optional
            elif not is_upper_bound(symbol.type, attr_type):
                self._changed_type(name, symbol.type, attr_type, stmt)
                inherited = None  # (reported once)
            # (``any``, the type of no inherited attribute, bounds every type)
            if inherited is not None and not is_upper_bound(inherited.type, attr_type):
                self._changed_type(name, symbol.type, attr_type, stmt)
            if optional and not symbol.optional:
                self.ctx.type_error(
                    f"can't change the required schema attribute of '{name}' to optional",
                    stmt.span,
                )
            if (
                signature is not None
                and not signature.any_other
                and not is_upper_bound(signature.val_type, attr_type)
            ):
                self.ctx.report(
                    Code.INDEX_SIGNATURE_ERROR,
                    f"the type '{attr_type.ty_str()}' of schema attribute '{name}' does not meet "
                    f"the index signature definition {signature.ty_str()}",
                    stmt.span,
                )

    def _changed_type(self, name: str, declared: Type, attr_type: Type, stmt: ast.Stmt) -> None:
        self.ctx.type_error(
            f"can't change schema field type of '{name}' from {declared.ty_str()} "
            f"to {attr_type.ty_str()}",
            stmt.span,
        )

    def _attr_symbol(self, info: SchemaInfo, stmt: ast.Stmt, attr_type: Type) -> Symbol:
        """The symbol of the attribute ``stmt`` declares (a ``SchemaAttr``, or a
        ``UnificationStmt``: an attribute with a default)."""
        if type(stmt) is ast.SchemaAttr:
            symbol = Symbol(
                stmt.name, SymbolKind.ATTRIBUTE, attr_type, stmt.name_span, self.ctx.pkgpath, stmt
            )
            symbol.has_default = stmt.value is not None
            symbol.doc = stmt.doc
            symbol.decorators = stmt.decorators
        else:
            assert isinstance(stmt, ast.UnificationStmt)
            target = stmt.target
            symbol = Symbol(
                target.name, SymbolKind.ATTRIBUTE, attr_type, target.span, self.ctx.pkgpath, stmt
            )
            symbol.has_default = True
        symbol.owner = info
        info.attrs[symbol.name] = symbol
        if self.ctx.tool_facts:  # (``ctx.defines``)
            self.ctx.completed[stmt.id] = symbol
        return symbol

    def _schema_params(self, info: SchemaInfo, node: SchemaNode) -> list:  # type: ignore[type-arg]
        names = (
            schema_assigned(self.ctx.model, node)
            if node.params and isinstance(node, ast.SchemaStmt)
            else {}
        )
        for param in node.params:
            if param.name in names:
                self.ctx.compile_error(
                    f"Unexpected parameter name '{param.name}' with the same name as the "
                    "schema attribute",
                    param.span,
                )
        return self.calls.parameter_types(node.params)

    def resolve_decorators(self, decorators: list[ast.Decorator]) -> None:
        for decorator in decorators:
            signature = DECORATORS.get(decorator.name)
            if signature is None:
                if "." in decorator.name:
                    self.ctx.type_error(
                        "decorator name must be a single identifier", decorator.span
                    )
                else:
                    self.ctx.compile_error(f"UnKnown decorator {decorator.name}", decorator.span)
                continue
            func = ast.NameExpr(decorator.span, decorator.name)
            self.calls.check_arguments(
                func, decorator.args, decorator.keywords, signature, func.span
            )


def _first_parent(info: SchemaInfo) -> SchemaInfo | None:
    if info.base is not None:
        return info.base
    return info.parents[0] if info.parents else None
