"""Statement code generation: package top levels, schemas and rules, lambda bodies.

The top level of a package and the body of a schema are *unfolded*: every name
gets the list of its setters (assignments, augmented assignments, unifications,
each with the ``if`` conditions that guard it), compiled into codes the VM runs
lazily the first time the name is read, so that a read sees the final value.
The remaining statements (expressions, asserts, prints) form a separate body
that runs in source order.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

from kclpy.compile.code import (
    AttrSpec,
    Code,
    ConfigConstant,
    FunctionProto,
    IndexSignatureSpec,
    NameRef,
    PackageCode,
    SchemaHeader,
    SchemaProto,
    TypeRef,
)
from kclpy.compile.exprs import ExprCompiler, PackageNames, Unit
from kclpy.compile.opcodes import OPERATOR_INDEX, Op
from kclpy.compile.types import names_definition
from kclpy.diag import Code as DiagCode
from kclpy.diag import Diagnostic, make_error
from kclpy.sema import Model
from kclpy.sema.bindings import BindingKind
from kclpy.syntax import ast, universe
from kclpy.syntax.targets import (
    Guard,
    assigned_names,
    target_root,
    target_root_node,
    walk_setters,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


class Setter:
    """One statement that sets a name, with the conditions that must hold for it to run."""

    __slots__ = ("guards", "module", "stmt")

    def __init__(self, stmt: ast.Stmt, guards: list[Guard], module: ast.Module) -> None:
        self.stmt = stmt
        self.guards = guards
        self.module = module


def emit_guards(compiler: ExprCompiler, guards: list[Guard]) -> list[int]:
    """Evaluate each guard and jump away when it does not hold; returns the jumps."""
    jumps: list[int] = []
    for condition, expected in guards:
        compiler.expr(condition)
        jumps.append(compiler.out.emit(Op.JUMP_IF_FALSE if expected else Op.JUMP_IF_TRUE))
    return jumps


def _unifies(setters: list[Setter]) -> bool:
    """Whether a unification statement sets the name (most names: one assignment)."""
    if len(setters) == 1:
        return isinstance(setters[0].stmt, ast.UnificationStmt)
    return any(isinstance(setter.stmt, ast.UnificationStmt) for setter in setters)


def target_steps(target: ast.Expr) -> list[str | ast.Expr]:
    """The steps below the root of a target: names for ``.b``, expressions for ``[i]``."""
    steps: list[str | ast.Expr] = []
    node = target
    while isinstance(node, (ast.SelectorExpr, ast.SubscriptExpr)):
        if isinstance(node, ast.SelectorExpr):
            steps.append(node.attr)
        else:
            steps.append(node.index if node.index is not None else node)
        node = node.value
    steps.reverse()
    return steps


def emit_assign(
    compiler: ExprCompiler,
    target: ast.Expr,
    load_root: Callable[[], None],
    emit_value: Callable[[], None],
    aug_op: str | None = None,
    type_node: ast.TypeNode | None = None,
) -> None:
    """Push the new value of the target's root variable for ``target [op]= value``.

    For ``a.b[i] = v`` the root's current value is copied along the path with ``v``
    set at its end (SET_PATH); the caller stores the result into the root.
    """
    out = compiler.out
    steps = target_steps(target)
    if steps:
        load_root()
        for step in steps:
            if not isinstance(step, str):
                compiler.expr(step)
    if aug_op is not None:
        if steps:
            compiler.expr(target)
        else:
            load_root()
        emit_value()
        compiler.at(target)
        out.emit(Op.BINARY, OPERATOR_INDEX[aug_op])
    else:
        emit_value()
    compiler.at(target)
    if type_node is not None:
        type_ref = compiler.type_ref(type_node)
        if type_ref is not None:
            out.emit(Op.TYPE_CHECK, out.const(type_ref))
    if steps:
        spec = tuple(step if isinstance(step, str) else None for step in steps)
        dynamic = sum(1 for step in spec if step is None)
        out.emit(Op.SET_PATH, out.const(spec) | dynamic << 16)


class PackageCompiler:
    """Compiles the files of one package into a ``PackageCode``."""

    def __init__(
        self, pkgpath: str, modules: list[ast.Module], model: Model, lazy: bool = False
    ) -> None:
        self.pkgpath = pkgpath
        self.modules = modules
        self.model = model  # resolved (sema.resolve_program or check_program)
        # schemas compiled when first instantiated (the code holds their headers and
        # ``deferred`` how to compile each): only after the type checker, which reports
        # every error the compiler could report in them
        self.lazy = lazy
        self.deferred: dict[str, Callable[[], SchemaProto]] = {}
        self.diagnostics: list[Diagnostic] = []
        self.package = PackageCode(pkgpath)
        self.slots: dict[str, int] = {}
        self.setters: dict[str, list[Setter]] = {}
        self.unit = Unit(None)
        self._names: dict[int, PackageNames] = {}

    def names_for(self, module: ast.Module) -> PackageNames:
        names = self._names.get(module.id)
        if names is None:
            model = self.model
            names = PackageNames(self.slots, module.file, model.resolution, model.type_resolution)
            self._names[module.id] = names
        return names

    def compiler(self, code: Code, module: ast.Module, unit: Unit | None = None) -> ExprCompiler:
        names = self.names_for(module)
        return ExprCompiler(code, unit or self.unit, names, self.diagnostics, compile_lambda)

    def compile(self) -> PackageCode:
        slots = self.slots
        setters_of = self.setters
        # a unified variable is output where its last unification stands; the others
        # where first set, which is the order of their slots (the walk's order)
        unified_at: dict[str, tuple[int, int]] = {}
        for file_index, module in enumerate(self.modules):
            self.package.files.append(module.file.path)

            def on_setter(
                name: str,
                stmt: ast.Stmt,
                guards: list[Guard],
                module: ast.Module = module,
                file_index: int = file_index,
            ) -> None:
                found = setters_of.get(name)
                if found is None:
                    slots[name] = len(slots)
                    found = setters_of[name] = []
                if isinstance(stmt, ast.UnificationStmt):
                    unified_at[name] = (file_index, stmt.span.start)
                found.append(Setter(stmt, guards, module))

            walk_setters(module.body, [], on_setter)
        package = self.package
        package.slot_names = list(slots)
        package.output = self.output_order(unified_at)
        package.slot_types = [None] * len(slots)
        package.setters = [[] for _ in slots]
        constants = package.constants
        for name, slot in slots.items():
            setters = setters_of[name]
            if len(setters) > 1:
                self.check_immutable(name, setters)
            value = constant_setter(setters)
            if value is ast.NOT_LITERAL:
                value = self.defined_schema(setters)
            if value is not ast.NOT_LITERAL:
                constants[slot] = value
            else:
                package.setters[slot] = self.compile_setters(name, slot, setters)
            if not _unifies(setters):
                del setters_of[name]  # only unified names' are read again (body_stmts)
        bodies = [self.compile_body(module) for module in self.modules]
        package.body = [code for code in bodies if code is not None]
        package.nlocals = self.unit.nlocals
        return package

    def output_order(self, unified_at: dict[str, tuple[int, int]]) -> list[int]:
        """The slots in output order: by (file, offset) of each variable's first setter,
        or of its last unification."""
        if not unified_at:
            return list(range(len(self.slots)))
        file_of = {module.id: index for index, module in enumerate(self.modules)}
        keys = [
            unified_at.get(name) or (file_of[setters[0].module.id], setters[0].stmt.span.start)
            for name, setters in self.setters.items()
        ]
        return sorted(range(len(keys)), key=keys.__getitem__)

    # ------------------------------------------------------------------ setters

    def check_immutable(self, name: str, setters: list[Setter]) -> None:
        """A name set more than once (``setters``) must be private, or unified only."""
        if name.startswith("_"):
            return
        kinds = {type(setter.stmt) for setter in setters}
        if kinds == {ast.UnificationStmt}:
            return
        for setter in setters[1:]:
            stmt = setter.stmt
            if isinstance(stmt, ast.AugAssignStmt):
                message = f"Immutable variable '{name}' is modified during compiling"
            else:
                message = f"Can not change the value of '{name}', because it was declared immutable"
            span = stmt.span
            if isinstance(stmt, (ast.AssignStmt, ast.AugAssignStmt)):
                targets = stmt.targets if isinstance(stmt, ast.AssignStmt) else [stmt.target]
                span = next((t.span for t in targets if target_root(t) == name), span)
            self.diagnostics.append(
                make_error(
                    DiagCode.IMMUTABLE_ERROR,
                    message,
                    span,
                    f"change the variable name to '_{name}' to make it mutable",
                )
            )
            return

    def compile_setters(self, name: str, slot: int, setters: list[Setter]) -> list[Code]:
        if _unifies(setters) and all(isinstance(s.stmt, ast.UnificationStmt) for s in setters):
            return self.compile_unification(name, slot, setters)
        codes: list[Code] = []
        for setter in setters:
            code = Code(f"{self.pkgpath}.{name}", setter.module.file.path)
            compiler = self.compiler(code, setter.module)
            jumps = emit_guards(compiler, setter.guards)
            self.compile_setter_stmt(compiler, name, slot, setter.stmt)
            for pc in jumps:
                compiler.out.patch(pc)
            compiler.out.emit(Op.LOAD_NONE)
            compiler.out.emit(Op.RETURN)
            codes.append(code)
        return codes

    def compile_setter_stmt(
        self, compiler: ExprCompiler, name: str, slot: int, stmt: ast.Stmt
    ) -> None:
        out = compiler.out

        def load_root() -> None:
            out.emit(Op.LOAD_GLOBAL, slot)

        if isinstance(stmt, ast.AssignStmt):
            targets = stmt.targets
            if len(targets) == 1:
                target = targets[0]
            else:
                target = next(t for t in targets if target_root(t) == name)
            if stmt.type is not None:
                self.package.slot_types[slot] = compiler.type_ref(stmt.type)
            emit_assign(
                compiler, target, load_root, lambda: compiler.expr(stmt.value), None, stmt.type
            )
            out.emit(Op.STORE_GLOBAL, slot)
        elif isinstance(stmt, ast.AugAssignStmt):
            emit_assign(
                compiler, stmt.target, load_root, lambda: compiler.expr(stmt.value), stmt.op
            )
            out.emit(Op.STORE_GLOBAL, slot)
        elif isinstance(stmt, ast.UnificationStmt):
            load_root()
            compiler.expr(stmt.value)
            compiler.at(stmt)
            out.emit(Op.UNION)
            out.emit(Op.STORE_GLOBAL, slot)
        elif isinstance(stmt, ast.TypeAliasStmt):
            # an alias of a schema is that schema at run time (pkg.Alias {...} works)
            aliased = stmt.type
            if isinstance(aliased, ast.NamedType) and names_definition(
                compiler.type_binding(aliased, aliased.name)
            ):
                head, *rest = aliased.name.split(".")
                compiler.load_name(aliased, head)
                for part in rest:
                    out.emit(Op.GET_ATTR, out.name(part))
            else:
                out.emit(Op.LOAD_UNDEFINED)
            out.emit(Op.STORE_GLOBAL, slot)
        elif isinstance(stmt, (ast.SchemaStmt, ast.RuleStmt)):
            proto = self.schema_proto(stmt, compiler.names)
            compiler.at(stmt)
            out.emit(Op.MAKE_SCHEMA, out.const(proto))
            out.emit(Op.STORE_GLOBAL, slot)

    def schema_proto(
        self, stmt: ast.SchemaStmt | ast.RuleStmt, names: PackageNames
    ) -> SchemaHeader:
        """The schema's proto: compiled now, or when first read (``lazy``)."""
        if not self.lazy:
            return SchemaCompiler(self.pkgpath, self.diagnostics, stmt, names).compile()
        pkgpath = self.pkgpath
        self.deferred[stmt.name] = partial(compile_later, pkgpath, stmt, names)
        return SchemaHeader(
            stmt.name, schema_kind(stmt), pkgpath, names.file.path, (stmt.span.start, stmt.span.end)
        )

    def defined_schema(self, setters: list[Setter]) -> SchemaHeader | Any:
        """The proto (or header) of the schema or rule a variable's one unconditional
        setter defines: a constant of the package (its value, a schema type, is made
        before the package runs); else ``ast.NOT_LITERAL``."""
        if len(setters) != 1 or setters[0].guards:
            return ast.NOT_LITERAL
        setter = setters[0]
        stmt = setter.stmt
        if not isinstance(stmt, (ast.SchemaStmt, ast.RuleStmt)):
            return ast.NOT_LITERAL
        return self.schema_proto(stmt, self.names_for(setter.module))

    def compile_unification(self, name: str, slot: int, setters: list[Setter]) -> list[Code]:
        """``s: S {...}`` parts: union their configs, then instantiate once."""
        codes: list[Code] = []
        for setter in setters:
            stmt = setter.stmt
            assert isinstance(stmt, ast.UnificationStmt)
            code = Code(f"{self.pkgpath}.{name}", setter.module.file.path)
            compiler = self.compiler(code, setter.module)
            jumps = emit_guards(compiler, setter.guards)
            out = compiler.out
            out.emit(Op.LOAD_GLOBAL, slot)
            compiler.config_expr(stmt.value.config)
            compiler.at(stmt)
            out.emit(Op.UNION)
            out.emit(Op.STORE_GLOBAL, slot)
            for pc in jumps:
                out.patch(pc)
            out.emit(Op.LOAD_NONE)
            out.emit(Op.RETURN)
            codes.append(code)
        # instantiated with the last statement's schema arguments, as the reference does
        last = setters[-1]
        stmt = last.stmt
        assert isinstance(stmt, ast.UnificationStmt)
        code = Code(f"{self.pkgpath}.{name}", last.module.file.path)
        compiler = self.compiler(code, last.module)
        out = compiler.out
        compiler.expr(stmt.value.name)
        operand = compiler.arguments(stmt.value.args, stmt.value.keywords)
        out.emit(Op.LOAD_GLOBAL, slot)
        compiler.at(setters[-1].stmt)
        out.emit(Op.SCHEMA_NEW, operand)
        out.emit(Op.STORE_GLOBAL, slot)
        out.emit(Op.LOAD_NONE)
        out.emit(Op.RETURN)
        codes.append(code)
        return codes

    # ------------------------------------------------------------------ body

    def compile_body(self, module: ast.Module) -> Code | None:
        """The top-level walk of one file (None: it has nothing to run)."""
        if not any(map(self.walked, module.body)):
            return None  # (most files of a model library: imports and schemas)
        code = Code(f"{self.pkgpath}:<body>", module.file.path)
        compiler = self.compiler(code, module)
        self.body_stmts(compiler, module.body)
        if not code.ops:
            return None
        compiler.out.emit(Op.LOAD_NONE)
        compiler.out.emit(Op.RETURN)
        return code

    def walked(self, stmt: ast.Stmt) -> bool:
        """Whether the top-level walk may have to do something for a statement: not for
        an import (a plugin's excepted), nor for the definition of a constant (a value
        or a schema: in place before the body runs)."""
        if type(stmt) is ast.AssignStmt:  # most statements
            targets = stmt.targets
            if len(targets) != 1 or type(targets[0]) is not ast.NameExpr:
                return True
            return self.slots[targets[0].name] not in self.package.constants
        if type(stmt) is ast.SchemaStmt or type(stmt) is ast.RuleStmt:
            return self.slots[stmt.name] not in self.package.constants
        if type(stmt) is ast.ImportStmt:
            return universe.is_plugin(stmt.path)
        return True

    def body_stmts(self, compiler: ExprCompiler, stmts: list[ast.Stmt]) -> None:
        out = compiler.out
        walked = self.walked
        for stmt in stmts:
            if not walked(stmt):
                continue
            if type(stmt) is ast.AssignStmt:  # most statements
                self.read_set_names(compiler, stmt)
                continue
            compiler.at(stmt)
            if isinstance(stmt, ast.IfStmt):
                emit_if_stmt(compiler, stmt, lambda block: self.body_stmts(compiler, block))
            elif isinstance(stmt, ast.ExprStmt):
                compiler.expr(stmt.expr)
                compiler.at(stmt)
                # as the reference: a call statement runs for its effects, its value is no
                # output; a schema expression is marked (it replaces an earlier output value)
                if isinstance(stmt.expr, ast.CallExpr):
                    out.emit(Op.POP)
                else:
                    out.emit(Op.EXPR_OUTPUT, int(isinstance(stmt.expr, ast.SchemaExpr)))
            elif isinstance(stmt, ast.AssertStmt):
                compile_assert(compiler, stmt)
            elif isinstance(stmt, ast.ImportStmt) and universe.is_plugin(stmt.path):
                out.emit(Op.LOAD_IMPORT, out.const(stmt.path))  # as the reference's loader:
                out.emit(Op.POP)  # an unknown plugin fails at its import
            else:
                self.read_set_names(compiler, stmt)

    def read_set_names(self, compiler: ExprCompiler, stmt: ast.Stmt) -> None:
        """The body's step for a statement that sets names: read each (its setters run),
        except a constant (in place before the body runs) and a unified variable before
        its last part (built there, as in the reference)."""
        out = compiler.out
        constants = self.package.constants
        for name in assigned_names(stmt):
            slot = self.slots[name]
            if slot in constants:
                continue
            if isinstance(stmt, ast.UnificationStmt) and self.setters[name][-1].stmt is not stmt:
                continue
            compiler.at(stmt)
            out.emit(Op.LOAD_GLOBAL, slot)
            out.emit(Op.POP)


def constant_setter(setters: list[Setter]) -> Any:
    """The value of a variable whose one setter is an unconditional ``name = value``
    without a type, the value a constant (``constant_of``); else ``ast.NOT_LITERAL``."""
    if len(setters) != 1:
        return ast.NOT_LITERAL
    setter = setters[0]
    stmt = setter.stmt
    if setter.guards or type(stmt) is not ast.AssignStmt or stmt.type is not None:
        return ast.NOT_LITERAL
    if len(stmt.targets) != 1 or type(stmt.targets[0]) is not ast.NameExpr:
        return ast.NOT_LITERAL
    return constant_of(stmt.value)


def constant_of(node: ast.Expr) -> Any:
    """The constant an expression is: an ``ast.plain_literal``'s value, a tuple for a
    list of them (empty or not), a ``ConfigConstant`` for a config literal whose entries
    are all ``key = constant`` or ``key: constant`` with distinct keys, each a name or a
    string; else ``ast.NOT_LITERAL``. (Such a config is built the same by its code: each
    entry stores its value and operator under a new key.)"""
    if type(node) is ast.ListExpr:
        values = ast.plain_literals(node.items)
        return ast.NOT_LITERAL if values is None else values
    if type(node) is not ast.ConfigExpr:
        return ast.plain_literal(node)
    entries: list[tuple[str, Any, str]] = []
    seen: set[str] = set()
    for entry in node.entries:
        if type(entry) is not ast.ConfigEntry or entry.op not in ("=", ":"):
            return ast.NOT_LITERAL
        key = entry.key
        if type(key) is ast.NameExpr:
            name = key.name
        elif type(key) is ast.StringExpr:
            name = key.value
        else:
            return ast.NOT_LITERAL
        value = constant_of(entry.value)
        if name in seen or value is ast.NOT_LITERAL:
            return ast.NOT_LITERAL
        seen.add(name)
        entries.append((name, value, entry.op))
    return ConfigConstant(tuple(entries))


def attribute_constant(name: str, setters: list[tuple[ast.Stmt, list[Guard]]]) -> Any:
    """The literal a schema attribute's setter only stores: one unconditional
    ``name = literal`` or ``name: T = literal`` (an ``ast.plain_literal``), or a
    required ``name: "x"`` without a unit suffix; else ``ast.NOT_LITERAL``."""
    if len(setters) != 1 or setters[0][1]:
        return ast.NOT_LITERAL
    stmt = setters[0][0]
    if type(stmt) is ast.SchemaAttr and stmt.op in ("=", ""):
        if stmt.value is not None:
            return ast.plain_literal(stmt.value)
        literal = stmt.type
        assert isinstance(literal, ast.LiteralType)  # (compile_setters keeps no other)
        return ast.NOT_LITERAL if literal.suffix else literal.value
    if type(stmt) is ast.AssignStmt and stmt.type is None:
        target = next(t for t in stmt.targets if target_root(t) == name)
        if type(target) is ast.NameExpr:
            return ast.plain_literal(stmt.value)
    return ast.NOT_LITERAL


def emit_if_stmt(
    compiler: ExprCompiler, stmt: ast.IfStmt, block: Callable[[list[ast.Stmt]], None]
) -> None:
    """``if``/``elif``/``else`` around blocks compiled by ``block``."""
    out = compiler.out
    compiler.expr(stmt.cond)
    skip = out.emit(Op.JUMP_IF_FALSE)
    block(stmt.body)
    if stmt.orelse:
        end = out.emit(Op.JUMP)
        out.patch(skip)
        block(stmt.orelse)
        out.patch(end)
    else:
        out.patch(skip)


def compile_assert(compiler: ExprCompiler, stmt: ast.AssertStmt) -> None:
    out = compiler.out
    skip = -1
    if stmt.cond is not None:
        compiler.expr(stmt.cond)
        skip = out.emit(Op.JUMP_IF_FALSE)
    compiler.expr(stmt.test)
    compiler.optional_expr(stmt.msg)
    compiler.at(stmt)
    out.emit(Op.ASSERT)
    if skip >= 0:
        out.patch(skip)


def decorator_specs(
    compiler: ExprCompiler, decorators: list[ast.Decorator]
) -> list[tuple[str, dict[str, Any]]]:
    specs: list[tuple[str, dict[str, Any]]] = []
    for decorator in decorators:
        arguments: dict[str, Any] = {}
        for keyword in decorator.keywords:
            arguments[keyword.name] = literal_value(keyword.value)
        for index, arg in enumerate(decorator.args):
            arguments[str(index)] = literal_value(arg)
        specs.append((decorator.name, arguments))
        if decorator.name not in universe.decorators():
            compiler.error(
                DiagCode.COMPILE_ERROR, f"UnKnown decorator {decorator.name}", decorator.span
            )
    return specs


def literal_value(node: ast.Expr) -> Any:
    if isinstance(node, ast.StringExpr):
        return node.value
    if isinstance(node, (ast.NumberExpr, ast.ConstExpr)):
        return node.value
    return None


class LateCompileError(Exception):
    """A pending schema's compilation reported an error (a bug: the checker reports first)."""


def compile_later(
    pkgpath: str, stmt: ast.SchemaStmt | ast.RuleStmt, names: PackageNames
) -> SchemaProto:
    """A pending schema's proto. The checker has reported, before any run, every error
    compiling it could report: one here is a bug in kclpy."""
    problems: list[Diagnostic] = []
    proto = SchemaCompiler(pkgpath, problems, stmt, names).compile()
    errors = [problem for problem in problems if problem.is_error]
    if errors:
        raise LateCompileError(errors[0].message)
    return proto


def schema_kind(stmt: ast.SchemaStmt | ast.RuleStmt) -> str:
    """schema, mixin, protocol or rule."""
    return stmt.kind if isinstance(stmt, ast.SchemaStmt) else "rule"


class SchemaCompiler:
    """Compiles a schema, mixin, protocol or rule into a ``SchemaProto``."""

    def __init__(
        self,
        pkgpath: str,
        diagnostics: list[Diagnostic],
        stmt: ast.SchemaStmt | ast.RuleStmt,
        names: PackageNames,
    ) -> None:
        self.diagnostics = diagnostics
        self.stmt = stmt
        self.names = names
        self.unit = Unit(None)
        self.proto = SchemaProto(stmt.name, schema_kind(stmt), pkgpath, names.file.path)
        self.proto.position = (stmt.span.start, stmt.span.end)

    def new_code(self, label: str) -> tuple[Code, ExprCompiler]:
        code = Code(f"{self.stmt.name}.{label}", self.names.file.path)
        compiler = ExprCompiler(code, self.unit, self.names, self.diagnostics, compile_lambda)
        return code, compiler

    def ref(self, node: ast.Expr) -> NameRef:
        _, compiler = self.new_code("<ref>")
        return compiler.reference(node)

    def compile(self) -> SchemaProto:
        stmt = self.stmt
        proto = self.proto
        code, compiler = self.new_code("<params>")
        proto.params = compiler.params(stmt.params, self.unit)
        if any(param.default is not None for param in stmt.params):
            proto.param_defaults = compile_param_defaults(compiler, stmt.params, code)
        proto.decorators = decorator_specs(compiler, stmt.decorators)
        if isinstance(stmt, ast.RuleStmt):
            proto.mixins = [self.ref(parent) for parent in stmt.parents]
            if stmt.for_host is not None:  # `rule R for P`: P's attributes, R's checks
                proto.parent = self.ref(stmt.for_host)
            proto.checks = self.compile_checks(stmt.checks)
            proto.nlocals = self.unit.nlocals
            return proto
        if stmt.parent is not None:
            proto.parent = self.ref(stmt.parent)
        proto.mixins = [self.ref(mixin) for mixin in stmt.mixins]
        self.collect_attrs(stmt.body, compiler)
        self.compile_setters(stmt.body)
        proto.body = self.compile_body(stmt.body)
        if stmt.index_signature is not None:  # first: checks may read the key alias
            proto.index_signature = self.compile_index_signature(stmt.index_signature)
        if stmt.checks:
            proto.checks = self.compile_checks(stmt.checks)
        proto.nlocals = self.unit.nlocals
        return proto

    def collect_attrs(self, body: list[ast.Stmt], compiler: ExprCompiler) -> None:
        attrs = self.proto.attrs
        declared: set[str] = set()
        # names in order of first appearance (dicts as ordered sets)
        order: dict[str, None] = {}
        plain: dict[str, None] = {}

        def visit(stmts: list[ast.Stmt]) -> None:
            for stmt in stmts:
                if isinstance(stmt, ast.IfStmt):
                    visit(stmt.body)
                    visit(stmt.orelse)
                    continue
                names = assigned_names(stmt)
                order.update(dict.fromkeys(names))
                if isinstance(stmt, ast.SchemaAttr):
                    if stmt.name not in declared:
                        declared.add(stmt.name)
                        attrs.append(
                            AttrSpec(
                                stmt.name,
                                compiler.type_ref(stmt.type),
                                stmt.optional,
                                (stmt.name_span.start, stmt.name_span.end),
                                decorator_specs(compiler, stmt.decorators),
                            )
                        )
                elif isinstance(stmt, ast.UnificationStmt):
                    name = stmt.target.name
                    if name not in declared:
                        declared.add(name)
                        type_ref = TypeRef("schema", (compiler.reference(stmt.value.name),))
                        span = stmt.target.span
                        attrs.append(AttrSpec(name, type_ref, False, (span.start, span.end), []))
                else:
                    plain.update(dict.fromkeys(names))

        visit(body)
        self.proto.attr_order = list(order)
        self.proto.plain_attrs = [name for name in plain if name not in declared]

    def compile_setters(self, body: list[ast.Stmt]) -> None:
        grouped: dict[str, list[tuple[ast.Stmt, list[Guard]]]] = {}

        def on_setter(name: str, stmt: ast.Stmt, guards: list[Guard]) -> None:
            # a required `a: "x"` (one literal as the type) defaults to that literal, as
            # in the reference; other declarations without a value set nothing
            if (
                isinstance(stmt, ast.SchemaAttr)
                and stmt.value is None
                and (stmt.optional or not isinstance(stmt.type, ast.LiteralType))
            ):
                return
            grouped.setdefault(name, []).append((stmt, guards))

        walk_setters(body, [], on_setter)
        for name, setters in grouped.items():
            whole = [(stmt, guards) for stmt, guards in setters if not _into_value(stmt, name)]
            into = [(stmt, guards) for stmt, guards in setters if _into_value(stmt, name)]
            if whole:
                self.proto.setters[name] = self.compile_setter(name, whole)
                value = attribute_constant(name, whole)
                if value is not ast.NOT_LITERAL:
                    self.proto.constants[name] = value
            if into:
                self.proto.path_setters[name] = self.compile_setter(name, into)

    def compile_setter(self, name: str, setters: list[tuple[ast.Stmt, list[Guard]]]) -> Code:
        """One code running the given assignments of attribute ``name`` in order."""
        code, compiler = self.new_code(name)
        out = compiler.out
        name_index = out.name(name)
        for stmt, guards in setters:
            jumps = emit_guards(compiler, guards)
            compiler.at(stmt)
            if isinstance(stmt, ast.SchemaAttr):
                if stmt.value is None:
                    assert isinstance(stmt.type, ast.LiteralType)
                    compiler.literal_type_value(stmt.type)
                else:
                    compiler.expr(stmt.value)
                if stmt.op not in ("=", ""):
                    compiler.load_name(stmt, name)
                    out.emit(Op.SWAP)
                    out.emit(Op.BINARY, OPERATOR_INDEX[stmt.op.rstrip("=")])
            elif isinstance(stmt, (ast.AugAssignStmt, ast.AssignStmt)):
                self.compile_body_assign(compiler, name, stmt)
            elif isinstance(stmt, ast.UnificationStmt):
                compiler.load_name(stmt.target, name, stmt.span)
                compiler.expr(stmt.value)
                compiler.at(stmt)
                out.emit(Op.UNION)
            else:
                continue
            out.emit(Op.STORE_ATTR_SELF, name_index)
            for pc in jumps:
                out.patch(pc)
        out.emit(Op.LOAD_NONE)
        out.emit(Op.RETURN)
        return code

    def compile_body_assign(
        self, compiler: ExprCompiler, name: str, stmt: ast.AssignStmt | ast.AugAssignStmt
    ) -> None:
        value = stmt.value
        if isinstance(stmt, ast.AugAssignStmt):
            target = stmt.target
        else:
            target = next(t for t in stmt.targets if target_root(t) == name)
        root = target_root_node(target)
        assert root is not None

        def load_root() -> None:
            compiler.load_name(root, name, stmt.span)

        if isinstance(stmt, ast.AugAssignStmt):
            emit_assign(compiler, target, load_root, lambda: compiler.expr(value), stmt.op)
            return
        emit_assign(compiler, target, load_root, lambda: compiler.expr(value), None, stmt.type)

    def compile_body(self, body: list[ast.Stmt]) -> Code | None:
        if not any(has_side_effects(stmt) for stmt in body):
            return None
        code, compiler = self.new_code("<body>")
        self.body_stmts(compiler, body)
        compiler.out.emit(Op.LOAD_NONE)
        compiler.out.emit(Op.RETURN)
        return code

    def body_stmts(self, compiler: ExprCompiler, stmts: list[ast.Stmt]) -> None:
        out = compiler.out
        for stmt in stmts:
            if not has_side_effects(stmt):
                continue
            compiler.at(stmt)
            if isinstance(stmt, ast.IfStmt):
                emit_if_stmt(compiler, stmt, lambda block: self.body_stmts(compiler, block))
            elif isinstance(stmt, ast.ExprStmt):
                compiler.expr(stmt.expr)
                out.emit(Op.POP)
            elif isinstance(stmt, ast.AssertStmt):
                compile_assert(compiler, stmt)

    def compile_checks(self, checks: list[ast.CheckExpr]) -> Code:
        code, compiler = self.new_code("<check>")
        out = compiler.out
        for check in checks:
            skip = -1
            if check.cond is not None:
                compiler.expr(check.cond)
                skip = out.emit(Op.JUMP_IF_FALSE)
            compiler.expr(check.test)
            compiler.optional_expr(check.msg)
            compiler.at(check)
            out.emit(Op.CHECK)
            if skip >= 0:
                out.patch(skip)
        out.emit(Op.LOAD_NONE)
        out.emit(Op.RETURN)
        return code

    def compile_index_signature(self, signature: ast.IndexSignature) -> IndexSignatureSpec:
        code, compiler = self.new_code("<index>")
        key_type = compiler.type_ref(signature.key_type)
        value_type = compiler.type_ref(signature.value_type)
        default: Code | None = None
        key_slot = -1
        if signature.key_name:
            key_slot = self.unit.declare(signature)
        if signature.value is not None:
            compiler.expr(signature.value)
            compiler.out.emit(Op.RETURN)
            default = code
        return IndexSignatureSpec(
            signature.key_name, key_type, value_type, signature.any_other, default, key_slot
        )


def compile_param_defaults(compiler: ExprCompiler, params: list[ast.Param], code: Code) -> Code:
    """Code that gives each parameter left Undefined its default value."""
    out = compiler.out
    for index, param in enumerate(params):
        if param.default is None:
            continue
        compiler.at(param)
        out.emit(Op.LOAD_LOCAL, index)
        out.emit(Op.LOAD_UNDEFINED)
        out.emit(Op.COMPARE, OPERATOR_INDEX["is"])
        skip = out.emit(Op.JUMP_IF_FALSE)
        compiler.expr(param.default)
        out.emit(Op.STORE_LOCAL, index)
        out.patch(skip)
    out.emit(Op.LOAD_NONE)
    out.emit(Op.RETURN)
    return code


def has_side_effects(stmt: ast.Stmt) -> bool:
    if isinstance(stmt, (ast.ExprStmt, ast.AssertStmt)):
        return True
    if isinstance(stmt, ast.IfStmt):
        return any(has_side_effects(s) for s in stmt.body) or any(
            has_side_effects(s) for s in stmt.orelse
        )
    return False


def compile_lambda(node: ast.LambdaExpr, outer: ExprCompiler) -> FunctionProto:
    """A lambda body: sequential statements; the last statement's value is the result."""
    unit = Unit(outer.unit)
    code = Code("<lambda>", outer.out.code.path)
    compiler = ExprCompiler(code, unit, outer.names, outer.diagnostics, outer.lambdas)
    params = compiler.params(node.params, unit)
    result = unit.new_local()
    out = compiler.out
    compiler.at(node)
    out.emit(Op.LOAD_UNDEFINED)
    out.emit(Op.STORE_LOCAL, result)
    lambda_stmts(compiler, node.body, result)
    out.emit(Op.LOAD_LOCAL, result)
    out.emit(Op.RETURN)
    return FunctionProto("lambda", code, params, compiler.type_ref(node.return_type), unit.nlocals)


def lambda_stmts(compiler: ExprCompiler, stmts: list[ast.Stmt], result: int) -> None:
    out = compiler.out
    for stmt in stmts:
        compiler.at(stmt)
        if isinstance(stmt, ast.ExprStmt):
            compiler.expr(stmt.expr)
            out.emit(Op.STORE_LOCAL, result)
        elif isinstance(stmt, ast.AssignStmt):
            compiler.expr(stmt.value)
            out.emit(Op.STORE_LOCAL, result)
            for target in stmt.targets:
                store_local_target(compiler, target, result, None, stmt.type)
        elif isinstance(stmt, ast.AugAssignStmt):
            compiler.expr(stmt.value)
            out.emit(Op.STORE_LOCAL, result)
            index = store_local_target(compiler, stmt.target, result, stmt.op, None)
            if index is not None:
                out.emit(Op.LOAD_LOCAL, index)
                out.emit(Op.STORE_LOCAL, result)
        elif isinstance(stmt, ast.IfStmt):
            emit_if_stmt(compiler, stmt, lambda block: lambda_stmts(compiler, block, result))
        elif isinstance(stmt, ast.AssertStmt):
            compile_assert(compiler, stmt)
        else:
            compiler.error(
                DiagCode.COMPILE_ERROR,
                f"{type(stmt).__name__} is not allowed in a lambda body",
                stmt.span,
            )


def store_local_target(
    compiler: ExprCompiler,
    target: ast.Expr,
    value_local: int,
    aug_op: str | None,
    type_node: ast.TypeNode | None,
) -> int | None:
    """Assign the value in ``value_local`` to a lambda-local target (``a``, ``a.b[0]``);
    returns the local's slot. The root is the local the resolver bound it to, or (its
    first assignment) a new one, whose old meaning a path target reads first."""
    out = compiler.out
    root = target_root_node(target)
    if root is None:
        compiler.error(DiagCode.COMPILE_ERROR, "invalid assignment target", target.span)
        return None
    unit = compiler.unit
    binding = compiler.names.bindings.get(root.id)
    declaration = binding.declaration if binding is not None else None
    node = declaration.node if declaration is not None else None
    declared = (
        binding is not None
        and binding.kind == BindingKind.LOCAL
        and binding.depth == 0
        and node is not None
    )
    key = node.id if declared and node is not None else root.id
    index = unit.slots[key] if declared else unit.new_local()

    def load_root() -> None:
        if declared:
            out.emit(Op.LOAD_LOCAL, index)
        else:
            compiler.load_name(root, root.name, target.span)

    def load_value() -> None:
        out.emit(Op.LOAD_LOCAL, value_local)

    emit_assign(compiler, target, load_root, load_value, aug_op, type_node)
    unit.slots[key] = index
    out.emit(Op.STORE_LOCAL, index)
    return index


def _into_value(stmt: ast.Stmt, name: str) -> bool:
    """Whether a schema body statement assigns into attribute ``name``'s value
    (``name.b = v``) or updates it (``name |= v``, ``name += v``) rather than
    replacing it: such statements see the value with the instance's config merged."""
    if isinstance(stmt, ast.AssignStmt):
        target = next((t for t in stmt.targets if target_root(t) == name), None)
        return target is not None and not isinstance(target, ast.NameExpr)
    if isinstance(stmt, ast.AugAssignStmt):
        return True
    return isinstance(stmt, ast.SchemaAttr) and stmt.op not in ("=", "")
