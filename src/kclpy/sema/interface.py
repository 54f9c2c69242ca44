"""Checked packages: the interface a package exports, its product, their order.

Packages are checked one at a time in import order (:func:`check_order`: a package
after every package it imports, from ``__main__`` and then every other package in
load order); checking one reads the interfaces of what it imports and never checks
another package. A check yields a :class:`CheckedPackage`: its
:class:`PackageInterface` (the symbols it exports with their types, its schemas by
full name), its diagnostics in the order it reported them, where in that order it
declared each user package it imports (``imports``), the declarations of its names
(``names``, which the checker decorated with its symbols), and its entries of the
model's tables that tools read (types, bindings, run-time bindings, the declarations
by node and the schemas' members, files, occurrences): a reused package reads to an
editor as a checked one.

Order of diagnostics (:func:`ordered_diagnostics`): the reference checks an imported
package at the import statement that first names it, so a program's diagnostics are
each package's, with the diagnostics of an imported package (and, before them, of the
packages it imports) at its first import; ``tests/sema`` pins that order.

Reuse is memoisation: a :class:`PackageStore` (the driver's in-process tier; another
persistence can stand behind the same two calls) keeps products by the package's
content key (``kclpy.pipeline.queries.package_keys``: its files, their import tables
and, transitively, the keys of what they import). A stored product serves a program
when it was checked on the very syntax trees the program loaded (the query database's
parse query shares them) and against the very products the program installed for the
packages below it (its symbols refer to theirs). ``__main__``, packages
without a key and programs checked with ``keep_scopes`` are always checked.
Symbols are shared between programs: installing a stored product drops the
references its importers recorded on its symbols (``references``).
"""

from __future__ import annotations

from collections.abc import Hashable, Iterator, Mapping, Sequence
from itertools import islice
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Protocol

from kclpy.loader import Program, iter_imports
from kclpy.records import Record
from kclpy.sema.symbols import MAIN, Declaration, SchemaInfo, Symbol
from kclpy.syntax.universe import SYSTEM_MODULES, is_plugin

if TYPE_CHECKING:
    from kclpy.diag import Diagnostic
    from kclpy.sema.model import Model
    from kclpy.syntax import ast

# a package's entries of the model's node-keyed tables, in the order of ``_TABLES``
Entries = tuple[Mapping[Any, Any], ...]
Occurrences = Mapping[str, list[tuple[int, int, Symbol]]]
# (how many of the package's diagnostics precede the import, the imported package)
ImportMark = tuple[int, str]

_TABLES = (
    "schemas",
    "types",
    "expected",
    "bindings",
    "resolution",
    "type_resolution",
    "declarations",
    "schema_members",
    "files",
)


class PackageInterface(Record):
    """What importers of a package read: its exported symbols and its schemas."""

    pkgpath: str
    symbols: Mapping[str, Symbol]
    schemas: Mapping[str, SchemaInfo]  # by full name, in declaration order


class CheckedPackage(Record):
    """The product of checking one package."""

    interface: PackageInterface
    modules: tuple[ast.Module, ...]  # the syntax trees it was checked on
    diagnostics: tuple[Diagnostic, ...]
    imports: tuple[ImportMark, ...]
    names: dict[str, Declaration]  # the declarations of its names, decorated (shared)
    entries: Entries
    occurrences: Occurrences  # per file of it, its definitions and uses
    references: tuple[tuple[Symbol, int], ...]  # its symbols' own references, counted
    depends: Mapping[str, CheckedPackage]  # the products below it, by package path


class PackageStore(Protocol):
    """Checked packages by content key (``kclpy.pipeline.queries.Database.checked``)."""

    def get(self, key: Hashable) -> CheckedPackage | None: ...

    def put(self, key: Hashable, value: CheckedPackage) -> None: ...


class PackageMemo(Record):
    """A store and the content keys of the program's packages (None: not kept)."""

    store: PackageStore
    keys: Mapping[str, str | None]


# --------------------------------------------------------------------------- order


def user_imports(program: Program, pkgpath: str) -> Iterator[str]:
    """The user packages a package's import statements name, in statement order
    (repeats included): those the checker reads the interface of."""
    for module in program.packages.get(pkgpath, ()):
        table = program.imports_of(module)
        for stmt in iter_imports(module.body):
            path = stmt.path
            if is_plugin(path) or path in SYSTEM_MODULES:
                continue
            target = table.get(stmt.name)
            if target is not None and target in program.packages:
                yield target


def roots(program: Program) -> list[str]:
    """Where the walks start: ``__main__``, then every package in load order."""
    packages = list(program.packages)
    return [MAIN, *packages] if MAIN in program.packages else packages


def check_order(program: Program) -> list[str]:
    """Every package after the packages it imports (depth first, in statement order;
    of an import cycle, the package reached first is checked last)."""
    order: list[str] = []
    seen: set[str] = set()
    for root in roots(program):
        if root in seen:
            continue
        seen.add(root)
        stack = [(root, user_imports(program, root))]
        while stack:
            pkgpath, pending = stack[-1]
            following = next((target for target in pending if target not in seen), None)
            if following is None:
                stack.pop()
                order.append(pkgpath)
            else:
                seen.add(following)
                stack.append((following, user_imports(program, following)))
    return order


def ordered_diagnostics(
    starts: Sequence[str], reported: Mapping[str, tuple[Sequence[Diagnostic], Sequence[ImportMark]]]
) -> tuple[list[Diagnostic], list[str]]:
    """A program's diagnostics in the reference's order (see the module docstring),
    from each package's diagnostics and import marks; and the packages in the order
    the reference starts checking them."""
    found: list[Diagnostic] = []
    started: list[str] = []
    emitted: set[str] = set()
    for root in starts:
        if root in emitted or root not in reported:
            continue
        emitted.add(root)
        started.append(root)
        stack = [(root, 0, 0)]  # (package, its next import mark, its next diagnostic)
        while stack:
            pkgpath, mark, at = stack.pop()
            diagnostics, marks = reported[pkgpath]
            while mark < len(marks):
                index, target = marks[mark]
                mark += 1
                found.extend(diagnostics[at:index])
                at = max(at, index)
                if target not in emitted and target in reported:
                    emitted.add(target)
                    started.append(target)
                    stack.append((pkgpath, mark, at))
                    stack.append((target, 0, 0))
                    break
            else:
                found.extend(diagnostics[at:])
    return found, started


# --------------------------------------------------------------------------- products


def table_sizes(model: Model) -> tuple[int, ...]:
    return tuple(len(getattr(model, name)) for name in _TABLES)


def new_entries(model: Model, sizes: tuple[int, ...], count: int = len(_TABLES)) -> Entries:
    """The entries the model's first ``count`` tables gained since ``sizes`` (a
    package's check)."""
    found: list[Mapping[Any, Any]] = []
    for name, size in islice(zip(_TABLES, sizes, strict=True), count):
        table: dict[Any, Any] = getattr(model, name)
        found.append(MappingProxyType(dict(islice(table.items(), size, None))))
    return tuple(found)


def make_product(
    model: Model,
    pkgpath: str,
    modules: Sequence[ast.Module],
    reported: tuple[Sequence[Diagnostic], Sequence[ImportMark]],
    sizes: tuple[int, ...],
    installed: Mapping[str, CheckedPackage],
    keep: bool,
) -> CheckedPackage:
    """The product of the package just checked (its imports' products installed);
    ``keep`` False (it will not be stored): without the tools' entries."""
    names = model.package_names(pkgpath)
    symbols = model.package_symbols(pkgpath)
    entries = new_entries(model, sizes, len(_TABLES) if keep else 1)
    schemas: Mapping[str, SchemaInfo] = entries[0]
    interface = PackageInterface(pkgpath, MappingProxyType(symbols), MappingProxyType(schemas))
    depends: dict[str, CheckedPackage] = {}
    for _, below in reported[1]:
        product = installed.get(below)
        if product is not None:
            depends[below] = product
            depends.update(product.depends)
    own = [*symbols.values(), *(s for info in schemas.values() for s in info.attrs.values())]
    paths = dict.fromkeys(module.file.path for module in modules) if keep else {}
    return CheckedPackage(
        interface,
        tuple(modules),
        tuple(reported[0]),
        tuple(reported[1]),
        names,
        entries,
        MappingProxyType({path: model.file_occurrences(path) for path in paths}),
        tuple((symbol, len(symbol.references)) for symbol in own) if keep else (),
        MappingProxyType(depends),
    )


def usable(
    product: CheckedPackage | None,
    modules: Sequence[ast.Module],
    installed: Mapping[str, CheckedPackage],
) -> bool:
    """Whether a stored product serves this program (see the module docstring)."""
    if product is None or len(product.modules) != len(modules):
        return False
    if any(mine is not theirs for mine, theirs in zip(modules, product.modules, strict=True)):
        return False
    return all(installed.get(below) is used for below, used in product.depends.items())


def install(model: Model, product: CheckedPackage, reused: bool) -> None:
    """Put a product's entries into the model of the program being checked."""
    pkgpath = product.interface.pkgpath
    model.packages_names[pkgpath] = product.names
    if not reused:
        return  # (its check filled the model)
    model.shared.add(pkgpath)
    for name, entries in zip(_TABLES, product.entries, strict=True):
        getattr(model, name).update(entries)
    for path, items in product.occurrences.items():
        model.set_file_occurrences(path, items)
    for symbol, count in product.references:  # drop what importers recorded
        symbol.references = symbol.references[:count]  # a list, or an empty tuple
