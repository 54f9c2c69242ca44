"""The on-disk cache of compiled programs: a repeated run skips lex/parse/check/compile.

The checker needs the syntax trees of every imported package to check the main
package, so the unit of caching is a whole program: the compiled ``PackageCode``
of every package of a run whose loading, checking and compiling produced no
diagnostic at all.

An entry lives at ``<cache dir>/programs/<key>.bin``. The key is a sha256 over
the bytecode version, the kclpy and Python versions, a fingerprint of
kclpy's own source files (size and mtime), the work directory, the
program root, the external packages, the entry files (after expansion) and the
``check`` flag; it is computed by running only the cheap first step of the
``Loader`` (input expansion, ``kcl.mod``), with no parsing. An entry holds two
pickles (protocol 5): first a manifest, then the codes. The manifest lists
every file the loader parsed with the sha256 of its bytes, and every package
lookup the loader made (``Loader.candidate``: folder or file probes, including
the ones that found nothing) with its answer. An entry is used only when every
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
import os
import pickle
import sys
from collections.abc import Mapping, Sequence
from typing import Any

from kclpy import __version__
from kclpy.compile import code as code_module
from kclpy.compile.code import BYTECODE_VERSION, PackageCode
from kclpy.diag import Diagnostic
from kclpy.loader import MAIN, Loader
from kclpy.syntax import ast, parse_bytes

_PROTOCOL = 5
_FORMAT = 2  # layout of an entry (manifest pickle, then codes pickle)

Probe = tuple[str, tuple[str, list[str]] | None]

_CODE_MODULE = "kclpy.compile.code"
_SAFE_BUILTINS = frozenset({"set", "frozenset", "complex", "slice", "bytearray"})


class _Unpickler(pickle.Unpickler):
    """Loads only plain data and the classes of ``kclpy.compile.code``.

    An entry holding anything else (an AST node, a source file, a foreign
    object) is treated as corrupt.
    """

    def find_class(self, module: str, name: str) -> Any:
        if module == _CODE_MODULE and isinstance(getattr(code_module, name, None), type):
            return getattr(code_module, name)
        if module == "builtins" and name in _SAFE_BUILTINS:
            return super().find_class(module, name)
        raise pickle.UnpicklingError(f"{module}.{name} is not allowed in a cache entry")


class _Pickler(pickle.Pickler):
    """Refuses (raises ``PicklingError`` for) what ``_Unpickler`` would not load."""

    def reducer_override(self, obj: Any) -> Any:
        kind = obj if isinstance(obj, type) else type(obj)  # a class is pickled by name
        if kind.__module__ == _CODE_MODULE or (
            kind.__module__ == "builtins" and kind.__name__ in _SAFE_BUILTINS
        ):
            return NotImplemented
        if kind in (type(None), bool, int, float, str, bytes, tuple, list, dict):
            return NotImplemented
        raise pickle.PicklingError(f"{kind.__qualname__} cannot be cached")


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


def _digest(data: bytes) -> str:
    digest: str = _sha256(data).hexdigest()
    return digest


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
    return _digest(repr(entries).encode("utf-8", "surrogatepass"))


class RecordingLoader(Loader):
    """A ``Loader`` that notes the digest of every file it parses and every package lookup."""

    def __init__(
        self,
        work_dir: str = "",
        externals: dict[str, str] | None = None,
        sources: dict[str, str] | None = None,
    ) -> None:
        super().__init__(work_dir, externals, sources)
        self.file_digests: list[tuple[str, str]] = []
        self.probes: list[Probe] = []
        self.discoveries: list[tuple[str, str | None]] = []
        self.complete = True  # False when a file could not be recorded

    def parse(self, path: str) -> tuple[ast.Module, list[Diagnostic]]:
        if path in self.sources:
            self.complete = False
            return super().parse(path)
        try:
            with open(path, "rb") as handle:
                data = handle.read()
        except OSError:
            self.complete = False
            return super().parse(path)
        self.file_digests.append((path, _digest(data)))
        return parse_bytes(data, path)

    def candidate(self, base: str) -> tuple[str, list[str]] | None:
        found = super().candidate(base)
        self.probes.append((base, None if found is None else (found[0], list(found[1]))))
        return found

    def discover(self, name: str) -> str | None:
        found = super().discover(name)
        self.discoveries.append((name, found))
        return found


class _ProbeLoader(Loader):
    """Runs only the first step of ``Loader.load``: the root, externals and entry files."""

    def __init__(
        self,
        work_dir: str = "",
        externals: dict[str, str] | None = None,
    ) -> None:
        super().__init__(work_dir, externals, {})
        self.main_files: list[str] = []

    def load_package(self, pkgpath: str, files: list[str], site: ast.ImportStmt | None) -> None:
        if pkgpath == MAIN:
            self.main_files = list(files)


class ProgramCache:
    """The cache entry of one run's inputs: look it up, or store the compiled codes."""

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
        self._probe = _ProbeLoader(work_dir, dict(externals))
        self._probe.load(files)
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
            self._probe.main_files,
            check,
        )
        self.key = _digest(repr(key_parts).encode("utf-8", "surrogatepass"))
        self.path = os.path.join(directory, "programs", self.key + ".bin")

    def loader(self) -> RecordingLoader:
        """The loader to use on a miss (it records what ``store`` needs)."""
        return RecordingLoader(self.work_dir, dict(self.externals), {})

    def lookup(self) -> dict[str, PackageCode] | None:
        """The cached codes when the entry exists and is still valid, else None."""
        try:
            with open(self.path, "rb") as handle:
                manifest = _Unpickler(handle).load()
                if not self._valid(manifest):
                    return None
                codes = _Unpickler(handle).load()
        except Exception:  # a missing, unreadable or corrupt entry is a miss
            return None
        if not isinstance(codes, dict) or not all(
            isinstance(code, PackageCode) for code in codes.values()
        ):
            return None
        return codes

    def _valid(self, manifest: Any) -> bool:
        if not isinstance(manifest, dict) or manifest.get("key") != self.key:
            return False
        for path, digest in manifest["files"]:
            try:
                with open(path, "rb") as handle:
                    if _digest(handle.read()) != digest:
                        return False
            except OSError:
                return False
        for base, answer in manifest["probes"]:
            found = self._probe.candidate(base)
            if (None if found is None else (found[0], list(found[1]))) != answer:
                return False
        # a vendored package or $KCL_PKG_PATH entry found now must be the one used then
        # (a new name_<version> folder makes the entry stale)
        discover = self._probe.discover
        return all(discover(name) == answer for name, answer in manifest["discoveries"])

    def store(self, codes: Mapping[str, PackageCode], loader: RecordingLoader) -> bool:
        """Write the entry atomically; False (and no entry) when it cannot be written."""
        if not loader.complete:
            return False
        manifest = {
            "key": self.key,
            "files": loader.file_digests,
            "probes": loader.probes,
            "discoveries": loader.discoveries,
        }
        folder = os.path.dirname(self.path)
        temp = ""
        try:
            os.makedirs(folder, exist_ok=True)
            import tempfile

            fd, temp = tempfile.mkstemp(prefix=".tmp-", suffix=".bin", dir=folder)
            with os.fdopen(fd, "wb") as handle:
                _Pickler(handle, protocol=_PROTOCOL).dump(manifest)
                _Pickler(handle, protocol=_PROTOCOL).dump(dict(codes))
            os.replace(temp, self.path)
        except Exception:  # a cache that cannot be written is no cache, not an error
            if temp:
                with contextlib.suppress(OSError):
                    os.unlink(temp)
            return False
        return True


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
