"""The query layer: derived facts of a program, memoised by content key.

In the manner of rust-analyzer's salsa, in miniature. A :class:`Database` holds the
inputs (``kclpy.pipeline.inputs``: file texts, an editor's overlay over the disk, and
:class:`~kclpy.pipeline.inputs.Settings`) and answers the derived queries its clients
ask, each memoised by a key that covers everything it depends on:

=====================  ==========================================  =========================
query                  key                                         depends on
=====================  ==========================================  =========================
parse(file)            path + content (text, sha256 or bytes)      the file's text
program(inputs)        (not memoised: lookups are cheap)           parse of every file, the
                                                                   package folders probed
package_keys(program)  per package: files' digests + import        parse, program
                       tables + the keys of what it imports
checked(program)       per package (shared): its package key       program, package_keys,
                       (an editor's: nested scopes and tools'      checked imports
                       facts in every product)
code(package)          its package key (shared)                    checked program
schema(header)         (package path, name) within one run         code (its deferred
                                                                   bodies) or, after a disk
                                                                   cache hit, the program
                                                                   rebuilt from source
=====================  ==========================================  =========================

``checked`` is a thin call into the checker's entry point (``kclpy.sema.check_program``),
handing it the store of checked packages by key; the disk cache
(``kclpy.pipeline.cache``) is one persistence backend of ``code``: a whole program's
packages, validated by the files and lookups it read.

:class:`ProgramCode` is the ``schema`` query of one run, the explicit code source the
runner is handed (``kclpy.compile.code.CodeSource``): the VM asks it for the body of a
schema whose code holds the header only, the first time the schema is used.

The clients: ``kcl run`` and the API (``kclpy.pipeline.driver``, one private database
per run), build workers (one shared database per process), ``kcl lint``
(``kclpy.tools.lint``) and the language server's workspace (one database over the
editor's buffers).
"""

from __future__ import annotations

import weakref
from collections import OrderedDict
from collections.abc import Callable, Collection, Hashable, Mapping

from kclpy.compile.code import PackageCode, SchemaHeader, SchemaProto, fill_schemas
from kclpy.diag import Code, Diagnostic, make_error
from kclpy.loader import MAIN, Loader, Program, Reads, digest
from kclpy.pipeline.inputs import Files, Settings

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Generic, TypeVar

    from kclpy.pipeline.interfaces import PackageShelf
    from kclpy.sema import Model
    from kclpy.sema.interface import CheckedPackage, PackageMemo
    from kclpy.sema.symbols import Symbol
    from kclpy.syntax import ast

    Entry = TypeVar("Entry")
else:  # the type parameter is the type checker's: at run time the base is plain object

    class Generic:
        def __class_getitem__(cls, parameter: object) -> type:
            return object

    Entry = None

Deferred = Callable[[], SchemaProto]
SchemaKey = tuple[str, str]  # (package path, schema name)


class Recent(Generic[Entry]):
    """A memo table that keeps its ``limit`` most recently used entries."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self._entries: OrderedDict[Hashable, Entry] = OrderedDict()

    def get(self, key: Hashable) -> Entry | None:
        found = self._entries.get(key)
        if found is not None:
            self._entries.move_to_end(key)
        return found

    def put(self, key: Hashable, value: Entry) -> None:
        self._entries[key] = value
        if len(self._entries) > self.limit:
            self._entries.popitem(last=False)

    def holds(self, key: Hashable) -> bool:
        return key in self._entries

    def retain(self, keys: Collection[Hashable]) -> None:
        """Drop every entry but those of ``keys`` (what a client still uses)."""
        for key in [key for key in self._entries if key not in keys]:
            del self._entries[key]


class Database:
    """Inputs and memoised queries (see the module docstring)."""

    def __init__(
        self, settings: Settings | None = None, files: Files | None = None, limit: int = 1024
    ) -> None:
        settings = self.settings = settings if settings is not None else Settings()
        keyed = settings.keyed or settings.shared
        self.files = files if files is not None else Files(keyed, limit)
        self.checked: Recent[CheckedPackage] = Recent(limit)
        self.compiled: Recent[PackageCode] = Recent(limit)
        self.unpickled: Recent[PackageCode] = Recent(limit)
        # the last program asked for its keys (not kept alive by this memo) and its keys
        self._keys: tuple[weakref.ref[Program], dict[str, str | None]] | None = None
        self._builtins: dict[str, Symbol] | None = None  # what the shared checks bind
        # a run's: the cache folder of checked packages' entries (None: none) and the
        # view of them of the last program checked (``kclpy.pipeline.interfaces``)
        self.disk: str | None = None
        self.shelf: PackageShelf | None = None

    def package_keys(self, program: Program) -> dict[str, str | None]:
        """:func:`package_keys` of ``program`` (memoised for the last program asked)."""
        known = self._keys
        if known is None or known[0]() is not program:
            known = self._keys = (weakref.ref(program), package_keys(program))
        return known[1]

    def program(
        self,
        files: list[str],
        work_dir: str = "",
        externals: Mapping[str, str] | None = None,
        sources: Mapping[str, str] | None = None,
        before: Callable[[], object] | None = None,
    ) -> tuple[Program, Loader]:
        """The program of entry ``files``: every package reachable by imports, each
        file parsed through the parse query (``before`` called before each); and the
        loader (its lookups answer tools' questions: is this import the file itself?)."""
        texts = self.files.view(sources or {}, before)
        loader = Loader(work_dir, dict(externals or {}), texts=texts)
        return loader.load(files), loader

    def checked_program(self, program: Program) -> Model:
        """The checked model of ``program``: a thin call into the checker's entry
        point, with the store of checked packages by content key when the database is
        shared (an editor's products keep the nested scopes and the tools' facts: its
        settings are the same for every program it checks)."""
        from kclpy.sema import check_program

        settings = self.settings
        if not settings.shared:
            memo = self._disk_memo(program)
            return check_program(program, settings.scopes, memo, settings.tool_facts)
        from kclpy.sema.interface import PackageMemo, builtin_symbols

        if self._builtins is None:
            self._builtins = builtin_symbols()
        memo = PackageMemo(self.checked, self.package_keys(program), self._builtins)
        return check_program(program, settings.scopes, memo, settings.tool_facts)

    def _disk_memo(self, program: Program) -> PackageMemo | None:
        """A run's store of checked packages: their entries on disk (``disk``), when the
        database records digests and the program imports packages with a key."""
        self.shelf = None
        if self.disk is None or not self.files.keyed or self.settings != _RUN:
            return None
        keys = self.package_keys(program)
        if not any(key for pkgpath, key in keys.items() if pkgpath != MAIN):
            return None
        from kclpy.pipeline.interfaces import PackageShelf
        from kclpy.sema.interface import PackageMemo, builtin_symbols

        builtins = builtin_symbols()
        self.shelf = PackageShelf(self.disk, program, keys, builtins)
        return PackageMemo(self.shelf, keys, builtins)

    def code(
        self,
        program: Program,
        model: Model,
        diagnostics: list[Diagnostic],
        checked: bool = True,
    ) -> tuple[dict[str, PackageCode], ProgramCode] | None:
        """Every package's code and the run's code source, or None when compiling
        reported an error (added to ``diagnostics``). Shared: memoised by package key,
        every schema compiled; else the schemas of a ``checked`` program (the checker
        reported every error compiling them could) are deferred to the code source."""
        shared = self.settings.shared
        deferring = checked and not shared
        keys = self.package_keys(program) if shared else {}
        shelf = self.shelf if checked and self.shelf is not None else None
        if shelf is not None and shelf.program is not program:
            shelf = None
        source = ProgramCode()
        codes: dict[str, PackageCode] = {}
        for pkgpath, modules in program.packages.items():
            key = keys.get(pkgpath)
            found = self.compiled.get(key) if shared and key is not None else None
            if found is None and shelf is not None:
                found = shelf.code(pkgpath)
            if found is None:
                found, problems = _compile_package(
                    model, pkgpath, modules, source if deferring else None
                )
                diagnostics.extend(problems)
                if found is None:
                    return None
                if shared and key is not None and not problems:
                    self.compiled.put(key, found)
                if shelf is not None and not problems:
                    shelf.compiled(pkgpath, found)
            codes[pkgpath] = found
        if any(d.is_error for d in diagnostics):
            return None
        return codes, source


def _compile_package(
    model: Model, pkgpath: str, modules: list[ast.Module], source: ProgramCode | None
) -> tuple[PackageCode | None, list[Diagnostic]]:
    """One package through the compiler (its schemas deferred to ``source`` when
    given, the model type-checked): its code (None when too deep) and diagnostics."""
    from kclpy.compile.stmts import PackageCompiler
    from kclpy.depth import TOO_DEEP, innermost_span

    compiler = PackageCompiler(pkgpath, modules, model, source is not None)
    try:
        code = compiler.compile()
    except RecursionError as error:  # beyond kclpy.depth's budget
        return None, [make_error(Code.COMPILE_ERROR, TOO_DEEP, innermost_span(error))]
    if source is not None:
        source.defer(pkgpath, compiler.deferred)
    return code, list(compiler.diagnostics)


def package_keys(program: Program) -> dict[str, str | None]:
    """The content key of each package: its path, the digest of each of its files with
    that file's import table, and the keys of the packages it imports (so a change
    anywhere below it changes it). A file given as text (an editor's buffer) is
    digested by its text. None when a file of it was read without a digest (a
    database that is not keyed), is missing, or an import cycle runs through it."""
    digests = dict(program.reads.files)
    unread = program.reads.unread
    keys: dict[str, str | None] = {}

    def key_of(name: str, visiting: frozenset[str]) -> str | None:
        if name in keys:
            return keys[name]
        modules = program.packages.get(name)
        if modules is None:  # a system module or plugin: its name is its content
            return name
        if name in visiting:
            return None
        parts: list[object] = [name]
        for module in modules:
            table = program.imports_of(module)
            path = module.file.path
            file_digest = digests.get(path)
            if file_digest is None and path not in unread:  # given as text
                file_digest = "text:" + digest(module.file.text.encode("utf-8", "surrogatepass"))
            if not file_digest:
                keys[name] = None
                return None
            parts.append((module.file.path, file_digest, sorted(table.items())))
            for target in sorted(set(table.values())):
                inner = key_of(target, visiting | {name})
                if inner is None:
                    keys[name] = None
                    return None
                parts.append(inner)
        keys[name] = digest(repr(parts).encode("utf-8", "surrogatepass"))
        return keys[name]

    return {pkgpath: key_of(pkgpath, frozenset()) for pkgpath in program.packages}


_RUN = Settings(tool_facts=False, keyed=True)  # a run's settings (the disk tier's only)

CHANGED = "the program's files changed while it ran from the compiled-module cache; run it again"


class ProgramCode:
    """The ``schema`` query of one run (a ``kclpy.compile.code.CodeSource``): the
    body of each schema whose code holds its header only, compiled once, from the
    deferred bodies the compiler left (:meth:`defer`) or, for codes read from a disk
    cache entry, from the program ``rebuild`` compiles from source again (once; a
    LookupError when the sources no longer define the schema)."""

    def __init__(self, rebuild: Callable[[], ProgramCode | None] | None = None) -> None:
        self.deferred: dict[SchemaKey, Deferred] = {}
        self.compiled: dict[SchemaKey, SchemaProto] = {}
        self.rebuild = rebuild
        self.rebuilt = False  # whether the bodies came from a rebuild from source
        self.reads: Reads | None = None  # what loading the rebuilt program read

    def defer(self, pkgpath: str, bodies: Mapping[str, Deferred]) -> None:
        """The deferred bodies of a package's schemas, by name."""
        for name, body in bodies.items():
            self.deferred[(pkgpath, name)] = body

    def schema(self, header: SchemaHeader) -> SchemaProto:
        key = (header.pkgpath, header.name)
        found = self.compiled.get(key)
        if found is not None:
            return found
        body = self.deferred.get(key)
        if body is None and self.rebuild is not None:
            rebuild, self.rebuild = self.rebuild, None
            again = rebuild()
            if again is not None:
                self.deferred, self.reads = again.deferred, again.reads
                self.rebuilt = True
            body = self.deferred.get(key)
        if body is None:
            raise LookupError(CHANGED)
        found = self.compiled[key] = body()
        return found

    def fill(self, codes: Mapping[str, PackageCode]) -> None:
        """Put the bodies compiled so far in place of their headers in ``codes``."""
        if self.compiled:
            found = self.compiled.get
            for package in codes.values():
                fill_schemas(package, lambda header: found((header.pkgpath, header.name)))
