"""Name resolution: the run-time binding of every name use (``Model.resolution``).

``resolve_program(program)`` walks every package once and gives each name use a
:class:`~kclpy.sema.bindings.Binding`, keyed by node id; the checker resolves each
package (``Resolver.package``) just before checking it, and reads the bindings for
every name it reads, so ``check=False`` skips the type checks and nothing else.
The compiler turns bindings into loads and stores; neither looks a name up itself.

The walk follows the run-time scopes, which are not the checker's: a *code
unit* is what the VM runs with one frame of locals (the package top level, a
schema, a lambda), and a name resolves, in order, to

1. a local of this unit or, ``depth`` units out, of an enclosing one (lambdas
   nest in the unit that creates them): a parameter, a comprehension or
   quantifier variable (visible in the loop's block only), a lambda local (from
   its first assignment on), the index signature's key (in the default value and
   the checks);
2. inside a schema, the instance's attribute of that name, looked up at run time
   (``dynamic``), falling back to
3. a package variable (any file of the package), an import (this file's first,
   then the other files'), a builtin, or nothing.

On top, a name equal to a key set earlier in an enclosing config literal reads
that key first (``config_key``): ``{a = 1, b = a}``. Example::

    n = 1                       # n: GLOBAL
    schema S[k]:                # k: LOCAL in S
        v = [x + k + n for x in range(3)]   # x: LOCAL (depth 0), k: LOCAL, n: dynamic GLOBAL
        f = lambda y { y + k }  # y: LOCAL in the lambda, k: LOCAL depth 1

Type names get a :class:`~kclpy.sema.bindings.TypeBinding` each
(``Model.type_resolution``, keyed by the ``ast.NamedType``, or by the expression
naming a schema's parent, a mixin, the schema of ``s: S {...}``): they are looked
up in the package only, never in the run-time scopes, in the order basic type,
member of an import of this file (``units.NumberMultiplier`` has its own kind),
type alias of the package, definition of the package, unknown. Example::

    import units
    import k8s.api as api
    type Port = int | str               # int, str: BASIC
    schema S(api.Base):                 # api.Base: SCHEMA in package k8s.api
        port: Port                      # Port: ALIAS of `int | str`
        size: units.NumberMultiplier    # NUMBER_MULTIPLIER
        peer?: S                        # S: SCHEMA of this package

The resolver reports nothing: an undefined name gets an ``UNDEFINED`` binding and
the stage that meets it says so (the checker before running, else the compiler).
It also binds, as reads in the package, what the checker reads as values while
building a schema or rule (the schemas it names and the decorator arguments, which
the compiler takes as type references and constants), and the root of a list-index
config key (``{l[0] = v}``: the checker types the list).
The syntactic facts it, the checker and the compiler read (which names a statement
sets, the root and path of an assignment target, the literal path of a config key,
the dotted name of a reference) are :mod:`kclpy.syntax.targets`'.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from kclpy.depth import TOO_DEEP, innermost_span
from kclpy.diag import Code, make_error
from kclpy.loader import Program, iter_imports
from kclpy.sema.annotations import BASIC_TYPES
from kclpy.sema.bindings import Binding, BindingKind, TypeBinding, TypeKind
from kclpy.sema.builtins import BUILTIN_FUNCTIONS
from kclpy.sema.model import Model
from kclpy.syntax import ast
from kclpy.syntax.targets import dotted_name as dotted_name  # re-exported, see below
from kclpy.syntax.targets import is_int_literal, key_path, target_root_node, walk_setters
from kclpy.syntax.targets import target_parts as target_parts  # re-exported, see below

# target_parts and dotted_name moved to kclpy.syntax.targets; they are re-exported here
# only while the sema modules importing them from here (calls, declare, names, schemas,
# stmts) are rewritten in parallel (issue 33): import them from kclpy.syntax.targets


class CodeUnit:
    """A run-time scope being resolved: its blocks of declared names and its parent."""

    __slots__ = ("blocks", "in_schema", "parent")

    def __init__(self, in_schema: bool, parent: CodeUnit | None) -> None:
        self.parent = parent
        self.in_schema: bool = in_schema or (parent is not None and parent.in_schema)
        # name -> node id of its declaration; blocks[1:] are the loops being walked
        self.blocks: list[dict[str, int]] = [{}]


class Resolver:
    """Walks the packages of a program in the compiler's order, recording bindings."""

    def __init__(self, model: Model) -> None:
        self.resolution = model.resolution
        self.type_resolution = model.type_resolution
        self.unit = CodeUnit(False, None)
        self.config_keys: list[set[str]] = []
        self.globals: set[str] = set()
        self.imports: dict[str, str] = {}  # the names this module may import
        self.aliases: dict[str, ast.TypeNode] = {}  # the package's type aliases
        self._locals: dict[tuple[str, int, int, bool], Binding] = {}  # shared by their uses
        # this module's bindings of names no unit declares, by (name, in_schema, config_key)
        self._outer: dict[tuple[str, bool, bool], Binding] = {}
        self._types: dict[str, TypeBinding] = {}  # this module's type bindings, by name

    # ------------------------------------------------------------------ packages

    def package(self, modules: list[ast.Module], imports_of: Callable[[ast.Module], Any]) -> None:
        self.globals = set()
        self.aliases = {}
        tables: list[dict[str, str]] = []
        add = self.globals.add
        for module in modules:
            walk_setters(module.body, [], lambda name, _stmt, _guards: add(name))
            table: dict[str, str] = imports_of(module)
            missing: dict[str, str] = {}
            for stmt in module.body:
                if type(stmt) is ast.TypeAliasStmt:
                    self.aliases[stmt.name.name] = stmt.type
                elif type(stmt) in _IMPORTING:
                    missing.update(unresolved_imports(stmt, table))
            tables.append({**missing, **table} if missing else table)
        self.unit = CodeUnit(False, None)
        # the imports of one file are visible in the other files of its package (its
        # own win; among the others, the later file's)
        shared: dict[str, str] = {}
        for table in tables:
            shared.update(table)
        for module, table in zip(modules, tables, strict=True):
            self.imports = {**shared, **table}
            self._outer = {}
            self._types = {}
            for stmt in module.body:
                self.top_stmt(stmt)

    def top_stmt(self, stmt: ast.Stmt) -> None:
        if type(stmt) is ast.AssignStmt:  # most statements
            self.plain_stmt(stmt)
        elif isinstance(stmt, (ast.SchemaStmt, ast.RuleStmt)):
            self.definition_reads(stmt)
            self.schema(stmt)
        elif isinstance(stmt, ast.TypeAliasStmt):
            aliased = stmt.type
            if isinstance(aliased, ast.NamedType):  # the alias of a schema loads it
                self.bind(aliased, aliased.name.split(".")[0])
            self.annotation(aliased)
        elif isinstance(stmt, ast.IfStmt):
            self.expr(stmt.cond)
            for inner in (*stmt.body, *stmt.orelse):
                self.top_stmt(inner)
        else:
            self.plain_stmt(stmt)

    def plain_stmt(self, stmt: ast.Stmt) -> None:
        """An expression, assert or assignment of a package or schema body."""
        if isinstance(stmt, ast.AssignStmt):
            for target in stmt.targets:
                if type(target) is ast.NameExpr:  # most targets (name_expr without a call)
                    self.resolution[target.id] = self.lookup(target.name)
                else:
                    _DISPATCH[type(target)](self, target)
            value = stmt.value
            _DISPATCH[type(value)](self, value)
            if stmt.type is not None:
                self.annotation(stmt.type)
        elif isinstance(stmt, ast.ExprStmt):
            self.expr(stmt.expr)
        elif isinstance(stmt, ast.AssertStmt):
            self.optional(stmt.cond, stmt.test, stmt.msg)
        elif isinstance(stmt, ast.AugAssignStmt):
            self.optional(stmt.target, stmt.value)
        elif isinstance(stmt, ast.UnificationStmt):
            self.optional(stmt.target, stmt.value)
            self.reference(stmt.value.name)
        elif isinstance(stmt, ast.SchemaAttr):
            self.optional(stmt.value)
            self.annotation(stmt.type)
            if stmt.op not in ("=", ""):  # `a |= v` reads the attribute
                self.bind(stmt, stmt.name)
            if stmt.decorators:  # (the checker reads their arguments)
                self.decorators(stmt.decorators)

    # ------------------------------------------------------------------ schemas

    def schema(self, stmt: ast.SchemaStmt | ast.RuleStmt) -> None:
        saved = self.unit
        self.unit = CodeUnit(True, None)
        try:
            for param in stmt.params:
                self.declare(param.name, param)
                self.annotation(param.type)
            self.optional(*(param.default for param in stmt.params))
            self.references(stmt)
            if isinstance(stmt, ast.SchemaStmt):
                self.schema_body(stmt.body)
                signature = stmt.index_signature
                if signature is not None:  # after the body: the key is for the default
                    self.annotation(signature.key_type)
                    self.annotation(signature.value_type)
                    if signature.key_name:  # and the checks only
                        self.declare(signature.key_name, signature)
                    self.optional(signature.value)
            for check in stmt.checks:
                self.optional(check.cond, check.test, check.msg)
        finally:
            self.unit = saved

    def references(self, stmt: ast.SchemaStmt | ast.RuleStmt) -> None:
        """Bind the schemas a schema or rule names: its parent, mixins, host."""
        if isinstance(stmt, ast.RuleStmt):
            for parent in stmt.parents:
                self.reference(parent)
            if stmt.for_host is not None:
                self.reference(stmt.for_host)
            return
        if stmt.parent is not None:
            self.reference(stmt.parent)
        for mixin in stmt.mixins:
            self.reference(mixin)

    def definition_reads(self, stmt: ast.SchemaStmt | ast.RuleStmt) -> None:
        """Bind, in the package, what the checker reads as values when it builds a schema
        or rule: the schemas it names (its parent, mixins, host, parent rules) and its
        decorator arguments (the compiler takes these as constants; an attribute's are
        bound with the attribute, ``plain_stmt``)."""
        named = stmt.parents if isinstance(stmt, ast.RuleStmt) else [stmt.parent, *stmt.mixins]
        self.optional(*named, stmt.for_host)
        self.decorators(stmt.decorators)

    def decorators(self, decorators: list[ast.Decorator]) -> None:
        for decorator in decorators:
            self.optional(*decorator.args, *(keyword.value for keyword in decorator.keywords))

    def schema_body(self, stmts: list[ast.Stmt]) -> None:
        for stmt in stmts:
            if isinstance(stmt, ast.IfStmt):
                self.expr(stmt.cond)
                self.schema_body(stmt.body)
                self.schema_body(stmt.orelse)
            else:
                self.plain_stmt(stmt)

    # ------------------------------------------------------------------ names

    def declare(self, name: str, node: ast.Node) -> None:
        self.unit.blocks[-1][name] = node.id

    def bind(self, node: ast.Node, name: str) -> None:
        """Record the binding of a use of ``name`` at ``node``."""
        self.resolution[node.id] = self.lookup(name)

    def lookup(self, name: str) -> Binding:
        keys = self.config_keys
        config_key = bool(keys) and any(name in block for block in keys)
        unit: CodeUnit | None = self.unit
        depth = 0
        while unit is not None:
            for block in reversed(unit.blocks):
                declaration = block.get(name)
                if declaration is not None:
                    return self.local(name, declaration, depth, config_key)
            unit = unit.parent
            depth += 1
        in_schema = self.unit.in_schema
        key = (name, in_schema, config_key)
        binding = self._outer.get(key)
        if binding is None:  # once per module (not worth sharing across modules)
            kind, pkgpath = self.outer(name)
            # dynamic in a schema: the instance's attribute of that name comes first
            binding = Binding(kind, name, -1, 0, pkgpath, in_schema, config_key)
            self._outer[key] = binding
        return binding

    def outer(self, name: str) -> tuple[int, str]:
        """Kind and pkgpath of a name no unit declares."""
        if name in self.globals:
            return BindingKind.GLOBAL, ""
        pkgpath = self.imports.get(name)
        if pkgpath is not None:
            return BindingKind.IMPORT, pkgpath
        if name in BUILTIN_FUNCTIONS:
            return BindingKind.BUILTIN, ""
        return BindingKind.UNDEFINED, ""

    def local(self, name: str, declaration: int, depth: int, config_key: bool) -> Binding:
        """The one binding object of a local with these fields (its uses resolve alike)."""
        key = (name, declaration, depth, config_key)
        binding = self._locals.get(key)
        if binding is None:
            binding = Binding(BindingKind.LOCAL, name, declaration, depth, "", False, config_key)
            self._locals[key] = binding
        return binding

    # ------------------------------------------------------------------ type names

    def annotation(self, node: ast.TypeNode | None) -> None:
        """Bind every named type of an annotation (through lists, dicts, unions, functions)."""
        if isinstance(node, ast.NamedType):
            self.type_resolution[node.id] = self.lookup_type(node.name)
        elif isinstance(node, ast.ListType):
            self.annotation(node.elem)
        elif isinstance(node, ast.DictType):
            self.annotation(node.key)
            self.annotation(node.value)
        elif isinstance(node, ast.UnionType):
            for member in node.types:
                self.annotation(member)
        elif isinstance(node, ast.FunctionType):
            for param in node.params:
                self.annotation(param)
            self.annotation(node.ret)

    def reference(self, node: ast.Expr) -> None:
        """Bind an expression naming a schema (``Base``, ``pkg.Base``) as a type name."""
        self.type_resolution[node.id] = self.lookup_type(dotted_name(node) or "?")

    def lookup_type(self, name: str) -> TypeBinding:
        binding = self._types.get(name)
        if binding is None:
            binding = self._types[name] = self.type_binding(name)
        return binding

    def type_binding(self, name: str) -> TypeBinding:
        """What a type name written in this module denotes (see the module docstring)."""
        if name in BASIC_TYPES:
            return TypeBinding(TypeKind.BASIC, name)
        head, dot, member = name.partition(".")
        pkgpath = self.imports.get(head) if dot else None
        if pkgpath is not None:
            if pkgpath == "units" and member == "NumberMultiplier":
                return TypeBinding(TypeKind.NUMBER_MULTIPLIER, name, pkgpath, member)
            return TypeBinding(TypeKind.SCHEMA, name, pkgpath, member)
        aliased = self.aliases.get(name)
        if aliased is not None:
            return TypeBinding(TypeKind.ALIAS, name, aliased=aliased)
        if name in self.globals:
            return TypeBinding(TypeKind.SCHEMA, name)
        return TypeBinding(TypeKind.UNKNOWN, name)

    # ------------------------------------------------------------------ expressions

    def expr(self, node: ast.Expr) -> None:
        _DISPATCH[type(node)](self, node)

    def optional(self, *nodes: ast.Expr | None) -> None:
        for node in nodes:
            if node is not None:
                _DISPATCH[type(node)](self, node)

    def name_expr(self, node: ast.NameExpr) -> None:
        self.resolution[node.id] = self.lookup(node.name)

    def leaf(self, node: ast.Expr) -> None:
        """Literals, and the forms the compiler rejects without compiling their parts."""

    def children(self, node: ast.Expr) -> None:
        """Expressions whose parts are independent: resolve each part."""
        for part in _parts(node):
            if part is not None:
                _DISPATCH[type(part)](self, part)

    def joined_string(self, node: ast.JoinedStringExpr) -> None:
        for part in node.parts:
            if not isinstance(part, str):
                self.expr(part.value)

    def call(self, node: ast.CallExpr) -> None:
        self.expr(node.func)
        for arg in node.args:
            self.expr(
                arg.value if isinstance(arg, (ast.StarredExpr, ast.DoubleStarredExpr)) else arg
            )
        for keyword in node.keywords:
            self.expr(keyword.value)

    def as_expr(self, node: ast.AsExpr) -> None:
        self.expr(node.value)
        self.annotation(node.type)

    def list_expr(self, node: ast.ListExpr) -> None:
        self.list_items(node.items)

    def list_items(self, items: Iterable[ast.Expr]) -> None:
        for item in items:
            if isinstance(item, ast.ListIfItem):
                self.expr(item.cond)
                self.list_items(item.items)
                if isinstance(item.orelse, ast.ListIfItem):
                    self.list_items([item.orelse])
                elif item.orelse is not None:
                    self.list_items(item.orelse)
            else:
                self.expr(item.value if isinstance(item, ast.StarredExpr) else item)

    # ------------------------------------------------------------------ configs

    def config_expr(self, node: ast.ConfigExpr) -> None:
        self.config_keys.append(set())
        try:
            self.config_entries(node.entries)
        finally:
            self.config_keys.pop()

    def config_entries(self, entries: Iterable[ast.ConfigEntry | ast.ConfigIfEntry]) -> None:
        for entry in entries:
            if isinstance(entry, ast.ConfigIfEntry):
                self.expr(entry.cond)
                self.config_entries(entry.entries)
                if isinstance(entry.orelse, ast.ConfigIfEntry):
                    self.config_entries([entry.orelse])
                elif entry.orelse is not None:
                    self.config_entries(entry.orelse)
            else:
                self.config_entry(entry)

    def config_entry(self, entry: ast.ConfigEntry) -> None:
        """Resolve an entry; a key's root name gets a binding only when it is a loop
        variable of this unit (the key is then the variable's value: ``{k = v}``) or
        the list a list-index key indexes (``{l[0] = v}``: the checker reads it)."""
        key = entry.key
        path = key_path(key) if key is not None else None
        if key is None or path is None:
            if isinstance(key, ast.SubscriptExpr) and is_int_literal(key.index):
                self.optional(key)
            elif key is not None:
                self.expr(key.value if isinstance(key, ast.ParenExpr) else key)
            self.expr(entry.value)
            return
        if not isinstance(key, ast.StringExpr) and self.is_loop_variable(path[0]):
            root = key
            while isinstance(root, ast.SelectorExpr):
                root = root.value
            self.expr(root)
            self.expr(entry.value)
            return
        self.expr(entry.value)
        self.config_keys[-1].add(path[0])

    def is_loop_variable(self, name: str) -> bool:
        blocks = self.unit.blocks
        return len(blocks) > 1 and any(name in block for block in blocks[1:])

    def schema_expr(self, node: ast.SchemaExpr) -> None:
        self.expr(node.name)
        self.optional(*node.args, *(keyword.value for keyword in node.keywords))
        self.config_expr(node.config)

    # ------------------------------------------------------------------ loops

    def comprehension(self, generators: list[ast.CompClause], body: Callable[[], None]) -> None:
        if not generators:
            body()
            return
        first = generators[0]
        self.expr(first.iter)
        self.unit.blocks.append({})
        try:
            for target in first.targets[:2]:
                self.declare(target.name, target)
            self.optional(*first.ifs)
            self.comprehension(generators[1:], body)
        finally:
            self.unit.blocks.pop()

    def list_comp(self, node: ast.ListCompExpr) -> None:
        item = node.elt
        value = item.value if isinstance(item, ast.StarredExpr) else item
        self.comprehension(node.generators, lambda: self.expr(value))

    def dict_comp(self, node: ast.DictCompExpr) -> None:
        entry = node.entry
        key = entry.key.value if isinstance(entry.key, ast.ParenExpr) else entry.key
        self.comprehension(node.generators, lambda: self.optional(key, entry.value))

    def quant_expr(self, node: ast.QuantExpr) -> None:
        self.expr(node.target)
        self.unit.blocks.append({})
        try:
            for variable in node.variables[:2]:
                self.declare(variable.name, variable)
            self.optional(node.cond, node.test)
        finally:
            self.unit.blocks.pop()

    # ------------------------------------------------------------------ lambdas

    def lambda_expr(self, node: ast.LambdaExpr) -> None:
        self.optional(*(param.default for param in node.params))
        for param in node.params:
            self.annotation(param.type)
        self.annotation(node.return_type)
        saved_unit, saved_keys = self.unit, self.config_keys
        self.unit, self.config_keys = CodeUnit(False, saved_unit), []
        try:
            for param in node.params:
                self.declare(param.name, param)
            self.lambda_stmts(node.body)
        finally:
            self.unit, self.config_keys = saved_unit, saved_keys

    def lambda_stmts(self, stmts: list[ast.Stmt]) -> None:
        for stmt in stmts:
            if isinstance(stmt, ast.ExprStmt):
                self.expr(stmt.expr)
            elif isinstance(stmt, ast.AssignStmt):
                self.expr(stmt.value)
                for target in stmt.targets:
                    self.lambda_target(target)
                self.annotation(stmt.type)
            elif isinstance(stmt, ast.AugAssignStmt):
                self.expr(stmt.value)
                self.lambda_target(stmt.target)
            elif isinstance(stmt, ast.IfStmt):
                self.expr(stmt.cond)
                self.lambda_stmts(stmt.body)
                self.lambda_stmts(stmt.orelse)
            elif isinstance(stmt, ast.AssertStmt):
                self.optional(stmt.cond, stmt.test, stmt.msg)

    def lambda_target(self, target: ast.Expr) -> None:
        """A lambda-local assignment: the root reads what it meant before (when the
        target has a path), and from here on is the local first assigned here."""
        root = target_root_node(target)
        if root is None:
            return
        self.expr(target)
        block = self.unit.blocks[0]
        if root.name not in block:
            block[root.name] = root.id


# ---------------------------------------------------------------------- entry point


def resolve_program(program: Program, model: Model | None = None) -> Model:
    """Fill ``model.resolution`` (a new model when none is given) for every package."""
    if model is None:
        model = Model()
    resolver = Resolver(model)
    try:
        for modules in program.packages.values():
            resolver.package(modules, program.imports_of)
    except RecursionError as error:  # beyond kclpy.depth's budget: say where
        model.diagnostics.append(make_error(Code.COMPILE_ERROR, TOO_DEEP, innermost_span(error)))
    return model


# ---------------------------------------------------------------------- syntactic facts


def unresolved_imports(stmt: ast.Stmt, table: dict[str, str]) -> dict[str, str]:
    """The imports of a top-level statement (an import, or those of an ``if``) the
    loader could not resolve (it reported them): their names still mean the import,
    which the checker declares all the same."""
    return {found.name: found.path for found in iter_imports([stmt]) if found.name not in table}


_IMPORTING = frozenset((ast.ImportStmt, ast.IfStmt))  # top-level statements with imports


def _parts(node: ast.Expr) -> tuple[ast.Expr | None, ...]:
    """The sub-expressions of the expressions resolved by ``Resolver.children``."""
    if isinstance(node, ast.BinaryExpr):
        return (node.left, node.right)
    if isinstance(node, (ast.SelectorExpr, ast.ParenExpr)):
        return (node.value,)
    if isinstance(node, ast.SubscriptExpr):
        return (node.value, node.index, node.lower, node.upper, node.step)
    if isinstance(node, ast.UnaryExpr):
        return (node.operand,)
    if isinstance(node, ast.CompareExpr):
        return (node.left, *node.comparators)
    if isinstance(node, ast.IfExpr):
        return (node.cond, node.body, node.orelse)
    return ()


# the method resolving each kind of expression
_DISPATCH: dict[type, Callable[[Resolver, Any], None]] = {
    ast.NameExpr: Resolver.name_expr,
    ast.ConstExpr: Resolver.leaf,
    ast.NumberExpr: Resolver.leaf,
    ast.StringExpr: Resolver.leaf,
    ast.JoinedStringExpr: Resolver.joined_string,
    ast.ParenExpr: Resolver.children,
    ast.SelectorExpr: Resolver.children,
    ast.SubscriptExpr: Resolver.children,
    ast.CallExpr: Resolver.call,
    ast.UnaryExpr: Resolver.children,
    ast.BinaryExpr: Resolver.children,
    ast.CompareExpr: Resolver.children,
    ast.IfExpr: Resolver.children,
    ast.AsExpr: Resolver.as_expr,
    ast.ListExpr: Resolver.list_expr,
    ast.ConfigExpr: Resolver.config_expr,
    ast.SchemaExpr: Resolver.schema_expr,
    ast.ListCompExpr: Resolver.list_comp,
    ast.DictCompExpr: Resolver.dict_comp,
    ast.QuantExpr: Resolver.quant_expr,
    ast.LambdaExpr: Resolver.lambda_expr,
    ast.StarredExpr: Resolver.leaf,
    ast.DoubleStarredExpr: Resolver.leaf,
    ast.ListIfItem: Resolver.leaf,
}
