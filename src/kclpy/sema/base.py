"""The checking context: the state every part of the checker shares, and its services.

:class:`CheckContext` holds the program, the :class:`Model` (types, bindings,
scopes, diagnostics, the resolver's bindings), the current package, scope and
schema, the expected-type stack and the facts the declaration passes leave for the
walk (merged unifications, top-level lambda signatures). It reports diagnostics,
opens and closes scopes, defines and binds names, and maps a name read to its
symbol (:meth:`CheckContext.symbol_of`). Nothing here walks the tree: the parts
(``exprs``, ``config``, ``calls``, ``names``, ``stmts``, ``declare``...) do, each
holding this context; ``checker.Checker`` builds and connects them.

A read's symbol is its binding's (``sema.bindings``), mapped to the checker's
symbols: a key set earlier in an enclosing config literal (``config_key``: the
config scopes being walked), in a schema (``dynamic``) the schema scope's symbol of
the name, then by kind the symbol the checker defined for the declaration node
(``LOCAL``: parameters, loop and quantifier variables, lambda locals, the index
signature's key, kept in ``declared``), the package's (``GLOBAL``, ``IMPORT``), the
builtin, or none (``UNDEFINED``: ``name 'x' is not defined``, with the close names
visible here as suggestions). Where the checker's view differs from the run time's:

* the schema scope holds what a body may read before the run time defines it (the
  attributes and assignments of the body, the index signature's key, which at run
  time is a local of the default value and the checks only), so a ``dynamic``
  read finds it there;
* a ``LOCAL`` whose declaration the checker has not reached (a schema parameter in
  another parameter's default) has no symbol: undefined, as before bindings;
* a type name's symbol follows its ``TypeBinding``: the package's definition or
  alias, or the import's module for ``pkg.Name``, never a local of that name;
* the key ``k`` of ``{k = v}`` in a lambda in a comprehension over ``k`` is the
  literal ``"k"`` at run time (no binding) but the loop variable for the
  reference's checker and this one (:meth:`CheckContext.unbound_read`).
"""

from __future__ import annotations

from kclpy.diag import Code, Diagnostic, Label
from kclpy.loader import Program
from kclpy.sema.bindings import BindingKind, TypeKind
from kclpy.sema.model import Model
from kclpy.sema.symbols import MAIN, SchemaInfo, Scope, ScopeKind, Symbol
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
        self.builtin_scope = Scope(ScopeKind.BUILTIN, None)
        self.package_scopes: dict[str, Scope] = model.package_scopes
        self.scope = self.builtin_scope
        self.scope_level = 0
        self.pkgpath = MAIN
        self.schema: SchemaContext | None = None
        # the loop variables in view (the checker's, which a lambda does not end)
        self.local_vars: dict[str, Symbol] = {}
        self.l_value = False
        self.expect_stack: list[Expect | None] = []
        # the current package's global names, where first assigned (statements, names)
        self.global_names: dict[str, Span] = {}
        self.suppress = 0
        self.types = model.types
        self.bindings = model.bindings
        self.tool_facts = model.tool_facts
        self.resolution = model.resolution
        self.type_resolution = model.type_resolution
        # the symbol the checker defined for each declaration a LOCAL binding names
        self.declared: dict[int, Symbol] = {}
        self.config_scopes: list[Scope] = []  # the config literals being walked

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
        scope = Scope(kind, self.scope, node)
        if self.model.keep_scopes:
            self.scope.children.append(scope)
        if kind == ScopeKind.CONFIG:
            self.config_scopes.append(scope)
        self.scope = scope
        self.scope_level += 1
        return scope

    def leave_scope(self) -> None:
        self.local_vars.clear()
        if self.scope.kind == ScopeKind.CONFIG:
            self.config_scopes.pop()
        parent = self.scope.parent
        assert parent is not None
        self.scope = parent
        self.scope_level -= 1

    def package_scope(self, pkgpath: str) -> Scope:
        scope = self.package_scopes.get(pkgpath)
        if scope is None:
            scope = Scope(ScopeKind.PACKAGE, self.builtin_scope)
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
        """Insert a symbol into the current scope (replacing one of the same name)."""
        symbol = Symbol(name, kind, type, span, self.pkgpath, node)
        self.scope.symbols[name] = symbol
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
            symbol.add_reference(where)
        self.model.add_occurrence(where, symbol)

    # ------------------------------------------------------------------ name reads

    def symbol_of(self, node: ast.Node, name: str) -> Symbol | None:
        """The symbol a read of ``name`` at ``node`` refers to, from the node's binding
        (see the module docstring); None when undefined, or not defined yet where the
        checker is."""
        binding = self.resolution.get(node.id)
        if binding is None:
            return self.unbound_read(name)
        if binding.config_key:
            for scope in reversed(self.config_scopes):
                symbol = scope.symbols.get(name)
                if symbol is not None:
                    return symbol
        if binding.dynamic:
            schema = self.schema
            if schema is not None and schema.scope is not None:
                symbol = schema.scope.symbols.get(name)
                if symbol is not None:
                    return symbol
        kind = binding.kind
        if kind == BindingKind.LOCAL:
            return self.declared.get(binding.declaration)
        if kind == BindingKind.GLOBAL or kind == BindingKind.IMPORT:
            return self.package_scopes[self.pkgpath].symbols.get(name)
        if kind == BindingKind.BUILTIN:
            return self.builtin_scope.symbols.get(name)
        return None

    def unbound_read(self, name: str) -> Symbol | None:
        """A read the run time does not make: the key ``k`` of ``{k = v}`` in a lambda
        in a comprehension over ``k`` is the literal ``"k"`` at run time, while the
        reference's checker (and so this one) types it as the loop variable."""
        symbol = self.local_vars.get(name)
        if symbol is None:  # every other read has a binding (``sema.resolve``)
            raise AssertionError(f"the name {name!r} read here has no binding")
        return symbol

    def type_symbol(self, node: ast.NamedType, head: str) -> Symbol | None:
        """The symbol of the first name of a type name (``k8s`` of ``k8s.Deployment``),
        from the type binding: the import's module symbol, the package's definition or
        alias; None when the name denotes nothing."""
        binding = self.type_resolution.get(node.id)
        if binding is None or binding.kind == TypeKind.UNKNOWN:
            return None
        return self.package_scope(self.pkgpath).symbols.get(head)

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
