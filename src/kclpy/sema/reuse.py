"""Checked packages reused between the programs one process checks.

A monorepo build checks thousands of programs that import the same model packages.
What checking a package other than ``__main__`` produces depends only on its files
and on what it imports, which its content key covers (the driver's
``kclpy.pipeline.cache.package_keys``: the package's files, their import tables and,
transitively, the keys of the packages they import). :class:`CheckedPackage` is that
product: the package scope (its symbols with their types, and through them its
schemas), its entries in the model's node-keyed tables (types, bindings, schemas by
full name, in recording order), the definitions and uses in its files, the
diagnostics its check reported and its run-time bindings (``Model.resolution`` and
``type_resolution``: the checker resolves a package before checking it). A
:class:`CheckedStore` (the driver's in-process tier) keeps them by key; with one, the
checker's declaration part is a :class:`ReusingDeclarations`, which checks a package
only when the store holds no usable product for it, and stores the product of each
package it checks.

Identical results: a package's check runs nested checks of the packages it imports
(at its imports, when not yet checked), so its diagnostics interleave with theirs. A
product records its own diagnostics and, in between, every call the check made for an
imported package; reusing it replays that sequence (the calls check or reuse those
packages, or do nothing when they were already checked), so the diagnostics come in
the same order as without reuse.

Consistency: a product's symbols refer to the products of the packages below it (a
schema's base, an attribute's schema type). It remembers them (``depends``), and is
used only when each of them is the one this program has installed, or, when not yet
installed, the one the store holds now under that package's key; and only for the very
syntax trees the program loaded (shared by the loader's ``ParseMemo``). Otherwise the
package is checked again and its new product replaces the old one.

Not reused: ``__main__``, packages without a key (given as text, in an import cycle),
and programs checked with ``keep_scopes`` (editors walk nested scopes from package
scopes). Symbols are shared between programs, so the ``references`` lists of a reused
package's symbols hold its own uses only: what importers recorded is dropped when the
package is reused. Tools that read references (lint, the language server) do not use
a store.
"""

from __future__ import annotations

from collections.abc import Hashable, MutableMapping
from itertools import islice
from typing import TYPE_CHECKING, Any, Protocol

from kclpy.diag import Diagnostic
from kclpy.sema.declare import DeclarationChecker
from kclpy.sema.symbols import MAIN, Symbol

if TYPE_CHECKING:
    from kclpy.sema.base import CheckContext
    from kclpy.syntax import ast

Entries = tuple[dict[Any, Any], ...]  # new entries of the model's tables (see _tables)
# in order: a diagnostic of the package, the path of a package its check called for, or
# entries it added to the model's tables
Step = Diagnostic | str | Entries
Occurrences = dict[str, list[tuple[int, int, Symbol]]]


class CheckedPackage:
    """What checking one package produced, as the checks of its importers read it."""

    __slots__ = (
        "depends",
        "modules",
        "occurrences",
        "pkgpath",
        "references",
        "resolution",
        "steps",
    )

    def __init__(
        self,
        pkgpath: str,
        modules: list[ast.Module],
        steps: list[Step],
        occurrences: Occurrences,
        depends: dict[str, CheckedPackage],
    ) -> None:
        self.pkgpath = pkgpath
        self.modules = modules  # the syntax trees it was checked on
        self.steps = steps
        self.occurrences = occurrences  # per file of it, definitions and uses
        self.depends = depends  # the products below it, by package path
        self.references = [(symbol, len(symbol.references)) for symbol in _own_symbols(steps)]
        # its entries of the model's run-time bindings (``sema.resolve``)
        self.resolution: Entries | None = None


class CheckedStore(Protocol):
    """Products by package key (``kclpy.pipeline.cache.MemoryTier.checked``)."""

    def get(self, key: Hashable) -> CheckedPackage | None: ...

    def put(self, key: Hashable, value: CheckedPackage) -> None: ...


class PackageReuse:
    """The store, the package keys of the program being checked, and the products
    this program's check has used or stored (``installed``, by package path)."""

    def __init__(self, store: CheckedStore, keys: MutableMapping[str, str | None]) -> None:
        self.store = store
        self.keys = keys
        self.installed: dict[str, CheckedPackage] = {}

    def declarations(self, ctx: CheckContext) -> ReusingDeclarations:
        return ReusingDeclarations(ctx, self)


class _Window:
    """Where a package's own entries of the model's tables lie between two calls."""

    __slots__ = ("ends", "starts")

    def __init__(self, starts: tuple[int, ...], ends: tuple[int, ...]) -> None:
        self.starts = starts
        self.ends = ends

    def entries(self, tables: tuple[dict[Any, Any], ...]) -> Entries:
        """The entries, with their values as they are now."""
        return tuple(
            dict(islice(table.items(), start, end))
            for table, start, end in zip(tables, self.starts, self.ends, strict=True)
        )


class _Recording:
    """A package being checked: its own diagnostics and table entries, between the
    calls its check makes for the packages it imports."""

    def __init__(self, pkgpath: str, key: str, ctx: CheckContext) -> None:
        self.pkgpath = pkgpath
        self.key = key
        self.steps: list[Step | _Window] = []
        self.marks = _marks(ctx)

    def pause(self, ctx: CheckContext, callee: str) -> None:
        self._flush(ctx)
        self.steps.append(callee)

    def resume(self, ctx: CheckContext) -> None:
        self.marks = _marks(ctx)

    def _flush(self, ctx: CheckContext) -> None:
        now = _marks(ctx)
        self.steps.extend(ctx.diagnostics[self.marks[0] : now[0]])
        if now[1:] != self.marks[1:]:
            self.steps.append(_Window(self.marks[1:], now[1:]))
        self.marks = now

    def finish(
        self, ctx: CheckContext, installed: dict[str, CheckedPackage]
    ) -> CheckedPackage | None:
        """The product, or None when a package it checked has no product."""
        self._flush(ctx)
        depends: dict[str, CheckedPackage] = {}
        steps: list[Step] = []
        for step in self.steps:
            if isinstance(step, _Window):
                steps.append(step.entries(_tables(ctx)))
                continue
            if isinstance(step, str):
                below = installed.get(step)
                if below is None:
                    return None
                depends[step] = below
                depends.update(below.depends)
            steps.append(step)
        modules = ctx.program.packages.get(self.pkgpath, [])
        occurrences = {path: ctx.model.file_occurrences(path) for path in _paths(modules)}
        return CheckedPackage(self.pkgpath, modules, steps, occurrences, depends)


class ReusingDeclarations(DeclarationChecker):
    """The declaration part of a checker that reuses packages a store holds."""

    def __init__(self, ctx: CheckContext, reuse: PackageReuse) -> None:
        super().__init__(ctx)
        self.reuse = reuse
        self.installed = reuse.installed
        self.recordings: list[_Recording | None] = []  # None: not recorded, or a replay
        self.resolved: dict[str, Entries] = {}  # bindings of the packages being recorded

    def check_package(self, pkgpath: str) -> None:
        outer = self.recordings[-1] if self.recordings else None
        if outer is not None:
            outer.pause(self.ctx, pkgpath)
        try:
            if pkgpath not in self.checked and not self._reuse(pkgpath):
                self._check_and_record(pkgpath)
        finally:
            if outer is not None:
                outer.resume(self.ctx)

    def resolve_package(self, pkgpath: str, modules: list[ast.Module]) -> None:
        """Resolve the package, keeping its bindings for its product (a package's
        bindings follow from its syntax trees and imports alone)."""
        model = self.ctx.model
        tables: tuple[dict[Any, Any], ...] = (model.resolution, model.type_resolution)
        starts = tuple(len(table) for table in tables)
        super().resolve_package(pkgpath, modules)
        if self.recordings and self.recordings[-1] is not None:
            ends = tuple(len(table) for table in tables)
            self.resolved[pkgpath] = _Window(starts, ends).entries(tables)

    def _check_and_record(self, pkgpath: str) -> None:
        key = self.reuse.keys.get(pkgpath) if pkgpath != MAIN else None
        recording = _Recording(pkgpath, key, self.ctx) if key is not None else None
        self.recordings.append(recording)
        super().check_package(pkgpath)  # an exception ends the whole check: nothing stored
        self.recordings.pop()
        if recording is not None:
            product = recording.finish(self.ctx, self.installed)
            resolution = self.resolved.pop(pkgpath, None)
            if product is not None and resolution is not None:
                product.resolution = resolution
                self.reuse.store.put(recording.key, product)
                self.installed[pkgpath] = product

    def _reuse(self, pkgpath: str) -> bool:
        """Replay the package's stored product; False when there is no usable one."""
        product = self._usable(pkgpath)
        if product is None:
            return False
        self.checked.add(pkgpath)
        model = self.ctx.model
        assert product.resolution is not None  # (``_usable``)
        resolved: tuple[dict[Any, Any], ...] = (model.resolution, model.type_resolution)
        for table, entries in zip(resolved, product.resolution, strict=True):
            table.update(entries)
        self.recordings.append(None)
        try:
            tables = _tables(self.ctx)
            for step in product.steps:
                if isinstance(step, str):
                    self.check_package(step)
                elif isinstance(step, tuple):
                    for table, entries in zip(tables, step, strict=True):
                        table.update(entries)
                else:
                    self.ctx.diagnostics.append(step)
        finally:
            self.recordings.pop()
        for path, items in product.occurrences.items():
            self.ctx.model.set_file_occurrences(path, items)
        for symbol, count in product.references:  # drop what importers recorded
            symbol.references = symbol.references[:count]  # a list, or an empty tuple
        self.installed[pkgpath] = product
        return True

    def _usable(self, pkgpath: str) -> CheckedPackage | None:
        product = self._stored(pkgpath)
        if product is None or product.resolution is None:
            return None
        for below, used in product.depends.items():
            present = self.installed.get(below)
            if present is None:
                if below in self.checked or self._stored(below) is not used:
                    return None
            elif present is not used:
                return None
        return product

    def _stored(self, pkgpath: str) -> CheckedPackage | None:
        """The store's product for the package, if it was checked on these syntax trees."""
        key = self.reuse.keys.get(pkgpath) if pkgpath != MAIN else None
        product = self.reuse.store.get(key) if key is not None else None
        modules = self.ctx.program.packages.get(pkgpath, [])
        if product is None or len(product.modules) != len(modules):
            return None
        if any(mine is not theirs for mine, theirs in zip(modules, product.modules, strict=True)):
            return None
        return product


def _tables(ctx: CheckContext) -> tuple[dict[Any, Any], ...]:
    """The model's tables a package's check adds to (each keeps insertion order):
    package scopes and schemas by name, files by path, types, expected types and
    bindings by node id."""
    model = ctx.model
    return (
        model.package_scopes,
        model.schemas,
        model.files,
        model.types,
        model.expected,
        model.bindings,
    )


def _marks(ctx: CheckContext) -> tuple[int, ...]:
    return (len(ctx.diagnostics), *(len(table) for table in _tables(ctx)))


def _paths(modules: list[ast.Module]) -> list[str]:
    return list(dict.fromkeys(module.file.path for module in modules))


def _own_symbols(steps: list[Step]) -> list[Symbol]:
    """The symbols of a package's scope and its schemas' attributes (what importers
    refer to), from the entries its check added."""
    found: list[Symbol] = []
    for step in steps:
        if isinstance(step, tuple):
            scopes, schemas = step[0], step[1]
            for scope in scopes.values():
                found.extend(scope.symbols.values())
            for info in schemas.values():
                found.extend(info.attrs.values())
    return found
