"""References between a checked package's disk entry and the program that reads it.

A checked package's interface (``kclpy.pipeline.interfaces``) is made of objects it
owns (its declarations, symbols, schemas and types), pickled as themselves, and of
references to what it does not own, each written as a call of :func:`reference` (a
stand-in that never runs: ``kclpy.pipeline.pickling.Link``) on one of these tuples:

=====================================  ==============================================
reference                              stands for
=====================================  ==============================================
``("file", path)``                     a file of the program (its ``SourceFile``)
``("node", path, route)``              a node of that file's syntax tree (the
                                       package's own: a file two packages hold has
                                       a tree in each), reached from its module by
                                       ``route``: (field, index) pairs (index -1:
                                       the field is the node)
``("symbol", pkgpath, name)``          a name another package exports
``("attribute", pkgpath, full, name)`` an attribute of another package's schema
``("schema", pkgpath, full)``          another package's schema, by full name
``("builtin", name)``                  the symbol of a builtin function
``("type", name)``                     a type constant of ``kclpy.sema.types``
=====================================  ==============================================

:class:`References` names them as an entry is written (and refuses, with
``PicklingError``, an object of another package it cannot name); :class:`Resolver`
finds them in the program being checked as an entry is read, in place of
:func:`reference` (an unknown reference refuses the entry). :data:`INTERFACE_CLASSES`
are the classes an interface holds as themselves: its pickle may name those and the
code's classes, nothing else; documentation is left out (no run reads it; a
schema's comes back from its tree). So a package read from disk refers to the
program's very trees and files and to the very symbols of the packages below it, as
a package checked in this run does; trees and files are never stored, the loader has
just parsed them.
"""

from __future__ import annotations

import pickle
from collections.abc import Mapping

from kclpy.loader import Program
from kclpy.pipeline import pickling
from kclpy.sema import symbols, types
from kclpy.sema.interface import CheckedPackage
from kclpy.sema.symbols import SchemaInfo, Symbol, SymbolKind
from kclpy.source import SourceFile, Span
from kclpy.syntax import ast

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

INTERFACE_CLASSES = frozenset(
    {
        symbols.Symbol,
        symbols.Declaration,
        symbols.SchemaInfo,
        symbols.IndexSignatureInfo,
        symbols.SchemaType,
        types.PrimType,
        types.LitType,
        types.NumMulType,
        types.ListType,
        types.DictAttr,
        types.DictType,
        types.UnionType,
        types.Param,
        types.FuncType,
        types.ModuleType,
        Span,
    }
)
"""Each kind of object an interface holds as itself (pickled as its set slots)."""

_DOCS = {symbols.SchemaInfo: {"doc": ""}, types.FuncType: {"doc": ""}}
"""Slots an interface holds as empty: documentation, which no run reads (a schema's
comes back from its syntax tree as it is read: :func:`loads`)."""

_PICKLED = pickling.slotted_as(INTERFACE_CLASSES, _DOCS)

INTERFACE_ADMITTED = pickling.ADMITTED | pickling.admit(INTERFACE_CLASSES)
"""The classes an interface's pickle may name: these and the code's, nothing else."""

_CONSTANTS: dict[str, types.Type] = {
    name: value for name, value in vars(types).items() if isinstance(value, types.Type)
}
_CONSTANT_NAMES = {id(value): name for name, value in _CONSTANTS.items()}
_AS_THEMSELVES = frozenset({type(None), bool, int, float, str, bytes, tuple, list, dict})
_OWNED = INTERFACE_CLASSES - {type(value) for value in _CONSTANTS.values()} - {Symbol, SchemaInfo}
"""The classes no instance of which is a reference (:meth:`References.__call__`)."""


class Trees:
    """The program's syntax trees by file path: ``pkgpath``'s own first (a file two
    packages hold has a tree in each), then the first package's holding the path."""

    __slots__ = ("anywhere", "own", "packages")

    def __init__(self, program: Program) -> None:
        self.packages = program.packages
        self.anywhere: dict[str, ast.Module] = {}
        for modules in program.packages.values():
            for module in modules:
                self.anywhere.setdefault(module.file.path, module)
        self.own: dict[str, ast.Module] = {}

    def select(self, pkgpath: str) -> None:
        """Look in ``pkgpath``'s trees first from now on."""
        self.own = {module.file.path: module for module in self.packages.get(pkgpath, ())}

    def get(self, path: str) -> ast.Module | None:
        found = self.own.get(path)
        return found if found is not None else self.anywhere.get(path)

    def __contains__(self, path: str) -> bool:
        return path in self.own or path in self.anywhere

    def __getitem__(self, path: str) -> ast.Module:
        found = self.get(path)
        if found is None:
            raise KeyError(path)
        return found


def reference(*parts: object) -> object:
    """The stand-in an entry names for each reference (see the module docstring): a
    reader resolves it (:class:`Resolver`); it never runs."""
    raise pickle.UnpicklingError("a reference is resolved by the reader of an entry")


class References:
    """The references of the entries of ``program``'s packages (the pickler's
    ``Link.reference`` for ``pkgpath``, :meth:`of`): None for what the entry holds
    itself."""

    def __init__(
        self,
        program: Program,
        products: Mapping[str, CheckedPackage],
        builtins: Mapping[str, Symbol],
    ) -> None:
        self.pkgpath = ""
        self.builtins = builtins
        self.modules = Trees(program)
        self.products = products
        self._routes: dict[int, dict[int, tuple[str | int, ...]]] = {}
        self._foreign: dict[int, tuple[str, ...]] | None = None

    def of(self, pkgpath: str) -> pickling.Link:
        """The link of the entry of ``pkgpath`` (writing only: it resolves nothing)."""
        self.pkgpath = pkgpath
        self.modules.select(pkgpath)
        return pickling.Link(reference, self, reference)

    def __call__(self, obj: object) -> tuple[Any, ...] | None:
        kind = type(obj)
        if kind in _AS_THEMSELVES:
            return None
        if kind is Symbol or kind is SchemaInfo:
            return self._owned(obj)
        if isinstance(obj, ast.Node):
            path = obj.span.file.path
            module = self.modules.get(path)
            route = None if module is None else _route_to(module, obj)
            if route is None:  # (a node outside its parent's span: the whole tree walked)
                route = self._routes_of(path).get(id(obj))
            if route is None:
                raise pickle.PicklingError("a syntax node outside the program's trees")
            return ("node", path, route)
        if kind is SourceFile:
            assert isinstance(obj, SourceFile)
            if obj.path not in self.modules or self.modules[obj.path].file is not obj:
                raise pickle.PicklingError("a file outside the program")
            return ("file", obj.path)
        name = _CONSTANT_NAMES.get(id(obj))
        return ("type", name) if name is not None else None

    def _owned(self, obj: Any) -> tuple[Any, ...] | None:
        """None for the package's own symbol or schema, else its reference."""
        if isinstance(obj, Symbol) and obj.kind == SymbolKind.BUILTIN:
            if self.builtins.get(obj.name) is obj:
                return ("builtin", obj.name)
            raise pickle.PicklingError(f"the builtin {obj.name} is not the program's")
        if obj.pkgpath == self.pkgpath:
            return None
        found = self._foreigners().get(id(obj))
        if found is None or found[1] == self.pkgpath:
            raise pickle.PicklingError(f"{obj!r} of package {obj.pkgpath} has no name")
        return found

    def _routes_of(self, path: str) -> dict[int, tuple[str | int, ...]]:
        module = self.modules.get(path)
        if module is None:
            return {}
        found = self._routes.get(module.id)
        if found is None:
            found = self._routes[module.id] = _routes(module)
        return found

    def _foreigners(self) -> dict[int, tuple[str, ...]]:
        """The references of the packages' exported symbols, schemas and their
        attributes (a package's own are never looked up: ``_owned``)."""
        if self._foreign is None:
            self._foreign = {}
            for pkgpath, product in self.products.items():
                for name, symbol in product.interface.symbols.items():
                    self._foreign[id(symbol)] = ("symbol", pkgpath, name)
                for full, info in product.interface.schemas.items():
                    self._foreign[id(info)] = ("schema", pkgpath, full)
                    for name, symbol in info.attrs.items():
                        self._foreign[id(symbol)] = ("attribute", pkgpath, full, name)
        return self._foreign


class Resolver:
    """The objects an entry's references stand for in ``program`` (an unpickler's
    ``Link.resolve``), with ``products`` the checked packages installed so far;
    ``UnpicklingError`` for a reference to nothing."""

    def __init__(
        self,
        program: Program,
        products: Mapping[str, CheckedPackage],
        builtins: Mapping[str, Symbol],
    ) -> None:
        self.modules = Trees(program)
        self.products = products
        self.builtins = builtins

    def select(self, pkgpath: str) -> None:
        """Resolve the references of ``pkgpath``'s entry from now on."""
        self.modules.select(pkgpath)

    def __call__(self, *parts: Any) -> object:
        try:
            found = self._find(parts)
        except (LookupError, TypeError, ValueError):
            found = None
        if found is None:
            raise pickle.UnpicklingError(f"the reference {parts!r} stands for nothing")
        return found

    def link(self) -> pickling.Link:
        """The link of the entries it reads (reading only: it names nothing)."""
        return pickling.Link(reference, _names_nothing, self)

    def _find(self, reference: Any) -> object:
        if not isinstance(reference, tuple) or not reference:
            return None
        kind, *rest = reference
        if kind == "node":
            path, route = rest
            return _follow(self.modules[path], route)
        if kind == "file":
            (path,) = rest
            return self.modules[path].file
        if kind == "symbol":
            pkgpath, name = rest
            return self.products[pkgpath].interface.symbols[name]
        if kind == "schema":
            pkgpath, full = rest
            return self.products[pkgpath].interface.schemas[full]
        if kind == "attribute":
            pkgpath, full, name = rest
            return self.products[pkgpath].interface.schemas[full].attrs[name]
        if kind == "builtin":
            (name,) = rest
            return self.builtins[name]
        if kind == "type":
            (name,) = rest
            return _CONSTANTS[name]
        return None


def _names_nothing(obj: object) -> None:
    return None


def dumps(interface: object, pkgpath: str, references: References) -> bytes:
    """The interface of ``pkgpath`` pickled, with its references."""
    return pickling.dumps_linked(interface, references.of(pkgpath), _PICKLED, _OWNED)


def loads(data: bytes, resolver: Resolver) -> object:
    """An interface read, its references resolved; ``UnpicklingError`` when it names
    a class an interface does not hold or a reference to nothing."""
    return pickling.load_linked(data, resolver.link(), INTERFACE_ADMITTED)


def _routes(module: ast.Module) -> dict[int, tuple[str | int, ...]]:
    """The route (field, index pairs) from ``module`` to each node of its tree, by the
    node's ``id()``."""
    routes: dict[int, tuple[str | int, ...]] = {id(module): ()}
    stack: list[tuple[ast.Node, tuple[str | int, ...]]] = [(module, ())]
    while stack:
        node, route = stack.pop()
        for field in node._fields:
            value = getattr(node, field, None)
            if isinstance(value, ast.Node):
                step = (*route, field, -1)
                routes.setdefault(id(value), step)
                stack.append((value, step))
            elif isinstance(value, list):
                for index, item in enumerate(value):
                    if isinstance(item, ast.Node):
                        step = (*route, field, index)
                        routes.setdefault(id(item), step)
                        stack.append((item, step))
    return routes


def _route_to(module: ast.Module, target: ast.Node) -> tuple[str | int, ...] | None:
    """The route (as :func:`_routes`) from ``module`` to ``target``, descending only
    into the nodes whose span holds the target's; None when none leads to it."""
    start, end = target.span.start, target.span.end
    stack: list[tuple[ast.Node, tuple[str | int, ...]]] = [(module, ())]
    while stack:
        node, route = stack.pop()
        if node is target:
            return route
        for field in node._fields:
            value = getattr(node, field, None)
            if isinstance(value, ast.Node):
                span = value.span
                if span.start <= start and end <= span.end:
                    stack.append((value, (*route, field, -1)))
            elif isinstance(value, list):
                for index, item in enumerate(value):
                    if isinstance(item, ast.Node):
                        span = item.span
                        if span.start <= start and end <= span.end:
                            stack.append((item, (*route, field, index)))
    return None


def _follow(node: ast.Node, route: object) -> ast.Node | None:
    """The node ``route`` reaches from ``node`` (None: it reaches no node)."""
    if not isinstance(route, tuple) or len(route) % 2:
        return None
    for at in range(0, len(route), 2):
        field, index = route[at], route[at + 1]
        if field not in type(node)._fields or not isinstance(index, int):
            return None
        value = getattr(node, field)
        if index >= 0:
            value = value[index] if isinstance(value, list) and index < len(value) else None
        if not isinstance(value, ast.Node):
            return None
        node = value
    return node
