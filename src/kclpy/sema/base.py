"""The checking context: the state every part of the checker shares, and its services.

:class:`CheckContext` holds the program, the :class:`Model` (types, bindings,
diagnostics, the resolver's bindings and declarations), the current package and
schema, the expected-type stack and the facts the declaration passes leave for the
walk (merged unifications, top-level lambda signatures). It reports diagnostics,
defines and binds names, and maps a name use to its symbol
(:meth:`CheckContext.symbol_of`). Nothing here walks the tree: the parts (``exprs``,
``config``, ``calls``, ``names``, ``stmts``, ``declare``...) do, each holding this
context; ``checker.Checker`` builds and connects them.

The checker keeps no scopes of its own: the resolver (``sema.resolve``) decides
what every name use refers to and makes the declarations (``sema.bindings``); the
checker decorates them with its symbols as it reaches them and reads them back.
:meth:`CheckContext.define` decorates the current table of names (the package's
names at the top level, the schema's members in a schema body: ``names``),
:meth:`CheckContext.declare` the declaration a node makes (a parameter, a loop
variable, a lambda local, the index signature's key, a config key). A read's symbol
is its binding's declaration's; a store's (:meth:`CheckContext.stored_symbol`) the
declaration it makes or else the one its binding points at. A declaration the
checker has not reached yet (a schema parameter in another parameter's default) has
no symbol: the name is not defined there, as for the reference. Suggestions for an
undefined name come from the declarations the resolver saw visible at the use
(``Model.visible``) that the checker has reached.
"""

from __future__ import annotations

from kclpy.diag import Code, Diagnostic, Label
from kclpy.loader import Program
from kclpy.sema.bindings import BindingKind
from kclpy.sema.model import Model
from kclpy.sema.symbols import MAIN, Declaration, DeclarationKind, SchemaInfo, Symbol
from kclpy.sema.types import Type
from kclpy.source import Span
from kclpy.syntax import ast


class Expect:
    """An entry of the expected-type stack: the type a config value must have, and
    where that expectation comes from (an attribute declaration), if known."""

    __slots__ = ("from_signature", "span", "type")

    def __init__(self, type: Type, span: Span | None = None, from_signature: bool = False) -> None:
        self.type = type
        self.span = span
        self.from_signature = from_signature


class SchemaContext:
    """The schema whose body is being checked, with types inferred for its
    untyped body assignments (which are not attributes of the schema type)."""

    __slots__ = ("info", "local_types")

    def __init__(self, info: SchemaInfo) -> None:
        self.info = info
        self.local_types: dict[str, Type] = {}

    def attr_type(self, name: str) -> Type | None:
        local = self.local_types.get(name)
        if local is not None:
            return local
        symbol = self.info.get_attr(name)
        return symbol.type if symbol is not None else None


def is_private(name: str) -> bool:
    return name.startswith("_")


class CheckContext:
    """State and services shared by every part of the checker."""

    def __init__(self, program: Program, model: Model) -> None:
        self.program = program
        self.model = model
        self.diagnostics: list[Diagnostic] = model.diagnostics
        # the declarations ``define`` decorates: the package's names, a schema's
        # members, None inside a lambda, a loop or a config (their declarations are
        # decorated by node, ``declare``)
        self.names: dict[str, Declaration] | None = None
        self.nesting = 0  # how many schemas, lambdas, loops and configs enclose the walk
        self.stored: Symbol | None = None  # the symbol the last store target names
        self.pkgpath = MAIN
        self.schema: SchemaContext | None = None
        self.l_value = False
        self.expect_stack: list[Expect | None] = []
        # the current package's global names, where first assigned (statements, names)
        self.global_names: dict[str, Span] = {}
        self.suppress = 0
        self.types = model.types
        self.completed = model.completed
        self.tool_facts = model.tool_facts
        self.resolution = model.resolution
        self.type_resolution = model.type_resolution
        self.declarations = model.declarations

    # ------------------------------------------------------------------ diagnostics

    def report(self, code: Code, message: str, span: Span | None, *extra: Label) -> None:
        """Record an error (unless inside a region the reference does not check)."""
        if self.suppress:
            return
        labels = [Label(span, message), *extra]
        self.diagnostics.append(Diagnostic(code, message, labels))

    def type_error(self, message: str, span: Span | None, *extra: Label) -> None:
        self.report(Code.TYPE_ERROR, message, span, *extra)

    def compile_error(self, message: str, span: Span | None, *extra: Label) -> None:
        self.report(Code.COMPILE_ERROR, message, span, *extra)

    # ------------------------------------------------------------------ regions

    def enter(self, names: dict[str, Declaration] | None = None) -> dict[str, Declaration] | None:
        """Enter a schema body (``names``: its members, none decorated yet in this walk),
        a lambda, a loop or a config; returns what ``leave`` restores."""
        saved = self.names
        if names is not None:
            for member in names.values():
                member.symbol = None
        self.names = names
        self.nesting += 1
        return saved

    def leave(self, saved: dict[str, Declaration] | None) -> None:
        self.names = saved
        self.nesting -= 1

    def package_names(self, pkgpath: str) -> dict[str, Declaration]:
        """The declarations of a package's names (those the checker reached decorated)."""
        return self.model.package_names(pkgpath)

    def package_symbol(self, name: str) -> Symbol | None:
        """The symbol the current package defines ``name`` as, if it defined it yet."""
        declaration = self.model.package_names(self.pkgpath).get(name)
        return declaration.symbol if declaration is not None else None

    def define(
        self,
        name: str,
        kind: str,
        type: Type,
        span: Span | None,
        node: ast.Node | None = None,
    ) -> Symbol:
        """A new symbol; in a package or a schema body, the declaration of the name
        there takes it (replacing the one it had)."""
        symbol = Symbol(name, kind, type, span, self.pkgpath, node)
        names = self.names
        if names is not None:
            declaration = names.get(name)
            if self.nesting:  # a schema's member
                if declaration is not None:
                    declaration.symbol = symbol
            elif declaration is None:  # a package name only the checker defines
                names[name] = declaration = Declaration(DeclarationKind.PACKAGE, name)
                declaration.symbol = symbol
            else:
                if declaration.symbol is None:  # the package's names in definition order
                    del names[name]
                    names[name] = declaration
                declaration.symbol = symbol
        return symbol

    def bind(self, node: ast.Node, symbol: Symbol | None) -> None:
        """Complete the use ``node`` (for tools): it refers to ``symbol``. Only what its
        binding does not say is recorded (``Model.completed``): the checker's symbol of
        an attribute selection, a config key, a type name, or of a name it found
        elsewhere than its binding's declaration."""
        if symbol is None or not self.tool_facts:
            return
        key = node.id
        if self.model.resolved_symbol(node) is not symbol:
            self.completed[key] = symbol
        elif key in self.completed:
            del self.completed[key]

    def defines(self, node: ast.Node, symbol: Symbol) -> None:
        """Record (for tools) that the statement ``node`` defines ``symbol`` (a schema,
        an attribute, an import, a type alias)."""
        if self.tool_facts:
            self.completed[node.id] = symbol

    def is_bound(self, node: ast.Node) -> bool:
        """Whether the use ``node`` refers to something already: a binding of the
        resolver's, or one the checker completed."""
        key = node.id
        return key in self.resolution or key in self.completed

    # ------------------------------------------------------------------ name reads

    def declare(self, node: ast.Node, symbol: Symbol) -> Symbol:
        """Decorate the declaration ``node`` makes (a parameter, a loop variable, a
        lambda local, the index signature's key, a config key) with ``symbol``."""
        declaration = self.declarations.get(node.id)
        if declaration is not None:
            declaration.symbol = symbol
        if node.id in self.resolution:  # a lambda local's first assignment reads before
            self.bind(node, symbol)
        return symbol

    def symbol_of(self, node: ast.Node, name: str) -> Symbol | None:
        """The symbol a read of ``name`` at ``node`` refers to: its binding's (see the
        module docstring); None when undefined, or not reached yet by the checker."""
        binding = self.resolution.get(node.id)
        if binding is None:  # every read has a binding (``sema.resolve``)
            raise AssertionError(f"the name {name!r} read here has no binding")
        return binding.symbol()

    def stored_symbol(self, node: ast.Node) -> Symbol | None:
        """The symbol a store to the name at ``node`` sets, as far as the checker has
        reached: the declaration the store makes (a lambda local's first assignment),
        else the one its binding points at (a package name, a schema member, a local)."""
        declaration = self.declarations.get(node.id)
        if declaration is None:
            binding = self.resolution.get(node.id)
            declaration = binding.declaration if binding is not None else None
        return declaration.symbol if declaration is not None else None

    def reads_loop_variable(self, node: ast.Node) -> bool:
        """Whether the name at ``node`` reads a comprehension or quantifier variable
        (a config key in a lambda in the comprehension included)."""
        binding = self.resolution.get(node.id)
        if binding is None:
            return False
        binding = binding.static()
        if binding.kind == BindingKind.KEY:
            return True
        declaration = binding.declaration
        return (
            binding.kind == BindingKind.LOCAL
            and declaration is not None
            and declaration.kind == DeclarationKind.LOOP_VARIABLE
        )

    def type_symbol(self, node: ast.NamedType) -> Symbol | None:
        """The symbol of the first name of a type name (``k8s`` of ``k8s.Deployment``),
        from the type binding: the import's module symbol, the package's definition or
        alias; None when the name denotes nothing."""
        binding = self.type_resolution.get(node.id)
        declaration = binding.declaration if binding is not None else None
        return declaration.symbol if declaration is not None else None

    def report_undefined(self, name: str, node: ast.Node) -> None:
        """``name 'x' is not defined``, with the close names visible here as suggestions
        (not for the empty name: the parser's placeholder, a syntax error already)."""
        if not name:
            return
        if self.tool_facts:  # (a later declaration of the name is not this use's)
            self.completed[node.id] = None
        hint = suggestion_text(name, self.visible_names(node))
        self.compile_error(f"name '{name}' is not defined{hint}", node.span)

    def visible_names(self, node: ast.Node) -> list[str]:
        """The names visible at the use ``node`` that the checker has defined: the
        declarations the resolver saw around it (``Model.visible``: locals, schema
        members, config keys), the package's and the builtins."""
        names: list[str] = []
        for item in self.model.visible.get(node.id, ()):
            if isinstance(item, str):
                names.append(item)
            elif item.symbol is not None:
                names.append(item.name)
        for table in (self.model.package_names(self.pkgpath), self.model.builtin_names):
            names.extend(name for name, found in table.items() if found.symbol is not None)
        return list(dict.fromkeys(names))

    # ------------------------------------------------------------------ global names

    def globals_of_package(self) -> dict[str, Span]:
        return self.global_names

    # ------------------------------------------------------------------ expected types

    def push_expect(self, expect: Expect | None) -> int:
        self.expect_stack.append(expect)
        return 1

    def pop_expect(self, depth: int) -> None:
        if depth:
            stack = self.expect_stack
            del stack[max(len(stack) - depth, 0) :]

    def top_expect(self) -> Expect | None:
        return self.expect_stack[-1] if self.expect_stack else None


def close_names(name: str, candidates: list[str]) -> list[str]:
    """The candidates close enough to ``name`` to suggest (at most three, closest first)."""
    from difflib import get_close_matches

    return get_close_matches(name, [c for c in candidates if c != name], n=3, cutoff=0.75)


def suggestion_text(name: str, candidates: list[str]) -> str:
    """``, did you mean '["a", "b"]'?`` for close candidates, else ``""``."""
    close = close_names(name, candidates)
    if not close:
        return ""
    quoted = ", ".join(f'"{item}"' for item in close)
    return f", did you mean '[{quoted}]'?"


def suggested_names(message: str) -> list[str]:
    """The names a message's ``did you mean`` hint proposes (``suggestion_text``'s
    inverse; also the bracket-less ``did you mean 'a, b'?`` form), for quick fixes."""
    import re

    found = re.search(r"did you mean '(.*)'\?$", message)
    if found is None:
        return []
    names = found.group(1).removeprefix("[").removesuffix("]").split(",")
    return [name.strip().strip('"') for name in names if name.strip().strip('"')]


def name_span(node: ast.Node, name: str) -> Span:
    """The span of a name at the start of a node (a parameter ``x: int = 1`` -> ``x``)."""
    span = node.span
    return Span(span.file, span.start, min(span.end, span.start + len(name)))
