"""The analysis model of a workspace: what is known about every program, kept current.

Layout (after rust-analyzer's database and jedi-language-server's workspace):

* **Inputs**: file texts. An open buffer overrides the file on disk (``Documents``).
* **Parses**, cached per file by content (one entry per path, the latest text;
  files on disk keyed by modification time and size), so a keystroke re-parses
  one file and every other file of the program is reused.
* **Programs**: one per package folder that holds an open document. An
  ``Analysis`` is the loaded program, its checked ``Model``, the lint findings and
  the diagnostics of every file it loaded, plus the texts it saw. It is stale as
  soon as any of those texts changes, so the import graph decides what an edit
  invalidates: editing a model re-checks every program that imports it.
* **Diagnostics** are published for every file of every analysed program that
  lies in the workspace, open or not (a type error in an imported model, an
  import cycle), merged over the programs that load it, and cleared when gone.

Analysis runs on one worker thread: a change marks programs dirty, and the worker
waits for a quiet period (the debounce) before it analyses the newest texts. A
change during an analysis supersedes it: the worker drops its result at the next
phase boundary and starts over, so requests never wait for a queue of stale
versions. Requests read ``latest(path)`` (the last completed analysis) or await
``fresh(path)`` (one that saw the current text).
"""

from __future__ import annotations

import asyncio
import gc
import os
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from kclpy.diag import Diagnostic
from kclpy.loader import Loader, Program, package_files
from kclpy.sema.model import Model
from kclpy.syntax import ast, parse_source
from kclpy.syntax.parser import paused_cycle_collector
from kclpy.tools.lint import LintConfig, LintConfigError, lint_program, read_config
from kclpy.tools.lint_rules import Finding
from kclpy_lsp.documents import Documents, read_text
from kclpy_lsp.incremental import ChunkParser
from kclpy_lsp.memory import release_memory
from kclpy_lsp.scan import package_folders

DEBOUNCE = 0.15  # seconds of quiet before an analysis starts
IDLE_COLLECT = 3.0  # seconds without changes before a full cycle collection
COLLECT_AFTER = 10  # analyses between full cycle collections at most

Parsed = tuple[ast.Module, list[Diagnostic]]
Publisher = Callable[[str, list[Diagnostic], int | None], None]
Notifier = Callable[[str], None]


@dataclass
class Analysis:
    """One completed analysis of the program of a package folder."""

    folder: str
    model: Model
    program: Program
    findings: list[Finding]
    texts: dict[str, str]  # every file it loaded: path -> the text it saw
    config_error: str | None = None
    diagnostics: dict[str, list[Diagnostic]] = field(default_factory=dict)
    externals: dict[str, str] = field(default_factory=dict)  # kcl.mod dependency -> folder


def _trace(message: str) -> None:
    """A line on stderr when ``KCLPY_LSP_TRACE`` is set (what the worker does, when)."""
    if os.environ.get("KCLPY_LSP_TRACE"):
        print(f"{time.monotonic():.3f} {message}", file=sys.stderr, flush=True)


class Superseded(Exception):
    """A newer change arrived: this analysis is dropped."""


class _Loader(Loader):
    """A loader reading through the workspace (buffers over disk, parse cache)."""

    def __init__(self, workspace: Workspace, folder: str, check: Callable[[], None]) -> None:
        super().__init__(folder, {}, workspace.documents.overlay())
        self.workspace = workspace
        self.check = check
        self.seen: dict[str, str] = {}

    def parse(self, path: str) -> Parsed:
        self.check()
        path = os.path.abspath(path)
        text = self.sources.get(path)
        if text is None:
            text = read_text(path)
        if text is None:
            return super().parse(path)  # the loader's own error for a missing file
        self.seen[path] = text
        module, diagnostics = self.workspace.parse(path, text, path in self.sources)
        return module, list(diagnostics)


class Workspace:
    """Parses, analyses and diagnostics of the programs of open documents."""

    def __init__(
        self, documents: Documents, publish: Publisher, note: Notifier = lambda message: None
    ) -> None:
        self.documents = documents
        self.publish = publish
        self.note = note  # a message for the client's log (called from any thread)
        self.roots: list[str] = []
        self.disk_changes = 0  # changes to files that are not open (saves, watched files)
        self._parses: dict[str, tuple[str, Parsed]] = {}
        self._chunks = ChunkParser()
        self._analyses: dict[str, Analysis] = {}
        self._configs: dict[str, LintConfig | str] = {}
        self._published: dict[str, list[Diagnostic]] = {}
        self._dirty: set[str] = set()
        self._generation = 0
        self._changed_at = 0.0
        self._busy = False
        self._lock = threading.Condition()
        self._stopped = False
        self._frozen = 0  # analyses since the last full collection
        self._thread = threading.Thread(target=self._run, name="kclpy-analysis", daemon=True)
        self._thread.start()

    # ------------------------------------------------------------------ inputs

    def parse(self, path: str, text: str, edited: bool = False) -> Parsed:
        """The parse of a file's text (cached: the latest text of each path); an
        ``edited`` buffer is re-parsed statement by statement."""
        cached = self._parses.get(path)
        if cached is not None and (cached[0] is text or cached[0] == text):
            return cached[1]
        parsed = self._chunks.parse(path, text) if edited else parse_source(text, path)
        self._parses[path] = (text, parsed)
        return parsed

    def changed(self, path: str) -> None:
        """A file's text changed (an edit, a save, a change on disk): re-analyse the
        program of its folder when it is open, and every program that loaded it."""
        path = os.path.abspath(path)
        if self.documents.open_by_path(path) is None:
            self.disk_changes += 1
        if os.path.basename(path) == "kcl.mod":
            self._configs.clear()
            folders = set(self._analyses)
        else:
            folders = {f for f, a in self._analyses.items() if path in a.texts}
            folder = os.path.dirname(path)
            if self._is_open_folder(folder) or self._in_workspace(path):
                folders.add(folder)
        self.schedule(folders)

    def scan(self) -> None:
        """Analyse every package folder of the workspace in the background (open
        documents first), so errors in files that are not open appear and rename
        finds importers. The folders are found on a thread of their own, within the
        bounds of ``kclpy_lsp.scan``, and the search ends when the workspace stops."""

        def find() -> None:
            began = time.monotonic()
            found = package_folders(self.roots, lambda: self._stopped)
            _trace(f"scanned {len(found.folders)} folders in {time.monotonic() - began:.3f}s")
            if found.note is not None and not self._stopped:
                self.note(f"workspace scan {found.note}; other folders are analysed when opened")
            self.schedule(set(found.folders))

        threading.Thread(target=find, name="kclpy-scan", daemon=True).start()

    def forget(self, path: str) -> None:
        """A document closed: drop programs that no open document needs and that
        lie outside the workspace."""
        path = os.path.abspath(path)
        self._parses.pop(path, None)  # the closed buffer's parse and chunks
        self._chunks.forget(path)
        for folder in list(self._analyses):
            if not self._is_open_folder(folder) and not self._in_workspace(folder):
                analysis = self._analyses.pop(folder)
                for file in analysis.diagnostics:
                    self._republish(file)
        self.changed(path)

    def schedule(self, folders: set[str]) -> None:
        with self._lock:
            self._dirty |= folders
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
        """The last completed analysis of the program holding ``path``."""
        path = os.path.abspath(path)
        analysis = self._analyses.get(os.path.dirname(path))
        if analysis is not None:
            return analysis
        for analysis in self._analyses.values():
            if path in analysis.texts:
                return analysis
        return None

    async def fresh(self, path: str, timeout: float = 10.0) -> Analysis | None:
        """An analysis that saw the current text of ``path`` (waits for the one
        under way; the latest one after ``timeout`` seconds)."""
        path = os.path.abspath(path)
        folder = os.path.dirname(path)
        if not self._is_open_folder(folder) and folder not in self._analyses:
            self.schedule({folder})
        deadline = time.monotonic() + timeout
        while True:
            analysis = self.latest(path)
            document = self.documents.by_path(path)
            current = document.text if document is not None else None
            seen = analysis.texts.get(path) if analysis is not None else None
            if seen == current and folder not in self._dirty:
                return analysis
            if time.monotonic() > deadline:
                return analysis
            await asyncio.sleep(0.01)

    def all_analyses(self) -> list[Analysis]:
        return list(self._analyses.values())

    # ------------------------------------------------------------------ the worker

    def _run(self) -> None:
        while True:
            with self._lock:
                while not self._dirty and not self._stopped:
                    if not self._lock.wait(IDLE_COLLECT if self._frozen else None):
                        self._collect()  # quiet for a while: reclaim what analyses left
                if self._stopped:
                    if self._frozen:
                        gc.unfreeze()  # leave the process's collector as it was
                    return
                quiet = time.monotonic() - self._changed_at
                if quiet < DEBOUNCE:
                    self._lock.wait(DEBOUNCE - quiet)
                    continue
                folder = min(self._dirty, key=lambda f: (not self._is_open_folder(f), f))
                self._dirty.discard(folder)
                generation = self._generation
            began = time.monotonic()
            try:
                with paused_cycle_collector():
                    self._analyse(folder, generation)
                _trace(f"analysed {folder} in {time.monotonic() - began:.3f}s")
                self._freeze()
            except Superseded:
                _trace(f"superseded {folder} after {time.monotonic() - began:.3f}s")
                with self._lock:
                    self._dirty.add(folder)
            except Exception as error:  # a bug in kclpy: keep serving, say so on stderr
                print(f"kclpy-lsp: internal error analysing {folder}: {error!r}", file=sys.stderr)

    def _freeze(self) -> None:
        """Move what exists now out of the cycle collector's sight: a collection over a
        large program's trees pauses every thread for seconds, and the objects of
        the latest analysis live on anyway. The garbage of superseded analyses is
        reclaimed by ``_collect`` when the user pauses (or after a few analyses)."""
        gc.freeze()
        self._frozen += 1
        if self._frozen >= COLLECT_AFTER:
            self._collect()

    def _collect(self) -> None:
        began = time.monotonic()
        gc.unfreeze()
        gc.collect()
        release_memory()
        self._frozen = 0
        _trace(f"collected in {time.monotonic() - began:.3f}s")

    def _check(self, generation: int) -> Callable[[], None]:
        def check() -> None:
            if self._generation != generation or self._stopped:
                raise Superseded

        return check

    def _analyse(self, folder: str, generation: int) -> None:
        check = self._check(generation)
        loader = _Loader(self, folder, check)
        files = self._entry_files(folder)
        if not files:
            old = self._analyses.pop(folder, None)
            for path in old.diagnostics if old else []:
                self._republish(path)
            return
        program = loader.load(files)
        check()
        config = self._config(program.root)
        if isinstance(config, str):
            findings, model = lint_program(program, loader, LintConfig(), keep_scopes=True)
        else:
            findings, model = lint_program(program, loader, config, keep_scopes=True)
        check()
        analysis = Analysis(folder, model, program, findings, dict(loader.seen))
        analysis.externals = dict(loader.externals)
        if isinstance(config, str):
            analysis.config_error = config
        for path in analysis.texts:
            analysis.diagnostics[path] = []
        for finding in findings:
            span = finding.diagnostic.span
            if span is not None:
                where = os.path.abspath(span.file.path)
                analysis.diagnostics.setdefault(where, []).append(finding.diagnostic)
        old = self._analyses.get(folder)
        self._analyses[folder] = analysis
        affected = set(analysis.diagnostics) | set(old.diagnostics if old else ())
        for path in sorted(affected):
            self._republish(path)

    def _entry_files(self, folder: str) -> list[str]:
        files = package_files(folder)
        for path in self.documents.overlay():
            if (
                os.path.dirname(path) == folder
                and path.endswith(".k")
                and not path.endswith("_test.k")
                and path not in files
            ):
                files.append(path)
        return sorted(files)

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
        if self.documents.open_by_path(path) is not None:
            return True
        return any(
            path == root or path.startswith(root.rstrip(os.sep) + os.sep) for root in self.roots
        )

    def _republish(self, path: str) -> None:
        """Publish the merged diagnostics of a file over every program that loads it."""
        if not self._in_workspace(path):
            return
        merged: list[Diagnostic] = []
        seen: set[tuple[str, str, int]] = set()
        for analysis in self._analyses.values():
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
