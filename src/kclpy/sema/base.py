"""The checking context: the state every part of the checker shares, and its services.

:class:`CheckContext` holds the program, the :class:`Model` (types, bindings,
scopes, diagnostics, the resolver's bindings), the current package, scope and
schema, the expected-type stack and the facts the declaration passes leave for the
walk (merged unifications, top-level lambda signatures). It reports diagnostics,
opens and closes scopes, defines and binds names, and maps a name read to its
symbol (:meth:`CheckContext.symbol_of`). Nothing here walks the tree: the parts
(``exprs``, ``config``, ``calls``, ``names``, ``stmts``, ``declare``...) do, each
holding this context; ``checker.Checker`` builds and connects them.

A read's symbol is its binding's declaration's (``sema.bindings``): the resolver
decides what every name use refers to, the checker decorates the declarations with
its symbols as it reaches them (:meth:`CheckContext.define` for the names of a
package or a schema body, :meth:`CheckContext.declare` for a local's or a config
key's declaring node) and reads them back (:meth:`CheckContext.symbol_of`). A
declaration the checker has not reached yet (a schema parameter in another
parameter's default) has no symbol: the name is not defined there, as for the
reference. The scopes the context opens hold what each region defines, for stores,
suggestions and editors; no read looks a name up in them.
"""

from __future__ import annotations

from kclpy.diag import Code, Diagnostic, Label
from kclpy.loader import Program
from kclpy.sema.bindings import BindingKind
from kclpy.sema.model import Model
from kclpy.sema.symbols import MAIN, DeclarationKind, SchemaInfo, Scope, ScopeKind, Symbol
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
    untyped body assignments (which are not attributes of the schema type) and,
    once entered, its scope (what a name read inside it finds first)."""

    __slots__ = ("info", "local_types", "scope")

    def __init__(self, info: SchemaInfo) -> None:
        self.info = info
        self.local_types: dict[str, Type] = {}
        self.scope: Scope | None = None

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
        self.builtin_scope = Scope(ScopeKind.BUILTIN, None, None, model.builtin_names)
        self.package_scopes: dict[str, Scope] = model.package_scopes
        self.scope = self.builtin_scope
        self.scope_level = 0
        self.pkgpath = MAIN
        self.schema: SchemaContext | None = None
        self.l_value = False
        self.expect_stack: list[Expect | None] = []
        # the current package's global names, where first assigned (statements, names)
        self.global_names: dict[str, Span] = {}
        # the current package's uses of symbols defined elsewhere (``bind``)
        self.outgoing: list[tuple[Symbol, Span]] = []
        self.suppress = 0
        self.types = model.types
        self.bindings = model.bindings
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

    # ------------------------------------------------------------------ scopes

    def enter_scope(self, kind: str, node: ast.Node | None = None) -> Scope:
        members = None
        if kind == ScopeKind.SCHEMA and node is not None:  # a schema body's names
            members = self.model.schema_members.get(node.id)
            for member in members.values() if members else ():
                member.symbol = None  # (none defined yet in this walk)
        scope = Scope(kind, self.scope, node, members)
        if self.model.keep_scopes:
            self.scope.children.append(scope)
        self.scope = scope
        self.scope_level += 1
        return scope

    def leave_scope(self) -> None:
        parent = self.scope.parent
        assert parent is not None
        self.scope = parent
        self.scope_level -= 1

    def package_scope(self, pkgpath: str) -> Scope:
        scope = self.package_scopes.get(pkgpath)
        if scope is None:
            names = self.model.package_names(pkgpath)
            scope = Scope(ScopeKind.PACKAGE, self.builtin_scope, None, names)
            self.package_scopes[pkgpath] = scope
        return scope

    def define(
        self,
        name: str,
        kind: str,
        type: Type,
        span: Span | None,
        node: ast.Node | None = None,
    ) -> Symbol:
        """Insert a symbol into the current scope (replacing one of the same name);
        the package's or the schema's declaration of the name takes it."""
        symbol = Symbol(name, kind, type, span, self.pkgpath, node)
        scope = self.scope
        if scope.declarations is None:  # (``Scope.put``, inlined: most definitions)
            scope.symbols[name] = symbol
        else:
            scope.put(name, symbol)
        if span is not None and self.tool_facts:
            self.model.add_occurrence(span, symbol)
        return symbol

    def bind(self, node: ast.Node, symbol: Symbol | None, span: Span | None = None) -> None:
        """Record that ``node`` (a name use) refers to ``symbol``."""
        if symbol is None:
            return
        self.bindings[node.id] = symbol
        if not self.tool_facts:
            return
        where = span or node.span
        if symbol.span is None or where != symbol.span:
            if symbol.pkgpath == self.pkgpath:
                symbol.add_reference(where)
            else:  # defined elsewhere (maybe shared by programs: ``sema.interface``)
                self.outgoing.append((symbol, where))
        self.model.add_occurrence(where, symbol)

    # ------------------------------------------------------------------ name reads

    def declare(self, node: ast.Node, symbol: Symbol) -> Symbol:
        """Decorate the declaration ``node`` makes (a parameter, a loop variable, a
        lambda local, the index signature's key, a config key) with ``symbol``."""
        declaration = self.declarations.get(node.id)
        if declaration is not None:
            declaration.symbol = symbol
        return symbol

    def symbol_of(self, node: ast.Node, name: str) -> Symbol | None:
        """The symbol a read of ``name`` at ``node`` refers to: its binding's (see the
        module docstring); None when undefined, or not reached yet by the checker."""
        binding = self.resolution.get(node.id)
        if binding is None:  # every read has a binding (``sema.resolve``)
            raise AssertionError(f"the name {name!r} read here has no binding")
        return binding.symbol()

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

    def report_undefined(self, name: str, span: Span | None) -> None:
        """``name 'x' is not defined``, with the close names visible here as suggestions
        (not for the empty name: the parser's placeholder, a syntax error already)."""
        if not name:
            return
        hint = suggestion_text(name, self.scope.visible_names())
        self.compile_error(f"name '{name}' is not defined{hint}", span)

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
