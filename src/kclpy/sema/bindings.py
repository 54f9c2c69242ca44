"""Bindings: what each name use refers to at run time, as the resolver decided.

A :class:`Binding` is the answer to "where does this name's value live?" for one
``NameExpr`` (or the implicit read of a schema attribute by ``a += v``), the
model of starlark-go's ``resolve.Binding``. The resolver (``sema.resolve``)
fills ``Model.resolution`` with one per name use, keyed by node id; the checker
(which maps each to its symbol, ``CheckContext.symbol_of``) and the compiler read
them, and neither looks a name up itself.

Kinds, in the order a name is looked up: a local of the code unit being compiled
or of an enclosing one (``LOCAL``: comprehension and quantifier variables,
parameters, lambda locals, the index signature's key), a package variable
(``GLOBAL``), an imported module (``IMPORT``), a builtin function (``BUILTIN``), or
nothing (``UNDEFINED``). Two flags come first at run time: ``config_key`` (a key
set earlier in an enclosing config literal shadows everything, as in the
reference) and ``dynamic`` (inside a schema, the instance's attribute of that
name, when it has one; the kind is then the fallback).

A :class:`TypeBinding` is the same answer for a *type* name: what the written
name of an annotation (an ``ast.NamedType``) or of a schema reference (a parent,
a mixin, the schema of ``s: S {...}``) denotes. Type names are looked up in the
package, not in the run-time scopes: a basic type (``BASIC``), a definition of
this package or a member of an imported one (``SCHEMA``), a type alias of this
package (``ALIAS``, with the aliased type, whose names are bound in their turn),
``units.NumberMultiplier`` (``NUMBER_MULTIPLIER``), or nothing (``UNKNOWN``). The
resolver fills ``Model.type_resolution``; the compiler turns each into a runtime
type reference.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

if TYPE_CHECKING:
    from kclpy.syntax import ast


class BindingKind:
    """The kinds of bindings (small ints: the compiler branches on them)."""

    LOCAL: Final = 0
    GLOBAL: Final = 1
    IMPORT: Final = 2
    BUILTIN: Final = 3
    UNDEFINED: Final = 4


class Binding:
    """Where the value of one name use lives; shared by every use that resolves alike."""

    __slots__ = ("config_key", "declaration", "depth", "dynamic", "kind", "name", "pkgpath")

    def __init__(
        self,
        kind: int,
        name: str,
        declaration: int = -1,
        depth: int = 0,
        pkgpath: str = "",
        dynamic: bool = False,
        config_key: bool = False,
    ) -> None:
        self.kind = kind  # a BindingKind
        self.name = name
        self.declaration = declaration  # LOCAL: node id of the declaring parameter/target
        self.depth = depth  # LOCAL: how many code units out (0: this one; lambdas nest)
        self.pkgpath = pkgpath  # IMPORT: the imported package's path
        self.dynamic = dynamic  # in a schema: the instance's attribute first
        self.config_key = config_key  # a sibling key of an enclosing config literal first

    def key(self) -> tuple[int, str, int, int, str, bool, bool]:
        """The fields as a tuple: equal keys mean interchangeable bindings."""
        return (
            self.kind,
            self.name,
            self.declaration,
            self.depth,
            self.pkgpath,
            self.dynamic,
            self.config_key,
        )

    def __repr__(self) -> str:
        flags = "".join(
            text for text, on in ((" dynamic", self.dynamic), (" key", self.config_key)) if on
        )
        return f"<binding {self.name} kind={self.kind}{flags}>"


class TypeKind:
    """The kinds of type bindings."""

    BASIC: Final = 0
    SCHEMA: Final = 1
    ALIAS: Final = 2
    NUMBER_MULTIPLIER: Final = 3
    UNKNOWN: Final = 4


class TypeBinding:
    """What one written type name denotes; shared by the uses of a name in a file."""

    __slots__ = ("aliased", "kind", "member", "name", "pkgpath")

    def __init__(
        self,
        kind: int,
        name: str,
        pkgpath: str = "",
        member: str = "",
        aliased: ast.TypeNode | None = None,
    ) -> None:
        self.kind = kind  # a TypeKind
        self.name = name  # as written: "int", "Person", "k8s.Deployment"
        self.pkgpath = pkgpath  # a member of an imported package: its path ("": this one)
        self.member = member  # a member of an imported package: the name in it
        self.aliased = aliased  # ALIAS: the aliased type (its names have bindings too)

    def __repr__(self) -> str:
        where = f" in {self.pkgpath}" if self.pkgpath else ""
        return f"<type binding {self.name} kind={self.kind}{where}>"
