"""The analysis model of a workspace: what is known about every program, kept current.

Layout (after rust-analyzer's database and jedi-language-server's workspace):

* **Inputs**: file texts. An open buffer overrides the file on disk (``Documents``):
  the buffers are the overlay of the workspace's query database
  (``kclpy.pipeline.queries``), which loads, parses and checks every program; a
  package that exists only as unsaved buffers is found like one on disk.
* **Parses**: the database's parse query, one entry per path (the latest content),
  so a keystroke re-parses one file (statement by statement, ``kclpy_lsp.incremental``)
  and every other file of the program is reused.
* **Programs** (``kclpy_lsp.programs``): the programs ``kcl run`` and ``kcl build``
  would build: each stack (``kcl.yaml`` files and options, ``kcl.mod`` profile
  entries, with its packages) and each other package folder. A package folder whose
  files are built within stacks (an application's ``base/``, the shared models) is
  analysed only there. An ``Analysis`` is the loaded program, its checked ``Model``,
  the lint findings and the diagnostics of every file it loaded, the texts it saw and
  the package paths it looked for. It is stale as soon as any of those texts changes
  or a file appears where it looked for one (a restored dependency).
* **Checked packages** are shared: the database stores each package checked (with
  its nested scopes and tools' tables) by content key, and every
  program that loads the same package over the same packages below it reads that
  check (konfig's models: once for its 20 stacks, not once per stack). An edit
  changes the key of the package it is in and of every package above it: those are
  checked again. The store keeps what the current analyses use (``_retain``).
* **Diagnostics** are published for every file of every analysed program that
  lies in the workspace, open or not (a type error in an imported model, an
  import cycle), merged over the programs that load it (a ``base.k`` of three
  stacks: once), and cleared when gone.

Analysis runs on one worker thread: a change marks programs dirty, and the worker
waits for a quiet period (the debounce) before it analyses the newest texts. The
programs a request waits for go first, then those of open documents, then stacks,
then packages. A change during an analysis supersedes it: the worker drops its
result at the next phase boundary and starts over, so requests never wait for a
queue of stale versions; one that arrives having read another text than a buffer
opened or changed meanwhile holds is due again at once. Requests read
``latest(path)`` (the last completed analysis), await ``fresh(path)`` (one that saw
the current text: never an older one within its bound) or ``complete()`` (every
program of the workspace analysed: references, rename, workspace symbols).

Package resolution never writes to the workspace: ``kclpy.mod.settings.read_only_locks``
is set before anything resolves, so no ``kcl.mod.lock`` is written.
"""

from __future__ import annotations

import asyncio
import gc
import os
import sys
import threading
import time
from collections.abc import Callable

import attrs

from kclpy.diag import Code, Diagnostic, make_error
from kclpy.loader import Program
from kclpy.mod.settings import read_only_locks
from kclpy.pipeline.inputs import Files, Settings
from kclpy.pipeline.queries import Database
from kclpy.sema.model import Model
from kclpy.sema.symbols import MAIN
from kclpy.syntax.parser import paused_cycle_collector
from kclpy.tools.lint import LintConfig, LintConfigError, lint_program, read_config
from kclpy.tools.lint_rules import Finding
from kclpy_lsp.documents import UNTITLED, Documents
from kclpy_lsp.incremental import ChunkParser
from kclpy_lsp.memory import Graveyard, collect_idle
from kclpy_lsp.programs import Unit, Units, nearby_stacks, read_unit
from kclpy_lsp.runsettings import apply_settings
from kclpy_lsp.scan import package_folders

DEBOUNCE = 0.15  # seconds of quiet before an analysis starts
IDLE_COLLECT = 3.0  # seconds without changes before a full cycle collection
COLLECT_AFTER = 10  # analyses between full cycle collections at most
SCAN_WAIT = 10.0  # seconds the worker waits for the scan to know the stacks, at most
PARSES_KEPT = 100_000  # files whose latest parse the workspace keeps

Publisher = Callable[[str, list[Diagnostic], int | None], None]
Notifier = Callable[[str], None]


@attrs.define
class Analysis:
    """One completed analysis of the program of a package folder."""

    folder: str
    model: Model
    program: Program
    findings: list[Finding]
    texts: dict[str, str]  # every file it loaded: path -> the text it saw
    config_error: str | None = None
    diagnostics: dict[str, list[Diagnostic]] = attrs.field(factory=dict)
    externals: dict[str, str] = attrs.field(factory=dict)  # kcl.mod dependency -> folder
    unit: Unit | None = None
    probes: frozenset[str] = frozenset()  # package paths looked for (found or not)
    # its packages checked once for every program (the database stores them): path -> key
    shared: dict[str, str] = attrs.field(factory=dict)


def _trace(message: str) -> None:
    """A line on stderr when ``KCLPY_LSP_TRACE`` is set (what the worker does, when)."""
    if os.environ.get("KCLPY_LSP_TRACE"):
        print(f"{time.monotonic():.3f} {message}", file=sys.stderr, flush=True)


class Superseded(Exception):
    """A newer change arrived: this analysis is dropped."""


class Workspace:
    """Parses, analyses and diagnostics of the programs of the workspace."""

    def __init__(
        self,
        documents: Documents,
        publish: Publisher,
        note: Notifier = lambda message: None,
        shared: bool = True,
    ) -> None:
        read_only_locks()  # the editor never writes a kcl.mod.lock
        self.documents = documents
        self.publish = publish
        self.note = note  # a message for the client's log (called from any thread)
        self.roots: list[str] = []
        self.units = Units()
        self.disk_changes = 0  # changes to files that are not open (saves, watched files)
        self._chunks = ChunkParser()
        # the query layer over the open buffers: parses by content (edited buffers
        # statement by statement), checked packages with their nested scopes and
        # tools' facts, stored by content key and ``shared`` by every program that
        # loads them (konfig's models are checked once, not once per stack); the
        # store keeps what the current analyses use (``_retain``)
        files = Files(keyed=True, limit=PARSES_KEPT, reparse=self._chunks.parse)
        settings = Settings(scopes=True, shared=shared)
        self.database = Database(settings, files, PARSES_KEPT)
        self._analyses: dict[str, Analysis] = {}
        self._configs: dict[str, LintConfig | str] = {}
        self._published: dict[str, list[Diagnostic]] = {}
        self._outside: set[str] = set()  # files found outside the workspace (not published)
        self._dirty: set[str] = set()
        self._wanted: dict[str, int] = {}  # unit folders requests wait for (how many)
        self._current: str | None = None  # the unit under analysis
        self._progress = [0, 0]  # units analysed, units to analyse, since the last idle
        self._generation = 0
        self._changed_at = 0.0
        self._lock = threading.Condition()
        self._scanned = threading.Event()
        self._scanned.set()  # no scan under way
        self._scan_began = 0.0
        self._searches = 0  # searches for programs under way (the scan, ``nearby``)
        self._stopped = False
        self._frozen = 0  # analyses since the last full collection
        self._replaced = 0  # of them, analyses that replaced or dropped one (garbage)
        self._superseded = False  # an analysis was dropped half-way since the last freeze
        # models of replaced analyses (kclpy_lsp.memory), but for the stored packages
        self._graveyard = Graveyard(self.database.checked.holds)
        self._thread = threading.Thread(target=self._run, name="kclpy-analysis", daemon=True)
        self._thread.start()

    # ------------------------------------------------------------------ inputs

    def changed(self, path: str, supersede: bool = True) -> None:
        """A file's text changed (an edit, a save, a change on disk, a file or folder
        made or deleted): re-analyse every program that saw another text of it or looked
        for it, the stacks naming it, and the program of its folder (a file opened
        with the text every analysis saw changes nothing; one opened with the text on
        disk, ``supersede`` False, leaves an analysis under way alone: it reads the
        same text, and when the disk held another one as it read the file, the
        analysis is outdated on arrival and due again: ``_outdated``)."""
        path = os.path.abspath(path)
        self._outside.discard(path)  # (opened, maybe)
        on_disk = self.documents.open_by_path(path) is None
        if on_disk:
            self.disk_changes += 1
        if os.path.basename(path) in ("kcl.mod", "kcl.yaml"):
            self._configs.clear()
            self.schedule(set(self._analyses) | set(self.units.folders()))
            return
        document = self.documents.by_path(path)
        current = document.text if document is not None else None
        folders = set()
        for folder, analysis in list(self._analyses.items()):
            if path in analysis.texts:
                if analysis.texts[path] != current:
                    folders.add(folder)
            elif on_disk and _looked_for(analysis, path):
                folders.add(folder)
        unseen = self.units.stacks_naming(path)
        folder = os.path.dirname(path)
        if self._is_open_folder(folder) or self._in_workspace(path):
            unseen.add(folder)
        folders |= {f for f in unseen if path not in self._texts_of(f)}
        if not supersede:
            folders.discard(self._current or "")
        if folders:
            self.schedule(folders, supersede)

    def _texts_of(self, folder: str) -> dict[str, str]:
        analysis = self._analyses.get(folder)
        return analysis.texts if analysis is not None else {}

    def scan(self) -> None:
        """Find the programs of the workspace and analyse them in the background (open
        documents first), so errors in files that are not open appear and references
        are complete. The folders are found on a thread of their own, within the bounds
        of ``kclpy_lsp.scan``; each is read as a stack or a package
        (``kclpy_lsp.programs``). The search ends when the workspace stops; until it is
        done (``SCAN_WAIT`` at most) the worker analyses nothing, so no file is
        checked outside its stack."""
        self._searching(1)

        def find() -> None:
            try:
                began = time.monotonic()
                self._read_open_units()
                found = package_folders(self.roots, lambda: self._stopped)
                if found.note is not None and not self._stopped:
                    self.note(
                        f"workspace scan {found.note}; other folders are analysed when opened"
                    )
                for folder in found.folders:
                    if self._stopped:
                        return
                    self._read_open_units()  # a file opened meanwhile: its stack goes first
                    if self.units.get(folder) is None:
                        unit = read_unit(folder, self.documents.overlay())
                        if unit is not None:
                            self.units.put(unit)
                _trace(f"scanned {len(found.folders)} folders in {time.monotonic() - began:.3f}s")
                self.schedule(set(found.folders), supersede=False, found=True)
            finally:
                self._searching(-1)

        threading.Thread(target=find, name="kclpy-scan", daemon=True).start()

    def nearby(self, path: str) -> None:
        """A file opened outside the workspace roots: the stacks of its own module that
        name it (``kclpy_lsp.programs.nearby_stacks``) are found on a thread and
        analysed with it; meanwhile, as during the scan, only stacks are analysed."""
        path = os.path.abspath(path)
        if self._in_roots(path) or path.startswith(UNTITLED) or self.units.stacks_naming(path):
            return
        self._searching(1)

        def find() -> None:
            try:
                stopped = lambda: self._stopped  # noqa: E731
                for unit in nearby_stacks(path, self.documents.overlay(), stopped):
                    self.units.put(unit)
                self.schedule(self.units.stacks_naming(path) | {os.path.dirname(path)})
            finally:
                self._searching(-1)

        threading.Thread(target=find, name="kclpy-nearby", daemon=True).start()

    def _searching(self, step: int) -> None:
        """Count the searches for programs under way (``_scanned`` is set when none is)."""
        with self._lock:
            self._searches += step
            if step > 0:
                self._scanned.clear()
                self._scan_began = time.monotonic()
            elif self._searches == 0:
                self._scanned.set()
            self._lock.notify_all()

    def _read_open_units(self) -> None:
        """Read the units of the folders of open documents not known yet (the worker
        may analyse a stack before the scan ends: its folder defines it whole)."""
        overlay = self.documents.overlay()
        for folder in sorted({os.path.dirname(path) for path in overlay}):
            if self.units.get(folder) is None and not folder.startswith(UNTITLED):
                unit = read_unit(folder, overlay)
                if unit is not None:
                    self.units.put(unit)
                    with self._lock:
                        self._lock.notify_all()

    def forget(self, path: str) -> None:
        """A document closed: drop programs that no open document needs and that
        lie outside the workspace."""
        path = os.path.abspath(path)
        self.database.files.forget(path)  # the closed buffer's parse and chunks
        self._chunks.forget(path)
        for folder in list(self._analyses):
            if not self._is_open_folder(folder) and not self._in_workspace(folder):
                analysis = self._analyses.pop(folder)
                self._graveyard.bury(analysis.model, analysis.shared)
                self._retain()
                for file in analysis.diagnostics:
                    self._republish(file)
        self.changed(path)

    def schedule(self, folders: set[str], supersede: bool = True, found: bool = False) -> None:
        """Mark units dirty; ``supersede``: a text changed, so the analysis under way
        (which may have read it) is dropped, and analyses wait for a quiet moment (the
        debounce: typing); else (a document opened with the text on disk) nothing
        waits. ``found`` (programs found by the scan): units analysed already, or
        under way, are left alone."""
        with self._lock:
            if found:  # found, not changed: those analysed (or under way) are current
                folders = folders - set(self._analyses) - {self._current or ""}
            fresh = folders - self._dirty
            self._progress[1] += len(fresh)
            self._dirty |= folders
            if supersede:
                self._generation += 1
                self._changed_at = time.monotonic()
            self._lock.notify_all()

    def stop(self) -> None:
        with self._lock:
            self._stopped = True
            self._lock.notify_all()

    def join(self, timeout: float) -> None:
        """Wait for the analysis under way to stop (at most ``timeout`` seconds)."""
        self._thread.join(timeout)

    # ------------------------------------------------------------------ queries

    def latest(self, path: str) -> Analysis | None:
        """The last completed analysis of a program holding ``path`` (its folder's own
        first, then the stacks that load it, by folder)."""
        path = os.path.abspath(path)
        analysis = self._analyses.get(os.path.dirname(path))
        if analysis is not None and path in analysis.texts:
            return analysis
        holding = [a for _, a in sorted(list(self._analyses.items())) if path in a.texts]
        return holding[0] if holding else analysis

    def holders(self, path: str) -> set[str]:
        """The units that hold ``path``, or will: analysed ones that loaded it, stacks
        naming it, its folder's program."""
        path = os.path.abspath(path)
        found = {folder for folder, a in list(self._analyses.items()) if path in a.texts}
        found |= self.units.stacks_naming(path)
        folder = os.path.dirname(path)
        unit = self.units.get(folder)
        if unit is None or not unit.stack or path in unit.inputs or not found:
            found.add(folder)
        return found

    async def fresh(self, path: str, timeout: float = 10.0) -> Analysis | None:
        """An analysis that saw the current text of ``path``: the programs that hold it
        go first; a program that loaded another text of it with nothing due (the text
        changed with no word of it) is analysed again, once. The latest analysis when
        no program loads the file, or after ``timeout`` seconds (said in the client's
        log: the answer may be out of date)."""
        path = os.path.abspath(path)
        holders = self.holders(path)
        self._want(holders, 1)
        driven = False
        try:
            deadline = time.monotonic() + timeout
            while True:
                document = self.documents.by_path(path)
                current = document.text if document is not None else None
                with self._lock:
                    pending = not self._scanned.is_set() or bool(
                        holders & (self._dirty | {self._current})
                    )
                    seen = {
                        folder: analysis
                        for folder in sorted(holders)
                        if (analysis := self._analyses.get(folder)) is not None
                        and path in analysis.texts
                        and folder not in self._dirty
                        and folder != self._current
                    }
                    stale = {f for f, analysis in seen.items() if analysis.texts[path] != current}
                    if not pending and stale and not driven:  # analysed again, once
                        driven = pending = True
                        self._due(stale)
                        self._lock.notify_all()
                ready = [analysis for folder, analysis in seen.items() if folder not in stale]
                if ready:
                    own = self._analyses.get(os.path.dirname(path))
                    return own if any(own is a for a in ready) else ready[0]
                if not pending:
                    return self.latest(path)
                if time.monotonic() > deadline:
                    self.note(f"{path}: not analysed within {timeout:.0f} s; an older text answers")
                    return self.latest(path)
                await asyncio.sleep(0.01)
        finally:
            self._want(holders, -1)

    def pending(self) -> tuple[int, int] | None:
        """(analysed, to analyse) of the work under way; None when the whole workspace
        is analysed (the scan done, nothing dirty, the worker idle)."""
        with self._lock:
            if self._scanned.is_set() and not self._dirty and self._current is None:
                return None
            done, total = self._progress
            return done, max(total, done + len(self._dirty) + (self._current is not None))

    async def complete(self, report: Callable[[int, int], None], timeout: float) -> bool:
        """Wait until every program of the workspace is analysed (``report(done,
        total)`` meanwhile); False after ``timeout`` seconds."""
        deadline = time.monotonic() + timeout
        while (left := self.pending()) is not None:
            report(*left)
            if time.monotonic() > deadline:
                return False
            await asyncio.sleep(0.02)
        return True

    def all_analyses(self) -> list[Analysis]:
        return list(self._analyses.values())

    def _want(self, folders: set[str], step: int) -> None:
        with self._lock:
            for folder in folders:
                count = self._wanted.get(folder, 0) + step
                if count > 0:
                    self._wanted[folder] = count
                else:
                    self._wanted.pop(folder, None)
            if step > 0:
                self._dirty |= {f for f in folders if f not in self._analyses}
                self._lock.notify_all()

    # ------------------------------------------------------------------ the worker

    def _run(self) -> None:
        while True:
            with self._lock:
                while not self._dirty and not self._stopped:
                    self._progress = [0, 0]
                    if not self._lock.wait(IDLE_COLLECT if self._replaced else None):
                        self._lock.release()  # (requests read the state meanwhile)
                        try:
                            self._collect()  # quiet for a while: reclaim what analyses left
                        finally:
                            self._lock.acquire()
                if self._stopped:
                    if self._frozen:
                        gc.unfreeze()  # leave the process's collector as it was
                    return
                quiet = time.monotonic() - self._changed_at
                if quiet < DEBOUNCE:
                    self._lock.wait(DEBOUNCE - quiet)
                    continue
                ready = self._dirty
                if not self._scanned.is_set() and time.monotonic() - self._scan_began < SCAN_WAIT:
                    ready = {f for f in self._dirty if self._is_stack(f)}  # defined whole
                if not ready:
                    self._lock.wait(0.05)  # the stacks first: no file checked outside its own
                    continue
                folder = min(ready, key=self._priority)
                self._dirty.discard(folder)
                self._current = folder
                generation = self._generation
            began = time.monotonic()
            analysis: Analysis | None = None
            try:
                with paused_cycle_collector():
                    analysis = self._analyse(folder, generation)
                    # frozen before the collector resumes: else its first (young)
                    # collection looks at every object the analysis made (1 s at 1 MB)
                    self._freeze()
                _trace(f"analysed {folder} in {time.monotonic() - began:.3f}s")
            except Superseded:
                _trace(f"superseded {folder} after {time.monotonic() - began:.3f}s")
                with self._lock:
                    self._dirty.add(folder)
                    self._progress[0] -= 1
                    self._replaced += 1
                    self._superseded = True
            except Exception as error:  # a bug in kclpy: keep serving, say so on stderr
                print(f"kclpy-lsp: internal error analysing {folder}: {error!r}", file=sys.stderr)
            finally:
                with self._lock:
                    self._current = None
                    self._progress[0] += 1
                    if analysis is not None and self._outdated(analysis):
                        _trace(f"outdated on arrival {folder}")
                        self._due({folder})
                    self._lock.notify_all()

    def _outdated(self, analysis: Analysis) -> bool:
        """Whether a buffer the analysis loaded was opened or changed while it ran and
        now holds a text other than the one it saw (a file opened with the text on disk
        leaves the analysis under way alone, ``changed``: the disk may have held another
        text when it read the file). A text the analysis saw differently from a buffer
        that did not change is no reason: it would be analysed in a loop."""
        began_with = self.database.files.overlay
        return any(
            path in analysis.texts and analysis.texts[path] != text and began_with.get(path) != text
            for path, text in self.documents.overlay().items()
        )

    def _due(self, folders: set[str]) -> None:
        """Mark units dirty without superseding the analysis under way (the caller
        holds the lock)."""
        self._progress[1] += len(folders - self._dirty)
        self._dirty |= folders

    def _priority(self, folder: str) -> tuple[bool, bool, bool, str]:
        """Wanted by a request, then open, then stacks, then packages."""
        wanted = folder in self._wanted
        return (not wanted, not self._is_open_folder(folder), not self._is_stack(folder), folder)

    def _is_stack(self, folder: str) -> bool:
        unit = self.units.get(folder)
        return unit is not None and unit.stack

    def _freeze(self) -> None:
        """Move what exists now out of the cycle collector's sight: a collection over a
        large program's trees pauses every thread for seconds, and the objects of
        the latest analysis live on anyway. Replaced analyses are freed by reference
        counting once the graveyard unlinks them; what an analysis dropped half-way
        left is collected before the freeze (it is not frozen with the rest). See
        ``kclpy_lsp.memory``."""
        self._graveyard.sweep(self._busy)
        if self._superseded:
            gc.collect()  # the objects made since the last freeze only
            self._superseded = False
        gc.freeze()
        self._frozen += 1
        if self._replaced >= COLLECT_AFTER:
            self._collect()

    def _collect(self) -> None:
        """The idle housekeeping (``kclpy_lsp.memory.collect_idle``): short steps, none
        begun while a request or a change waits."""
        began = time.monotonic()
        full = collect_idle(self._graveyard, self._busy)
        self._replaced = 0
        _trace(
            f"collected ({'full' if full else 'new objects'}) in {time.monotonic() - began:.3f}s"
        )

    def _busy(self) -> bool:
        """Whether a change or a request waits for the worker (idle work gives way)."""
        return bool(self._dirty) or bool(self._wanted)

    def _check(self, generation: int, folder: str) -> Callable[[], None]:
        """Raises ``Superseded`` when a text changed, the server stops, or a request
        waits for another program while this one is not wanted."""

        def check() -> None:
            if self._generation != generation or self._stopped:
                raise Superseded
            if self._wanted and folder not in self._wanted and self._dirty & set(self._wanted):
                raise Superseded

        return check

    def _analyse(self, folder: str, generation: int) -> Analysis | None:
        """Analyse one unit; its analysis (None when the unit is gone or analysed
        within stacks only)."""
        check = self._check(generation, folder)
        overlay = self.documents.overlay()  # the buffers this analysis reads (``_outdated``)
        unit = read_unit(folder, overlay)  # read anew: a restored package
        if unit is None:
            self.units.remove(folder)
            self._drop(folder)
            return None
        self.units.put(unit)
        if not unit.stack and (self.units.entry_of_stack(folder) or self._covered(unit)):
            self._drop(folder)  # built within stacks only: analysed there
            return None
        check()
        database = self.database
        database.files.set_overlay(overlay)
        program, loader = database.program(
            list(unit.inputs), unit.folder, dict(unit.externals), before=check
        )
        settings = apply_settings(program, unit)  # -O in memory, -D against option()
        check()
        config = self._config(program.root)
        lint_config = LintConfig() if isinstance(config, str) else config
        findings, model = lint_program(program, loader, lint_config, database)
        check()
        analysis = Analysis(folder, model, program, findings, _texts(program))
        keys = database.package_keys(program).items()
        analysis.shared = {path: key for path, key in keys if key is not None and path != MAIN}
        analysis.externals = dict(loader.externals)
        analysis.unit = unit
        analysis.probes = frozenset(base for base, _found in program.reads.probes)
        if isinstance(config, str):
            analysis.config_error = config
        for path in analysis.texts:
            analysis.diagnostics[path] = []
        for finding in findings:
            span = finding.diagnostic.span
            if span is not None:
                where = os.path.abspath(span.file.path)
                analysis.diagnostics.setdefault(where, []).append(finding.diagnostic)
        for where, problems in settings.items():
            analysis.diagnostics.setdefault(where, []).extend(problems)
        if unit.error and unit.definition:
            problem = make_error(Code.MOD_FILE_ERROR, unit.error, None)
            analysis.diagnostics.setdefault(unit.definition[0], []).append(problem)
        old = self._analyses.get(folder)
        self._replaced += old is not None
        self._analyses[folder] = analysis
        if old is not None:
            self._graveyard.bury(old.model, old.shared)
        self._retain()
        self._republish_changed(old, analysis)
        self._uncovered(old, analysis)
        return analysis

    def _republish_changed(self, old: Analysis | None, new: Analysis) -> None:
        """Publish the files whose merged diagnostics an analysis may change: those it
        or the analysis it replaces reports on, and those of the workspace never
        published (a stack loads hundreds of package files: most have nothing to say,
        and lie outside the workspace)."""
        before = old.diagnostics if old is not None else {}
        for path in sorted(set(new.diagnostics) | set(before)):
            reports = bool(new.diagnostics.get(path) or before.get(path))
            if reports or (path not in self._published and path not in self._outside):
                self._republish(path)

    def _retain(self) -> None:
        """Keep the checked packages the current analyses use, no others (an edited
        model's earlier versions go)."""
        live = {key for a in list(self._analyses.values()) for key in a.shared.values()}
        self.database.checked.retain(live)

    def _covered(self, unit: Unit) -> bool:
        """Whether every file of a package unit is loaded by some stack's analysis."""
        stacks = [a for a in self._analyses.values() if a.unit is not None and a.unit.stack]
        return bool(stacks) and all(any(path in a.texts for a in stacks) for path in unit.inputs)

    def _uncovered(self, old: Analysis | None, new: Analysis) -> None:
        """Files a stack no longer loads: their folders' own programs are due again."""
        if old is None or new.unit is None or not new.unit.stack:
            return
        dropped = {os.path.dirname(path) for path in old.texts if path not in new.texts}
        folders = {folder for folder in dropped if self._in_workspace(folder)}
        if folders:
            self.schedule(folders, supersede=False, found=True)

    def _drop(self, folder: str) -> None:
        old = self._analyses.pop(folder, None)
        self._replaced += old is not None
        if old is not None:
            self._graveyard.bury(old.model, old.shared)
            self._retain()
        for path in old.diagnostics if old else []:
            self._republish(path)

    def _config(self, root: str) -> LintConfig | str:
        config = self._configs.get(root)
        if config is None:
            try:
                config = read_config(root)
            except LintConfigError as error:
                config = str(error)
            self._configs[root] = config
        return config

    def _is_open_folder(self, folder: str) -> bool:
        return any(os.path.dirname(path) == folder for path in self.documents.overlay())

    def _in_workspace(self, path: str) -> bool:
        return self.documents.open_by_path(path) is not None or self._in_roots(path)

    def _in_roots(self, path: str) -> bool:
        return any(
            path == root or path.startswith(root.rstrip(os.sep) + os.sep) for root in self.roots
        )

    def _republish(self, path: str) -> None:
        """Publish the merged diagnostics of a file over every program that loads it."""
        if not self._in_workspace(path):
            self._outside.add(path)  # (until it is opened: ``changed``)
            return
        merged: list[Diagnostic] = []
        seen: set[tuple[str, str, int]] = set()
        for analysis in list(self._analyses.values()):
            for diagnostic in analysis.diagnostics.get(path, []):
                span = diagnostic.span
                key = (diagnostic.code.id, diagnostic.message, span.start if span else -1)
                if key not in seen:
                    seen.add(key)
                    merged.append(diagnostic)
        if not merged and not self._published.get(path) and path in self._published:
            return
        self._published[path] = merged
        document = self.documents.open_by_path(path)
        self.publish(path, merged, document.version if document else None)


def _texts(program: Program) -> dict[str, str]:
    """The text of every file a program loaded (none for one missing or unreadable)."""
    unread = program.reads.unread
    return {
        module.file.path: module.file.text
        for modules in program.packages.values()
        for module in modules
        if module.file.path not in unread
    }


def _looked_for(analysis: Analysis, path: str) -> bool:
    """Whether a file or folder made or deleted at ``path`` can change what an analysis
    found: it looked for a package there (``path``, ``path`` without ``.k``, its
    folder), or loaded or looked for something under a folder at ``path``."""
    probes = analysis.probes
    if path in probes or os.path.dirname(path) in probes:
        return True
    if path.endswith(".k") and path[:-2] in probes:
        return True
    below = path.rstrip(os.sep) + os.sep
    return any(p.startswith(below) for p in probes) or any(
        t.startswith(below) for t in analysis.texts
    )
