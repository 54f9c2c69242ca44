"""The driver's cache of compiled code, in two tiers the driver consults between stages.

**On disk** (:class:`ProgramCache`): a repeated run skips lex/parse/check/compile.
The checker needs the syntax trees of every imported package to check the main
package, so the unit of caching is a whole program: the compiled ``PackageCode``
of every package of a run whose loading, checking and compiling produced no
diagnostic at all, written once the program has run. A schema the run never read
(``compile.code.PendingSchema``, still uncompiled) is stored as its header, an
``AbsentSchema``, which a later run from the entry compiles from the program's
source if it reads it (``driver.SourceSchemas``). Processes share it (``kcl run``,
build workers).

**In process** (:class:`MemoryTier`, handed to the driver by a process that runs
many programs, such as a ``kcl build`` worker): parsed files by path and content
digest (``kclpy.loader.ParseMemo``), checked packages (``kclpy.sema.reuse``) and
compiled packages by :func:`package_keys` (content and import context, below), and
the packages read back from disk entries by the digest of their bytes. So a package
that many programs import is parsed, checked, compiled and unpickled once per
process, not once per program. Each table keeps its most recently used entries only.

An entry lives at ``<cache dir>/programs/<key>.bin``. The key is a sha256 over
the bytecode version, the kclpy and Python versions, a fingerprint of
kclpy's own source files (size and mtime), the work directory, the
program root, the external packages, the entry files (after expansion) and the
``check`` flag; it is computed by running only the cheap first step of the
``Loader`` (``Loader.entries``: input expansion, ``kcl.mod``), with no parsing. An
entry holds two pickles (protocol 5): first a manifest, then a dict of package path
to (digest, pickled ``PackageCode``). The manifest is the loaded program's
``Program.reads``: every file the loader parsed with the sha256 of its bytes, and
every package lookup the loader made (``Loader.candidate``: folder or file probes,
including the ones that found nothing) with its answer. An entry is used only when every
file still has its digest and every lookup still gives the same answer, so an
edit anywhere in the program, a new file in a package folder or a package that
appears where an import used to fall through all invalidate it.

Entries are written to a temporary file in the same folder and moved into
place with ``os.replace``, so concurrent runs never see half an entry. An
unreadable, corrupt or stale entry is ignored (and replaced by the next
successful run); the cache never makes a run fail.

Location: ``$KCLPY_CACHE_DIR``, else ``$XDG_CACHE_HOME/kclpy``, else
``~/.cache/kclpy``. ``KCLPY_NO_CACHE=1`` disables the cache.
"""

from __future__ import annotations

import contextlib
import functools
import io
import os
import sys
from collections import OrderedDict
from collections.abc import Hashable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from kclpy import __version__
from kclpy.compile.code import BYTECODE_VERSION, PackageCode
from kclpy.loader import Loader, ParseMemo, Program, Reads, digest
from kclpy.source import create_temporary

if TYPE_CHECKING:
    from kclpy.sema.reuse import CheckedPackage  # not at run time: a hit never checks

Entry = TypeVar("Entry")

_FORMAT = 4  # layout of an entry (manifest pickle, then a pickle of per-package pickles)


def cache_dir() -> str | None:
    """The cache folder, or None when ``KCLPY_NO_CACHE`` disables the cache."""
    if os.environ.get("KCLPY_NO_CACHE", "").strip() not in ("", "0"):
        return None
    explicit = os.environ.get("KCLPY_CACHE_DIR")
    if explicit:
        return os.path.abspath(explicit)
    xdg = os.environ.get("XDG_CACHE_HOME")
    base = xdg if xdg else os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "kclpy")


@functools.cache
def implementation_fingerprint() -> str:
    """A digest of the path, size and mtime of every kclpy source file.

    Part of every key, so that a changed compiler (a developer's edit that did
    not bump ``BYTECODE_VERSION``) never runs codes another version compiled.
    """
    package = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    entries: list[tuple[str, int, int]] = []
    for folder, dirs, names in os.walk(package):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        for name in sorted(names):
            if name.endswith(".py"):
                path = os.path.join(folder, name)
                try:
                    stat = os.stat(path)
                except OSError:
                    continue
                entries.append((os.path.relpath(path, package), stat.st_size, stat.st_mtime_ns))
    return digest(repr(entries).encode("utf-8", "surrogatepass"))


class _Recent(Generic[Entry]):
    """A mapping that keeps its ``limit`` most recently used entries."""

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


class MemoryTier:
    """The in-process tier: parsed files, checked packages, compiled packages and
    packages read back from disk entries, shared by the programs one process runs."""

    def __init__(self, limit: int = 1024) -> None:
        self.parses = ParseMemo(limit)
        self.checked: _Recent[CheckedPackage] = _Recent(limit)
        self.compiled: _Recent[PackageCode] = _Recent(limit)
        self.unpickled: _Recent[PackageCode] = _Recent(limit)


def package_keys(program: Program) -> dict[str, str | None]:
    """The content key of each package's compiled code: its path, the digest of each
    of its files with that file's import table, and the keys of the packages it imports
    (so a change anywhere below it changes it). None when a file of it was not read
    from disk (given as text) or an import cycle runs through it."""
    digests = dict(program.reads.files)
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
            file_digest = digests.get(module.file.path)
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


class ProgramCache:
    """The on-disk entry of one run's inputs: look it up, or store the compiled codes."""

    def __init__(
        self,
        directory: str,
        files: Sequence[str],
        work_dir: str,
        externals: Mapping[str, str],
        check: bool,
    ) -> None:
        self.work_dir = work_dir
        self.externals = dict(externals)
        self._probe = Loader(work_dir, dict(externals))
        main_files = self._probe.entries(files)
        self.root = self._probe.program.root
        key_parts = (
            _FORMAT,
            BYTECODE_VERSION,
            __version__,
            implementation_fingerprint(),
            sys.version_info[:2],
            self._probe.work_dir,
            self.root,
            sorted(self._probe.externals.items()),
            main_files,
            check,
        )
        self.key = digest(repr(key_parts).encode("utf-8", "surrogatepass"))
        self.path = os.path.join(directory, "programs", self.key + ".bin")
        # the files (path, digest) of the entry a lookup found valid
        self.files_read: list[tuple[str, str]] | None = None

    def lookup(self, memory: MemoryTier | None = None) -> dict[str, PackageCode] | None:
        """The cached codes when the entry exists and is still valid, else None
        (packages already read back in this process come from ``memory``). A run whose
        packages did not resolve (``kcl.mod``, the lock, ``--locked``) never uses an entry:
        loading it again reports why."""
        if self._probe.program.has_errors:
            return None
        try:
            with open(self.path, "rb") as handle:
                from kclpy.pipeline import pickling  # (an entry found: not before)

                manifest = pickling.load(handle)
                if not self._valid(manifest):
                    return None
                blobs = pickling.load(handle)
            self.files_read = list(manifest["files"])
            return {
                pkgpath: _read_package(blob_digest, blob, memory)
                for pkgpath, (blob_digest, blob) in blobs.items()
            }
        except Exception:  # a missing, unreadable or corrupt entry is a miss
            return None

    def _valid(self, manifest: Any) -> bool:
        if not isinstance(manifest, dict) or manifest.get("key") != self.key:
            return False
        for path, file_digest in manifest["files"]:
            try:
                with open(path, "rb") as handle:
                    if digest(handle.read()) != file_digest:
                        return False
            except OSError:
                return False
        find = self._probe.find
        if any(find(base) != answer for base, answer in manifest["probes"]):
            return False
        # a vendored package or $KCL_PKG_PATH entry found now must be the one used then
        # (a new name_<version> folder makes the entry stale)
        discover = self._probe.discover
        return all(discover(name) == answer for name, answer in manifest["discoveries"])

    def store(self, codes: Mapping[str, PackageCode], reads: Reads) -> bool:
        """Write the entry (the codes, and what loading the program read: its
        ``Program.reads``) atomically; False (and no entry) when it cannot be written."""
        if not reads.complete:
            return False
        manifest = {
            "key": self.key,
            "files": reads.files,
            "probes": reads.probes,
            "discoveries": reads.discoveries,
        }
        folder = os.path.dirname(self.path)
        temp = ""
        try:
            from kclpy.pipeline import pickling

            blobs = {}
            for pkgpath, code in codes.items():
                blob = pickling.dumps(code)
                blobs[pkgpath] = (digest(blob), blob)
            os.makedirs(folder, exist_ok=True)
            fd, temp = create_temporary(folder, ".tmp-", ".bin")
            with os.fdopen(fd, "wb") as handle:
                pickling.dump(manifest, handle)
                pickling.dump(blobs, handle)
            os.replace(temp, self.path)
        except Exception:  # a cache that cannot be written is no cache, not an error
            if temp:
                with contextlib.suppress(OSError):
                    os.unlink(temp)
            return False
        return True


def _read_package(blob_digest: str, blob: bytes, memory: MemoryTier | None) -> PackageCode:
    """One package of an entry, unpickled (once per process with ``memory``)."""
    found = memory.unpickled.get(blob_digest) if memory is not None else None
    if found is None:
        from kclpy.pipeline import pickling

        found = pickling.load(io.BytesIO(blob))
        if not isinstance(found, PackageCode):
            raise ValueError("an entry holds something other than code")
        if memory is not None:
            memory.unpickled.put(blob_digest, found)
    return found


def open_cache(
    files: Sequence[str],
    work_dir: str,
    externals: Mapping[str, str],
    check: bool,
) -> ProgramCache | None:
    """The cache entry for a run, or None when the cache is disabled or unusable."""
    directory = cache_dir()
    if directory is None:
        return None
    try:
        return ProgramCache(directory, files, work_dir, externals, check)
    except Exception:
        return None
