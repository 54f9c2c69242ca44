"""Bindings: what each name use refers to at run time, as the resolver decided.

A :class:`Binding` is the answer to "where does this name's value live?" for one
``NameExpr`` (or the implicit read of a schema attribute by ``a += v``), the
model of starlark-go's ``resolve.Binding``. The resolver (``sema.resolve``)
fills ``Model.resolution`` with one per name use, keyed by node id; the compiler
reads them and never looks a name up itself.

Kinds, in the order a name is looked up: a local of the code unit being compiled
or of an enclosing one (``LOCAL``: comprehension and quantifier variables,
parameters, lambda locals, the index signature's key), a package variable
(``GLOBAL``), an imported module (``IMPORT``), a builtin function (``BUILTIN``), or
nothing (``UNDEFINED``). Two flags come first at run time: ``config_key`` (a key
set earlier in an enclosing config literal shadows everything, as in the
reference) and ``dynamic`` (inside a schema, the instance's attribute of that
name, when it has one; the kind is then the fallback).
"""

from __future__ import annotations

from typing import Final


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
