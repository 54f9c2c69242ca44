"""The server's memory: dropped analyses freed without the cycle collector's full
passes, collections kept short, free pages given back, pauses measured.

* **Freed by reference counting.** A checked model's scope tree links parents and
  children both ways, so a dropped analysis was one big cycle: only a full
  collection (a pass over every live object, seconds with a 5 MB file open, every
  thread stopped) freed it. ``Graveyard`` takes the models of replaced and dropped
  analyses and, once nothing else holds one (a request still reading it keeps it),
  unlinks its scope tree and its schemas' links to their symbols: reference counting
  then frees the model as soon as the analysis goes (types no longer point at
  themselves either: ``sema.relations.widen``). The packages a model shares with
  other programs (checked packages the query database stores, ``sema.interface``)
  are left linked while the store holds them or a model still waiting uses them.
* **Short collections.** The workspace freezes what exists after each analysis
  (``gc.freeze``), so automatic collections look at new objects only.
  ``collect_idle`` runs when the user pauses: it unlinks what the graveyard holds,
  collects the objects made since the last freeze, and makes a full pass (the
  frozen objects too: cycles reference counting cannot free) only when that pass is
  short (``FULL_LIMIT`` objects) or garbage has piled up (``FULL_AFTER`` dropped
  models); it stops between steps when ``busy()`` says work is waiting.
* **Pages given back.** CPython keeps freed memory for reuse; ``release_memory``
  asks glibc to return free pages (``malloc_trim``; a foreign call, made without the
  interpreter lock, so requests go on meanwhile); elsewhere it does nothing.
* **Pauses measured.** ``PAUSES`` records every collection through ``gc.callbacks``
  (count, full ones, longest, total), answered to ``kclpy/collectorPauses`` for
  ``benchmarks/lsp_bench.py``.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import gc
import sys
import time
from collections.abc import Callable, Collection, Hashable, Mapping
from functools import cache
from typing import Any

from kclpy.sema.model import Model

FULL_LIMIT = 300_000  # frozen objects a full pass at idle may look at (a fraction of a second)
FULL_AFTER = 40  # dropped models after which a full pass runs whatever its length
KEEP_SWEEPS = 20  # sweeps a model still held elsewhere waits before it is left to the collector


@cache
def _trim() -> Callable[[int], int] | None:
    if not sys.platform.startswith("linux"):
        return None
    name = ctypes.util.find_library("c")
    try:
        library = ctypes.CDLL(name)
        trim: Callable[[int], int] = library.malloc_trim
    except (OSError, AttributeError, TypeError):  # not glibc (musl has no malloc_trim)
        return None
    return trim


def release_memory() -> None:
    """Return the allocator's free pages to the system (glibc only)."""
    trim = _trim()
    if trim is not None:
        trim(0)


def unlink(model: Model, keep: Collection[str] = ()) -> None:
    """Break the cycles of a model that no one reads any more: the links of its
    program's schemas to their own symbol (whose type names the schema) and from their
    attributes (``owner``); the packages ``keep`` (shared with other models) are left
    as they are."""
    for info in model.schemas.values():
        if info.file not in model.files or info.pkgpath in keep:  # shared
            continue
        info.symbol = None
        for attribute in info.attrs.values():
            if attribute.owner is info:
                attribute.owner = None


Shared = Mapping[str, Hashable]  # a model's shared packages: package path -> content key


class Graveyard:
    """Models of replaced or dropped analyses, unlinked once nothing else holds them;
    ``stored(key)``: whether a shared package is still stored (then left linked).
    Used by the analysis thread only."""

    def __init__(self, stored: Callable[[Hashable], bool] = lambda key: False) -> None:
        self._models: list[tuple[Model, Shared, int]] = []  # (model, shared, sweeps waited)
        self.stored = stored
        self.buried = 0  # models taken since the last full pass

    def bury(self, model: Model, shared: Shared | None = None) -> None:
        self._models.append((model, shared or {}, 0))
        self.buried += 1

    def sweep(self, busy: Callable[[], bool] = lambda: False) -> None:
        """Unlink the models no one else holds (the others wait for a later sweep),
        but for the packages they share that are stored or that a waiting model uses."""
        free: list[tuple[Model, Shared]] = []
        waiting: list[tuple[Model, Shared, int]] = []
        while self._models:
            model, shared, sweeps = self._models.pop()
            # held by this frame and getrefcount's argument only: no request reads it
            if sys.getrefcount(model) <= 2:
                free.append((model, shared))
            elif sweeps < KEEP_SWEEPS:
                waiting.append((model, shared, sweeps + 1))
            del model
        held = {key for _, shared, _ in waiting for key in shared.values()}
        while free:
            model, shared = free.pop()
            keep = {path for path, key in shared.items() if key in held or self.stored(key)}
            unlink(model, keep)
            del model
            if busy():
                break
        self._models.extend((model, shared, 0) for model, shared in free)
        self._models.extend(waiting)


class Pauses:
    """Every cycle collection's pause, from ``gc.callbacks`` (any thread)."""

    def __init__(self) -> None:
        self.count = 0
        self.full = 0
        self.longest = 0.0
        self.total = 0.0
        self._began = 0.0

    def __call__(self, phase: str, info: dict[str, Any]) -> None:
        now = time.perf_counter()
        if phase == "start":
            self._began = now
            return
        pause = now - self._began
        self.count += 1
        self.full += info.get("generation") == 2
        self.longest = max(self.longest, pause)
        self.total += pause

    def figures(self) -> dict[str, float]:
        return {
            "collections": self.count,
            "full_collections": self.full,
            "longest_s": round(self.longest, 3),
            "total_s": round(self.total, 3),
        }


PAUSES = Pauses()


def watch_pauses() -> None:
    """Measure the collector's pauses from now on (once)."""
    if PAUSES not in gc.callbacks:
        gc.callbacks.append(PAUSES)


def collect_idle(graveyard: Graveyard, busy: Callable[[], bool]) -> bool:
    """The housekeeping of a pause in the user's work (see the module doc); each step
    short, none begun once ``busy()``. Returns whether a full pass ran (what existed
    is frozen again after it)."""
    graveyard.sweep(busy)
    if busy():
        return False
    gc.collect()  # the objects made since the last freeze
    full = not busy() and (gc.get_freeze_count() <= FULL_LIMIT or graveyard.buried >= FULL_AFTER)
    if full:
        gc.unfreeze()
        gc.collect()
        gc.freeze()
        graveyard.buried = 0
    release_memory()  # (without the interpreter lock)
    return full
