"""Checked packages and their code on disk, one entry per package by content key.

The per-package persistence backend of the query layer's ``interface`` and ``code``
queries (``kclpy.pipeline.queries``): a run whose program misses the whole-program
entry (``kclpy.pipeline.cache``: any edit anywhere) still skips checking and compiling
every imported package that did not change. :class:`PackageShelf` is one run's view of
it, the checker's store of checked packages (``kclpy.sema.interface.PackageStore``):
``get`` reads a package's entry, ``put`` takes a package checked this run, and
:meth:`PackageShelf.store`, once the program has run, writes the entries of the
packages checked and compiled here (and of those read whose code gained the bodies of
schemas the run compiled).

**Key.** An entry lives at ``<cache dir>/packages/<key>.bin``; the key is a sha256
over the entry layout, the bytecode version, the kclpy and Python versions, kclpy's
source fingerprint, the settings of the check (a run's: no nested scopes, no tools'
facts) and the package's content key (``queries.package_keys``: its path, each file's
path, digest and import table, and transitively the keys of what it imports: a change
below a package changes its key).

**Contents.** Two pickles: a manifest (plain data: the key, the package path, its
files with their digests, the sizes of the two blobs), then a pair of blobs: the
interface (its declarations decorated with their symbols, its schemas, where it imports
what: ``kclpy.sema.interface.interface_product``; the classes of
``linking.INTERFACE_CLASSES`` and references to the program's trees and the
symbols below it, ``kclpy.pipeline.linking``; no documentation) and the code
(``PackageCode``, the code dialect only). An entry is used only when its manifest
names this key, package and files, both blobs have their sizes and unpickle, every
reference resolves in this program and the code was compiled from the package's
files; else it is a miss (and the run writes a good one).

**Admission.** Most programs run once per cache (a CI machine's first run) or then
hit the whole program's entry (``kclpy.pipeline.cache``), which needs no package's:
pickling every interface on such a run would cost it about a third more. So a run
that checks a package with no entry writes a mark (its manifest with no blobs,
:data:`SIGHTINGS`), and the entry itself is written by a later run that checks the
package again and finds the mark: the first run that missed the whole program's
entry (an edit), whose successors then read it.

**Diagnostics.** A package whose check or compile reported anything (a warning
included) is not stored: it is checked again on every run, so a program's diagnostics,
and their order, are the same with and without the cache.

**Trust** is the whole-program cache's (``kclpy.pipeline.cache``): the folder 0700 and
entries 0600, this user's and not writable by others, reached through the folder's
descriptor without following links, written to a temporary file and moved into place.
A folder holds at most :data:`LIMIT` entries: storing removes the least recently
written ones beyond it (files named as entries only).
"""

from __future__ import annotations

import io
import os
import sys
from collections.abc import Hashable, Mapping
from functools import partial

from kclpy.compile.code import BYTECODE_VERSION, PackageCode, SchemaProto, schema_protos
from kclpy.loader import MAIN, Program, digest
from kclpy.pipeline import cache
from kclpy.release import __version__
from kclpy.sema.interface import CheckedPackage, ImportMark, interface_product
from kclpy.sema.symbols import Declaration, SchemaInfo, Symbol
from kclpy.sema.types import FuncType
from kclpy.syntax import ast

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import IO, Any

    from kclpy.pipeline.linking import Resolver

_FORMAT = 1
LIMIT = 4096  # entries kept in the folder (marks included)
SIGHTINGS = 2
"""The runs that check a package (with no diagnostic) before one stores its entry:
the earlier ones store a mark (see the module docstring)."""
_SETTINGS = ("scopes", False, "tool_facts", False)


def entry_key(package_key: str) -> str:
    """The key of the entry of a package whose content key is ``package_key``."""
    parts = (
        _FORMAT,
        BYTECODE_VERSION,
        __version__,
        cache.implementation_fingerprint(),
        sys.version_info[:2],
        _SETTINGS,
        package_key,
    )
    return digest(repr(parts).encode("utf-8", "surrogatepass"))


class _Read:
    """A package read from its entry: its product, its code, the interface's blob and
    how many schemas of the code were bodies."""

    __slots__ = ("blob", "bodies", "code", "product")

    def __init__(self, product: CheckedPackage, code: PackageCode, blob: bytes) -> None:
        self.product = product
        self.code = code
        self.blob = blob
        self.bodies = _bodies(code)


def _bodies(code: PackageCode) -> int:
    return sum(isinstance(proto, SchemaProto) for proto in schema_protos(code))


class PackageShelf:
    """One run's view of the entries (see the module docstring): the checker's store
    of checked packages of ``program``, whose packages have content ``keys``."""

    def __init__(
        self,
        directory: str,
        program: Program,
        keys: Mapping[str, str | None],
        builtins: Mapping[str, Symbol],
    ) -> None:
        self.directory = directory
        self.program = program
        self.builtins = builtins
        self.keys = keys
        self._pkgpaths = {key: path for path, key in keys.items() if key and path != MAIN}
        self.products: dict[str, CheckedPackage] = {}  # installed so far, by package
        self.read: dict[str, _Read] = {}
        self.seen: set[str] = set()  # packages whose entry is a mark (see ``SIGHTINGS``)
        self.fresh: dict[str, CheckedPackage] = {}  # checked here with no diagnostic
        self.clean: dict[str, PackageCode] = {}  # compiled here with no diagnostic
        # after ``settle``: the entries to write (package, interface, code), the marks
        # and the packages read (package, interface, code, bodies it had)
        self._pending: list[tuple[str, bytes, PackageCode]] = []
        self._marks: list[str] = []
        self._resolver: Resolver | None = None
        self._unread: list[tuple[str, bytes, PackageCode, int]] = []
        digests = dict(program.reads.files)
        self._files = {
            pkgpath: [(m.file.path, digests.get(m.file.path, "")) for m in modules]
            for pkgpath, modules in program.packages.items()
        }

    # ------------------------------------------------------------------ the store

    def get(self, key: Hashable) -> CheckedPackage | None:
        pkgpath = self._pkgpaths.get(key) if isinstance(key, str) else None
        if pkgpath is None or not isinstance(key, str):
            return None
        if not all(found for _, found in self._files[pkgpath]):
            return None
        found = self._lookup(pkgpath, key)
        if found is None:
            return None
        self.read[pkgpath] = found
        self.products[pkgpath] = found.product
        return found.product

    def put(self, key: Hashable, product: CheckedPackage) -> None:
        pkgpath = product.interface.pkgpath
        self.products[pkgpath] = product
        self.read.pop(pkgpath, None)
        if not product.diagnostics:
            self.fresh[pkgpath] = product

    # ------------------------------------------------------------------ code

    def code(self, pkgpath: str) -> PackageCode | None:
        """The code read with the package's product, when the checker used that product."""
        found = self.read.get(pkgpath)
        if found is None or self.products.get(pkgpath) is not found.product:
            return None
        return found.code

    def compiled(self, pkgpath: str, code: PackageCode) -> None:
        """The code of a package compiled this run with no diagnostic."""
        self.clean[pkgpath] = code

    # ------------------------------------------------------------------ disk

    def _lookup(self, pkgpath: str, package_key: str) -> _Read | None:
        key = entry_key(package_key)
        name = key + ".bin"
        shown = os.path.join(self.directory, cache.PACKAGES, name)
        folder = cache.open_programs(self.directory, False, cache.PACKAGES)
        if folder is None:
            return None
        try:
            opened = cache.open_entry(folder, name, shown)
            if opened is None:
                return None
            with opened as handle:
                return self._parse(handle, key, pkgpath)
        except Exception as error:  # an unreadable, corrupt or refused entry is a miss
            cache.note(f"cache entry {shown} cannot be used ({error}): ignored")
            return None
        finally:
            os.close(folder)

    def _parse(self, handle: IO[bytes], key: str, pkgpath: str) -> _Read | None:
        from kclpy.pipeline import linking, pickling  # (an entry found: not before)

        manifest = pickling.load_plain(handle)
        files = self._files[pkgpath]
        if not isinstance(manifest, dict) or manifest.get("key") != key:
            return None
        if manifest.get("pkgpath") != pkgpath or manifest.get("files") != files:
            return None
        if manifest.get("blobs") is None:  # a mark: seen once, stored the next time
            self.seen.add(pkgpath)
            return None
        blob, code_blob = pickling.load_plain(handle)
        if manifest.get("blobs") != (len(blob), len(code_blob)):
            return None
        code = pickling.load(io.BytesIO(code_blob))
        if not isinstance(code, PackageCode) or not {p for p, _ in files}.issuperset(code.files):
            return None
        if self._resolver is None:
            self._resolver = linking.Resolver(self.program, self.products, self.builtins)
        self._resolver.select(pkgpath)
        loaded = linking.loads(blob, self._resolver)
        names, schemas, imports = _check_shapes(loaded)
        for info in schemas.values():  # (documentation is not stored: from the tree)
            info.doc = info.func.doc = info.node.doc
        modules = self.program.packages[pkgpath]
        product = interface_product(pkgpath, modules, names, schemas, imports, self.products)
        return _Read(product, code, blob)

    def settle(self) -> None:
        """Pickle the interfaces of the packages checked and compiled here, and let the
        program go (called before the run: its trees and model are not kept through
        it); their code is pickled by :meth:`store`, with the bodies the run compiled."""
        from kclpy.pipeline import linking

        references = linking.References(self.program, self.products, self.builtins)
        for pkgpath, product in self.fresh.items():
            code = self.clean.get(pkgpath)
            if code is None or self.products.get(pkgpath) is not product:
                continue
            if SIGHTINGS > 1 and pkgpath not in self.seen:
                self._marks.append(pkgpath)
                continue
            interface = (product.names, dict(product.interface.schemas), product.imports)
            try:
                self._pending.append((pkgpath, linking.dumps(interface, pkgpath, references), code))
            except Exception as error:  # (what cannot be pickled is not cached)
                cache.note(f"package {pkgpath} is not cached: {error}")
        self._unread = [
            (pkgpath, read.blob, read.code, read.bodies) for pkgpath, read in self.read.items()
        ]
        self._resolver = None
        self.fresh.clear()
        self.clean.clear()
        self.products.clear()
        self.read.clear()

    def store(self, pickled: dict[int, tuple[Any, bytes]] | None = None) -> int:
        """Write the entries this run has for (see the module docstring; after
        :meth:`settle`); how many. ``pickled``: the codes the run pickled already
        (``pickling.dumps_once``)."""
        pending, marks = list(self._pending), list(self._marks)
        for pkgpath, blob, code, bodies in self._unread:
            if _bodies(code) > bodies:  # (the run compiled schemas it lacked)
                pending.append((pkgpath, blob, code))
        self._pending, self._unread, self._marks = [], [], []
        if not pending and not marks:
            return 0
        folder = cache.open_programs(self.directory, True, cache.PACKAGES)
        if folder is None:
            return 0
        try:
            memo = {} if pickled is None else pickled
            written = sum(self._write(folder, memo, *item) for item in pending)
            written += sum(self._mark(folder, pkgpath) for pkgpath in marks)
            _bound(folder)
        finally:
            os.close(folder)
        return written

    def _mark(self, folder: int, pkgpath: str) -> bool:
        """Write the mark of ``pkgpath``: its manifest, no blobs."""
        from kclpy.pipeline import pickling

        package_key = self.keys.get(pkgpath)
        if not package_key:
            return False
        key = entry_key(package_key)
        manifest = {"key": key, "pkgpath": pkgpath, "files": self._files[pkgpath], "blobs": None}
        return cache.replace_entry(folder, key + ".bin", partial(pickling.dump, manifest))

    def _write(
        self,
        folder: int,
        pickled: dict[int, tuple[Any, bytes]],
        pkgpath: str,
        blob: bytes,
        code: PackageCode,
    ) -> bool:
        from kclpy.pipeline import pickling

        package_key = self.keys.get(pkgpath)
        if not package_key:
            return False
        try:
            code_blob = pickling.dumps_once(code, pickled)
        except Exception:
            return False
        key = entry_key(package_key)
        manifest = {
            "key": key,
            "pkgpath": pkgpath,
            "files": self._files[pkgpath],
            "blobs": (len(blob), len(code_blob)),
        }

        def write(handle: IO[bytes]) -> None:
            pickling.dump(manifest, handle)
            pickling.dump((blob, code_blob), handle)

        return cache.replace_entry(folder, key + ".bin", write)


def _check_shapes(
    loaded: object,
) -> tuple[dict[str, Declaration], dict[str, SchemaInfo], tuple[ImportMark, ...]]:
    """An interface read, when it has the shapes the checker reads; else ValueError."""
    if not isinstance(loaded, tuple) or len(loaded) != 3:
        raise ValueError("an interface is not a triple")
    names, schemas, imports = loaded
    if not isinstance(names, dict) or not isinstance(schemas, dict):
        raise ValueError("an interface holds no tables")
    if not all(type(found) is Declaration for found in names.values()):
        raise ValueError("an interface names something other than declarations")
    if not all(
        type(found) is SchemaInfo
        and isinstance(found.node, ast.SchemaStmt | ast.RuleStmt)
        and type(found.func) is FuncType
        for found in schemas.values()
    ):
        raise ValueError("an interface lists something other than schemas")
    if not isinstance(imports, tuple) or not all(
        isinstance(mark, tuple)
        and len(mark) == 2
        and isinstance(mark[0], int)
        and isinstance(mark[1], str)
        for mark in imports
    ):
        raise ValueError("an interface's imports are malformed")
    return names, schemas, imports


def _bound(folder: int) -> None:
    """Remove the least recently written entries beyond :data:`LIMIT` (entries only)."""
    names = [name for name in os.listdir(folder) if cache.is_entry_name(name)]
    if len(names) <= LIMIT:
        return
    dated = []
    for name in names:
        try:
            dated.append((os.stat(name, dir_fd=folder, follow_symlinks=False).st_mtime_ns, name))
        except OSError:
            continue
    dated.sort()
    for _, name in dated[: len(dated) - LIMIT]:
        try:
            os.unlink(name, dir_fd=folder)
        except OSError:
            continue
