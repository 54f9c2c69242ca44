"""Expression code generation, shared by every kind of code unit.

A :class:`Unit` is the frame of a code unit: the package top level, a schema (its
parameters and the locals of its setters), or a lambda call. What a name means
was decided by the resolver (``sema.resolve``: one binding per name use, in the
Model); this module only turns each binding into its load instruction and gives
each declaration a slot of its unit. Type names likewise: each has its type
binding, which this module turns into a ``TypeRef`` (``compile.types``) or a
``NameRef``; the only table it reads is its own, the package's global slots.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from kclpy.compile.code import (
    FALLBACK_BUILTIN,
    FALLBACK_GLOBAL,
    FALLBACK_IMPORT,
    FALLBACK_UNDEFINED,
    Code,
    FunctionProto,
    NameRef,
    ParamSpec,
    TypeRef,
)
from kclpy.compile.emitter import Emitter
from kclpy.compile.opcodes import OPERATOR_INDEX, Op
from kclpy.compile.types import build_type, definition_ref, named_type_ref
from kclpy.diag import Code as DiagCode
from kclpy.diag import Diagnostic, make_error
from kclpy.sema.bindings import Binding, BindingKind, TypeBinding, TypeKind
from kclpy.source import SourceFile, Span
from kclpy.syntax import ast
from kclpy.syntax.targets import is_int_literal, key_path

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

# LOAD_NAME's fallback kind for each kind of binding (its operand's middle field)
_FALLBACK = {
    BindingKind.GLOBAL: FALLBACK_GLOBAL,
    BindingKind.IMPORT: FALLBACK_IMPORT,
    BindingKind.BUILTIN: FALLBACK_BUILTIN,
    BindingKind.UNDEFINED: FALLBACK_UNDEFINED,
}


class Unit:
    """The frame of locals of a code unit being compiled: the slot of each declaration.

    Declarations are keyed by the node id the resolver gave them (a parameter, a
    loop variable, a lambda local's first target); accumulators get anonymous slots.
    """

    __slots__ = ("nlocals", "parent", "slots")

    def __init__(self, parent: Unit | None) -> None:
        self.parent = parent
        self.nlocals = 0
        self.slots: dict[int, int] = {}

    def declare(self, node: ast.Node) -> int:
        index = self.slots[node.id] = self.new_local()
        return index

    def new_local(self) -> int:
        index = self.nlocals
        self.nlocals += 1
        return index


class PackageNames:
    """What the compiler of one file reads: the program's bindings of names and of
    type names, and the package's global slots."""

    __slots__ = ("bindings", "file", "slots", "type_bindings")

    def __init__(
        self,
        slots: dict[str, int],
        file: SourceFile,
        bindings: Mapping[int, Binding],
        type_bindings: Mapping[int, TypeBinding],
    ) -> None:
        self.slots = slots
        self.file = file
        self.bindings = bindings  # node id -> binding (sema.resolve)
        self.type_bindings = type_bindings  # node id -> type binding (sema.resolve)


# compiles a lambda's body for the expression compiler of the unit that creates it
LambdaCompiler = Callable[[ast.LambdaExpr, "ExprCompiler"], FunctionProto]


class Loop:
    """A loop being compiled: its variables' slots, the entry test's position and
    offset (patched with the exit), where the body starts, and the jumps that go on
    to the next iteration (patched with the backward test's offset)."""

    __slots__ = ("body", "continues", "entry", "position", "slots")

    def __init__(self, slots: list[int], position: tuple[int, int], entry: int, body: int) -> None:
        self.slots = slots
        self.position = position
        self.entry = entry
        self.body = body
        self.continues: list[int] = []


class ExprCompiler:
    """Compiles expressions into one ``Code`` for one unit; ``lambdas`` compiles the
    body of a lambda (statements: ``compile.stmts.compile_lambda``, handed in by the
    statement compiler, which builds every expression compiler)."""

    def __init__(
        self,
        code: Code,
        unit: Unit,
        names: PackageNames,
        diagnostics: list[Diagnostic],
        lambdas: LambdaCompiler,
    ) -> None:
        self.out = Emitter(code)
        self.unit = unit
        self.names = names
        self.diagnostics = diagnostics
        self.lambdas = lambdas
        # bare keys defined so far in each config literal being compiled (innermost last)
        self.config_keys: list[set[str]] = []

    # ------------------------------------------------------------------ helpers

    def error(self, code: DiagCode, message: str, span: Span) -> None:
        self.diagnostics.append(make_error(code, message, span))

    def at(self, node: ast.Node) -> None:
        self.out.position = (node.span.start, node.span.end)

    def type_binding(self, node: ast.Node, name: str) -> TypeBinding:
        """The resolver's binding of the type name written at ``node``."""
        binding = self.names.type_bindings.get(node.id)
        if binding is None:  # a bug: the resolver did not walk this type name
            self.error(DiagCode.INTERNAL_ERROR, f"internal error: '{name}' unresolved", node.span)
            return TypeBinding(TypeKind.UNKNOWN, name)
        return binding

    def named_type(self, node: ast.NamedType) -> NameRef | TypeRef | None:
        return named_type_ref(self.type_binding(node, node.name), self.names.slots, self.named_type)

    def reference(self, node: ast.Expr) -> NameRef:
        """The definition an expression names as a type (a parent, a mixin)."""
        return definition_ref(self.type_binding(node, "?"), self.names.slots)

    def type_ref(self, node: ast.TypeNode | None) -> TypeRef | None:
        return build_type(node, self.named_type)

    def unsupported(self, node: ast.Node) -> None:
        self.at(node)
        self.error(DiagCode.INVALID_SYNTAX, f"{type(node).__name__} is not allowed here", node.span)
        self.out.emit(Op.LOAD_UNDEFINED)

    # ------------------------------------------------------------------ dispatch

    def expr(self, node: ast.Expr) -> None:
        _DISPATCH[type(node)](self, node)

    def paren_expr(self, node: ast.ParenExpr) -> None:
        self.expr(node.value)

    def name_expr(self, node: ast.NameExpr) -> None:
        self.at(node)
        self.load_name(node, node.name)

    def load_name(self, node: ast.Node, name: str, span: Span | None = None) -> None:
        """Push the value of the name used at ``node``, as the resolver bound it: a key
        set earlier in an enclosing config literal (even over a local, as in the
        reference), else a local, else the schema's attribute, a global or a builtin.
        ``span`` (default: the node's) is where an undefined name is reported."""
        where = span or node.span
        found = self.names.bindings.get(node.id)
        binding = found.static() if found is not None else None
        index = self.local_slot(binding) if binding is not None else None
        if binding is None or (binding.kind == BindingKind.LOCAL and index is None):
            # a bug: the resolver did not walk this use, or saw another declaration
            self.error(DiagCode.INTERNAL_ERROR, f"internal error: '{name}' unresolved", where)
            self.out.emit(Op.LOAD_UNDEFINED)
            return
        out = self.out
        config_key = binding is not found
        jump = out.emit(Op.LOAD_CONFIG_KEY, 0) if config_key else -1
        kind = binding.kind
        if index is not None:
            if binding.depth == 0:
                out.emit(Op.LOAD_LOCAL, index)
            else:
                out.emit(Op.LOAD_DEREF, binding.depth << 16 | index)
        elif kind == BindingKind.ATTRIBUTE and binding.fallback is not None:
            fallback = binding.fallback
            out.emit(
                Op.LOAD_NAME, out.const((name, _FALLBACK[fallback.kind], self.operand(fallback)))
            )
        elif kind == BindingKind.UNDEFINED:
            if not config_key:
                self.error(DiagCode.COMPILE_ERROR, f"name '{name}' is not defined", where)
            out.name(name)
            out.emit(Op.LOAD_UNDEFINED)
        else:
            out.emit(_LOAD[kind], self.operand(binding))
        if jump >= 0:
            out.code.ops[jump + 1] = out.const((name, out.here()))

    def local_slot(self, binding: Binding) -> int | None:
        """The slot of a local binding's declaration in its unit (None: not a local)."""
        declaration = binding.declaration
        if binding.kind != BindingKind.LOCAL or declaration is None or declaration.node is None:
            return None
        unit: Unit | None = self.unit
        for _ in range(binding.depth):
            unit = unit.parent if unit is not None else None
        return unit.slots.get(declaration.node.id) if unit is not None else None

    def operand(self, binding: Binding) -> int:
        """The operand that finds a global, an import or a builtin (or names the name)."""
        kind = binding.kind
        if kind == BindingKind.GLOBAL:
            return self.names.slots[binding.name]
        if kind == BindingKind.IMPORT:
            return self.out.const(binding.pkgpath)
        return self.out.name(binding.name)

    def const_expr(self, node: ast.ConstExpr) -> None:
        self.at(node)
        value = node.value
        if value is True or value is False or value is None:
            self.load_value(value)
        else:
            self.out.emit(Op.LOAD_UNDEFINED)

    def number_expr(self, node: ast.NumberExpr) -> None:
        self.at(node)
        self.load_value(node.value, node.suffix)

    def literal_type_value(self, node: ast.LiteralType) -> None:
        """Push the value of a literal type (``"x"``, ``80``, ``1Ki``, ``True``)."""
        self.at(node)
        self.load_value(node.value, node.suffix)

    def load_value(self, value: object, suffix: str | None = None) -> None:
        """Push a literal: a number with a unit suffix, True/False/None, a constant."""
        out = self.out
        if suffix:
            out.emit(Op.LOAD_UNIT, out.const((value, suffix)))
        elif value is True:
            out.emit(Op.LOAD_TRUE)
        elif value is False:
            out.emit(Op.LOAD_FALSE)
        elif value is None:
            out.emit(Op.LOAD_NONE)
        else:
            out.emit(Op.LOAD_CONST, out.const(value))

    def string_expr(self, node: ast.StringExpr) -> None:
        self.at(node)
        self.out.emit(Op.LOAD_CONST, self.out.const(node.value))

    def joined_string(self, node: ast.JoinedStringExpr) -> None:
        out = self.out
        for part in node.parts:
            if isinstance(part, str):
                self.at(node)
                out.emit(Op.LOAD_CONST, out.const(part))
            else:
                self.expr(part.value)
                self.at(part)
                out.emit(Op.FORMAT_VALUE, out.const(part.format_spec))
        self.at(node)
        out.emit(Op.BUILD_STRING, len(node.parts))

    def selector(self, node: ast.SelectorExpr) -> None:
        self.expr(node.value)
        self.at(node)
        op = Op.GET_ATTR_OPT if node.optional else Op.GET_ATTR
        self.out.emit(op, self.out.name(node.attr))

    def optional_expr(self, node: ast.Expr | None) -> None:
        if node is None:
            self.out.emit(Op.LOAD_NONE)
        else:
            self.expr(node)

    def subscript(self, node: ast.SubscriptExpr) -> None:
        self.expr(node.value)
        if node.is_slice:
            self.optional_expr(node.lower)
            self.optional_expr(node.upper)
            self.optional_expr(node.step)
            self.at(node)
            self.out.emit(Op.SLICE)
            return
        self.optional_expr(node.index)
        self.at(node)
        self.out.emit(Op.GET_ITEM_OPT if node.optional else Op.GET_ITEM)

    def arguments(self, args: list[ast.Expr], keywords: list[ast.Keyword]) -> int:
        """Push call arguments; returns the CALL/SCHEMA_NEW operand."""
        for arg in args:
            self.expr(arg)
        for keyword in keywords:
            self.expr(keyword.value)
        count = len(args) + len(keywords)
        if not keywords:
            return count
        names = tuple(keyword.name for keyword in keywords)
        return count | (self.out.const(names) + 1) << 16

    def call(self, node: ast.CallExpr) -> None:
        func = node.func
        if isinstance(func, ast.SelectorExpr) and func.optional:
            # a?.f(x): None when a is None/Undefined, without calling
            self.expr(func.value)
            self.at(func)
            skip = self.out.emit(Op.JUMP_IF_NONE)
            self.out.emit(Op.GET_ATTR, self.out.name(func.attr))
            operand = self.arguments(node.args, node.keywords)
            self.at(node)
            self.out.emit(Op.CALL, operand)
            self.out.patch(skip)
            return
        self.expr(node.func)
        if any(isinstance(arg, (ast.StarredExpr, ast.DoubleStarredExpr)) for arg in node.args):
            self.call_ex(node)
            return
        operand = self.arguments(node.args, node.keywords)
        self.at(node)
        self.out.emit(Op.CALL, operand)

    def call_ex(self, node: ast.CallExpr) -> None:
        out = self.out
        out.emit(Op.BUILD_LIST, 0)
        for arg in node.args:
            if isinstance(arg, ast.StarredExpr):
                self.expr(arg.value)
                out.emit(Op.LIST_EXTEND)
            elif not isinstance(arg, ast.DoubleStarredExpr):
                self.expr(arg)
                out.emit(Op.LIST_APPEND)
        out.emit(Op.BUILD_CONFIG)
        for arg in node.args:
            if isinstance(arg, ast.DoubleStarredExpr):
                self.expr(arg.value)
                out.emit(Op.CONFIG_UNPACK)
        for keyword in node.keywords:
            self.expr(keyword.value)
            out.emit(Op.CONFIG_ENTRY, out.const(((keyword.name,), "=")))
        out.emit(Op.CONFIG_END)
        self.at(node)
        out.emit(Op.CALL_EX)

    def unary(self, node: ast.UnaryExpr) -> None:
        self.expr(node.operand)
        self.at(node)
        op = node.op if node.op in ("not", "~") else "u" + node.op
        self.out.emit(Op.UNARY, OPERATOR_INDEX[op])

    def binary(self, node: ast.BinaryExpr) -> None:
        out = self.out
        self.expr(node.left)
        if node.op in ("and", "or"):
            self.at(node)
            jump = out.emit(Op.JUMP_IF_FALSE_OR_POP if node.op == "and" else Op.JUMP_IF_TRUE_OR_POP)
            self.expr(node.right)
            out.patch(jump)
            return
        self.expr(node.right)
        self.at(node)
        out.emit(Op.BINARY, OPERATOR_INDEX[node.op])

    def compare(self, node: ast.CompareExpr) -> None:
        out = self.out
        self.expr(node.left)
        last = len(node.ops) - 1
        cleanups: list[int] = []
        for index, (op, right) in enumerate(zip(node.ops, node.comparators, strict=True)):
            self.expr(right)
            self.at(node)
            if index < last:
                out.emit(Op.DUP)
                out.emit(Op.ROT3)
                out.emit(Op.COMPARE, OPERATOR_INDEX[op])
                cleanups.append(out.emit(Op.JUMP_IF_FALSE_OR_POP))
            else:
                out.emit(Op.COMPARE, OPERATOR_INDEX[op])
        if cleanups:
            end = out.emit(Op.JUMP)
            for pc in cleanups:
                out.patch(pc)
            out.emit(Op.SWAP)
            out.emit(Op.POP)
            out.patch(end)

    def if_expr(self, node: ast.IfExpr) -> None:
        out = self.out
        self.expr(node.cond)
        self.at(node)
        skip = out.emit(Op.JUMP_IF_FALSE)
        self.expr(node.body)
        end = out.emit(Op.JUMP)
        out.patch(skip)
        self.expr(node.orelse)
        out.patch(end)

    def as_expr(self, node: ast.AsExpr) -> None:
        self.expr(node.value)
        self.at(node)
        self.out.emit(Op.AS_TYPE, self.out.const(self.type_ref(node.type)))

    # ------------------------------------------------------------------ lists

    def list_expr(self, node: ast.ListExpr) -> None:
        out = self.out
        items = node.items
        values = ast.plain_literals(items) if len(items) > 1 else None
        if values is not None:
            self.at(node)
            out.emit(Op.LIST_CONST, out.const(values))
            return
        if all(type(item) not in _LIST_SPECIAL for item in items):
            for item in node.items:
                self.expr(item)
            self.at(node)
            out.emit(Op.BUILD_LIST, len(node.items))
            return
        self.at(node)
        out.emit(Op.BUILD_LIST, 0)
        self.list_items(node.items)

    def list_items(self, items: list[ast.Expr]) -> None:
        out = self.out
        for item in items:
            if isinstance(item, ast.StarredExpr):
                self.expr(item.value)
                self.at(item)
                out.emit(Op.LIST_EXTEND)
            elif isinstance(item, ast.ListIfItem):
                self.list_if(item)
            else:
                self.expr(item)
                self.at(item)
                out.emit(Op.LIST_APPEND)

    def list_if(self, item: ast.ListIfItem) -> None:
        out = self.out
        self.expr(item.cond)
        self.at(item)
        skip = out.emit(Op.JUMP_IF_FALSE)
        self.list_items(item.items)
        if item.orelse is None:
            out.patch(skip)
            return
        end = out.emit(Op.JUMP)
        out.patch(skip)
        if isinstance(item.orelse, ast.ListIfItem):
            self.list_if(item.orelse)
        else:
            self.list_items(item.orelse)
        out.patch(end)

    # ------------------------------------------------------------------ configs

    def config_expr(self, node: ast.ConfigExpr) -> None:
        self.at(node)
        template = self.config_template(node)
        if template is not None:
            self.out.emit(Op.CONFIG_CONST, self.out.unshared(template))
            if self.config_keys:
                self.config_keys[-1].update(key for key, _ in template[0])
            return
        self.out.emit(Op.BUILD_CONFIG)
        self.config_keys.append(set())
        try:
            self.config_entries(node.entries)
        finally:
            self.config_keys.pop()
        self.at(node)
        self.out.emit(Op.CONFIG_END)

    def config_template(self, node: ast.ConfigExpr) -> tuple[Any, ...] | None:
        """The CONFIG_CONST template of a literal whose entries are all ``name = c`` or
        ``name: c`` (distinct plain names, ``c`` a plain literal or such a literal),
        else None: ``(pairs, ops, nested)`` as the entries would build it: the (key,
        constant) pairs in order (a nested literal's holds None, replaced by its own
        build), the (key, operator text) pairs, the (key, template) of nested literals."""
        pairs: list[tuple[str, Any]] = []
        ops: dict[str, str] = {}
        nested: list[tuple[str, tuple[Any, ...]]] = []
        for entry in node.entries:
            if not isinstance(entry, ast.ConfigEntry) or entry.op not in _CONST_ENTRY_OPS:
                return None
            key = entry.key
            if type(key) is not ast.NameExpr or key.name in ops or self.is_loop_variable(key):
                return None
            value: Any = entry.value
            if type(value) is ast.ConfigExpr:
                inner = self.config_template(value)
                if inner is None:
                    return None
                nested.append((key.name, inner))
                value = None
            else:
                value = ast.plain_literal(value)
                if value is ast.NOT_LITERAL:
                    return None
            pairs.append((key.name, value))
            ops[key.name] = entry.op
        return tuple(pairs), tuple(ops.items()), tuple(nested)

    def config_entries(self, entries: list[ast.ConfigEntry | ast.ConfigIfEntry]) -> None:
        for entry in entries:
            if isinstance(entry, ast.ConfigIfEntry):
                self.config_if(entry)
            else:
                self.config_entry(entry)

    def config_if(self, entry: ast.ConfigIfEntry) -> None:
        out = self.out
        self.expr(entry.cond)
        self.at(entry)
        skip = out.emit(Op.JUMP_IF_FALSE)
        self.config_entries(entry.entries)
        if entry.orelse is None:
            out.patch(skip)
            return
        end = out.emit(Op.JUMP)
        out.patch(skip)
        if isinstance(entry.orelse, ast.ConfigIfEntry):
            self.config_if(entry.orelse)
        else:
            self.config_entries(entry.orelse)
        out.patch(end)

    def config_entry(self, entry: ast.ConfigEntry) -> None:
        out = self.out
        key = entry.key
        if key is None:
            self.expr(entry.value)
            self.at(entry)
            out.emit(Op.CONFIG_UNPACK)
            return
        path = key_path(key)
        if path is not None and not isinstance(key, ast.StringExpr) and self.is_loop_variable(key):
            self.loop_variable_entry(entry, path)
            return
        if path is not None:
            self.expr(entry.value)
            self.at(entry)
            out.emit(Op.CONFIG_ENTRY, out.const((path, entry.op)))
            if self.config_keys:
                self.config_keys[-1].add(path[0])
            return
        if (
            isinstance(key, ast.SubscriptExpr)
            and key.index is not None
            and is_int_literal(key.index)
        ):
            inner = key_path(key.value)
            if inner is not None:
                self.expr(key.index)
                self.expr(entry.value)
                self.at(entry)
                out.emit(Op.CONFIG_ENTRY_INDEX, out.const((inner, entry.op)))
                return
        self.expr(key.value if isinstance(key, ast.ParenExpr) else key)
        self.expr(entry.value)
        self.at(entry)
        out.emit(Op.CONFIG_ENTRY_DYN, OPERATOR_INDEX[entry.op])

    def is_loop_variable(self, key: ast.Expr) -> bool:
        """Whether the root name of a key is a variable of an enclosing comprehension or
        quantifier (the resolver binds a key's root only then)."""
        while isinstance(key, ast.SelectorExpr):
            key = key.value
        binding = self.names.bindings.get(key.id)
        return binding is not None and binding.kind != BindingKind.KEY

    def loop_variable_entry(self, entry: ast.ConfigEntry, path: tuple[str, ...]) -> None:
        """``k = v`` / ``k.b = v`` where ``k`` is a comprehension variable: the key is
        the variable's value, as in the reference (``[{k = v} for k, v in d]``)."""
        out = self.out
        root = entry.key
        while isinstance(root, ast.SelectorExpr):
            root = root.value
        assert root is not None
        self.expr(root)
        if len(path) == 1:
            self.expr(entry.value)
            self.at(entry)
            out.emit(Op.CONFIG_ENTRY_DYN, OPERATOR_INDEX[entry.op])
            return
        self.at(entry)
        out.emit(Op.BUILD_CONFIG)
        self.expr(entry.value)
        self.at(entry)
        out.emit(Op.CONFIG_ENTRY, out.const((path[1:], entry.op)))
        out.emit(Op.CONFIG_END)
        out.emit(Op.CONFIG_ENTRY_DYN, OPERATOR_INDEX[":"])

    def schema_expr(self, node: ast.SchemaExpr) -> None:
        self.expr(node.name)
        operand = self.arguments(node.args, node.keywords)
        self.config_expr(node.config)
        self.at(node)
        self.out.emit(Op.SCHEMA_NEW, operand)

    # ------------------------------------------------------------------ comprehensions

    def loop_targets(self, targets: list[ast.NameExpr]) -> list[int]:
        if len(targets) > 2:
            self.error(
                DiagCode.COMPILE_ERROR,
                f"the number of loop variables is {len(targets)}, which can only be 1 or 2",
                targets[0].span,
            )
        return [self.unit.declare(target) for target in targets[:2]]

    def begin_loop(self, iterable: ast.Expr, targets: list[ast.NameExpr]) -> Loop:
        """Emit GET_ITER, the loop's entry test and the loop variables' stores."""
        self.expr(iterable)
        slots = self.loop_targets(targets)
        self.at(iterable)
        self.out.emit(Op.GET_ITER, len(slots))
        return self.enter_loop(slots)

    def enter_loop(self, slots: list[int]) -> Loop:
        """The entry test: FOR_ITER (then the stores) or FOR_ITER_LOCAL, which stores
        one variable itself. The loop is rotated: each iteration ends with the
        matching backward test (``end_loop``), so no jump goes back to this one."""
        out = self.out
        position = out.position
        if len(slots) == 1:
            return Loop(slots, position, out.emit(Op.FOR_ITER_LOCAL, slots[0] << 32), out.here())
        entry = out.emit(Op.FOR_ITER)
        body = out.here()
        for slot in reversed(slots):
            out.emit(Op.STORE_LOCAL, slot)
        return Loop(slots, position, entry, body)

    def end_loop(self, loop: Loop) -> None:
        """The backward test that ends each iteration; the ``continues`` jump to it
        and the entry test's exit to just after it."""
        out = self.out
        for pc in loop.continues:
            out.patch(pc)
        out.position = loop.position  # where the entry test is, for a failing iteration
        if len(loop.slots) == 1:
            out.emit(Op.FOR_ITER_LOCAL_BACK, loop.slots[0] << 32 | loop.body)
        else:
            out.emit(Op.FOR_ITER_BACK, loop.body)
        out.patch(loop.entry)

    def comprehension(self, generators: list[ast.CompClause], body: Callable[[], None]) -> None:
        if not generators:
            body()
            return
        first, rest = generators[0], generators[1:]
        loop = self.begin_loop(first.iter, first.targets)
        for condition in first.ifs:
            self.expr(condition)
            loop.continues.append(self.out.emit(Op.JUMP_IF_FALSE))
        self.comprehension(rest, body)
        self.end_loop(loop)

    def list_comp(self, node: ast.ListCompExpr) -> None:
        out = self.out
        accumulator = self.unit.new_local()
        self.at(node)
        out.emit(Op.BUILD_LIST, 0)
        out.emit(Op.STORE_LOCAL, accumulator)

        def body() -> None:
            item = node.elt
            if isinstance(item, ast.StarredExpr):
                out.emit(Op.LOAD_LOCAL, accumulator)
                self.expr(item.value)
                out.emit(Op.LIST_EXTEND)
                out.emit(Op.POP)
            else:
                self.expr(item)
                out.emit(Op.APPEND_LOCAL, accumulator)

        self.comprehension(node.generators, body)
        out.emit(Op.LOAD_LOCAL, accumulator)

    def dict_comp(self, node: ast.DictCompExpr) -> None:
        out = self.out
        accumulator = self.unit.new_local()
        self.at(node)
        out.emit(Op.BUILD_CONFIG)
        out.emit(Op.CONFIG_END)
        out.emit(Op.STORE_LOCAL, accumulator)

        def body() -> None:
            out.emit(Op.LOAD_LOCAL, accumulator)
            entry = node.entry
            if entry.key is None:
                self.expr(entry.value)
                out.emit(Op.CONFIG_UNPACK)
            else:
                key = entry.key.value if isinstance(entry.key, ast.ParenExpr) else entry.key
                self.expr(key)
                self.expr(entry.value)
                self.at(entry)
                out.emit(Op.CONFIG_ENTRY_DYN, OPERATOR_INDEX[entry.op])
            out.emit(Op.POP)

        self.comprehension(node.generators, body)
        out.emit(Op.LOAD_LOCAL, accumulator)

    def quant_expr(self, node: ast.QuantExpr) -> None:
        out = self.out
        op = node.op
        result = self.unit.new_local()
        target = self.unit.new_local()
        self.expr(node.target)
        self.at(node)
        out.emit(Op.STORE_LOCAL, target)
        if op == "all":
            out.emit(Op.LOAD_TRUE)
        elif op == "any":
            out.emit(Op.LOAD_FALSE)
        elif op == "map":
            out.emit(Op.BUILD_LIST, 0)
        else:
            out.emit(Op.LOAD_LOCAL, target)
            out.emit(Op.FILTER_NEW)
        out.emit(Op.STORE_LOCAL, result)
        slots = self.loop_targets(node.variables)
        out.emit(Op.LOAD_LOCAL, target)
        out.emit(Op.GET_ITER, len(slots))
        loop = self.enter_loop(slots)
        if node.cond is not None:
            self.expr(node.cond)
            loop.continues.append(out.emit(Op.JUMP_IF_FALSE))
        self.expr(node.test)
        self.at(node)
        breaks: list[int] = []
        if op in ("all", "any"):
            loop.continues.append(out.emit(Op.JUMP_IF_TRUE if op == "all" else Op.JUMP_IF_FALSE))
            out.emit(Op.LOAD_FALSE if op == "all" else Op.LOAD_TRUE)
            out.emit(Op.STORE_LOCAL, result)
            out.emit(Op.POP)  # the iterator
            breaks.append(out.emit(Op.JUMP))
        elif op == "map":
            out.emit(Op.APPEND_LOCAL, result)
        else:
            loop.continues.append(out.emit(Op.JUMP_IF_FALSE))
            out.emit(Op.LOAD_LOCAL, result)
            out.emit(Op.LOAD_LOCAL, target)
            out.emit(Op.LOAD_LOCAL, slots[0])
            out.emit(Op.LOAD_LOCAL, slots[-1])
            out.emit(Op.FILTER_ADD)
            out.emit(Op.POP)
        self.end_loop(loop)
        for pc in breaks:
            out.patch(pc)
        out.emit(Op.LOAD_LOCAL, result)
        if op == "filter":
            out.emit(Op.LOAD_LOCAL, target)
            out.emit(Op.FILTER_END)

    # ------------------------------------------------------------------ lambdas

    def lambda_expr(self, node: ast.LambdaExpr) -> None:
        out = self.out
        defaults = 0
        for param in node.params:
            if param.default is not None:
                self.expr(param.default)
                defaults += 1
        proto = self.lambdas(node, self)
        self.at(node)
        out.emit(Op.MAKE_FUNCTION, out.const(proto) | defaults << 16)

    def params(self, params: list[ast.Param], unit: Unit) -> list[ParamSpec]:
        specs: list[ParamSpec] = []
        seen_default = False
        for param in params:
            if param.default is not None:
                seen_default = True
            elif seen_default:
                self.error(
                    DiagCode.ILLEGAL_PARAMETER_ERROR,
                    "non-default argument follows default argument",
                    param.span,
                )
            unit.declare(param)
            specs.append(
                ParamSpec(param.name, self.type_ref(param.type), param.default is not None)
            )
        return specs


# the instruction loading each kind of static binding
_LOAD = {
    BindingKind.GLOBAL: Op.LOAD_GLOBAL,
    BindingKind.IMPORT: Op.LOAD_IMPORT,
    BindingKind.BUILTIN: Op.LOAD_BUILTIN,
}

# the method compiling each kind of expression, shared by every ExprCompiler
_DISPATCH: dict[type, Callable[[ExprCompiler, Any], None]] = {
    ast.NameExpr: ExprCompiler.name_expr,
    ast.ConstExpr: ExprCompiler.const_expr,
    ast.NumberExpr: ExprCompiler.number_expr,
    ast.StringExpr: ExprCompiler.string_expr,
    ast.JoinedStringExpr: ExprCompiler.joined_string,
    ast.ParenExpr: ExprCompiler.paren_expr,
    ast.SelectorExpr: ExprCompiler.selector,
    ast.SubscriptExpr: ExprCompiler.subscript,
    ast.CallExpr: ExprCompiler.call,
    ast.UnaryExpr: ExprCompiler.unary,
    ast.BinaryExpr: ExprCompiler.binary,
    ast.CompareExpr: ExprCompiler.compare,
    ast.IfExpr: ExprCompiler.if_expr,
    ast.AsExpr: ExprCompiler.as_expr,
    ast.ListExpr: ExprCompiler.list_expr,
    ast.ConfigExpr: ExprCompiler.config_expr,
    ast.SchemaExpr: ExprCompiler.schema_expr,
    ast.ListCompExpr: ExprCompiler.list_comp,
    ast.DictCompExpr: ExprCompiler.dict_comp,
    ast.QuantExpr: ExprCompiler.quant_expr,
    ast.LambdaExpr: ExprCompiler.lambda_expr,
    ast.StarredExpr: ExprCompiler.unsupported,
    ast.DoubleStarredExpr: ExprCompiler.unsupported,
    ast.ListIfItem: ExprCompiler.unsupported,
}


_LIST_SPECIAL = (ast.StarredExpr, ast.ListIfItem)
# the entry operators a CONFIG_CONST template folds (distinct keys: recorded as written)
_CONST_ENTRY_OPS = frozenset({"=", ":"})
