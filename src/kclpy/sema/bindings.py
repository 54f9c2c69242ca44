"""Declarations and bindings: what each name use refers to, as the resolver decided.

The one name model of sema (starlark-go's ``resolve.Binding``). The resolver
(``sema.resolve``) makes a :class:`Declaration` for every name a program declares
and a :class:`Binding` for every name use (``Model.resolution``, keyed by node id)
that points at one; the checker decorates declarations with symbols (and so types:
``Declaration.symbol``) and reads a name's symbol from its binding's declaration
(``CheckContext.symbol_of``); the compiler turns bindings into loads and stores, the
language server and lint read the checker's symbols. Nobody looks a name up again.

Declarations (``sema.symbols``): a parameter, a loop variable, a lambda local,
the index signature's key (locals of a code unit), a package name (a variable,
schema, rule, type alias or import of the package: one per name and package), a
builtin, a schema member (a name a schema body sets: what a body read finds before
the run time looks at the instance) and a config key (a key of a config literal, or
of one ``if`` block of it, as the checker walks them).

Binding kinds, in the order a name is looked up: a local of the code unit being
compiled or of an enclosing one (``LOCAL``), a package variable (``GLOBAL``), an
imported module (``IMPORT``), a builtin function (``BUILTIN``), or nothing
(``UNDEFINED``). Three kinds are decided at run time, each with the static binding it
falls back to (``fallback``): ``CONFIG_KEY`` (a key set earlier in an enclosing config
literal shadows everything, as in the reference; its declaration is the key the
checker types the read by, when the checker sees one), ``ATTRIBUTE`` (inside a
schema, the instance's attribute of that name, when it has one; its declaration is
the schema member of that name, if the body sets one) and ``KEY`` (the key ``k`` of
``{k = v}`` in a lambda in a comprehension over ``k``: the literal ``"k"`` at run
time, the loop variable for the reference's checker and this one).

A :class:`TypeBinding` is the same answer for a *type* name: what the written
name of an annotation (an ``ast.NamedType``) or of a schema reference (a parent,
a mixin, the schema of ``s: S {...}``) denotes. Type names are looked up in the
package, not in the run-time scopes: a basic type (``BASIC``), a definition of
this package or a member of an imported one (``SCHEMA``), a type alias of this
package (``ALIAS``, with the aliased type, whose names are bound in their turn),
``units.NumberMultiplier`` (``NUMBER_MULTIPLIER``), or nothing (``UNKNOWN``). Its
declaration is the package name its first part names. The resolver fills
``Model.type_resolution``; the compiler turns each into a runtime type reference.
"""

from __future__ import annotations

from kclpy.sema.symbols import Declaration, Symbol

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Final

    from kclpy.syntax import ast


class BindingKind:
    """The kinds of bindings (small ints: the compiler branches on them)."""

    LOCAL: Final = 0
    GLOBAL: Final = 1
    IMPORT: Final = 2
    BUILTIN: Final = 3
    UNDEFINED: Final = 4
    CONFIG_KEY: Final = 5  # a sibling key first, else ``fallback``
    ATTRIBUTE: Final = 6  # in a schema: the instance's attribute first, else ``fallback``
    KEY: Final = 7  # a config key that is the literal name at run time


class Binding:
    """Where the value of one name use lives; shared by every use that resolves alike."""

    __slots__ = ("declaration", "depth", "fallback", "kind", "name", "pkgpath", "undefined")

    def __init__(
        self,
        kind: int,
        name: str,
        declaration: Declaration | None = None,
        depth: int = 0,
        pkgpath: str = "",
        fallback: Binding | None = None,
    ) -> None:
        self.kind = kind  # a BindingKind
        self.name = name
        self.declaration = declaration  # what the name declares here (None: nothing)
        self.depth = depth  # LOCAL: how many code units out (0: this one; lambdas nest)
        self.pkgpath = pkgpath  # IMPORT: the imported package's path
        self.fallback = fallback  # CONFIG_KEY, ATTRIBUTE: the binding if it is absent
        # whether the name may be undefined here: nothing declares it statically
        self.undefined: bool = (
            fallback.undefined if fallback is not None else kind == BindingKind.UNDEFINED
        )

    def key(self) -> tuple[object, ...]:
        """The fields as a tuple (a declaration by its kind, name and node): equal keys
        mean interchangeable bindings, in one model or two."""
        declaration = self.declaration
        declared = (
            (declaration.kind, declaration.name, declaration.node.id if declaration.node else -1)
            if declaration is not None
            else None
        )
        fallback = self.fallback.key() if self.fallback is not None else None
        return (self.kind, self.name, declared, self.depth, self.pkgpath, fallback)

    def symbol(self) -> Symbol | None:
        """The checker's symbol of the use: its declaration's, else its fallback's."""
        binding: Binding | None = self
        while binding is not None:
            declaration = binding.declaration
            if declaration is not None and declaration.symbol is not None:
                return declaration.symbol
            binding = binding.fallback
        return None

    def static(self) -> Binding:
        """The binding under the run-time checks (a ``CONFIG_KEY``'s fallback)."""
        return self.fallback if self.kind == BindingKind.CONFIG_KEY and self.fallback else self

    def __repr__(self) -> str:
        after = f" else {self.fallback!r}" if self.fallback is not None else ""
        return f"<binding {self.name} kind={self.kind}{after}>"


class TypeKind:
    """The kinds of type bindings."""

    BASIC: Final = 0
    SCHEMA: Final = 1
    ALIAS: Final = 2
    NUMBER_MULTIPLIER: Final = 3
    UNKNOWN: Final = 4


class TypeBinding:
    """What one written type name denotes; shared by the uses of a name in a file (of
    a plain name, in its package)."""

    __slots__ = ("aliased", "declaration", "kind", "member", "name", "pkgpath")

    def __init__(
        self,
        kind: int,
        name: str,
        pkgpath: str = "",
        member: str = "",
        aliased: ast.TypeNode | None = None,
        declaration: Declaration | None = None,
    ) -> None:
        self.kind = kind  # a TypeKind
        self.name = name  # as written: "int", "Person", "k8s.Deployment"
        self.pkgpath = pkgpath  # a member of an imported package: its path ("": this one)
        self.member = member  # a member of an imported package: the name in it
        self.aliased = aliased  # ALIAS: the aliased type (its names have bindings too)
        self.declaration = declaration  # the package name of its first part, if any

    def __repr__(self) -> str:
        where = f" in {self.pkgpath}" if self.pkgpath else ""
        return f"<type binding {self.name} kind={self.kind}{where}>"
