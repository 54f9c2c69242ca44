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

import json
import os
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from kclpy.diag import Code, Diagnostic, Label, make_error
from kclpy.source import SourceFile, Span, read_source

MAIN = "__main__"


@dataclass
class RunResult:
    """The outcome of a run: the emitted text and values, print output, diagnostics."""

    text: str = ""
    documents: list[Any] = field(default_factory=list)
    log: str = ""
    diagnostics: list[Diagnostic] = field(default_factory=list)
    format: str = "yaml"

    @property
    def ok(self) -> bool:
        return not any(d.is_error for d in self.diagnostics)

    @property
    def yaml(self) -> str:
        """The YAML text (when the run's format was yaml)."""
        return self.text


_SCIENTIFIC = re.compile(r"^[+-]?(\d+\.?\d*|\.\d+)[eE][+-]?\d+$")
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
        return key, json.loads(value, parse_constant=_reject_constant)
    except ValueError:
        pass
    if stripped in _NAME_CONSTANTS:
        return key, _NAME_CONSTANTS[stripped]
    return key, value


def _reject_constant(name: str) -> Any:
    raise ValueError(name)


def _options_dict(options: Mapping[str, Any] | Iterable[str] | None) -> dict[str, Any]:
    if options is None:
        return {}
    if isinstance(options, Mapping):
        return dict(options)
    result: dict[str, Any] = {}
    for item in options:
        key, value = parse_option(item)
        result[key] = value
    return result


def run(code: str, *, filename: str = "main.k", **kwargs: Any) -> RunResult:
    """Run KCL source text (as if it were the file ``filename``)."""
    return run_files([filename], sources={filename: code}, **kwargs)


def run_files(
    files: Sequence[str],
    *,
    options: Mapping[str, Any] | Iterable[str] | None = None,
    path_selector: Sequence[str] = (),
    disable_none: bool = False,
    sort_keys: bool = False,
    show_hidden: bool = False,
    include_schema_type_path: bool = False,
    format: str = "yaml",
    work_dir: str = "",
    external_pkgs: Mapping[str, str] | None = None,
    sources: Mapping[str, str] | None = None,
    check: bool = True,
) -> RunResult:
    """Compile and run KCL files; ``options`` are the ``-D`` values (dict or ``k=v`` texts).

    ``check=False`` skips the static type checker (errors then surface at run time).
    """
    result = RunResult(format=format)
    try:
        option_values = _options_dict(options)
    except ValueError as error:
        result.diagnostics.append(make_error(Code.EVALUATION_ERROR, str(error), None))
        return result
    from kclpy.compile.stmts import PackageCompiler
    from kclpy.loader import Loader

    loader = Loader(work_dir, dict(external_pkgs or {}), dict(sources or {}))
    program = loader.load(files)
    result.diagnostics.extend(program.diagnostics)
    if program.has_errors:
        return result
    if check:
        from kclpy.sema import check_program

        model = check_program(program)
        result.diagnostics.extend(model.diagnostics)
        if not result.ok:
            return result
    codes = {}
    for pkgpath, modules in program.packages.items():
        compiler = PackageCompiler(pkgpath, modules, program.imports_of)
        codes[pkgpath] = compiler.compile()
        result.diagnostics.extend(compiler.diagnostics)
    if not result.ok:
        return result
    files_by_path = {
        module.file.path: module.file for modules in program.packages.values() for module in modules
    }
    from kclpy.vm.runner import Runner
    from kclpy.vm.values import KclRuntimeError

    runner = Runner(codes, MAIN, option_values, work_dir, program.root)
    try:
        output = runner.run()
        documents = output.documents
        if path_selector:
            from kclpy.select import select_paths

            documents = select_paths(documents, path_selector)
    except KclRuntimeError as error:
        result.log = "".join(runner._log)
        result.diagnostics.append(runtime_diagnostic(error, files_by_path))
        return result
    result.log = output.log
    result.documents = documents
    from kclpy import emit

    emit_options = emit.EmitOptions(
        format=format,
        sort_keys=sort_keys,
        disable_none=disable_none,
        show_hidden=show_hidden,
        include_schema_type_path=include_schema_type_path,
    )
    try:
        result.text = emit.render(documents, emit_options, output.stream_options)
    except KclRuntimeError as error:
        result.diagnostics.append(runtime_diagnostic(error, files_by_path))
    return result


def runtime_diagnostic(error: Any, files: Mapping[str, SourceFile]) -> Diagnostic:
    """A located runtime error as a diagnostic (its kind, message, position, KCL stack)."""
    from kclpy.diag.codes import code_for_kind

    code = code_for_kind(error.kind)
    if code.id != "E3M38" and error.kind in ("Deprecated", "RecursionError", "InternalError"):
        code = Code.EVALUATION_ERROR
    location = getattr(error, "location", None)
    span = _span(location, files)
    stack = [Label(_span(where, files), "") for where in getattr(error, "stack", [])]
    diagnostic = make_error(code, error.message, span)
    primary = getattr(error, "primary_label", None)
    if primary:
        diagnostic.labels[0].message = primary
    for where, message in getattr(error, "related", []):
        diagnostic.labels.append(Label(_span(where, files), message))
    diagnostic.stack = [label for label in stack if label.span is not None]
    return diagnostic


def _span(location: Any, files: Mapping[str, SourceFile]) -> Span | None:
    if location is None:
        return None
    path, start, end = location
    file = files.get(path)
    if file is None:
        if not path or not os.path.isfile(path):
            return None
        file, _ = read_source(path)
    return Span(file, start, end)
