"""The one pipeline of kclpy: load -> check -> compile -> run -> emit.

Every entry point runs programs through these stages: the API (``kclpy.api``), the
commands (``kclpy.cli``), the tools (lint, doc, test, vet), monorepo builds and the
language server (which runs the front end only). Each stage is a function over
explicit data:

* :func:`load`: ``Inputs`` (entry files, work folder, ``-E`` packages, source texts)
  -> a ``kclpy.loader.Program`` (parsed packages, import tables, what it read);
* :func:`check`: Program -> ``kclpy.sema.Model`` (bindings, types, diagnostics);
* :func:`compile_program`: Program -> ``PackageCode`` per package and the run's code
  source (the bodies of the schemas compiled on first use);
* :func:`front_end`: the three above, consulting the cache between them -> ``Compiled``
  (the codes, the program root, the loaded files for error positions), or None with
  the diagnostics that stopped it;
* :func:`execute`: Compiled and ``RunSettings`` (``-D`` options, limits, file-system
  policy) -> the VM's ``RunOutput`` (documents, print log, a ``yaml_stream`` request);
* :func:`render`: the documents and ``EmitOptions`` -> text, by ``kclpy.emit``.

:func:`run` chains them into a :class:`RunResult`; :func:`run_files` takes the options
of ``kcl run`` and ``kclpy.run_files`` to it.
Stages collect diagnostics; only the driver decides to stop after a stage that
reported an error. After loading errors the program was recovered from (syntax
errors, modules not found: ``_RECOVERED``) it still checks the program, for the
follow-on errors the reference reports, and then stops: such a program never runs.

The stages are queries of a ``kclpy.pipeline.queries.Database`` (parse per file,
checked packages and code by content key, schema bodies on demand): a run makes its
own; a process running many programs (a build worker) hands in a shared one. The disk
cache (``kclpy.pipeline.cache``) is the code query's persistence backend: before
loading the driver looks the inputs up on disk (a hit skips load, check and compile);
after a clean compile, once the program has run (``Compiled.store``, :func:`stored`),
it stores the codes, with the schema bodies the run compiled and the others' headers
(a later run from the entry that needs one asks its code source, which compiles the
program from source again; so a first run compiles and stores what it uses only).
Where the driver needs the VM's state (the print log after an error, the values of a
finished package) it reads it through the two adapters at the end.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from functools import partial
from types import MappingProxyType

from kclpy.compile.code import NO_SOURCE
from kclpy.diag import Code, Diagnostic, Label, make_error
from kclpy.loader import MAIN, Program, Reads
from kclpy.patterns import compiled
from kclpy.pipeline.inputs import Settings
from kclpy.pipeline.queries import Database, ProgramCode
from kclpy.records import Record
from kclpy.source import SourceFile, Span, read_source

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from kclpy.compile.code import CodeSource, PackageCode
    from kclpy.emit import EmitOptions
    from kclpy.pipeline.cache import ProgramCache
    from kclpy.pipeline.interfaces import PackageShelf
    from kclpy.sema import Model
    from kclpy.values.errors import KclRuntimeError, Location
    from kclpy.vm.limits import ResourceLimits
    from kclpy.vm.runner import Runner, RunOutput

Edit = Callable[[Program], list[Diagnostic]]


_NOTHING: Mapping[str, Any] = MappingProxyType({})

# (records, not dataclasses: ``dataclasses`` imports ``inspect`` and its own
# imports, about 13 ms of a cold `kcl run`'s start)


class Inputs(Record):
    """What to load: entry files (or package folders), the work folder, ``-E``
    packages, texts standing for files, whether to type-check, and an ``edit`` of the
    loaded program before checking (``-O`` overrides) and its key for the cache."""

    files: Sequence[str]
    work_dir: str = ""
    externals: Mapping[str, str] = _NOTHING
    sources: Mapping[str, str] = _NOTHING
    check: bool = True
    edit: Edit | None = None


class RunSettings(Record):
    """How to run: ``-D`` option values, ``--path-selector``, limits
    (``kclpy.vm.limits``; ``max_memory`` None: the default) and file-system policy."""

    options: Mapping[str, Any] = _NOTHING
    path_selector: Sequence[str] = ()
    strict_range_check: bool = False
    max_memory: int | None = None
    timeout: float = 0.0
    allow_fs_read: Sequence[str] = ()
    allow_fs_write: Sequence[str] = ()
    no_fs: bool = False


class Compiled(Record):
    """The front end's product: every package's code, the program root, the loaded
    files (empty after a cache hit) to place runtime errors, and the work folder the
    file builtins resolve against (as given: "" is the current folder)."""

    codes: dict[str, PackageCode]
    root: str
    files: dict[str, SourceFile]
    work_dir: str = ""
    store: Callable[[], object] | None = None
    """Writes the program's cache entry (None: none to write); called once the run has
    compiled the schemas it reads, so that the entry holds them and the others' headers
    (after a run from the entry: writes it again if the run compiled schemas it lacked)."""
    source: CodeSource = NO_SOURCE
    """The bodies of the schemas the codes hold the headers of (the query layer's
    ``schema`` query for this run, ``kclpy.pipeline.queries.ProgramCode``)."""


class RunResult:
    """The outcome of a run: the emitted text, the documents, print output, diagnostics.

    ``documents`` are plain Python data (dicts, lists, strings, numbers, booleans and
    None; Undefined values, functions and hidden keys left out as the output leaves
    them out), ready for ``json.dumps``; ``values`` are the same documents as the VM made
    them (KCL configs and schema instances, ``kclpy.values.UNDEFINED``, unit numbers)."""

    __slots__ = ("_plain", "diagnostics", "emit_options", "format", "log", "text", "values")

    def __init__(
        self,
        text: str = "",
        documents: list[Any] | None = None,
        log: str = "",
        diagnostics: list[Diagnostic] | None = None,
        format: str = "yaml",
    ) -> None:
        self.text = text
        self.values: list[Any] = [] if documents is None else documents
        self._plain: list[Any] | None = None
        # how the values were written (EmitOptions, stream options): what `documents` keeps
        self.emit_options: tuple[EmitOptions, Mapping[str, Any] | None] | None = None
        self.log = log
        self.diagnostics: list[Diagnostic] = [] if diagnostics is None else diagnostics
        self.format = format

    @property
    def documents(self) -> list[Any]:
        """The documents as plain Python data (computed on first use)."""
        if self._plain is None:
            from kclpy import emit

            options, stream = self.emit_options or (emit.EmitOptions(), None)
            self._plain = emit.plain_documents(self.values, options, stream)
        return self._plain

    def _fields(self) -> tuple[Any, ...]:
        return (self.text, self.documents, self.log, self.diagnostics, self.format)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, RunResult) and self._fields() == other._fields()

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return (
            f"RunResult(text={self.text!r}, documents={self.documents!r}, log={self.log!r}, "
            f"diagnostics={self.diagnostics!r}, format={self.format!r})"
        )

    @property
    def ok(self) -> bool:
        return not any(d.is_error for d in self.diagnostics)

    @property
    def yaml(self) -> str:
        """The YAML text (when the run's format was yaml)."""
        return self.text


def _has_error(diagnostics: Sequence[Diagnostic]) -> bool:
    return any(d.is_error for d in diagnostics)


# the loading errors the program is whole after: a syntax error (the tree recovered)
# and a module not found (an empty package stands for it, ``Loader.stand_in``)
_RECOVERED = frozenset((Code.INVALID_SYNTAX, Code.CANNOT_FIND_MODULE))


def _only_recovered_errors(diagnostics: Sequence[Diagnostic]) -> bool:
    """Whether every error is one loading recovered from (:data:`_RECOVERED`), so
    that checking the program reports its follow-on errors as the reference does."""
    return all(d.code in _RECOVERED for d in diagnostics if d.is_error)


# --------------------------------------------------------------------------- options


_SCIENTIFIC = compiled(r"^[+-]?(\d+\.?\d*|\.\d+)[eE][+-]?\d+$")
_NAME_CONSTANTS = {"True": True, "False": False, "None": None, "Undefined": None}


def parse_option(text: str) -> tuple[str, Any]:
    """``key=value`` of ``-D``, decoded as the reference does.

    The value is JSON when it parses as JSON, except that numbers written in
    scientific notation stay strings (``12e1`` is an image tag, not 120.0);
    ``True``/``False``/``None`` are the KCL constants; anything else is a string.
    """
    parts = text.split("=")
    if len(parts) != 2 or not parts[0].strip() or not parts[1].strip():
        raise ValueError("Invalid value for top level arguments")
    key, value = parts
    stripped = value.strip()
    if _SCIENTIFIC.match(stripped):
        return key, value
    try:
        import json

        return key, json.loads(value, parse_constant=_reject_constant)
    except ValueError:
        pass
    if stripped in _NAME_CONSTANTS:
        return key, _NAME_CONSTANTS[stripped]
    return key, value


def _reject_constant(name: str) -> Any:
    raise ValueError(name)


def option_error(error: ValueError) -> Diagnostic:
    """A bad ``-D`` value as the reference reports it."""
    return make_error(Code.EVALUATION_ERROR, str(error), None)


def options_dict(options: Mapping[str, Any] | Iterable[str] | None) -> dict[str, Any]:
    """``-D`` values given as a dict or as ``key=value`` texts; ValueError for a bad one."""
    if options is None:
        return {}
    if isinstance(options, Mapping):
        return dict(options)
    result: dict[str, Any] = {}
    for item in options:
        key, value = parse_option(item)
        result[key] = value
    return result


# --------------------------------------------------------------------------- stages


def load(inputs: Inputs, database: Database | None = None) -> Program:
    """Stage 1: the program's packages, parsed through ``database``'s parse query (a
    private one when none is given, recording each file's digest)."""
    db = database if database is not None else Database(Settings(keyed=True))
    program, _ = db.program(list(inputs.files), inputs.work_dir, inputs.externals, inputs.sources)
    return program


def check(program: Program, database: Database | None = None) -> Model:
    """Stage 2: the checked model, as ``database``'s settings ask (nested scopes for
    editors, tool facts for tools; checked packages reused when it is shared)."""
    db = database if database is not None else Database()
    return db.checked_program(program)


def resolve(program: Program) -> Model:
    """Stage 2 without the type checks (``check=False``): names are still bound, the
    compiler reads the bindings."""
    from kclpy.sema import resolve_program

    return resolve_program(program)


def compile_program(
    program: Program,
    model: Model,
    diagnostics: list[Diagnostic],
    database: Database | None = None,
    checked: bool = True,
) -> tuple[dict[str, PackageCode], ProgramCode] | None:
    """Stage 3: every package's code and the run's code source (``database``'s code
    query; none given: every schema compiled), or None when compiling reported an
    error (added to ``diagnostics``). ``checked``: the model was type-checked (else
    no schema is deferred: the compiler reports its errors)."""
    db = database if database is not None else Database(Settings(shared=True))
    return db.code(program, model, diagnostics, checked)


def front_end(
    inputs: Inputs, diagnostics: list[Diagnostic], database: Database | None = None
) -> Compiled | None:
    """Load, edit, check and compile, consulting the on-disk cache first (inputs given
    as text or edited are never cached); None when a stage reported an error.
    ``database``: a client's shared one (a build worker's), else one for this run."""
    from kclpy.pipeline.cache import open_cache

    cache = None
    if inputs.edit is not None:
        database = None  # an edit rewrites syntax trees: never shared ones, never under their key
    elif not inputs.sources:
        cache = open_cache(inputs.files, inputs.work_dir, dict(inputs.externals), inputs.check)
    if database is None:
        database = Database(Settings(tool_facts=False, keyed=cache is not None))
        if cache is not None:  # (checked packages on disk: a run's own database only)
            database.disk = cache.directory
    cached = cache.lookup(database.unpickled) if cache is not None else None
    if cache is not None and cached is not None:
        files_read = cache.files_read
        source = ProgramCode(partial(_rebuild, inputs, files_read))
        restore = partial(_restore, cache, cached, source)
        return Compiled(cached, cache.root, {}, inputs.work_dir, restore, source)
    built = from_source(inputs, diagnostics, database)
    if built is None:
        return None
    program, codes, source = built
    shelf, database.shelf = database.shelf, None
    if shelf is not None:
        if shelf.read:  # (code read from disk: its unused schemas' bodies from source)
            source.rebuild = partial(_rebuild, inputs, list(program.reads.files))
        shelf.settle()
    store: Callable[[], object] | None = None
    if cache is not None and not diagnostics:  # (what loading read; the trees go before the run)
        store = partial(_store, cache, codes, program.reads, source, shelf)
    elif shelf is not None:
        store = partial(_store, None, codes, program.reads, source, shelf)
    files = {
        module.file.path: module.file for modules in program.packages.values() for module in modules
    }
    return Compiled(codes, program.root, files, inputs.work_dir, store, source)


def from_source(
    inputs: Inputs, diagnostics: list[Diagnostic], database: Database
) -> tuple[Program, dict[str, PackageCode], ProgramCode] | None:
    """Load, edit, check and compile through ``database`` (no disk cache): the program,
    its codes and code source, or None when a stage reported an error (in
    ``diagnostics``)."""
    program = load(inputs, database)
    diagnostics.extend(program.diagnostics)
    if not program.has_errors and inputs.edit is not None:
        diagnostics.extend(inputs.edit(program))
    if _has_error(diagnostics):
        if _only_recovered_errors(diagnostics):  # as the reference: the program as recovered
            recovered = Database(Settings(tool_facts=False))
            model = check(program, recovered) if inputs.check else resolve(program)
            diagnostics.extend(model.diagnostics)
        return None
    model = check(program, database) if inputs.check else resolve(program)
    diagnostics.extend(model.diagnostics)
    if _has_error(diagnostics):
        return None
    model.drop_tool_facts()  # the compiler reads only the bindings of names
    built = compile_program(program, model, diagnostics, database, inputs.check)
    return None if built is None else (program, *built)


def _rebuild(inputs: Inputs, files_read: list[tuple[str, str]] | None) -> ProgramCode | None:
    """The code source of a program run from a disk cache entry: the program compiled
    from source again, when its files are still the entry's (``files_read``)."""
    built = from_source(inputs, [], Database(Settings(tool_facts=False, keyed=True)))
    if built is None or built[0].reads.files != files_read:
        return None
    program, _codes, source = built
    source.reads = program.reads
    return source


def _store(
    cache: ProgramCache | None,
    codes: dict[str, PackageCode],
    reads: Reads,
    source: ProgramCode,
    shelf: PackageShelf | None,
) -> None:
    """Write the entry of a program compiled from source (with ``cache``) and of its
    packages (with ``shelf``): their codes, with the schema bodies the run compiled in
    place of their headers."""
    source.fill(codes)
    pickled: dict[int, tuple[Any, bytes]] = {}  # (a package's code pickled once for both)
    if cache is not None:
        cache.store(codes, reads, pickled)
    if shelf is not None:
        shelf.store(pickled)


def _restore(cache: ProgramCache, codes: dict[str, PackageCode], source: ProgramCode) -> None:
    """Write the entry of a program run from it again when the run compiled schema
    bodies it lacked, so that the next run reads them from it."""
    if source.rebuilt and source.reads is not None:
        source.fill(codes)
        cache.store(codes, source.reads)


def stored(compiled: Compiled) -> None:
    """Write the cache entry of a program that has run (to its end or to a KCL error;
    not after an interruption), when it has one to write."""
    if compiled.store is not None:
        compiled.store()


def limits_of(settings: RunSettings) -> ResourceLimits:
    """The resource limits ``settings`` ask for (``max_memory`` None: the default)."""
    from kclpy.vm.limits import AUTO, ResourceLimits

    memory = AUTO if settings.max_memory is None else settings.max_memory
    return ResourceLimits(memory, settings.timeout)


def start(compiled: Compiled, settings: RunSettings) -> Runner:
    """A VM ready to run the compiled program with ``settings``."""
    from kclpy.vm.fs_policy import FsPolicy
    from kclpy.vm.runner import Runner

    runner = Runner(
        compiled.codes, MAIN, dict(settings.options), compiled.work_dir, compiled.root,
        FsPolicy.from_options(settings.allow_fs_read, settings.allow_fs_write, settings.no_fs),
        limits_of(settings), compiled.source,
    )  # fmt: skip
    runner.set_strict_range_check(settings.strict_range_check)
    return runner


def execute(runner: Runner, settings: RunSettings) -> RunOutput:
    """Stage 4: run the main package; the documents narrowed by ``path_selector``.
    Raises ``KclRuntimeError``."""
    output = runner.run()
    if settings.path_selector:
        from kclpy.select import select_paths

        output.documents = select_paths(output.documents, settings.path_selector)
    return output


def render(output: RunOutput, options: EmitOptions) -> str:
    """Stage 5: the text of the run's documents. Raises ``kclpy.emit.EmitError``."""
    from kclpy import emit

    return emit.render(output.documents, options, output.stream_options)


def run_files(
    files: Sequence[str],
    *,
    options: Mapping[str, Any] | Iterable[str] | None = None,
    path_selector: Sequence[str] = (),
    disable_none: bool = False,
    sort_keys: bool = False,
    show_hidden: bool = False,
    strict_range_check: bool = False,
    include_schema_type_path: bool = False,
    format: str = "yaml",
    work_dir: str = "",
    external_pkgs: Mapping[str, str] | None = None,
    sources: Mapping[str, str] | None = None,
    check: bool = True,
    edit: Edit | None = None,
    max_memory: int | None = None,
    timeout: float = 0.0,
    allow_fs_read: Sequence[str] = (),
    allow_fs_write: Sequence[str] = (),
    no_fs: bool = False,
) -> RunResult:
    """:func:`run` from the options of ``kclpy.api.run_files`` (which documents them;
    ``edit`` stands for its ``overrides``): the one place they become the stages'
    inputs, for the API and for ``kcl run`` (which so does not import the API)."""
    try:
        option_values = options_dict(options)
    except ValueError as error:
        return RunResult(format=format, diagnostics=[option_error(error)])
    inputs = Inputs(files, work_dir, dict(external_pkgs or {}), dict(sources or {}), check, edit)
    settings = RunSettings(
        option_values,
        path_selector,
        strict_range_check,
        max_memory,
        timeout,
        allow_fs_read,
        allow_fs_write,
        no_fs,
    )
    from kclpy.emit import EmitOptions

    emit_options = EmitOptions(
        format=format,
        sort_keys=sort_keys,
        disable_none=disable_none,
        show_hidden=show_hidden,
        include_schema_type_path=include_schema_type_path,
    )
    return run(inputs, settings, emit_options)


def run(
    inputs: Inputs,
    settings: RunSettings,
    options: EmitOptions,
    database: Database | None = None,
) -> RunResult:
    """The whole pipeline (``kcl run``): text and documents, or diagnostics. All of it
    runs under the limits of ``settings`` (loading a huge file or checking a huge
    program is bounded as running it is); a limit tripped outside the VM, or memory
    running out anywhere, is an E3R01 diagnostic."""
    from kclpy.values.errors import KclRuntimeError
    from kclpy.vm.limits import limit_error, out_of_memory, within

    result = RunResult(format=options.format)
    try:
        return within(
            limits_of(settings), partial(_run, inputs, settings, options, database, result)
        )
    except KclRuntimeError as error:  # a limit tripped in the front end or the emitter
        failure = error
    except Exception as error:
        if not out_of_memory(error):
            raise
        failure = limit_error(error)
    result.diagnostics.append(runtime_diagnostic(failure.with_traceback(None), {}))
    return result


def _run(
    inputs: Inputs,
    settings: RunSettings,
    options: EmitOptions,
    database: Database | None,
    result: RunResult,
) -> RunResult:
    """:func:`run`'s stages, filling ``result``."""
    from kclpy.values.errors import KclRuntimeError

    compiled = front_end(inputs, result.diagnostics, database)
    if compiled is None:
        return result
    runner = start(compiled, settings)
    try:
        output = execute(runner, settings)
    except KclRuntimeError as error:
        error.with_traceback(None)  # (its frames may hold what filled the memory)
        stored(compiled)
        result.log = output_log(runner)
        result.diagnostics.append(runtime_diagnostic(error, compiled.files))
        return result
    stored(compiled)
    result.log = output.log
    result.values = output.documents
    result.emit_options = (options, output.stream_options)
    try:
        result.text = runner.under_limits(lambda: render(output, options))
    except KclRuntimeError as error:
        result.diagnostics.append(runtime_diagnostic(error, compiled.files))
    return result


# --------------------------------------------------------------------------- errors


def runtime_diagnostic(error: KclRuntimeError, files: Mapping[str, SourceFile]) -> Diagnostic:
    """A located runtime error as a diagnostic (its kind, message, position, KCL stack)."""
    from kclpy.diag.codes import code_for_kind

    code = code_for_kind(error.kind)
    if code.id != "E3M38" and error.kind in ("Deprecated", "RecursionError", "InternalError"):
        code = Code.EVALUATION_ERROR
    diagnostic = make_error(code, error.message, _span(error.location, files))
    if error.primary_label:
        diagnostic.labels[0].message = error.primary_label
    for where, message in error.related:
        diagnostic.labels.append(Label(_span(where, files), message))
    stack = [_span(where, files) for where in error.stack]
    diagnostic.stack = [Label(span, "") for span in stack if span is not None]
    return diagnostic


def _span(location: Location | None, files: Mapping[str, SourceFile]) -> Span | None:
    if location is None:
        return None
    path, start, end = location
    file = files.get(path)
    if file is None:
        if not path or not os.path.isfile(path):
            return None
        file, _ = read_source(path)
    return Span(file, start, end)


# --------------------------------------------------------------------------- VM adapters


def output_log(runner: Runner) -> str:
    """What the program printed before it stopped."""
    return runner.log


def finished_value(runner: Runner, name: str) -> tuple[bool, Any]:
    """(True, value) when the main package's top-level ``name`` was evaluated, else
    (False, None)."""
    from kclpy.values import UNDEFINED

    value = runner.main_value(name)
    return (False, None) if value is UNDEFINED else (True, value)
