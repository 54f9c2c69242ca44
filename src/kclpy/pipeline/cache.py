"""The disk cache of compiled code: the persistence backend of the query layer's code.

(The in-process memo, parsed files and checked and compiled packages by content key,
is the query database's, ``kclpy.pipeline.queries``.)

**On disk** (:class:`ProgramCache`): a repeated run skips lex/parse/check/compile.
The checker needs the syntax trees of every imported package to check the main
package, so the unit of caching is a whole program: the compiled ``PackageCode``
of every package of a run whose loading, checking and compiling produced no
diagnostic at all, written once the program has run. A schema the run never used
(its code holds a ``compile.code.SchemaHeader``) is stored as that header, whose body
a later run from the entry gets from its code source, which compiles the program from
source again (``queries.ProgramCode``). Processes share it (``kcl run``, build
workers).

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

**Trust.** The cache is its user's alone: the folder (and every missing folder above
it) is created 0700, entries 0600. A cache folder or an entry that another user owns,
or that group or others may write, is not used: the run goes on uncached (or as a
miss), and says why under ``kcl -v`` (:func:`report_to`). The folder is opened once
per lookup or store and everything in it is reached through that descriptor, without
following a link. An entry is valid only when it lists the files it was built from
(every entry file, every file of every package it holds) and each still has its
digest; its pickles may name only the classes the writer emits
(``kclpy.pipeline.pickling``).
"""

from __future__ import annotations

import contextlib
import functools
import io
import os
import stat
import sys
from collections.abc import Callable, Hashable, Mapping, Sequence

from kclpy.compile.code import BYTECODE_VERSION, PackageCode
from kclpy.loader import MAIN, Loader, Reads, digest
from kclpy.release import __version__
from kclpy.source import temporary_name

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import IO, Any, Protocol

    class CodeMemo(Protocol):
        """Packages' code already read back in this process, by the digest of their bytes
        (the query database's table, ``kclpy.pipeline.queries.Database.unpickled``)."""

        def get(self, key: Hashable) -> PackageCode | None: ...

        def put(self, key: Hashable, value: PackageCode) -> None: ...


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


_PROGRAMS = "programs"  # the whole programs' entries' folder, in the cache folder
PACKAGES = "packages"  # the checked packages' entries' folder (``kclpy.pipeline.interfaces``)
CACHE_CONTENTS = frozenset((_PROGRAMS, PACKAGES))  # all it writes at its top (`kcl clean`)
_OPEN_FOLDER = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_CLOEXEC", 0)
_NO_LINK = getattr(os, "O_NOFOLLOW", 0)
_OPEN_ENTRY = os.O_RDONLY | _NO_LINK | getattr(os, "O_CLOEXEC", 0)
_CREATE_ENTRY = os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NO_LINK | getattr(os, "O_CLOEXEC", 0)

_listeners: list[Callable[[str], object]] = []
_noted: set[str] = set()


def report_to(listener: Callable[[str], object] | None) -> None:
    """Where the cache says why it passes over a folder or an entry (``kcl -v``);
    None: nowhere (the default)."""
    _listeners[:] = [] if listener is None else [listener]


def note(message: str) -> None:
    """Tell the listener ``message``, once per process."""
    if _listeners and message not in _noted:
        _noted.add(message)
        for listener in _listeners:
            listener(message)


def distrust(info: os.stat_result) -> str | None:
    """Why a cache folder or entry with ``info`` is not to be trusted, or None: it must
    be this user's, and neither group nor others may write it."""
    user = os.geteuid()
    if info.st_uid != user:
        return f"is owned by uid {info.st_uid}, not by this user (uid {user})"
    if info.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
        return f"is writable by group or others (mode {stat.S_IMODE(info.st_mode):o})"
    return None


def open_programs(directory: str, create: bool, entries: str = _PROGRAMS) -> int | None:
    """A descriptor of the folder ``entries`` (the programs', or :data:`PACKAGES`) of
    the cache at ``directory``, both folders checked (:func:`distrust`) and, with
    ``create``, made (0700) when missing; None when missing, unusable or not to be
    trusted (noted)."""
    try:
        top = _open_folder(directory, None, create)
    except OSError as error:
        note(f"cache folder {directory}: {error.strerror or error}; running uncached")
        return None
    if top is None:
        return None
    try:
        return _open_folder(entries, top, create, directory)
    except OSError as error:
        note(f"cache folder {directory}/{entries}: {error.strerror or error}; running uncached")
        return None
    finally:
        os.close(top)


def _open_folder(path: str, parent: int | None, create: bool, within: str = "") -> int | None:
    """``path`` (in the folder open as ``parent``, then not through a link) opened and
    checked; None when missing (and not ``create``) or not to be trusted."""
    flags = _OPEN_FOLDER if parent is None else _OPEN_FOLDER | _NO_LINK
    try:
        folder = os.open(path, flags, dir_fd=parent)
    except FileNotFoundError:
        if not create:
            return None
        if parent is None:
            _make_folders(path)
        else:
            os.mkdir(path, 0o700, dir_fd=parent)
        folder = os.open(path, flags, dir_fd=parent)
    problem = distrust(os.fstat(folder))
    if problem is not None:
        os.close(folder)
        note(f"cache folder {os.path.join(within, path)} {problem}: not used, running uncached")
        return None
    return folder


def _make_folders(path: str) -> None:
    """``path`` and every missing folder above it, made 0700 (this user's only)."""
    parent = os.path.dirname(path)
    if parent != path and not os.path.isdir(parent):
        _make_folders(parent)
    with contextlib.suppress(FileExistsError):
        os.mkdir(path, 0o700)


_HEX = frozenset("0123456789abcdef")


def is_entry_name(name: str) -> bool:
    """Whether ``name`` is an entry's name, ``<sha256 hex>.bin``: a plain name in its
    folder (no separator, no ``..``), the only names the cache reads, writes and removes."""
    return len(name) == 68 and name.endswith(".bin") and _HEX.issuperset(name[:64])


def open_entry(folder: int, name: str, shown: str) -> IO[bytes] | None:
    """The entry ``name`` of the folder open as ``folder``, opened for reading without
    following a link; None when missing, not an entry's name, or not a regular file of
    this user's that group and others cannot write (noted, as ``shown``)."""
    if not is_entry_name(name):
        return None
    try:
        handle = open(os.open(name, _OPEN_ENTRY, dir_fd=folder), "rb")  # noqa: SIM115
    except FileNotFoundError:
        return None
    info = os.fstat(handle.fileno())
    problem = "is not a file" if not stat.S_ISREG(info.st_mode) else distrust(info)
    if problem is not None:
        handle.close()
        note(f"cache entry {shown} {problem}: ignored")
        return None
    return handle


def replace_entry(folder: int, name: str, write: Callable[[IO[bytes]], object]) -> bool:
    """Put the entry ``name`` in the folder open as ``folder`` at once: ``write`` fills
    a new file (0600) there, which then replaces the entry; False (and nothing left
    behind) when it cannot be written or ``name`` is not an entry's name."""
    if not is_entry_name(name):
        return False
    temp = ""
    try:
        temp = temporary_name(".tmp-") + ".bin"
        with open(os.open(temp, _CREATE_ENTRY, 0o600, dir_fd=folder), "wb") as handle:
            write(handle)
        os.replace(temp, name, src_dir_fd=folder, dst_dir_fd=folder)
    except Exception:  # a cache that cannot be written is no cache, not an error
        if temp:
            with contextlib.suppress(OSError):
                os.unlink(temp, dir_fd=folder)
        return False
    return True


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
        self.directory = directory
        self.work_dir = work_dir
        self.externals = dict(externals)
        self._probe = Loader(work_dir, dict(externals))
        self.main_files = self._probe.entries(files)
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
            self.main_files,
            check,
        )
        self.key = digest(repr(key_parts).encode("utf-8", "surrogatepass"))
        self.name = self.key + ".bin"
        self.path = os.path.join(directory, _PROGRAMS, self.name)
        # the files (path, digest) of the entry a lookup found valid
        self.files_read: list[tuple[str, str]] | None = None

    def lookup(self, unpickled: CodeMemo | None = None) -> dict[str, PackageCode] | None:
        """The cached codes when the entry exists, is to be trusted and is still valid,
        else None (packages already read back in this process come from ``unpickled``,
        the query database's table, by the digest of their bytes). A
        run whose packages did not resolve (``kcl.mod``, the lock, ``--locked``) never
        uses an entry: loading it again reports why."""
        if self._probe.program.has_errors:
            return None
        folder = open_programs(self.directory, create=False)
        if folder is None:
            return None
        try:
            opened = open_entry(folder, self.name, self.path)
            if opened is None:
                return None
            with opened as handle:
                from kclpy.pipeline import pickling  # (an entry found: not before)

                manifest = pickling.load_plain(handle)
                listed = self._valid(manifest)
                if listed is None:
                    return None
                blobs = pickling.load_plain(handle)
            codes = {
                pkgpath: _read_package(blob_digest, blob, unpickled)
                for pkgpath, (blob_digest, blob) in blobs.items()
            }
        except FileNotFoundError:
            return None
        except Exception as error:  # an unreadable, corrupt or refused entry is a miss
            note(f"cache entry {self.path} cannot be used ({error}): ignored")
            return None
        finally:
            os.close(folder)
        if MAIN not in codes or any(not listed.issuperset(c.files) for c in codes.values()):
            return None  # (code built from files the entry does not list)
        self.files_read = list(manifest["files"])
        return codes

    def _valid(self, manifest: Any) -> set[str] | None:
        """The paths the entry lists when it is this run's and every file, package
        lookup and discovery it lists gives the same answer now; else None. An entry
        must list its entry files: an empty list matches no program."""
        if not isinstance(manifest, dict) or manifest.get("key") != self.key:
            return None
        listed: set[str] = set()
        for path, file_digest in manifest["files"]:
            if not file_digest:
                return None
            try:
                with open(path, "rb") as handle:
                    if digest(handle.read()) != file_digest:
                        return None
            except OSError:
                return None
            listed.add(path)
        if not listed.issuperset(self.main_files) or not listed:
            return None
        find = self._probe.find
        if any(find(base) != answer for base, answer in manifest["probes"]):
            return None
        # a vendored package or $KCL_PKG_PATH entry found now must be the one used then
        # (a new name_<version> folder makes the entry stale)
        discover = self._probe.discover
        if any(discover(name) != answer for name, answer in manifest["discoveries"]):
            return None
        return listed

    def store(
        self,
        codes: Mapping[str, PackageCode],
        reads: Reads,
        pickled: dict[int, tuple[Any, bytes]] | None = None,
    ) -> bool:
        """Write the entry (the codes, and what loading the program read: its
        ``Program.reads``) atomically; False (and no entry) when it cannot be written
        or the cache folder is not to be trusted. ``pickled``: the codes the run
        pickled already, and pickles (``pickling.dumps_once``)."""
        if not reads.complete or not reads.files:
            return False
        manifest = {
            "key": self.key,
            "files": reads.files,
            "probes": reads.probes,
            "discoveries": reads.discoveries,
        }
        folder = open_programs(self.directory, create=True)
        if folder is None:
            return False
        try:
            from kclpy.pipeline import pickling

            blobs = {}
            memo = {} if pickled is None else pickled
            for pkgpath, code in codes.items():
                blob = pickling.dumps_once(code, memo)
                blobs[pkgpath] = (digest(blob), blob)
        except Exception:  # (what cannot be pickled is not cached)
            os.close(folder)
            return False

        def write(handle: IO[bytes]) -> None:
            pickling.dump(manifest, handle)
            pickling.dump(blobs, handle)

        try:
            return replace_entry(folder, self.name, write)
        finally:
            os.close(folder)


def _read_package(blob_digest: str, blob: bytes, unpickled: CodeMemo | None) -> PackageCode:
    """One package of an entry, unpickled (once per process with ``unpickled``)."""
    found = unpickled.get(blob_digest) if unpickled is not None else None
    if found is None:
        from kclpy.pipeline import pickling

        found = pickling.load(io.BytesIO(blob))
        if not isinstance(found, PackageCode):
            raise ValueError("an entry holds something other than code")
        if unpickled is not None:
            unpickled.put(blob_digest, found)
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
