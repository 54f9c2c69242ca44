"""The package folders of a workspace, found within bounds.

Takes the workspace's roots, a ``stopped`` question (asked at every folder, so a
``shutdown`` ends a scan at once) and ``Limits``; returns the folders that hold
``.k`` files (``Found``), breadth first (the shallow ones first), with a note when a
limit cut the scan short. Never looked into: hidden folders (``.git``, ``.venv``,
``.corpus``, caches), ``node_modules``, ``vendor``, ``__pycache__``, installed
Python packages, virtual environments (a ``pyvenv.cfg``) and tagged caches (a
``CACHEDIR.TAG``); symbolic links to folders are not followed. ``refused`` tells
which roots are no workspace at all: the file-system root and the home folder.
"""

from __future__ import annotations

import os
from collections import deque
from collections.abc import Callable

import attrs

SKIPPED_NAMES = frozenset(
    {"node_modules", "vendor", "__pycache__", "site-packages", "dist-packages"}
)
MARKERS = ("pyvenv.cfg", "CACHEDIR.TAG")  # a virtual environment, a cache


@attrs.frozen
class Limits:
    entries: int = 50_000  # directory entries looked at
    bytes: int = 64 << 20  # bytes of the ``.k`` files of the folders found
    folders: int = 300  # package folders found


@attrs.define
class Found:
    folders: list[str] = attrs.field(factory=list)
    note: str | None = None  # why the scan stopped short


def refused(root: str) -> str | None:
    """Why a root is not scanned as a workspace (None: it is)."""
    path = os.path.abspath(root)
    if os.path.dirname(path) == path:
        return f"{path} is the root of the file system"
    home = os.path.expanduser("~")
    if home != "~" and os.path.abspath(home) == path:
        return f"{path} is the home folder"
    return None


def package_folders(
    roots: list[str], stopped: Callable[[], bool], limits: Limits | None = None
) -> Found:
    """The folders under ``roots`` that hold ``.k`` files (see the module's rules)."""
    limits = limits or Limits()
    found = Found()
    pending = deque(os.path.abspath(root) for root in roots)
    seen: set[str] = set()
    entries = 0
    size = 0
    while pending and not stopped():
        folder = pending.popleft()
        if folder in seen:
            continue
        seen.add(folder)
        listing = _listing(folder, limits.entries - entries)
        if listing is None:
            continue
        names, sources, subfolders = listing
        entries += names
        if entries >= limits.entries:
            found.note = f"stopped after {entries} directory entries"
            break
        if sources:
            size += sum(sources.values())
            if size > limits.bytes:
                found.note = f"stopped at {limits.bytes} bytes of .k files"
                break
            found.folders.append(folder)
            if len(found.folders) >= limits.folders:
                found.note = f"stopped at {limits.folders} package folders"
                break
        pending.extend(subfolders)
    return found


def _listing(folder: str, budget: int) -> tuple[int, dict[str, int], list[str]] | None:
    """The number of entries of a folder (up to ``budget``), its package files with
    their sizes, and its subfolders to look into; None when it is not to be looked
    into (unreadable, a virtual environment, a cache)."""
    count = 0
    sources: dict[str, int] = {}
    subfolders: list[str] = []
    try:
        with os.scandir(folder) as listing:
            for entry in listing:
                count += 1
                if entry.name in MARKERS:
                    return None
                if count >= budget:
                    break
                if entry.name.startswith(".") or entry.name in SKIPPED_NAMES:
                    continue
                if entry.is_dir(follow_symlinks=False):
                    subfolders.append(entry.path)
                elif (
                    entry.name.endswith(".k")
                    and not entry.name.endswith("_test.k")
                    and entry.is_file()
                ):
                    sources[entry.path] = entry.stat().st_size
    except OSError:
        return None
    return count, sources, sorted(subfolders)
