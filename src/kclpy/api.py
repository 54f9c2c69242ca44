"""The Python API of kclpy: run KCL programs and get values, text and diagnostics.

Example::

    import kclpy

    result = kclpy.run_files(["main.k"], options={"env": "prod"})
    if result.ok:
        print(result.yaml)
    else:
        for diagnostic in result.diagnostics:
            print(diagnostic)

Every function is safe to call from several threads at once: a run shares no
mutable state with another run.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from kclpy.depth import deep
from kclpy.diag import Code as Code
from kclpy.diag import Diagnostic as Diagnostic
from kclpy.diag import Severity as Severity
from kclpy.diag import make_error
from kclpy.diag.diagnostic import DiagnosticError as DiagnosticError
from kclpy.pipeline import driver
from kclpy.pipeline.driver import RunResult as RunResult
from kclpy.pipeline.driver import options_dict
from kclpy.pipeline.driver import parse_option as parse_option
from kclpy.pipeline.driver import runtime_diagnostic as runtime_diagnostic
from kclpy.records import Record
from kclpy.source import SourceFile, read_source

if TYPE_CHECKING:
    from kclpy.monorepo.report import BuildReport, StackJob, StackOutput
    from kclpy.tools.override import OverrideResult

MAIN = "__main__"


def run(code: str, *, filename: str = "main.k", **kwargs: Any) -> RunResult:
    """Run KCL source text (as if it were the file ``filename``)."""
    return run_files([filename], sources={filename: code}, **kwargs)


@deep
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
    overrides: Sequence[str] = (),
    max_memory: int | None = None,
    timeout: float = 0.0,
    allow_fs_read: Sequence[str] = (),
    allow_fs_write: Sequence[str] = (),
    no_fs: bool = False,
) -> RunResult:
    """Compile and run KCL files; ``options`` are the ``-D`` values (dict or ``k=v`` texts).

    ``check=False`` skips the static type checker (errors then surface at run time).
    Limits (kclpy.vm.limits): ``max_memory`` in bytes (None: the default, at most 8 GiB
    more than the process holds when the run starts; 0: none),
    ``timeout`` in seconds (0: none). The file builtins may use the module root plus
    ``allow_fs_read`` / ``allow_fs_write`` folders; ``no_fs`` closes the file system.
    """
    return driver.run_files(
        files,
        options=options,
        path_selector=path_selector,
        disable_none=disable_none,
        sort_keys=sort_keys,
        show_hidden=show_hidden,
        strict_range_check=strict_range_check,
        include_schema_type_path=include_schema_type_path,
        format=format,
        work_dir=work_dir,
        external_pkgs=external_pkgs,
        sources=sources,
        check=check,
        edit=_override_edit(overrides),
        max_memory=max_memory,
        timeout=timeout,
        allow_fs_read=allow_fs_read,
        allow_fs_write=allow_fs_write,
        no_fs=no_fs,
    )


def _override_edit(overrides: Sequence[str]) -> driver.Edit | None:
    """The ``-O`` specs as the driver's edit of the loaded program (None: no edit)."""
    if not overrides:
        return None
    from kclpy.tools.override import override_edit

    return override_edit(overrides)


def override_file(
    path: str, specs: Sequence[str], import_paths: Sequence[str] = ()
) -> OverrideResult:
    """Apply ``-O`` style specs (``a.b=1``, ``a.b-``) to a .k file on disk, atomically;
    the file is then laid out as ``kcl fmt`` lays it out, as the reference rewrites it.

    Returns an ``OverrideResult``: ``result`` (whether the file changed, also its truth
    value), ``parse_errors`` (a file with syntax errors is left alone and answered
    with them) and ``warnings``. Raises ``kclpy.tools.override.OverrideError``
    (carrying diagnostics) for a bad spec or value, an unreadable file, or a change
    that would not parse (nothing is written then).
    """
    from kclpy.tools.override import override_file as apply

    return apply(path, list(specs), list(import_paths))


def list_variables(
    files: Sequence[str],
    names: Sequence[str] | None = None,
    errors: list[Diagnostic] | None = None,
) -> dict[str, Any]:
    """Top-level variables of ``files`` (name -> list of VariableInfo, source text values);
    syntax errors are added to ``errors`` when given."""
    from kclpy.tools.variables import list_variables as collect

    return dict(collect(list(files), list(names) if names is not None else None, errors))


def list_options(files: Sequence[str], work_dir: str = "") -> list[Any]:
    """Every ``option()`` call of a program: name, type, required, default, help."""
    from kclpy.tools.variables import list_options as collect

    return list(collect(driver.load(driver.Inputs(files, work_dir))))


def get_schema_types(
    files: Sequence[str], schema_name: str | None = None, work_dir: str = ""
) -> dict[str, Any]:
    """Schema types of a program's main package (and variables typed by a schema)."""
    from kclpy.tools.schema_types import get_schema_types as collect

    return dict(collect(driver.load(driver.Inputs(files, work_dir)), schema_name))


def schema_type_mapping(
    files: Sequence[str],
    schema_name: str | None = None,
    work_dir: str = "",
    external_pkgs: Mapping[str, str] | None = None,
    sources: Mapping[str, str] | None = None,
) -> dict[str, Any]:
    """:func:`get_schema_types` as the API's ``KclType`` records (JSON-shaped dicts with
    the spec's field names), for ``GetSchemaTypeMapping``; ``sources`` as run_files'."""
    from kclpy.tools.kcl_types import schema_type_mapping as collect

    inputs = driver.Inputs(files, work_dir, dict(external_pkgs or {}), dict(sources or {}))
    return collect(driver.load(inputs), schema_name)


def validate_code(
    code: str,
    data: str,
    *,
    format: str = "json",
    schema: str | None = None,
    attribute_name: str = "value",
    filename: str | None = None,
    data_filename: str = "data",
    external_pkgs: Mapping[str, str] | None = None,
) -> list[Diagnostic]:
    """Validate JSON/YAML ``data`` against ``schema`` (default: the code's first schema;
    code without any schema validates the plain data with its own statements, e.g.
    ``assert`` on the attribute). Each mapping at the top of the data or in its lists is
    an instance of the schema, as ``kcl vet`` does; defaults, types, checks and
    strictness apply as in KCL; an empty list means valid.

    ``code`` stands for the file ``filename`` (default ``main.k``); when that names a
    file in a package (a ``kcl.mod`` at or above it), the other files of its folder are
    compiled with it. Errors in the data point at ``data_filename``'s line and column.
    """
    from kclpy.tools.vet import validate_data

    return validate_data(
        code,
        data,
        data_format=format,
        schema=schema,
        attribute_name=attribute_name,
        code_path=filename or "main.k",
        data_path=data_filename,
        externals=external_pkgs,
        package=filename is not None,
    )


def validate(
    data_path: str,
    code_path: str,
    *,
    format: str | None = None,
    schema: str | None = None,
    attribute_name: str = "value",
    external_pkgs: Mapping[str, str] | None = None,
) -> list[Diagnostic]:
    """:func:`validate_code` for files (``kcl vet data code``): the data format follows
    the data file's extension (``.yaml``/``.yml``, else JSON) unless ``format`` says;
    an unreadable file is an IOError diagnostic."""
    texts = []
    for path in (data_path, code_path):
        file, problem = read_source(path)
        if problem is not None:
            return [make_error(Code.IO_ERROR, problem, None)]
        texts.append(file.text)
    if format is None:
        format = "yaml" if data_path.endswith((".yaml", ".yml")) else "json"
    return validate_code(
        texts[1],
        texts[0],
        format=format,
        schema=schema,
        attribute_name=attribute_name,
        filename=code_path,
        data_filename=data_path,
        external_pkgs=external_pkgs,
    )


def parse_program(
    files: Sequence[str], work_dir: str = "", external_pkgs: Mapping[str, str] | None = None
) -> Any:
    """Load and parse a program: a ``kclpy.loader.Program`` (packages of syntax trees,
    import tables, diagnostics), without checking or running it."""
    return driver.load(driver.Inputs(files, work_dir, dict(external_pkgs or {})))


def must_run(code: str, **kwargs: Any) -> RunResult:
    """Like :func:`run`, but raises ``DiagnosticError`` when the program has errors."""
    result = run(code, **kwargs)
    if not result.ok:
        raise DiagnosticError([d for d in result.diagnostics if d.is_error])
    return result


class TestCaseResult(Record):
    """One ``test_*`` lambda of a ``kcl test`` run."""

    name: str
    error: Diagnostic | None
    seconds: float

    @property
    def passed(self) -> bool:
        return self.error is None


def run_pattern(text: str) -> Any:
    """The ``--run`` pattern of ``kcl test`` (RE2, Go's syntax, linear time);
    ValueError for an invalid pattern."""
    import re2

    options = re2.Options()
    options.log_errors = False
    try:
        return re2.compile(text, options)
    except re2.error as error:
        reason = error.args[0] if error.args else ""
        reason = reason.decode("utf-8", "replace") if isinstance(reason, bytes) else str(reason)
        raise ValueError(f"invalid --run pattern '{text}': {reason}") from None


def test(
    package_dir: str,
    run_regexp: str = "",
    fail_fast: bool = False,
    *,
    options: Mapping[str, Any] | Iterable[str] | None = None,
    external_pkgs: Mapping[str, str] | None = None,
) -> list[TestCaseResult]:
    """``kcl test``: every top-level lambda named ``test_*`` of the package's ``.k`` and
    ``*_test.k`` files is a test; it passes when calling it raises no error. A compile or
    run error of the package fails every test. ``options`` and ``external_pkgs`` are
    ``kcl run``'s ``-D`` and ``-E``."""
    import time

    package_dir = os.path.abspath(package_dir)
    files = sorted(
        os.path.join(package_dir, name)
        for name in os.listdir(package_dir)
        if name.endswith(".k") and os.path.isfile(os.path.join(package_dir, name))
    )
    option_values = options_dict(options)
    diagnostics: list[Diagnostic] = []
    inputs = driver.Inputs(files, package_dir, dict(external_pkgs or {}))
    compiled = driver.front_end(inputs, diagnostics)
    names = _test_names(files)
    pattern = run_pattern(run_regexp) if run_regexp else None
    names = [name for name in names if pattern is None or pattern.search(name)]
    if compiled is None:
        failure = next(d for d in diagnostics if d.is_error)
        return [TestCaseResult(name, failure, 0.0) for name in names]
    from kclpy.values.errors import KclRuntimeError

    runner = driver.start(compiled, driver.RunSettings(option_values))
    try:
        runner.run()
    except KclRuntimeError as error:
        driver.stored(compiled)
        failure = runtime_diagnostic(error, compiled.files)
        return [TestCaseResult(name, failure, 0.0) for name in names]
    driver.stored(compiled)
    outcomes: list[TestCaseResult] = []
    for name in names:
        done, function = driver.finished_value(runner, name)
        if not done:
            continue
        start = time.perf_counter()
        error_diagnostic = None
        try:
            runner.call(function, [], {})
        except KclRuntimeError as error:
            error_diagnostic = runtime_diagnostic(error, compiled.files)
        outcomes.append(TestCaseResult(name, error_diagnostic, time.perf_counter() - start))
        if fail_fast and error_diagnostic is not None:
            break
    return outcomes


def _test_names(files: Sequence[str]) -> list[str]:
    """Top-level names ``test_*`` bound to lambdas, in file order."""
    from kclpy.syntax import ast, parse_file

    names: list[str] = []
    for path in files:
        module, _ = parse_file(path)
        for stmt in module.body:
            if isinstance(stmt, ast.AssignStmt) and isinstance(stmt.value, ast.LambdaExpr):
                for target in stmt.targets:
                    if isinstance(target, ast.NameExpr) and target.name.startswith("test_"):
                        names.append(target.name)
    return names


@deep
def lint_path(
    paths: Sequence[str] | str,
    *,
    select: Sequence[str] | None = None,
    ignore: Sequence[str] | None = None,
) -> list[Diagnostic]:
    """``kcl lint``: every syntax and type error of the programs at ``paths`` (files,
    package folders, ``folder/...``) plus the lint warnings (W0411 unused import, ...).

    ``select``/``ignore`` are codes, code prefixes or rule names; ``[lint]`` in kcl.mod
    configures the rest. Raises ``kclpy.tools.lint.LintConfigError`` (a ValueError)
    for an unknown selector or a bad ``[lint]`` section.
    """
    from kclpy.tools.lint import lint

    inputs = [paths] if isinstance(paths, str) else list(paths)
    return lint(inputs, select=select, ignore=ignore).diagnostics


@deep
def lint_code(
    code: str,
    filename: str = "main.k",
    *,
    select: Sequence[str] | None = None,
    ignore: Sequence[str] | None = None,
) -> list[Diagnostic]:
    """:func:`lint_path` for source text (linted as if it were the file ``filename``)."""
    from kclpy.tools.lint import lint

    return lint([filename], select=select, ignore=ignore, sources={filename: code}).diagnostics


@deep
def format_code(code: str, *, filename: str = "<string>") -> str:
    """The formatted text of KCL source (``kcl fmt``); raises
    ``kclpy.tools.format.FormatError`` (with ``diagnostics``) on syntax errors."""
    from kclpy.tools.format import format_code as run

    return run(code, filename=filename)


@deep
def format_path(path: str, *, check: bool = False) -> list[str]:
    """Format a ``.k`` file, a folder's files or ``folder/...`` in place (atomically);
    returns the changed paths (with ``check``: the paths that would change, nothing
    written). Raises FormatError on a syntax error, then no file is written."""
    from kclpy.tools.format import format_path as run

    return run(path, check=check)


def generate_doc(path: str = ".", format: str = "md") -> str:
    """``kcl doc``: the schemas of the package at ``path`` as ``md`` (the reference's
    Markdown) or ``json-schema``; raises ``kclpy.tools.doc.DocError`` on errors."""
    from kclpy.tools.doc import generate_doc as run

    return run(path, format)


def build(
    paths: str | Sequence[str] = ".",
    *,
    jobs: int | None = None,
    since: str | None = None,
    changed: Sequence[str] | None = None,
    cluster: str | None = None,
    check: bool = False,
    update: bool = False,
    diff: bool = False,
    batch_size: int = 8,
    ship: bool = False,
) -> BuildReport:
    """``kcl build``: compile every stack under ``paths`` (folders with a ``kcl.yaml``,
    a ``kcl.mod`` with ``[profile] entries``, or a ``main.k``) on ``jobs`` worker
    processes (default: the core count; 0: in this process) or on the Dask cluster at
    ``cluster``; ``since``/``changed`` narrow the build to the stacks a change
    reaches; ``check`` compares with ``ci-test/stdout.golden.yaml``, ``update``
    rewrites it. Returns the report; raises ``kclpy.monorepo.BuildError`` when the
    build cannot start."""
    from kclpy.monorepo import BuildOptions
    from kclpy.monorepo import build as run
    from kclpy.monorepo.pipeline import compile_stack

    options = BuildOptions(
        paths=[paths] if isinstance(paths, str) else list(paths),
        mode="check" if check else "update" if update else "build",
        diff=diff,
        jobs=jobs,
        since=since,
        changed=changed,
        cluster=cluster,
        batch_size=batch_size,
        ship=ship,
    )
    return run(options, compile_stack)


def compile_stack(job: StackJob) -> StackOutput:
    """Compile one stack of a monorepo build (``kclpy.monorepo.pipeline``)."""
    from kclpy.monorepo.pipeline import compile_stack as compile_one

    return compile_one(job)


def generate_kcl(source: str, mode: str = "json", *, filename: str = "<string>") -> str:
    """``kcl import`` of text (as the SDK's ``generate_kcl``): ``json``/``yaml``/``toml``
    data to KCL configuration, ``jsonschema``/``openapi``/``crd`` to KCL schemas (all
    in one file), ``auto`` to guess. Raises ``kclpy.tools.importer.inputs.ImportFailure``
    (with ``diagnostics``) when the input cannot be converted."""
    from kclpy.tools.importer.convert import ImportOptions, convert

    options = ImportOptions(mode, single=True, header=False)
    files = convert(SourceFile(filename, source), options)
    return next(iter(files.values()))


def import_files(
    paths: Sequence[str],
    mode: str = "auto",
    *,
    output: str = ".",
    package: str = "models",
    force: bool = False,
) -> list[str]:
    """``kcl import`` of files: writes each input's KCL under the folder ``output``
    (``<stem>.k``, or ``<package>/...`` for OpenAPI and CRD models) and returns the
    paths written. Raises ImportFailure, before writing, when an input cannot be
    converted or a file exists (unless ``force``)."""
    from kclpy.tools.importer.convert import ImportOptions, import_all, write_outputs

    files = import_all(list(paths), ImportOptions(mode, package))
    return write_outputs(files, output, force)
