"""The inputs of the query layer (``kclpy.pipeline.queries``): file texts and settings.

* :class:`Files`: the texts of files, an ``overlay`` of texts by path (an editor's
  unsaved buffers) over the disk, and the parse query over them, memoised per path by
  content: an overlay text by the text itself, a disk file by the sha256 of its bytes
  (``keyed``: not read again while its status is the one it had when read, unless
  it had changed within ``SETTLED_NS`` then, as git's racily clean entries), else by
  the bytes. One entry per path (the latest content), the
  ``limit`` most recently used paths kept. An editor hands in ``reparse``, its
  parser of edited buffers (statement by statement), used for overlay texts.
  A file that a second package of a program holds too (a folder's file imported as a
  module of its own) gets a tree of its own there (``kclpy.syntax.clone``), kept
  beside the parse per package path while the parse is the same one.
  :meth:`Files.view` is what one load reads: these files with a program's own texts
  (code given as strings) over them, a ``kclpy.loader.SourceTexts``.
* :class:`Settings`: what the clients want of the derived queries.

Syntax trees are never mutated after parsing (overrides rewrite their own copies),
so the programs of one process share them.
"""

from __future__ import annotations

import os
import time
from collections import OrderedDict
from collections.abc import Callable, Mapping

from kclpy.loader import Parsed, digest, regular_file
from kclpy.records import Record
from kclpy.syntax import ast, parse_bytes, parse_source

Reparse = Callable[[str, str], Parsed]
"""(path, text) -> the parse of an edited buffer (an editor's incremental parser)."""
Stamp = tuple[int, int, int, int]  # a file's size, modification and change times, inode
# a file changed less than this long before it was read may change again within the
# file system's time granularity (coarse clocks, 1 s on some) keeping its status
SETTLED_NS = 1_000_000_000


def _stamp(status: os.stat_result) -> Stamp:
    return (status.st_size, status.st_mtime_ns, status.st_ctime_ns, status.st_ino)


class Settings(Record):
    """What the clients of a query database want of it.

    ``scopes``: checking keeps the nested scopes (editors complete names from them);
    ``tool_facts``: checking completes the uses only the checker can bind (attribute
    selections, config keys, type names: lint, doc, editors; a run does without);
    ``shared``: the database serves many programs (a build worker, lint, an editor):
    checked and compiled packages are memoised by content key and every schema
    compiled up front (a single run defers the schemas it never instantiates);
    ``keyed``: each file's sha256 is recorded as loading reads it (a
    disk cache entry will be validated with them; implied by ``shared``)."""

    scopes: bool = False
    tool_facts: bool = True
    shared: bool = False
    keyed: bool = False


class Files:
    """File texts (an overlay over the disk) and their parses (see the module docstring)."""

    def __init__(
        self, keyed: bool = False, limit: int = 1024, reparse: Reparse | None = None
    ) -> None:
        self.keyed = keyed
        self.limit = limit
        self.reparse = reparse
        self.overlay: Mapping[str, str] = {}
        self._parses: OrderedDict[str, tuple[object, Parsed]] = OrderedDict()
        # per disk file parsed (keyed): its status then and its key
        self._stamps: dict[str, tuple[Stamp, str]] = {}
        # per path, the trees of its second packages (by package path): each with the
        # tree it copies (valid while that is the path's parse)
        self._copies: dict[str, dict[str, tuple[ast.Module, ast.Module]]] = {}

    def set_overlay(self, overlay: Mapping[str, str]) -> None:
        """The editor's unsaved buffers now (absolute path -> text)."""
        self.overlay = dict(overlay)

    def forget(self, path: str) -> None:
        """Drop the parse of ``path`` (a closed buffer)."""
        self._parses.pop(path, None)
        self._stamps.pop(path, None)
        self._copies.pop(path, None)

    def tree_of(self, pkgpath: str, module: ast.Module) -> ast.Module:
        """The tree of ``module``'s file for a second package ``pkgpath`` (see the
        module docstring): the same copy while ``module`` is the file's parse."""
        path = module.file.path
        copies = self._copies.get(path)
        if copies is None:
            copies = self._copies[path] = {}
        known = copies.get(pkgpath)
        if known is not None and known[0] is module:
            return known[1]
        from kclpy.syntax.clone import renumbered  # (rare: not on every start)

        copy = renumbered(module)
        if path in self._parses:  # (kept while its parse is)
            copies[pkgpath] = (module, copy)
        return copy

    def view(
        self, sources: Mapping[str, str], before: Callable[[], object] | None = None
    ) -> FilesView:
        """What one load reads: the overlay with ``sources`` over it, through this memo
        (``before``: called before each file is read; an editor's analysis raises
        from it when a newer text supersedes it)."""
        overlay = {**self.overlay, **sources} if sources else self.overlay
        return FilesView(self, overlay, before)

    def parse_text(self, path: str, text: str) -> Parsed:
        """The parse of a text standing for ``path`` (an edited buffer through
        ``reparse``)."""
        cached = self._parses.get(path)
        if cached is not None and (cached[0] is text or cached[0] == text):
            return self._hit(path, cached[1])
        if self.reparse is not None and path in self.overlay:
            parsed = self.reparse(path, text)
        else:
            parsed = parse_source(text, path)
        return self._store(path, text, parsed)

    def parse_file(self, path: str) -> tuple[str, Parsed]:
        """The key and parse of a disk file: not read again while its status (size,
        times, inode) is the one it had when read with this key (keyed only; an
        editor's database holds a monorepo's files, mostly unchanged)."""
        stamp = _stamp(regular_file(os.stat(path), path))
        known = self._stamps.get(path) if self.keyed else None
        if known is not None and known[0] == stamp:
            cached = self._parses.get(path)
            if cached is not None and cached[0] == known[1]:
                return known[1], self._hit(path, cached[1])
        with open(path, "rb") as handle:
            data = handle.read()
        key = digest(data) if self.keyed else ""
        parsed = self.parse_data(path, data, key)
        if key and time.time_ns() - max(stamp[1], stamp[2]) > SETTLED_NS:
            self._stamps[path] = (stamp, key)
        return key, parsed

    def parse_data(self, path: str, data: bytes, key: str) -> Parsed:
        """The parse of a disk file's bytes (``key``: their sha256, or "")."""
        content: object = key or data
        cached = self._parses.get(path)
        if cached is not None and cached[0] == content:
            return self._hit(path, cached[1])
        return self._store(path, content, parse_bytes(data, path))

    def _hit(self, path: str, parsed: Parsed) -> Parsed:
        self._parses.move_to_end(path)
        return parsed[0], list(parsed[1])

    def _store(self, path: str, content: object, parsed: Parsed) -> Parsed:
        self._parses[path] = (content, parsed)
        self._parses.move_to_end(path)
        if len(self._parses) > self.limit:
            gone, _ = self._parses.popitem(last=False)
            self._stamps.pop(gone, None)
            self._copies.pop(gone, None)
        return parsed[0], list(parsed[1])


class FilesView:
    """The files one load reads (a ``kclpy.loader.SourceTexts``)."""

    __slots__ = ("before", "files", "overlay")

    def __init__(
        self, files: Files, overlay: Mapping[str, str], before: Callable[[], object] | None
    ) -> None:
        self.files = files
        self.overlay = overlay
        self.before = before

    @property
    def keyed(self) -> bool:
        return self.files.keyed

    def parse_text(self, path: str, text: str) -> Parsed:
        if self.before is not None:
            self.before()
        return self.files.parse_text(path, text)

    def parse_file(self, path: str) -> tuple[str, Parsed]:
        if self.before is not None:
            self.before()
        return self.files.parse_file(path)

    def parse_data(self, path: str, data: bytes, key: str) -> Parsed:
        if self.before is not None:
            self.before()
        return self.files.parse_data(path, data, key)

    def tree_of(self, pkgpath: str, module: ast.Module) -> ast.Module:
        return self.files.tree_of(pkgpath, module)
