"""The programs of a workspace: what ``kcl run`` and ``kcl build`` would build.

A ``Unit`` is one program the server analyses. Each folder that holds ``.k`` files
(or an open buffer) is read once with the stack discovery of ``kcl build``
(``kclpy.monorepo.stacks.read_stack``):

* a **stack** whose ``kcl.yaml`` settings file names its files (with its options,
  ``-D`` values, ``-O`` overrides and package maps: ``kclpy_lsp.runsettings`` applies
  them to the analysed program), or whose ``kcl.mod`` has ``[profile] entries``:
  one unit with those entry files, run from the stack's folder with the stack's
  external packages, as ``kcl build`` runs it (``base.k``, ``main.k`` and
  ``${konfig:KCL_MOD}/.../render.k`` together, so ``main.k`` is never checked
  alone);
* any other folder (a ``main.k`` without entries, a models package): one unit of its
  ``.k`` files, as ``kcl run`` in that folder builds it.

A stack whose packages cannot be resolved (a missing dependency, no network) still
has its entries (``kclpy.mod.entries.module_entries``, ``kclpy.settings``); the
resolution error is kept for the definition file. Package resolution never writes:
the server sets ``kclpy.mod.settings.read_only_locks`` at start, so no
``kcl.mod.lock`` changes, whatever it resolves.

A file opened outside the workspace roots is no part of the scan: ``nearby_stacks``
finds the stacks of its own module that name it (bounded, from its folder up to its
``kcl.mod``), so an application's ``base.k`` opened alone is checked in its stacks.

``Units`` holds what is known: units by key (the folder), and which units name a
file among their entries; ``covering(path)`` answers which units hold a file before
any of them is analysed (``base.k`` is in every stack of its application).
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Iterable

import attrs

from kclpy.loader import package_files
from kclpy.monorepo.stacks import MOD_FILE, SETTINGS_FILE, StackError, read_stack
from kclpy_lsp.scan import Limits, package_folders, refused


@attrs.frozen
class Unit:
    """One program: where it runs, its inputs as ``kcl run`` takes them."""

    folder: str  # the key: the stack's or the package's folder
    inputs: tuple[str, ...]  # absolute paths, or ``${name:KCL_MOD}/...``
    externals: tuple[tuple[str, str], ...] = ()
    options: tuple[str, ...] = ()
    overrides: tuple[str, ...] = ()  # the settings file's ``-O`` specs
    definition: tuple[str, ...] = ()  # the kcl.mod / kcl.yaml that define a stack
    stack: bool = False
    error: str = ""  # why the stack's packages or settings could not be read

    def entries(self) -> set[str]:
        """The entry files that are paths (not ``${name:KCL_MOD}`` ones)."""
        return {entry for entry in self.inputs if not entry.startswith("${")}


def read_unit(folder: str, overlay: Iterable[str] = ()) -> Unit | None:
    """The unit of ``folder`` (None: no ``.k`` file, on disk or open, and no stack).
    ``overlay`` are the paths of open buffers (files that may not exist yet)."""
    folder = os.path.abspath(folder)
    open_here = sorted(
        path
        for path in overlay
        if os.path.dirname(path) == folder and path.endswith(".k") and not path.endswith("_test.k")
    )
    try:
        names = set(os.listdir(folder))
    except OSError:
        names = set()
    names |= {os.path.basename(path) for path in open_here}
    stack = None
    if names & {SETTINGS_FILE, MOD_FILE}:
        try:
            stack = read_stack(folder, names, folder)
        except (StackError, OSError, ValueError) as error:
            return _package(folder, open_here, str(error))
    if stack is not None and _defines_entries(folder, names):
        if stack.error:
            return _unresolved(folder, names, stack.error, stack.definition, open_here)
        inputs = tuple(_absolute(folder, entry) for entry in stack.files)
        overrides = _overrides(folder, names)
        return Unit(
            folder, inputs, stack.externals, stack.options, overrides, stack.definition, True
        )
    return _package(folder, open_here)


def _package(folder: str, open_here: list[str], error: str = "") -> Unit | None:
    files = sorted(set(package_files(folder)) | set(open_here))
    return Unit(folder, tuple(files), error=error) if files else None


def _overrides(folder: str, names: set[str]) -> tuple[str, ...]:
    """The ``overrides`` of the folder's settings file (none when it has none or
    cannot be read: the stack's reading reports that)."""
    if SETTINGS_FILE not in names:
        return ()
    from kclpy.settings import SettingsError, load_settings

    try:
        settings = load_settings([os.path.join(folder, SETTINGS_FILE)])
    except (SettingsError, OSError, ValueError):
        return ()
    return tuple(str(item) for item in settings.get("overrides", []))


def _defines_entries(folder: str, names: set[str]) -> bool:
    """Whether the folder's kcl.yaml or kcl.mod names entry files (a folder with only
    a ``main.k`` is a package: ``kcl run`` there builds all its files)."""
    if SETTINGS_FILE in names:
        return True
    if MOD_FILE not in names:
        return False
    from kclpy.mod.errors import PackageError
    from kclpy.mod.manifest import read_mod

    try:
        entries = read_mod(folder).profile.get("entries")
    except (PackageError, OSError, ValueError):
        return False
    return isinstance(entries, list) and bool(entries)


def _unresolved(
    folder: str, names: set[str], error: str, definition: tuple[str, ...], open_here: list[str]
) -> Unit | None:
    """A stack whose packages or settings failed: its entries all the same, when they
    can be read (the loader then reports what it cannot resolve)."""
    from kclpy.mod.entries import module_entries
    from kclpy.mod.errors import PackageError
    from kclpy.settings import SettingsError, load_settings

    files: list[str] = []
    options: list[str] = []
    overrides: list[str] = []
    try:
        if SETTINGS_FILE in names:
            settings = load_settings([os.path.join(folder, SETTINGS_FILE)])
            files = [str(item) for item in settings.get("files") or []]
            options = [str(item) for item in settings.get("options", [])]
            overrides = [str(item) for item in settings.get("overrides", [])]
        if not files and MOD_FILE in names:
            files = module_entries(folder)
    except (SettingsError, PackageError, OSError, ValueError):
        return _package(folder, open_here, error)
    if not files:
        return _package(folder, open_here, error)
    inputs = tuple(_absolute(folder, entry) for entry in files)
    return Unit(folder, inputs, (), tuple(options), tuple(overrides), definition, True, error=error)


def _absolute(folder: str, entry: str) -> str:
    if entry.startswith("${") or os.path.isabs(entry):
        return os.path.normpath(entry) if not entry.startswith("${") else entry
    return os.path.normpath(os.path.join(folder, entry))


class Units:
    """The units known so far, by folder, and the stacks naming each entry file."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._units: dict[str, Unit] = {}
        self._entries: dict[str, set[str]] = {}  # entry file -> folders of stacks naming it

    def put(self, unit: Unit) -> None:
        with self._lock:
            self._drop(unit.folder)
            self._units[unit.folder] = unit
            if unit.stack:
                for entry in unit.entries():
                    self._entries.setdefault(entry, set()).add(unit.folder)

    def remove(self, folder: str) -> None:
        with self._lock:
            self._drop(folder)

    def _drop(self, folder: str) -> None:
        old = self._units.pop(folder, None)
        if old is not None and old.stack:
            for entry in old.entries():
                holders = self._entries.get(entry, set())
                holders.discard(folder)
                if not holders:
                    self._entries.pop(entry, None)

    def get(self, folder: str) -> Unit | None:
        with self._lock:
            return self._units.get(folder)

    def folders(self) -> list[str]:
        with self._lock:
            return list(self._units)

    def stacks_naming(self, path: str) -> set[str]:
        """The folders of the stacks that name ``path`` as an entry file."""
        with self._lock:
            return set(self._entries.get(path, ()))

    def entry_of_stack(self, folder: str) -> bool:
        """Whether every ``.k`` file of a package folder is an entry of some stack (it
        is then built only within those stacks: ``base/`` of an application)."""
        with self._lock:
            unit = self._units.get(folder)
            if unit is None or unit.stack:
                return False
            return all(path in self._entries for path in unit.inputs)


# --------------------------------------------------------------------------- outside the roots

UPWARD = 8  # folders above a file looked at for the stacks naming it, at most
NEARBY = Limits(entries=5_000, bytes=16 << 20, folders=60)  # per folder looked under


def nearby_stacks(
    path: str, overlay: Iterable[str], stopped: Callable[[], bool], known: Iterable[str] = ()
) -> list[Unit]:
    """The stacks that name ``path`` (a file opened outside the workspace roots), as
    ``kcl run`` in their folders builds them: looked for under the file's parent
    folder, then the next one up, up to the module root (the nearest ``kcl.mod`` at
    or above the file's folder; ``UPWARD`` folders at most, never the file-system
    root or the home folder), each look bounded by ``NEARBY``; the search stops at
    the first folder under which some stack names the file (an application's
    ``base/base.k``: its environments' stacks). A stack's own file is answered with
    its folder's stack. ``known`` folders are not read again."""
    path = os.path.abspath(path)
    folder = os.path.dirname(path)
    top = _module_root(folder)
    if top is None:
        return []
    own = read_unit(folder, overlay)
    if own is not None and own.stack and path in own.entries():
        return [own]  # a stack's own file: its folder's program is the stack
    seen = set(known) | {folder}
    current = folder
    for _ in range(UPWARD):
        parent = os.path.dirname(current)
        if parent == current or refused(parent) is not None or not _within(parent, top):
            break
        current = parent
        found = []
        for candidate in package_folders([current], stopped, NEARBY).folders:
            if candidate in seen or stopped():
                continue
            seen.add(candidate)
            unit = read_unit(candidate, overlay)
            if unit is not None and unit.stack and path in unit.entries():
                found.append(unit)
        if found:
            return found
    return []


def _module_root(folder: str) -> str | None:
    current = folder
    for _ in range(UPWARD + 1):
        if os.path.isfile(os.path.join(current, MOD_FILE)):
            return current
        parent = os.path.dirname(current)
        if parent == current or refused(parent) is not None:
            return None
        current = parent
    return None


def _within(path: str, top: str) -> bool:
    return path == top or path.startswith(top.rstrip(os.sep) + os.sep)
