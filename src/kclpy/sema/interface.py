"""Checked packages: the interface a package exports, its product, their order.

Packages are checked one at a time in import order (:func:`check_order`: a package
after every package it imports, from ``__main__`` and then every other package in
load order); checking one reads the interfaces of what it imports and never checks
another package. A check yields a :class:`CheckedPackage`: its
:class:`PackageInterface` (the symbols it exports with their types, its schemas by
full name), its diagnostics in the order it reported them, where in that order it
declared each user package it imports (``imports``), the declarations of its names
(``names``, which the checker decorated with its symbols), and its entries of the
model's tables that tools read (types, the checker's completed uses, the bindings,
the declarations by node and the schemas' members; its files' trees are its modules,
taken by the model as the program's homes say): a reused package reads to an editor
as a checked one.

Order of diagnostics (:func:`ordered_diagnostics`): the reference checks an imported
package at the import statement that first names it, so a program's diagnostics are
each package's, with the diagnostics of an imported package (and, before them, of the
packages it imports) at its first import; ``tests/sema`` pins that order.

Reuse is memoisation: a :class:`PackageStore` (the driver's in-process tier; another
persistence can stand behind the same two calls) keeps products by the package's
content key (``kclpy.pipeline.queries.package_keys``: its files, their import tables
and, transitively, the keys of what they import). A stored product serves a program
when it was checked on the very syntax trees the program loaded (the query database's
parse query shares them) and against the very products the program installed for
the packages below it (its symbols refer to theirs). ``__main__`` and packages
without a key are always checked. Products keep what editors read too: the
declarations of every region (when the program is checked with ``keep_scopes``; a
store serves programs checked alike) and the tools' tables.

Symbols are shared between programs and never written once stored: a symbol's uses
are not recorded on it but read off the modules of the program asking
(``Model.references``), so every program's model answers the uses within that
program, whichever programs share its packages.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Iterator, Mapping, Sequence
from itertools import islice
from types import MappingProxyType

from kclpy.loader import Program, iter_imports
from kclpy.records import Record
from kclpy.sema.builtins import BUILTIN_FUNCTIONS
from kclpy.sema.symbols import MAIN, Declaration, SchemaInfo, Symbol, SymbolKind
from kclpy.sema.types import FuncType
from kclpy.syntax.universe import SYSTEM_MODULES, is_plugin

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Protocol, TypeAlias

    from kclpy.diag import Diagnostic
    from kclpy.sema.model import Model
    from kclpy.syntax import ast

# a package's entries of the model's node-keyed tables, in the order of ``_TABLES``
Entries: TypeAlias = "tuple[Mapping[Any, Any], ...]"
# (how many of the package's diagnostics precede the import, the imported package)
ImportMark = tuple[int, str]

_TABLES = (
    "schemas",
    "types",
    "expected",
    "completed",
    "resolution",
    "type_resolution",
    "declarations",
    "schema_members",
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
    depends: Mapping[str, CheckedPackage]  # the products below it, by package path
    # the declarations of each region (when checked with keep_scopes: editors' names_at)
    regions: tuple[tuple[ast.Node, list[Declaration]], ...] = ()


if TYPE_CHECKING:  # used in annotations only

    class PackageStore(Protocol):
        """Checked packages by content key (``kclpy.pipeline.queries.Database.checked``)."""

        def get(self, key: Hashable) -> CheckedPackage | None: ...

        def put(self, key: Hashable, value: CheckedPackage) -> None: ...


class PackageMemo(Record):
    """A store, the content keys of the program's packages (None: not kept) and the
    builtin symbols every program of the store binds (:func:`builtin_symbols`: a
    stored package's uses of ``len`` are uses of the same symbol in every program)."""

    store: PackageStore
    keys: Mapping[str, str | None]
    builtins: Mapping[str, Symbol]


def builtin_symbols() -> dict[str, Symbol]:
    """A symbol for each builtin function (a checker's, or a store's for its programs)."""
    symbols: dict[str, Symbol] = {}
    for name, signature in BUILTIN_FUNCTIONS.items():
        symbol = symbols[name] = Symbol(name, SymbolKind.BUILTIN, signature)
        symbol.doc = signature.doc if isinstance(signature, FuncType) else ""
    return symbols


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


def depends_of(
    imports: Iterable[ImportMark], installed: Mapping[str, CheckedPackage]
) -> dict[str, CheckedPackage]:
    """The products below a package: of what it imports, and what they stand on."""
    depends: dict[str, CheckedPackage] = {}
    for _, below in imports:
        product = installed.get(below)
        if product is not None:
            depends[below] = product
            depends.update(product.depends)
    return depends


def make_product(
    model: Model,
    pkgpath: str,
    modules: Sequence[ast.Module],
    reported: tuple[Sequence[Diagnostic], Sequence[ImportMark]],
    sizes: tuple[int, ...],
    depends: Mapping[str, CheckedPackage],
    keep: bool,
) -> CheckedPackage:
    """The product of the package just checked (its imports' products installed);
    ``keep`` False (it will not be stored): without the tools' entries."""
    names = model.package_names(pkgpath)
    symbols = model.package_symbols(pkgpath)
    entries = new_entries(model, sizes, len(_TABLES) if keep else 1)
    schemas: Mapping[str, SchemaInfo] = entries[0]
    interface = PackageInterface(pkgpath, MappingProxyType(symbols), MappingProxyType(schemas))
    return CheckedPackage(
        interface,
        tuple(modules),
        tuple(reported[0]),
        tuple(reported[1]),
        names,
        entries,
        MappingProxyType(dict(depends)),
        tuple(model.regions.get(pkgpath, ())) if keep else (),
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
    if product.regions:
        model.regions[pkgpath] = list(product.regions)
    for name, entries in zip(_TABLES, product.entries, strict=True):
        getattr(model, name).update(entries)
    model.hold(pkgpath, product.modules)  # (its files' trees: the homes of this program)


def interface_product(
    pkgpath: str,
    modules: Sequence[ast.Module],
    names: dict[str, Declaration],
    schemas: Mapping[str, SchemaInfo],
    imports: Sequence[ImportMark],
    installed: Mapping[str, CheckedPackage],
) -> CheckedPackage:
    """The product of a package checked with no diagnostic, from its interface alone
    (its names and schemas, what importers' checking reads; a persistent store's,
    ``kclpy.pipeline.interfaces``): no tools' tables, no uses recorded; the products
    below it are ``installed``'s."""
    symbols = {name: found.symbol for name, found in names.items() if found.symbol is not None}
    shown = MappingProxyType(dict(schemas))
    interface = PackageInterface(pkgpath, MappingProxyType(symbols), shown)
    nothing: Mapping[Any, Any] = MappingProxyType({})
    return CheckedPackage(
        interface,
        tuple(modules),
        (),
        tuple(imports),
        names,
        (shown, *(nothing for _ in _TABLES[1:])),
        MappingProxyType(depends_of(imports, installed)),
    )
