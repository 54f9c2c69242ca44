"""Loading a program: entry files, packages, ``kcl.mod``, and import resolution.

Takes the entry files (or package folders) of a run and returns a ``Program``: the
parsed files of every package reachable through imports, keyed by package path
(``__main__`` for the entry files), each file's import table, and diagnostics
(syntax errors, missing modules, import cycles, package resolution). Packages
declared in ``kcl.mod`` are resolved (and downloaded when missing) by ``kclpy.mod``.

Every file is read within the root of the package it lies in (the module's folder for
the main package, the package's folder for a dependency): a ``.k`` file or a folder that
a symbolic link leads outside that root is refused with an error (links within it are
followed). The folders below a root are looked at once per load (one ``lstat`` each), a
file's own kind comes from its folder's listing; real paths are compared only where a
link was found.

The program also records what loading it read (``Program.reads``): the sha256 of
every file parsed and the answer of every package lookup. The driver's cache
(``kclpy.pipeline.cache``) keys and validates its entries with that record. The
``SourceTexts`` handed to the loader (the query layer's, ``kclpy.pipeline.inputs``)
reads the files, an editor's unsaved buffers over the disk, and parses them, sharing
parsed files by content between the programs of one process.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
from collections.abc import Iterable, Mapping

from kclpy.diag import Code, Diagnostic, Suggestion, make_error
from kclpy.patterns import compiled
from kclpy.source import nearest_holding
from kclpy.syntax import ast, parse_bytes, parse_file, parse_source
from kclpy.syntax.universe import SYSTEM_MODULES, is_plugin

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Protocol

    from kclpy.mod.errors import PackageError

MAIN = "__main__"
ARTIFACT_HUB = "https://artifacthub.io"
_KCL_MOD = compiled(r"^\$\{(\w+):KCL_MOD\}")

Parsed = tuple[ast.Module, list[Diagnostic]]
Probe = tuple[str, tuple[str, list[str]] | None]


def _load_sha256() -> Any:
    """SHA-256 from the interpreter's own module when it has one (``hashlib`` loads
    OpenSSL, ~4 ms of every start-up); the digest is the same either way."""
    for name in ("_sha2", "_sha256"):
        try:
            return __import__(name).sha256
        except (ImportError, AttributeError):
            continue
    import hashlib  # pragma: no cover - an interpreter built without them

    return hashlib.sha256  # pragma: no cover


_sha256 = _load_sha256()


def digest(data: bytes) -> str:
    """The hex sha256 of ``data`` (the content key of files and cache entries)."""
    text: str = _sha256(data).hexdigest()
    return text


class Reads:
    """What loading a program read: each parsed file's digest ("" for a missing or
    unreadable file), each package lookup (``Loader.candidate``, found or not) and each
    package discovery with its answer. ``complete`` is False when a file could not be
    recorded (given as text, missing, unreadable). The on-disk cache validates its
    entries with it; impact analysis takes a stack's dependencies from it."""

    __slots__ = ("complete", "discoveries", "files", "probes", "unread")

    def __init__(self) -> None:
        self.files: list[tuple[str, str]] = []
        self.unread: set[str] = set()  # files missing, unreadable or refused
        self.probes: list[Probe] = []
        self.discoveries: list[tuple[str, str | None]] = []
        self.complete = True


if TYPE_CHECKING:  # used in annotations only

    class SourceTexts(Protocol):
        """Where the loader reads a program's files (``kclpy.pipeline.inputs`` provides
        the query layer's): ``overlay``, texts standing for files (an editor's unsaved
        buffers, code given as strings) over the disk; the parse of a text or of a disk
        file with its key (memoised by content by the query layer: a file whose status
        has not changed is not read again); ``keyed``: whether the sha256 of each file
        read goes into ``Program.reads`` (a cache keys by it)."""

        @property
        def overlay(self) -> Mapping[str, str]: ...

        @property
        def keyed(self) -> bool: ...

        def parse_text(self, path: str, text: str) -> Parsed: ...

        def parse_file(self, path: str) -> tuple[str, Parsed]:
            """The key of a disk file's bytes (their sha256 when ``keyed``, else "") and
            their parse; FileNotFoundError when no regular file is there (missing, a
            folder, a pipe: never opened), another OSError when it cannot be read."""
            ...

        def tree_of(self, pkgpath: str, module: ast.Module) -> ast.Module:
            """A tree of its own of a file another package of the program holds as
            ``module``, for ``pkgpath`` (the query layer's: the same copy while the file's
            parse is the same, so checked packages are reused by their trees)."""
            ...


class DiskTexts:
    """Files as they are on disk (``overlay``: texts standing for some), parsed each
    time they are read; ``keyed`` as :class:`SourceTexts`."""

    __slots__ = ("keyed", "overlay")

    def __init__(self, overlay: Mapping[str, str] | None = None, keyed: bool = True) -> None:
        self.overlay: Mapping[str, str] = overlay or {}
        self.keyed = keyed

    def parse_text(self, path: str, text: str) -> Parsed:
        return parse_source(text, path)

    def parse_file(self, path: str) -> tuple[str, Parsed]:
        regular_file(os.stat(path), path)
        with open(path, "rb") as handle:
            data = handle.read()
        return digest(data) if self.keyed else "", parse_bytes(data, path)

    def tree_of(self, pkgpath: str, module: ast.Module) -> ast.Module:
        from kclpy.syntax.clone import renumbered  # (rare: not on every start)

        return renumbered(module)


def regular_file(status: os.stat_result, path: str) -> os.stat_result:
    """``status``, when it is a regular file's; else FileNotFoundError (a source that
    is a folder or a pipe is not there: a pipe is never opened, it could block)."""
    if not stat.S_ISREG(status.st_mode):
        raise FileNotFoundError(errno.ENOENT, "not a regular file", path)
    return status


class Program:
    """The packages of one run, ready for the checker and the compiler."""

    def __init__(self, root: str) -> None:
        self.root = root
        self.packages: dict[str, list[ast.Module]] = {}
        self.imports: dict[int, dict[str, str]] = {}  # module id -> {local name: pkgpath}
        # the packages standing for modules not found: empty, named as the reference
        # names them (``Loader.stand_in``); their imports are errors of ``diagnostics``
        self.missing: set[str] = set()
        self.diagnostics: list[Diagnostic] = []
        self.reads = Reads()
        # per file that more than one package holds (a folder imported as a package and
        # one of its files imported as a module), the package it belongs to: the one
        # that is not a file imported as a module of its own (its folder's), else the
        # first that loaded it; tools read that package's tree of the file
        self.homes: dict[str, str] = {}

    @property
    def has_errors(self) -> bool:
        return any(d.is_error for d in self.diagnostics)

    def imports_of(self, module: ast.Module) -> dict[str, str]:
        return self.imports.get(module.id, {})

    def home_of(self, path: str) -> tuple[str, ast.Module] | None:
        """The package a file belongs to and its tree there (``homes``' package of a
        file two packages hold), None when no package holds it; ``path`` is compared
        made absolute."""
        path = os.path.abspath(path)
        homes = self.homes
        for pkgpath, modules in self.packages.items():
            for module in modules:
                own = module.file.path
                if os.path.abspath(own) == path and homes.get(own, pkgpath) == pkgpath:
                    return pkgpath, module
        return None


def find_root(start: str) -> str | None:
    """The nearest directory at or above ``start`` holding a ``kcl.mod``."""
    return nearest_holding(start, "kcl.mod")


def mod_dependencies(
    root: str, given: frozenset[str] = frozenset()
) -> tuple[dict[str, str], list[Diagnostic]]:
    """The packages of the module at ``root`` (``kcl.mod`` dependencies, direct and
    transitive, downloaded into the package cache when missing; not the ``given`` ones,
    passed with ``-E``): name -> folder, and the diagnostics of resolution (see
    ``kclpy.mod.resolution``)."""
    paths, errors = module_packages(root, given)
    return paths, [error.diagnostic() for error in errors]


def module_packages(
    root: str, given: frozenset[str] = frozenset()
) -> tuple[dict[str, str], list[PackageError]]:
    """:func:`mod_dependencies` with the errors as raised (each names its dependency)."""
    if not os.path.isfile(os.path.join(root, "kcl.mod")):
        return {}, []
    from kclpy.mod.resolution import dependency_paths

    return dependency_paths(root, given)


def declared_packages(root: str) -> set[str]:
    """The package names the module at ``root`` declares: its ``kcl.mod``
    dependencies and its ``kcl.mod.lock`` entries (none when they are unreadable)."""
    from kclpy.mod.errors import PackageError
    from kclpy.mod.manifest import read_lock, read_mod

    names: set[str] = set()
    with contextlib.suppress(PackageError):
        names.update(read_mod(root).dependencies)
    with contextlib.suppress(PackageError):
        names.update(read_lock(root))
    return names


def package_files(directory: str, links: set[str] | None = None) -> list[str]:
    """The ``.k`` files of a package folder, sorted, without ``_test.k`` files (those
    that are symbolic links added to ``links``, when given)."""
    names: list[str] = []
    try:
        with os.scandir(directory) as entries:  # file types without a stat per file
            for entry in entries:
                name = entry.name
                if name.endswith(".k") and not name.endswith("_test.k") and entry.is_file():
                    names.append(name)
                    if links is not None and entry.is_symlink():
                        links.add(os.path.join(directory, name))
    except OSError:
        return []
    return [os.path.join(directory, name) for name in sorted(names)]


class Loader:
    """Resolves and parses every package a program needs."""

    def __init__(
        self,
        work_dir: str = "",
        externals: dict[str, str] | None = None,
        sources: Mapping[str, str] | None = None,
        texts: SourceTexts | None = None,
    ) -> None:
        self.work_dir = os.path.abspath(work_dir or os.getcwd())
        self.externals = {name: os.path.abspath(path) for name, path in (externals or {}).items()}
        # where files are read (``sources``: texts for paths, code given as strings)
        self.texts: SourceTexts = texts if texts is not None else DiskTexts(sources)
        self.sources = self.texts.overlay
        self.program = Program(self.work_dir)
        self._loading: list[str] = []
        self._package_dirs: dict[str, str] = {}
        # the package found at each probed base during one load (files do not move
        # under a load; many files import the same packages)
        self._found: dict[str, tuple[str, list[str]] | None] = {}
        self._undiscovered: set[str] = set()  # package names no discovery found (one load)
        self._unfound: list[Diagnostic] = []  # the folder errors of missing imports (one load)
        # the trees given to a package (one load), by id, and the package: a file of a
        # second package (a folder's file imported as a module too) gets a tree of its own
        self._given: dict[int, str] = {}
        # for the check that sources lie within their package's root (:meth:`escape`):
        # whether each folder is or lies under a link below its root, the real path of
        # each root, each folder's verdict, the links already reported, the folders
        # listed (their .k files that are links: no lstat per file)
        self._linked_folders: dict[str, bool] = {}
        self._real_roots: dict[str, str] = {}
        self._folders: dict[str, tuple[str, SourceEscape | None]] = {}
        self._escaped: set[str] = set()
        self._listed: set[str] = set()
        self._links: set[str] = set()
        # why a package of the module is missing: name -> (code, message) of the error
        # that stopped its resolution (for the hint of an import that names it)
        self.package_failures: dict[str, tuple[Code, str]] = {}

    def load(self, inputs: Iterable[str]) -> Program:
        """Every package of the program whose entries are ``inputs``."""
        for table in (self._found, self._linked_folders, self._real_roots, self._folders):
            table.clear()
        self._undiscovered.clear()
        self._given.clear()
        self._listed.clear()
        self._links.clear()
        files = self.entries(inputs)
        self.load_package(MAIN, files, None)
        self.program.diagnostics.extend(self._unfound)
        self._unfound.clear()
        return self.program

    def entries(self, inputs: Iterable[str]) -> list[str]:
        """The first, cheap step of :meth:`load` (nothing parsed): the module's
        dependencies, the program root and the main package's files."""
        items = list(inputs)
        # the module's packages first: entries may name them (``${konfig:KCL_MOD}/...``)
        resolved_root = self.add_dependencies(self.entry_dir(items))
        files: list[str] = []
        for item in items:
            item = self.expand(item)
            path = item if os.path.isabs(item) else os.path.join(self.work_dir, item)
            if item in self.sources:
                files.append(item)
            elif os.path.isdir(path):
                files.extend(self.package_files(path))
            else:
                files.append(path)
        first_dir = (
            os.path.dirname(files[0]) if files and files[0] not in self.sources else (self.work_dir)
        )
        root = find_root(first_dir) or first_dir
        self.program.root = root
        if root != resolved_root:
            self.add_dependencies(first_dir)
        self._package_dirs[MAIN] = first_dir
        return files

    def entry_dir(self, items: list[str]) -> str:
        """The folder of the first entry that is not a package reference."""
        for item in items:
            if item.startswith("${"):
                continue
            path = item if os.path.isabs(item) else os.path.join(self.work_dir, item)
            if item in self.sources:
                return self.work_dir
            return path if os.path.isdir(path) else os.path.dirname(path)
        return self.work_dir

    def add_dependencies(self, folder: str) -> str:
        """Resolve the ``kcl.mod`` dependencies of the module holding ``folder`` into
        ``externals`` (``-E`` ones win); returns the module root."""
        root = find_root(folder) or folder
        dependencies, problems = module_packages(root, frozenset(self.externals))
        for problem in problems:
            self.program.diagnostics.append(problem.diagnostic())
            self.package_failures.setdefault(problem.dependency, (problem.code, problem.message))
        for name, path in dependencies.items():
            self.externals.setdefault(name, path)
        return root

    def expand(self, item: str) -> str:
        """``${name:KCL_MOD}/x.k`` in an input path: ``x.k`` of the external package;
        ``${KCL_MOD}/x.k``: ``x.k`` of the package root (the ``kcl.mod`` folder)."""
        if item.startswith("${KCL_MOD}"):
            mod_root = find_root(self.work_dir) or self.work_dir
            return os.path.join(mod_root, item[len("${KCL_MOD}") :].lstrip("/"))
        match = _KCL_MOD.match(item)
        if match is None:
            return item
        root = self.externals.get(match.group(1))
        if root is None:
            return item
        return os.path.join(root, item[match.end() :].lstrip("/"))

    def parse(self, path: str) -> Parsed:
        """One file of the program, parsed; its digest goes into ``program.reads``."""
        reads = self.program.reads
        text = self.sources.get(path)
        if text is not None:
            reads.complete = False
            return self.texts.parse_text(path, text)
        try:
            key, parsed = self.texts.parse_file(path)
        except OSError as error:
            reads.complete = False
            reads.files.append((path, ""))  # a file made here later changes the program
            reads.unread.add(path)
            if isinstance(error, FileNotFoundError):  # missing, or no regular file
                module, _ = parse_source("", path)
                problem = make_error(Code.IO_ERROR, f"Cannot find the kcl file: {path}", None)
                return module, [problem]
            return parse_file(path)  # its diagnostic says why
        reads.files.append((path, key))
        return parsed

    def escapes(self, files: list[str]) -> dict[str, SourceEscape]:
        """The files of a package whose folder or the file itself is a symbolic link
        leading outside the package root they lie in (a file in no root, an entry file
        named outside the module, is not checked): each folder's verdict once per
        load; whether a file is a link from its folder's listing, else one ``lstat``."""
        found: dict[str, SourceEscape] = {}
        for path in files:
            if path in self.sources:
                continue
            folder = path.rpartition(os.sep)[0] or os.sep
            checked = self._folders.get(folder)
            if checked is None:
                checked = self._folders[folder] = self._check_folder(folder)
            root, escape = checked
            if escape is None and root:
                escape = self._file_escape(path, folder, root)
            if escape is not None:
                found[path] = escape
        return found

    def _file_escape(self, path: str, folder: str, root: str) -> SourceEscape | None:
        """Whether ``path`` (in a folder within ``root``) is a link leading outside it."""
        if folder in self._listed:
            if path not in self._links:
                return None
        else:
            try:
                if not stat.S_ISLNK(os.lstat(path).st_mode):
                    return None
            except OSError:
                return None  # missing or unreadable: parsing says so
        real = os.path.realpath(path)
        return None if _within(real, self.real_root(root)) else SourceEscape(path, real, root)

    def _check_folder(self, folder: str) -> tuple[str, SourceEscape | None]:
        """The package root ``folder`` lies in ("" when none), and whether a link leads
        ``folder`` outside it: real paths compared when a folder on the way down from
        the root is a link (or the path has ``..``), else nothing to compare."""
        normal = os.path.normpath(folder)
        root = self.root_of_folder(normal)
        if root is None:
            return "", None
        if normal == folder and not self._linked(folder, root):
            return root, None
        real = os.path.realpath(folder)
        if _within(real, self.real_root(root)):
            return root, None
        return root, SourceEscape(folder, real, root)

    def _linked(self, folder: str, root: str) -> bool:
        """Whether ``folder`` or a folder above it, below ``root``, is a symbolic link
        (one ``lstat`` per folder per load)."""
        if len(folder) <= len(root):  # the root itself: what it resolves to is the root
            return False
        known = self._linked_folders.get(folder)
        if known is None:
            try:
                known = stat.S_ISLNK(os.lstat(folder).st_mode)
            except OSError:
                known = True  # missing or unreadable: the real paths decide
            known = known or self._linked(os.path.dirname(folder), root)
            self._linked_folders[folder] = known
        return known

    def real_root(self, root: str) -> str:
        """The real path of a package root (once per load)."""
        found = self._real_roots.get(root)
        if found is None:
            found = self._real_roots[root] = os.path.realpath(root)
        return found

    def refuse(self, path: str, escape: SourceEscape, site: ast.ImportStmt | None) -> Parsed:
        """An empty module for a file not read, and the error (once per link)."""
        self.program.reads.complete = False
        self.program.reads.files.append((path, ""))
        self.program.reads.unread.add(path)
        module, _ = parse_source("", path)
        return module, escape.diagnostics(site, self._escaped)

    def root_of_folder(self, folder: str) -> str | None:
        """The package root ``folder`` (a normal path) lies in: the innermost external
        package's folder holding it, else the program root, else None."""
        best: str | None = None
        for root in (self.program.root, *self.externals.values()):
            root = os.path.normpath(root)
            if _within(folder, root) and (best is None or len(root) > len(best)):
                best = root
        return best

    def package_files(self, folder: str) -> list[str]:
        """:func:`package_files`, noting which files are links (for :meth:`escapes`)."""
        files = package_files(folder, self._links)
        self._listed.add(folder)
        return files

    def load_package(self, pkgpath: str, files: list[str], site: ast.ImportStmt | None) -> None:
        modules: list[ast.Module] = []
        self.program.packages[pkgpath] = modules
        self.program.missing.discard(pkgpath)
        self._loading.append(pkgpath)
        escapes = self.escapes(files)
        for path in files:
            escape = escapes.get(path) if escapes else None
            if escape is None:
                module, diagnostics = self.parse(path)
            else:
                module, diagnostics = self.refuse(path, escape, site)
            self.program.diagnostics.extend(diagnostics)
            first = self._given.get(module.id)
            if first is not None:  # (each package checks a tree of its own)
                self.choose_home(module.file.path, first, pkgpath, files)
                module = self.texts.tree_of(pkgpath, module)
            self._given[module.id] = pkgpath
            modules.append(module)
        for module in modules:
            self.resolve_imports(pkgpath, module)
        self._loading.pop()

    def choose_home(self, path: str, first: str, pkgpath: str, files: list[str]) -> None:
        """Note which package a file two packages hold belongs to (``Program.homes``):
        ``pkgpath`` (loading ``files``) rather than the home so far only when that is
        a file imported as a module of its own and ``pkgpath`` is not."""
        homes = self.program.homes
        home = homes.get(path, first)
        held = [module.file.path for module in self.program.packages[home]]
        if self._lone(home, held) and not self._lone(pkgpath, files):
            home = pkgpath
        homes[path] = home

    def _lone(self, pkgpath: str, files: list[str]) -> bool:
        """Whether a package of ``files`` is one file imported as a module
        (``pkg.server`` of ``pkg/server.k``): its path names the file, not a folder."""
        if pkgpath == MAIN or len(files) != 1 or not files[0].endswith(".k"):
            return False
        return self.pkgpath_of(files[0][:-2]) == pkgpath

    def resolve_imports(self, pkgpath: str, module: ast.Module) -> None:
        table: dict[str, str] = {}
        self.program.imports[module.id] = table
        for stmt in iter_imports(module.body):
            target = self.resolve(pkgpath, module, stmt)
            if target is not None:
                table[stmt.name] = target

    def resolve(self, pkgpath: str, module: ast.Module, stmt: ast.ImportStmt) -> str | None:
        path = stmt.path
        if path in SYSTEM_MODULES or is_plugin(path):
            return path
        found = self.locate(pkgpath, module, path)
        if found is None:
            return self.stand_in(module, stmt)
        target, files = found
        if target in self._loading:
            self.program.diagnostics.append(
                make_error(
                    Code.RECURSIVE_LOAD,
                    "Could not compiles due to cyclic import statements",
                    stmt.span,
                    f"There is a circular reference between modules {', '.join(self._loading)}",
                )
            )
            return target
        if target not in self.program.packages:
            self.load_package(target, files, stmt)
        return target

    def stand_in(self, module: ast.Module, stmt: ast.ImportStmt) -> str:
        """The package path of an import that names no package, after its errors
        (:meth:`missing`): as the reference, the module is an empty package under the
        path the reference names it by, so that checking goes on and finds every
        member it is asked for missing; ``Program.missing`` records it (a program
        with one never runs: its errors stop the pipeline before compiling)."""
        pkgpath = self.missing_pkgpath(module, stmt.path)
        loading, checking = self.missing(module, stmt, pkgpath)
        self.program.diagnostics.extend(loading)
        self._unfound.extend(checking)  # (after loading, as the checker reports them)
        if pkgpath not in self.program.packages:
            self.program.packages[pkgpath] = []
            self.program.missing.add(pkgpath)
        return pkgpath

    def missing_pkgpath(self, module: ast.Module, path: str) -> str:
        """The package path of a missing import as the reference names it: an absolute
        import as written; a relative one from the program root (or the external
        package the importing file lies in), the rest of the path as written (so
        ``.a..b`` keeps its empty part); "" when its dots lead above that root."""
        if not path.startswith("."):
            return path
        target = self.relative_target(module, path)
        if target is None:
            return ""
        base, rest = target
        prefix = self.pkgpath_of(base)
        if os.path.isabs(prefix):  # (an entry file outside the root)
            return rest
        return rest if prefix == "." else f"{prefix}.{rest}"

    def missing(
        self, module: ast.Module, stmt: ast.ImportStmt, pkgpath: str
    ) -> tuple[list[Diagnostic], list[Diagnostic]]:
        """The errors of an import that names no package (``pkgpath``, as the reference
        names it) as the reference reports them, its loader's and its checker's: the
        package path not found, and the folder the import names, both with the hints
        of :meth:`missing_hints`; for a relative import above the root, the root
        holding no module."""
        path = stmt.path
        if not pkgpath:
            root = os.path.join(self.root_of(module.file.path), "")
            message = (
                f"Failed to import the module {path} from {root}. "
                "No KCL files found in the specified folder"
            )
            return [], [make_error(Code.CANNOT_FIND_MODULE, message, stmt.span)]
        folder = self.import_folder(module, path)
        hints = self.missing_hints(pkgpath.partition(".")[0], path)
        not_found = f"pkgpath {pkgpath} not found in the program"
        not_there = f"Cannot find the module {path} from {folder}"
        return (
            [make_error(Code.CANNOT_FIND_MODULE, not_found, stmt.span, *hints)],
            [make_error(Code.CANNOT_FIND_MODULE, not_there, stmt.span, *hints)],
        )

    def relative_target(self, module: ast.Module, path: str) -> tuple[str, str] | None:
        """The folder a relative import starts from (the importing file's, one up per
        dot after the first) and the rest of its path; None when the dots lead above
        the root the file lies in (the program's, or its external package's): as the
        reference, nothing above it is looked at."""
        dots = len(path) - len(path.lstrip("."))
        here = os.path.dirname(os.path.abspath(module.file.path))
        base = here
        for _ in range(dots - 1):
            base = os.path.dirname(base)
        root = os.path.abspath(self.root_of(module.file.path))
        if _within(here, root) and not _within(base, root):
            return None
        return base, path[dots:]

    def missing_hints(self, head: str, path: str) -> list[str]:
        """What to do about a missing import whose package path starts with ``head``:
        when the module declares ``head`` (kcl.mod, kcl.mod.lock), what went wrong
        with it; else, as the reference, add the package or look for one."""
        if not path.startswith("."):
            declared = self.declared_hint(head, path.partition(".")[2])
            if declared is not None:
                return [declared]
        return [
            Suggestion(f"try 'kcl mod add {head}' to download the missing package"),
            Suggestion(f"browse more packages at '{ARTIFACT_HUB}'"),
        ]

    def declared_hint(self, head: str, rest: str) -> str | None:
        """Why the package ``head``, declared by the module or given (``-E``, vendored),
        lacks the module ``rest``: its resolution failed (the error), it has no such
        module, or resolving stopped before it; None when ``head`` is no known package."""
        failure = self.package_failures.get(head)
        if failure is not None:
            code, message = failure
            verb = "could not be fetched" if code in _FETCH_CODES else "could not be used"
            return f"'{head}' is declared in kcl.mod but {verb}: {message}"
        external = self.externals.get(head)
        if external is not None:
            if not rest:  # (a folder, even without .k files, is an empty package)
                return f"the package '{head}' has no folder at {external}"
            return f"the package '{head}' (at {external}) has no module '{rest}'"
        if head not in declared_packages(self.program.root):
            return None
        if self.package_failures:
            failed = next(iter(self.package_failures)) or "kcl.mod"
            return (
                f"'{head}' is declared in kcl.mod but was not resolved: resolving the "
                f"packages stopped at the error of '{failed}'"
            )
        return f"'{head}' is declared in kcl.mod but was not resolved"

    def import_folder(self, module: ast.Module, path: str) -> str:
        """The folder an import names: below the importing file's folder for a
        relative import, else below its package (declared or found) or the root."""
        if path.startswith("."):
            target = self.relative_target(module, path)
            if target is None:
                return self.root_of(module.file.path)
            base, rest = target
            return os.path.join(base, *[p for p in rest.split(".") if p])
        head, _, rest = path.partition(".")
        external = self.externals.get(head)
        if external is not None:
            return os.path.join(external, *rest.split(".")) if rest else external
        return os.path.join(self.root_of(module.file.path), *path.split("."))

    def locate(self, pkgpath: str, module: ast.Module, path: str) -> tuple[str, list[str]] | None:
        """The package path and files an import refers to, or None when missing."""
        if path.startswith("."):
            target = self.relative_target(module, path)
            if target is None:
                return None
            base, rest = target
            return self.candidate(os.path.join(base, *[p for p in rest.split(".") if p]))
        head, _, rest = path.partition(".")
        external = self.externals.get(head) or self.discover(head)
        if external is not None:
            found = self.candidate(os.path.join(external, *rest.split(".")) if rest else external)
            if found is not None:
                return found
        root = self.root_of(module.file.path)
        return self.candidate(os.path.join(root, *path.split(".")))

    def discover(self, name: str) -> str | None:
        """A package ``name`` from ``vendor/`` beside ``kcl.mod`` or from ``$KCL_PKG_PATH``
        (a folder ``name`` or ``name_<version>``, the highest version); it becomes an
        external package like ``-E name=path``. A name not found is looked for once
        per load (the root package's own name, ``konfig`` of ``import konfig.models``,
        is looked for at every such import)."""
        if name in self._undiscovered:
            return None
        places = [os.path.join(self.program.root, "vendor")]
        places.extend(p for p in os.environ.get("KCL_PKG_PATH", "").split(os.pathsep) if p)
        for place in places:
            exact = os.path.join(place, name)
            if os.path.isdir(exact):
                found = exact
            else:
                try:
                    versions = sorted(
                        entry
                        for entry in os.listdir(place)
                        if entry.startswith(name + "_")
                        and os.path.isdir(os.path.join(place, entry))
                    )
                except OSError:
                    continue
                if not versions:
                    continue
                found = os.path.join(place, versions[-1])
            self.externals[name] = os.path.abspath(found)
            self.program.reads.discoveries.append((name, self.externals[name]))
            return self.externals[name]
        self.program.reads.discoveries.append((name, None))
        self._undiscovered.add(name)
        return None

    def root_of(self, path: str) -> str:
        """The root that absolute imports of a file resolve against: its external
        package's folder when it lies in one, else the program root."""
        absolute = os.path.abspath(path)
        for external in self.externals.values():
            if absolute.startswith(external.rstrip(os.sep) + os.sep):
                return external
        return self.program.root

    def candidate(self, base: str) -> tuple[str, list[str]] | None:
        """The package at ``base`` (a folder of .k files or ``base.k``), noted in
        ``program.reads``."""
        if base in self._found:
            found = self._found[base]
        else:
            found = self._found[base] = self.find(base)
        self.program.reads.probes.append((base, found))
        return found

    def find(self, base: str) -> tuple[str, list[str]] | None:
        """The package at ``base`` without noting the lookup: a folder of ``.k`` files
        or ``base.k``, texts of the overlay included (a package that exists only as
        an editor's unsaved buffers is found too)."""
        found = self._find_on_disk(base)
        unsaved = self._unsaved_in(base) if self.sources else []
        if unsaved and (found is None or found[1] != [base + ".k"]):
            files = sorted({*(found[1] if found else ()), *unsaved})
            return self.pkgpath_of(base), files
        if found is None and base + ".k" in self.sources:
            return self.pkgpath_of(base), [base + ".k"]
        return found

    def _find_on_disk(self, base: str) -> tuple[str, list[str]] | None:
        """A folder (as the reference: one without ``.k`` files is an empty package,
        unless ``base.k`` is there) or ``base.k``."""
        files = self.package_files(base) if os.path.isdir(base) else None
        if files:
            return self.pkgpath_of(base), files
        if os.path.isfile(base + ".k"):
            return self.pkgpath_of(base), [base + ".k"]
        if files is not None:
            return self.pkgpath_of(base), []
        return None

    def _unsaved_in(self, folder: str) -> list[str]:
        """The package files of the overlay directly in ``folder``."""
        return [
            path
            for path in self.sources
            if os.path.dirname(path) == folder
            and path.endswith(".k")
            and not path.endswith("_test.k")
        ]

    def pkgpath_of(self, base: str) -> str:
        relative = os.path.relpath(base, self.program.root)
        if relative.startswith(".."):
            for name, path in self.externals.items():
                inner = os.path.relpath(base, path)
                if not inner.startswith(".."):
                    return name if inner == "." else f"{name}.{inner.replace(os.sep, '.')}"
            return os.path.abspath(base)
        return relative.replace(os.sep, ".")


# the codes of a package that could not be downloaded (not of one that was, but is wrong)
_FETCH_CODES = frozenset(
    [Code.REGISTRY_ERROR, Code.PACKAGE_NOT_FOUND, Code.AUTHENTICATION_ERROR, Code.GIT_ERROR]
)


def _within(path: str, root: str) -> bool:
    """Whether ``path`` is ``root`` or lies under it (both absolute)."""
    return path == root or path.startswith(root if root.endswith(os.sep) else root + os.sep)


class SourceEscape:
    """A source file or folder (``path``) that a symbolic link leads outside its
    package root (``root``, a real path) to ``real``; checked before the file is read
    (a package's sources are not rewritten while a program loads)."""

    __slots__ = ("path", "real", "root")

    def __init__(self, path: str, real: str, root: str) -> None:
        self.path = path
        self.real = real
        self.root = root

    def diagnostics(self, site: ast.ImportStmt | None, reported: set[str]) -> list[Diagnostic]:
        """The error (at ``site``, the import that reached the package), once per
        path: the other files of a folder already ``reported`` add none."""
        if self.path in reported:
            return []
        reported.add(self.path)
        message = (
            f"{os.path.normpath(self.path)} leads through a symbolic link to {self.real}, "
            f"outside its package root {self.root}"
        )
        return [
            make_error(
                Code.IO_ERROR,
                message,
                site.span if site is not None else None,
                "a package's sources must lie within its folder; "
                "replace the link with the files it stands for",
            )
        ]


def iter_imports(stmts: list[ast.Stmt]) -> Iterable[ast.ImportStmt]:
    for stmt in stmts:
        if isinstance(stmt, ast.ImportStmt):
            yield stmt
        elif isinstance(stmt, ast.IfStmt):
            yield from iter_imports(stmt.body)
            yield from iter_imports(stmt.orelse)
