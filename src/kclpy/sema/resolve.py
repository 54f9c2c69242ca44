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
the stage that meets it says so (the checker before running, else the compiler),
with suggestions from the declarations visible at the use, which the resolver lists
there (``Model.visible``: the locals of the enclosing units, the schema's members,
the keys of the enclosing config literals; likewise for an unknown type name and
for every name of a schema parameter's default, where a later parameter is not
defined yet for the checker). For editors (``Model.keep_scopes``) it also lists the
declarations of every region, a schema, lambda, comprehension, quantifier or config
literal (``Model.regions``), and makes a declaration for every config key.
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

from kclpy.depth import TOO_DEEP, innermost_span
from kclpy.diag import Code, make_error
from kclpy.loader import Program, iter_imports
from kclpy.sema.annotations import BASIC_TYPES
from kclpy.sema.bindings import Binding, BindingKind, TypeBinding, TypeKind
from kclpy.sema.builtins import BUILTIN_FUNCTIONS
from kclpy.sema.model import Model
from kclpy.sema.symbols import Declaration, DeclarationKind
from kclpy.syntax import ast
from kclpy.syntax.targets import (
    dotted_name,
    is_int_literal,
    key_path,
    target_parts,
    target_root_node,
    walk_setters,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


class CodeUnit:
    """A run-time scope being resolved: its blocks of declared names and its parent."""

    __slots__ = ("blocks", "depth", "in_schema", "parent")

    def __init__(self, in_schema: bool, parent: CodeUnit | None) -> None:
        self.parent = parent
        self.in_schema: bool = in_schema or (parent is not None and parent.in_schema)
        self.depth: int = parent.depth + 1 if parent is not None else 0
        # name -> its declaration; blocks[1:] are the loops being walked
        self.blocks: list[dict[str, Declaration]] = [{}]


# a config literal's (or one of its ``if`` blocks') keys as the checker sees them: the
# last key node of each name, until a read needs its declaration
KeyRegion = dict[str, "ast.Node | Declaration"]


class Resolver:
    """Walks the packages of a program in the compiler's order, recording bindings."""

    def __init__(self, model: Model) -> None:
        self.model = model
        self.resolution = model.resolution
        self.type_resolution = model.type_resolution
        self.declarations = model.declarations
        self.unit = CodeUnit(False, None)
        self.config_keys: list[set[str]] = []  # the run time's: reset in a lambda
        self.key_regions: list[KeyRegion] = []  # the checker's: one per literal and if block
        self.globals: set[str] = set()
        self.names: dict[str, Declaration] = {}  # the package's names
        self.members: dict[str, Declaration] = {}  # the schema's members (in a schema)
        self.imports: dict[str, str] = {}  # the names this module may import
        self.aliases: dict[str, ast.TypeNode] = {}  # the package's type aliases
        self._locals: dict[tuple[int, int], Binding] = {}  # shared by their uses
        # this module's bindings of names no unit declares (outside a schema, in it)
        self._outer: dict[str, Binding] = {}
        self._attributes: dict[str, Binding] = {}
        # type bindings by name: a dotted name's depend on this module's imports, a
        # plain name's on the package alone (shared by its files)
        self._types: dict[str, TypeBinding] = {}
        self._package_types: dict[str, TypeBinding] = {}
        self.recording = False  # list the visible declarations at every use
        # for editors: the regions of the package being resolved (Model.regions)
        self.regions: list[tuple[ast.Node, list[Declaration]]] | None = None

    # ------------------------------------------------------------------ packages

    def package(
        self, modules: list[ast.Module], imports_of: Callable[[ast.Module], Any], pkgpath: str
    ) -> None:
        self.globals = set()
        self.names = self.model.package_names(pkgpath)
        self.regions = (
            self.model.regions.setdefault(pkgpath, []) if self.model.keep_scopes else None
        )
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
        self._package_types = {}
        # the imports of one file are visible in the other files of its package (its
        # own win; among the others, the later file's)
        shared: dict[str, str] = {}
        for table in tables:
            shared.update(table)
        for module, table in zip(modules, tables, strict=True):
            self.imports = {**shared, **table}
            self._outer = {}
            self._attributes = {}
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
                    binding = self.resolution[target.id] = self.lookup(target.name)
                    if binding.undefined or self.recording:
                        self.model.visible[target.id] = self.visible()
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
            self.schema_attr(stmt)

    def schema_attr(self, stmt: ast.SchemaAttr) -> None:
        value = stmt.value
        if value is not None:
            _DISPATCH[type(value)](self, value)
        self.annotation(stmt.type)
        if stmt.op not in ("=", ""):  # `a |= v` reads the attribute
            self.bind(stmt, stmt.name)
        if stmt.decorators:  # (the checker reads their arguments)
            self.decorators(stmt.decorators)

    # ------------------------------------------------------------------ schemas

    def schema(self, stmt: ast.SchemaStmt | ast.RuleStmt) -> None:
        saved = self.unit
        self.unit = CodeUnit(True, None)
        self.members = self.schema_members(stmt)
        self._attributes = {}
        try:
            for param in stmt.params:
                self.declare(param.name, param, DeclarationKind.PARAMETER)
                self.annotation(param.type)
            self.recording = True  # (a later parameter is not defined in a default)
            try:
                self.optional(*(param.default for param in stmt.params))
            finally:
                self.recording = False
            self.references(stmt)
            if isinstance(stmt, ast.SchemaStmt):
                self.schema_body(stmt.body)
                signature = stmt.index_signature
                if signature is not None:  # after the body: the key is for the default
                    self.annotation(signature.key_type)
                    self.annotation(signature.value_type)
                    if signature.key_name:  # and the checks only
                        self.declare(signature.key_name, signature, DeclarationKind.INDEX_KEY)
                    self.optional(signature.value)
            for check in stmt.checks:
                self.optional(check.cond, check.test, check.msg)
            if self.regions is not None:
                declared = [*self.unit.blocks[0].values(), *self.members.values()]
                self.regions.append((stmt, declared))
        finally:
            self.unit = saved
            self.members = {}
            self._attributes = {}

    def schema_members(self, stmt: ast.SchemaStmt | ast.RuleStmt) -> dict[str, Declaration]:
        """The names a schema body sets and its index signature's key: what a read in
        the schema finds (the checker's symbol of it) before the run time looks at the
        instance (``ATTRIBUTE`` bindings)."""
        if not isinstance(stmt, ast.SchemaStmt):
            return {}
        assigned = self.model.schema_assigned[stmt.id] = first_left_identifiers(stmt.body)
        members = {name: Declaration(DeclarationKind.MEMBER, name) for name in assigned}
        signature = stmt.index_signature
        if signature is not None and signature.key_name and signature.key_name not in members:
            key = signature.key_name
            members[key] = Declaration(DeclarationKind.MEMBER, key)
        self.model.schema_members[stmt.id] = members
        return members

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
            if type(stmt) is ast.SchemaAttr:  # most statements of a schema body
                self.schema_attr(stmt)
            elif isinstance(stmt, ast.IfStmt):
                self.expr(stmt.cond)
                self.schema_body(stmt.body)
                self.schema_body(stmt.orelse)
            else:
                self.plain_stmt(stmt)

    # ------------------------------------------------------------------ names

    def declare(self, name: str, node: ast.Node, kind: str) -> None:
        """A local of the unit (in the innermost loop block being walked)."""
        declaration = Declaration(kind, name, node, self.unit.depth)
        self.unit.blocks[-1][name] = self.declarations[node.id] = declaration

    def bind(self, node: ast.Node, name: str) -> None:
        """Record the binding of a use of ``name`` at ``node``."""
        binding = self.resolution[node.id] = self.lookup(name)
        if binding.undefined or self.recording:
            self.model.visible[node.id] = self.visible()

    def visible(self) -> list[Declaration | str]:
        """The declarations visible here but the package's and the builtins: the
        locals of this unit and the enclosing ones, the schema's members, and the keys
        set so far in the enclosing config literals (by name)."""
        found: list[Declaration | str] = []
        unit: CodeUnit | None = self.unit
        while unit is not None:
            for block in unit.blocks:
                found.extend(block.values())
            unit = unit.parent
        found.extend(self.members.values())
        for region in self.key_regions:
            found.extend(region)
        return found

    def lookup(self, name: str) -> Binding:
        keys = self.config_keys
        if keys and any(name in block for block in keys):
            return self.config_key(name, self.static_lookup(name))
        return self.static_lookup(name)

    def static_lookup(self, name: str) -> Binding:
        """The binding of ``name`` but for the keys of enclosing config literals."""
        unit: CodeUnit | None = self.unit
        depth = 0
        while unit is not None:
            for block in reversed(unit.blocks):
                declaration = block.get(name)
                if declaration is not None:
                    return self.local(declaration, depth)
            unit = unit.parent
            depth += 1
        binding = self._outer.get(name)
        if binding is None:  # once per module (not worth sharing across modules)
            kind, pkgpath = self.outer(name)
            declaration = self.outer_declaration(name, kind)
            binding = Binding(kind, name, declaration, 0, pkgpath)
            self._outer[name] = binding
        if not self.unit.in_schema:
            return binding
        # in a schema: the instance's attribute of that name comes first
        attribute = self._attributes.get(name)
        if attribute is None:
            member = self.members.get(name)
            attribute = Binding(BindingKind.ATTRIBUTE, name, member, fallback=binding)
            self._attributes[name] = attribute
        return attribute

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

    def outer_declaration(self, name: str, kind: int) -> Declaration | None:
        """The package's (``GLOBAL``, ``IMPORT``) or the builtin declaration of a name."""
        if kind == BindingKind.GLOBAL or kind == BindingKind.IMPORT:
            return self.package_name(name)
        if kind == BindingKind.BUILTIN:
            return self.model.builtin_names.get(name)
        return None

    def package_name(self, name: str) -> Declaration:
        declaration = self.names.get(name)
        if declaration is None:
            declaration = self.names[name] = Declaration(DeclarationKind.PACKAGE, name)
        return declaration

    def local(self, declaration: Declaration, depth: int) -> Binding:
        """The one binding object of a local with these fields (its uses resolve alike)."""
        key = (id(declaration), depth)
        binding = self._locals.get(key)
        if binding is None:
            binding = Binding(BindingKind.LOCAL, declaration.name, declaration, depth)
            self._locals[key] = binding
        return binding

    def config_key(self, name: str, fallback: Binding) -> Binding:
        """A read of a key set earlier in an enclosing config literal: that key at run
        time; for the checker, the innermost key of that name it has walked, if any."""
        declaration: Declaration | None = None
        for region in reversed(self.key_regions):
            found = region.get(name)
            if found is None:
                continue
            if isinstance(found, Declaration):
                declaration = found
            else:  # the first read of the key: its declaration from now on
                declaration = Declaration(DeclarationKind.CONFIG_KEY, name, found)
                region[name] = self.declarations[found.id] = declaration
            break
        return Binding(BindingKind.CONFIG_KEY, name, declaration, fallback=fallback)

    def add_key(self, name: str, node: ast.Node) -> None:
        """The checker defines the key ``name`` at ``node`` in the innermost region
        (declared when first read, or at once for editors)."""
        region = self.key_regions[-1]
        found = region.get(name)
        if isinstance(found, Declaration):
            self.declarations[node.id] = found
        elif self.regions is None:
            region[name] = node
        else:
            declaration = Declaration(DeclarationKind.CONFIG_KEY, name, node)
            region[name] = self.declarations[node.id] = declaration

    # ------------------------------------------------------------------ type names

    def annotation(self, node: ast.TypeNode | None) -> None:
        """Bind every named type of an annotation (through lists, dicts, unions, functions)."""
        if type(node) is ast.NamedType:  # most annotations
            binding = self.type_resolution[node.id] = self.lookup_type(node.name)
            if binding.kind == TypeKind.UNKNOWN:
                self.model.visible[node.id] = self.visible()
        elif type(node) is ast.ListType:
            self.annotation(node.elem)
        elif type(node) is ast.DictType:
            self.annotation(node.key)
            self.annotation(node.value)
        elif type(node) is ast.UnionType:
            for member in node.types:
                self.annotation(member)
        elif type(node) is ast.FunctionType:
            for param in node.params:
                self.annotation(param)
            self.annotation(node.ret)

    def reference(self, node: ast.Expr) -> None:
        """Bind an expression naming a schema (``Base``, ``pkg.Base``) as a type name."""
        self.type_resolution[node.id] = self.lookup_type(dotted_name(node) or "?")

    def lookup_type(self, name: str) -> TypeBinding:
        table = self._types if "." in name else self._package_types
        binding = table.get(name)
        if binding is None:
            binding = table[name] = self.type_binding(name)
            if binding.kind != TypeKind.UNKNOWN:
                binding.declaration = self.package_name(name.partition(".")[0])
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
        binding = self.resolution[node.id] = self.lookup(node.name)
        if binding.undefined or self.recording:
            self.model.visible[node.id] = self.visible()

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
        self.key_regions.append({})
        try:
            self.config_entries(node.entries)
            if self.regions is not None:
                keys = self.key_regions[-1].values()
                self.regions.append((node, [key for key in keys if isinstance(key, Declaration)]))
        finally:
            self.config_keys.pop()
            self.key_regions.pop()

    def config_block(self, entries: Iterable[ast.ConfigEntry | ast.ConfigIfEntry]) -> None:
        """A literal's entries, or an ``if`` block's: the checker's region of keys (the
        run time's keys are the literal's, ``if`` blocks included)."""
        self.key_regions.append({})
        try:
            self.config_entries(entries)
        finally:
            self.key_regions.pop()

    def config_entries(self, entries: Iterable[ast.ConfigEntry | ast.ConfigIfEntry]) -> None:
        for entry in entries:
            if isinstance(entry, ast.ConfigIfEntry):
                self.config_if(entry)
            else:
                self.config_entry(entry)

    def config_if(self, entry: ast.ConfigIfEntry) -> None:
        self.expr(entry.cond)
        self.config_block(entry.entries)
        if isinstance(entry.orelse, ast.ConfigIfEntry):
            self.config_if(entry.orelse)
        elif entry.orelse is not None:
            self.config_block(entry.orelse)

    def config_entry(self, entry: ast.ConfigEntry) -> None:
        """Resolve an entry; a key's root name gets a binding only when it is a loop
        variable of this unit (the key is then the variable's value: ``{k = v}``), the
        list a list-index key indexes (``{l[0] = v}``: the checker reads it) or a loop
        variable of an enclosing unit (``KEY``: the literal name at run time)."""
        key = entry.key
        if type(key) is ast.NameExpr and self.unit.parent is None:  # most keys
            name = key.name
            if not self.is_loop_variable(name):
                self.expr(entry.value)
                self.config_keys[-1].add(name)
                self.add_key(name, key)
                return
        path = key_path(key) if key is not None else None
        if key is None or path is None:
            if isinstance(key, ast.SubscriptExpr) and is_int_literal(key.index):
                self.optional(key)
            elif key is not None:
                self.expr(key.value if isinstance(key, ast.ParenExpr) else key)
            self.expr(entry.value)
            return
        if isinstance(key, ast.StringExpr):
            self.expr(entry.value)
            self.config_keys[-1].add(path[0])
            self.add_key(path[0], key)
            return
        root = key
        while isinstance(root, ast.SelectorExpr):
            root = root.value
        if self.is_loop_variable(path[0]):
            self.expr(root)
            self.expr(entry.value)
        else:
            outer = self.outer_loop_variable(path[0]) if self.unit.parent is not None else None
            if outer is not None:
                self.resolution[root.id] = Binding(BindingKind.KEY, path[0], outer)
            self.expr(entry.value)
            self.config_keys[-1].add(path[0])
        self.add_key(path[0], root)

    def is_loop_variable(self, name: str) -> bool:
        blocks = self.unit.blocks
        if len(blocks) == 1:
            return False
        return any(name in block for block in blocks[1:])

    def outer_loop_variable(self, name: str) -> Declaration | None:
        """The loop variable ``name`` of a unit enclosing this one (innermost first)."""
        unit = self.unit.parent
        while unit is not None:
            for block in reversed(unit.blocks[1:]):
                found = block.get(name)
                if found is not None:
                    return found
            unit = unit.parent
        return None

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
                self.declare(target.name, target, DeclarationKind.LOOP_VARIABLE)
            self.optional(*first.ifs)
            self.comprehension(generators[1:], body)
        finally:
            self.unit.blocks.pop()

    def list_comp(self, node: ast.ListCompExpr) -> None:
        item = node.elt
        value = item.value if isinstance(item, ast.StarredExpr) else item
        self.comprehension(node.generators, lambda: self.expr(value))
        if self.regions is not None:
            self.loop_region(node, [t for g in node.generators for t in g.targets[:2]])

    def dict_comp(self, node: ast.DictCompExpr) -> None:
        entry = node.entry
        key = entry.key.value if isinstance(entry.key, ast.ParenExpr) else entry.key
        self.comprehension(node.generators, lambda: self.optional(key, entry.value))
        if self.regions is not None:
            self.loop_region(node, [t for g in node.generators for t in g.targets[:2]])

    def loop_region(self, node: ast.Node, variables: list[ast.NameExpr]) -> None:
        """For editors: a comprehension's or quantifier's loop variables."""
        assert self.regions is not None
        declarations = self.declarations
        self.regions.append((node, [declarations[v.id] for v in variables if v.id in declarations]))

    def quant_expr(self, node: ast.QuantExpr) -> None:
        self.expr(node.target)
        self.unit.blocks.append({})
        try:
            for variable in node.variables[:2]:
                self.declare(variable.name, variable, DeclarationKind.LOOP_VARIABLE)
            self.optional(node.cond, node.test)
        finally:
            self.unit.blocks.pop()
        if self.regions is not None:
            self.loop_region(node, node.variables[:2])

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
                self.declare(param.name, param, DeclarationKind.PARAMETER)
            self.lambda_stmts(node.body)
            if self.regions is not None:
                self.regions.append((node, list(self.unit.blocks[0].values())))
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
            kind = DeclarationKind.LAMBDA_LOCAL
            declaration = Declaration(kind, root.name, root, self.unit.depth)
            block[root.name] = self.declarations[root.id] = declaration


# ---------------------------------------------------------------------- entry point


def resolve_program(program: Program, model: Model | None = None) -> Model:
    """Fill ``model.resolution`` (a new model when none is given) for every package."""
    if model is None:
        model = Model()
    resolver = Resolver(model)
    try:
        for pkgpath, modules in program.packages.items():
            resolver.package(modules, program.imports_of, pkgpath)
    except RecursionError as error:  # beyond kclpy.depth's budget: say where
        model.diagnostics.append(make_error(Code.COMPILE_ERROR, TOO_DEEP, innermost_span(error)))
    return model


# ---------------------------------------------------------------------- syntactic facts


def unresolved_imports(stmt: ast.Stmt, table: dict[str, str]) -> dict[str, str]:
    """The imports of a top-level statement (an import, or those of an ``if``) the
    loader could not resolve (it reported them): their names still mean the import,
    which the checker declares all the same."""
    return {found.name: found.path for found in iter_imports([stmt]) if found.name not in table}


def schema_assigned(model: Model, stmt: ast.SchemaStmt) -> dict[str, ast.Node]:
    """Each name a schema body sets and the node first setting it, in order: what the
    resolver found for the schema (``Resolver.schema_members``), worked out once."""
    assigned = model.schema_assigned.get(stmt.id)
    if assigned is None:
        assigned = model.schema_assigned[stmt.id] = first_left_identifiers(stmt.body)
    return assigned


def first_left_identifiers(body: Iterable[ast.Stmt]) -> dict[str, ast.Node]:
    """``left_identifiers`` of a schema body, each name with the node first setting it."""
    assigned: dict[str, ast.Node] = {}
    for name, node in left_identifiers(body):
        assigned.setdefault(name, node)
    return assigned


def left_identifiers(body: Iterable[ast.Stmt]) -> list[tuple[str, ast.Node]]:
    """The names a schema body assigns or declares, in order (through ``if`` blocks)."""
    found: list[tuple[str, ast.Node]] = []
    for stmt in body:
        if type(stmt) is ast.SchemaAttr:  # most statements of a schema body
            found.append((stmt.name, stmt))
        elif isinstance(stmt, ast.UnificationStmt):
            found.append((stmt.target.name, stmt.target))
        elif isinstance(stmt, ast.AssignStmt):
            for target in stmt.targets:
                root, _ = target_parts(target)
                if root is not None:
                    found.append((root.name, root))
        elif isinstance(stmt, ast.AugAssignStmt):
            root, _ = target_parts(stmt.target)
            if root is not None:
                found.append((root.name, root))
        elif isinstance(stmt, ast.IfStmt):
            found.extend(left_identifiers(stmt.body))
            found.extend(left_identifiers(stmt.orelse))
    return found


_IMPORTING = frozenset((ast.ImportStmt, ast.IfStmt))  # top-level statements with imports


def _parts(node: ast.Expr) -> tuple[ast.Expr | None, ...]:
    """The sub-expressions of the expressions resolved by ``Resolver.children``."""
    parts = _PARTS.get(type(node))
    return parts(node) if parts is not None else ()


# the sub-expressions of each kind of expression ``Resolver.children`` resolves
_PARTS: dict[type, Callable[[Any], tuple[ast.Expr | None, ...]]] = {
    ast.BinaryExpr: lambda node: (node.left, node.right),
    ast.SelectorExpr: lambda node: (node.value,),
    ast.ParenExpr: lambda node: (node.value,),
    ast.SubscriptExpr: lambda node: (node.value, node.index, node.lower, node.upper, node.step),
    ast.UnaryExpr: lambda node: (node.operand,),
    ast.CompareExpr: lambda node: (node.left, *node.comparators),
    ast.IfExpr: lambda node: (node.cond, node.body, node.orelse),
}


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
