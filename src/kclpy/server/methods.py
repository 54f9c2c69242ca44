"""The methods of the KCL API (``KclService``, ``BuiltinService``), answered by kclpy.api.

Takes a method name and its decoded request (:mod:`.messages`); returns the result
message as a JSON-shaped dict with the spec's snake_case field names, fields with zero
values left out (as kcl-go's encoder does), or raises :class:`ServiceError`, whose
text becomes the envelope's ``error``. Where kcl-lib raises an error, the method
raises one; where kcl-lib answers with a field (``err_message``), so does the method.

Methods kclpy cannot answer faithfully are in ``UNSUPPORTED`` with the reason; they
are answered with an error naming the method, never with a pretended result.
"""

from __future__ import annotations

import base64
import os
import time
from collections.abc import Callable, Sequence
from typing import Any

import attrs

from kclpy import api
from kclpy.diag import Diagnostic
from kclpy.release import KCL_VERSION, __version__

__all__ = ["METHODS", "REQUESTS", "UNSUPPORTED", "Limits", "ServiceError", "call"]


class ServiceError(Exception):
    """A method's failure, reported in the envelope's ``error``."""


@attrs.frozen
class Limits:
    """The bounds of one request: ``timeout`` seconds (0: none), ``max_memory``
    bytes (None: the run default)."""

    timeout: float = 0.0
    max_memory: int | None = None


Handler = Callable[[dict[str, Any], Limits], dict[str, Any]]


def fields(**values: Any) -> dict[str, Any]:
    """A result message: the fields whose values are not zero, in order."""
    return {name: value for name, value in values.items() if value}


def _render(diagnostics: Sequence[Diagnostic]) -> str:
    from kclpy.diag.render import render_all

    return render_all(list(diagnostics), "human", False)


def _errors(diagnostics: Sequence[Diagnostic]) -> list[Diagnostic]:
    return [d for d in diagnostics if d.is_error]


def _externals(items: list[dict[str, Any]]) -> dict[str, str]:
    return {item["pkg_name"]: item["pkg_path"] for item in items if item["pkg_name"]}


def _exec_inputs(args: dict[str, Any]) -> tuple[list[str], dict[str, str]]:
    """The files of ExecProgramArgs and the code given for them (``k_code_list[i]`` is
    the text of ``k_filename_list[i]``)."""
    files = list(args["k_filename_list"])
    codes = list(args["k_code_list"])
    if len(codes) > len(files):
        raise ServiceError("k_code_list has more entries than k_filename_list")
    return files, dict(zip(files, codes, strict=False))


# ------------------------------------------------------------------------ built-ins


def _ping(args: dict[str, Any], limits: Limits) -> dict[str, Any]:
    return fields(value=args["value"])


def _list_method(args: dict[str, Any], limits: Limits) -> dict[str, Any]:
    return fields(method_name_list=sorted(REQUESTS))


def _get_version(args: dict[str, Any], limits: Limits) -> dict[str, Any]:
    info = f"Version: {KCL_VERSION}\r\nImplementation: kclpy {__version__}"
    return fields(version=KCL_VERSION, version_info=info)


# ------------------------------------------------------------------------ programs


def _exec_program(args: dict[str, Any], limits: Limits) -> dict[str, Any]:
    if args["compile_only"]:
        raise ServiceError("ExecProgram: compile_only is not supported by kclpy")
    files, sources = _exec_inputs(args)
    if not files:
        raise ServiceError("No input KCL files or paths")
    options = [f"{item['name']}={item['value']}" for item in args["args"]]
    result = api.run_files(
        files,
        options=options,
        path_selector=args["path_selector"],
        disable_none=args["disable_none"],
        sort_keys=args["sort_keys"],
        show_hidden=args["show_hidden"],
        strict_range_check=args["strict_range_check"],
        include_schema_type_path=args["include_schema_type_path"],
        work_dir=args["work_dir"],
        external_pkgs=_externals(args["external_pkgs"]),
        sources=sources,
        overrides=args["overrides"],
        max_memory=limits.max_memory,
        timeout=limits.timeout,
    )
    errors = _errors(result.diagnostics)
    if errors and not any(d.code.id.startswith("E3") for d in errors):
        raise ServiceError(_render(errors))  # syntax, type and file errors, as kcl-lib
    if errors:  # a run-time error: answered in err_message, with the print output
        return fields(log_message=result.log, err_message=_render(errors))
    # (disable_yaml_result: kcl-lib 0.13 answers the YAML all the same, and so do we)
    return fields(
        json_result=_json_text(result.documents, args),
        yaml_result=result.text.removesuffix("\n"),
        log_message=result.log,
    )


def _json_text(documents: list[Any], args: dict[str, Any]) -> str:
    """The run's documents as the API's ``json_result`` (compact JSON, one line each)."""
    from kclpy.emit import EmitError, EmitOptions, render

    options = EmitOptions(
        format="json",
        sort_keys=args["sort_keys"],
        disable_none=args["disable_none"],
        show_hidden=args["show_hidden"],
        include_schema_type_path=args["include_schema_type_path"],
    )
    try:
        return render(documents, options).removesuffix("\n")
    except EmitError as error:
        raise ServiceError(str(error)) from None


def _list_options(args: dict[str, Any], limits: Limits) -> dict[str, Any]:
    if args["sources"]:
        raise ServiceError("ListOptions: sources are not supported by kclpy; give paths")
    options = [
        fields(
            name=option.name,
            type=option.type,
            required=option.required,
            default_value=option.default,
            help=option.help,
        )
        for option in api.list_options(args["paths"])
    ]
    return fields(options=options)


def _variable(info: Any) -> dict[str, Any]:
    entries = [fields(key=entry.key, value=_variable(entry.value)) for entry in info.entries]
    return fields(
        value=info.value,
        type_name=info.type_name,
        op_sym=info.op,
        list_items=[_variable(item) for item in info.items],
        dict_entries=entries,
    )


def _error_message(diagnostic: Diagnostic) -> dict[str, Any]:
    """A diagnostic as the spec's ``Error`` (level, code, messages with positions)."""
    position: dict[str, Any] = {}
    span = diagnostic.span
    if span is not None:
        line, column = span.begin_pos
        position = fields(line=line, column=column, filename=span.file.path)
    level = "error" if diagnostic.is_error else "warning"
    kind = f"{level.capitalize()}({diagnostic.code.kind})"
    return fields(
        level=level, code=kind, messages=[fields(msg=diagnostic.message, pos=position or None)]
    )


def _list_variables(args: dict[str, Any], limits: Limits) -> dict[str, Any]:
    if args["options"]["merge_program"]:
        raise ServiceError("ListVariables: options.merge_program is not supported by kclpy")
    errors: list[Diagnostic] = []
    for path in args["files"]:
        if not os.path.isfile(path):
            raise ServiceError(f"Cannot find the kcl file, please check the file path {path}")
    found = api.list_variables(args["files"], args["specs"] or None, errors)
    variables = {
        name: {"variables": [_variable(info) for info in infos]} for name, infos in found.items()
    }
    return fields(variables=variables, parse_errors=[_error_message(d) for d in errors])


def _schema_type_mapping(args: dict[str, Any], limits: Limits) -> dict[str, Any]:
    exec_args = args["exec_args"]
    files, sources = _exec_inputs(exec_args)
    if not files:
        raise ServiceError("No input KCL files or paths")
    mapping = api.schema_type_mapping(
        files,
        args["schema_name"] or None,
        work_dir=exec_args["work_dir"],
        external_pkgs=_externals(exec_args["external_pkgs"]),
        sources=sources,
    )
    return fields(schema_type_mapping=mapping)


def _test(args: dict[str, Any], limits: Limits) -> dict[str, Any]:
    exec_args = args["exec_args"]
    options = [f"{item['name']}={item['value']}" for item in exec_args["args"]]
    info: list[dict[str, Any]] = []
    for folder in _test_folders(args["pkg_list"], exec_args["work_dir"]):
        try:
            cases = api.test(
                folder,
                args["run_regexp"],
                args["fail_fast"],
                options=options,
                external_pkgs=_externals(exec_args["external_pkgs"]),
            )
        except ValueError as error:
            raise ServiceError(str(error)) from None
        for case in cases:
            failure = _render([case.error]) if case.error is not None else ""
            duration = int(case.seconds * 1_000_000)  # microseconds, as the reference
            info.append(fields(name=case.name, error=failure, duration=duration))
        if args["fail_fast"] and any("error" in item for item in info):
            break
    return fields(info=info)


def _test_folders(packages: list[str], work_dir: str) -> list[str]:
    """The folders of ``pkg_list`` (``dir/...``: it and every folder below it that has
    ``_test.k`` files); folders that do not exist are skipped, as the reference does."""
    folders: list[str] = []
    for package in packages:
        recursive = package.endswith("/...")
        root = os.path.join(work_dir, package.removesuffix("/...") or ".")
        if not os.path.isdir(root):
            continue
        if not recursive:
            folders.append(root)
            continue
        for folder, children, names in os.walk(root):
            children.sort()
            if any(name.endswith("_test.k") for name in names):
                folders.append(folder)
    return folders


# ------------------------------------------------------------------------ tools


def _format_code(args: dict[str, Any], limits: Limits) -> dict[str, Any]:
    from kclpy.tools.format import FormatError

    try:
        text = api.format_code(args["source"])
    except FormatError:
        text = args["source"]  # the reference answers unparsable source unchanged
    return fields(formatted=base64.b64encode(text.encode("utf-8")).decode("ascii"))


def _format_path(args: dict[str, Any], limits: Limits) -> dict[str, Any]:
    from kclpy.tools.format import FormatError

    path = args["path"]
    if not os.path.exists(path.removesuffix("/...") or "."):
        return {}  # the reference formats nothing and reports no error
    try:
        changed = api.format_path(path, check=args["dry_run"])
    except FormatError as error:
        raise ServiceError(_render(error.diagnostics)) from None
    return fields(changed_paths=changed)


def _lint_path(args: dict[str, Any], limits: Limits) -> dict[str, Any]:
    from kclpy.tools.lint import LintConfigError

    try:
        diagnostics = api.lint_path(args["paths"])
    except LintConfigError as error:
        raise ServiceError(str(error)) from None
    return fields(results=[d.message for d in diagnostics])


def _override_file(args: dict[str, Any], limits: Limits) -> dict[str, Any]:
    from kclpy.tools.override import OverrideError

    if not os.path.isfile(args["file"]):
        raise ServiceError(f"Cannot find the kcl file, please check the file path {args['file']}")
    try:
        result = api.override_file(args["file"], args["specs"], args["import_paths"])
    except OverrideError as error:
        raise ServiceError("; ".join(d.message for d in error.diagnostics)) from None
    # the reference answers true whether or not the file changed; a file with syntax
    # errors is answered with them (kclpy leaves it alone, the reference rewrites it)
    errors = [_error_message(d) for d in result.parse_errors]
    return fields(result=not errors, parse_errors=errors)


def _validate_code(args: dict[str, Any], limits: Limits) -> dict[str, Any]:
    data, code = args["data"], args["code"]
    try:
        if not data and args["datafile"]:
            data = _read(args["datafile"])
        if not code and args["file"]:
            code = _read(args["file"])
    except ServiceError as error:  # answered in err_message, as the reference does
        return fields(err_message=str(error))
    diagnostics = api.validate_code(
        code,
        data,
        format=args["format"].lower() or "json",
        schema=args["schema"] or None,
        attribute_name=args["attribute_name"] or "value",
        filename=args["file"] or None,  # none: the code alone, as main.k
        data_filename=args["datafile"] or "data",
        external_pkgs=_externals(args["external_pkgs"]),
    )
    errors = _errors(diagnostics)
    return fields(success=not errors, err_message=_render(errors) if errors else "")


def _read(path: str) -> str:
    try:
        with open(path, encoding="utf-8") as handle:
            return handle.read()
    except (OSError, UnicodeDecodeError):
        raise ServiceError(f"Failed to Load '{path}'") from None


def _load_settings_files(args: dict[str, Any], limits: Limits) -> dict[str, Any]:
    from kclpy.settings import SettingsError, load_settings

    paths = [os.path.join(args["work_dir"], path) for path in args["files"]]
    try:
        settings = load_settings(paths)
    except SettingsError as error:
        raise ServiceError(str(error)) from None
    flags = ("strict_range_check", "disable_none", "sort_keys", "show_hidden")
    config = fields(
        files=settings.get("files", []),
        output=settings.get("output") or "",
        overrides=settings.get("overrides", []),
        path_selector=settings.get("path_selector", []),
        **{flag: bool(settings.get(flag)) for flag in flags},
        include_schema_type_path=bool(settings.get("include_schema_type_path")),
    )
    options = []
    for text in settings.get("options", []):
        key, _, value = text.partition("=")
        options.append(fields(key=key, value=value))
    return fields(kcl_cli_configs=config, kcl_options=options)


# ------------------------------------------------------------------------ the table

UNSUPPORTED: dict[str, str] = {
    "KclService.ParseFile": "its ast_json is the reference's Rust syntax tree, which kclpy "
    "does not produce",
    "KclService.ParseProgram": "its ast_json is the reference's Rust syntax tree",
    "KclService.LoadPackage": "its scopes and symbols are the reference's semantic database",
    "KclService.ListDepFiles": "not implemented in kclpy (and not routed by the real server)",
    "KclService.Rename": "renaming lives in kclpy's language server, not in the product API",
    "KclService.RenameCode": "renaming lives in kclpy's language server, not in the product API",
    "KclService.UpdateDependencies": "not offered by kclpy.api (use `kcl mod update`)",
    "KclService.BuildProgram": "the reference's compiled artifacts are native libraries",
    "KclService.ExecArtifact": "the reference's compiled artifacts are native libraries",
}

METHODS: dict[str, Handler] = {
    "BuiltinService.Ping": _ping,
    "BuiltinService.ListMethod": _list_method,
    "KclService.Ping": _ping,
    "KclService.GetVersion": _get_version,
    "KclService.ExecProgram": _exec_program,
    "KclService.ListOptions": _list_options,
    "KclService.ListVariables": _list_variables,
    "KclService.GetSchemaTypeMapping": _schema_type_mapping,
    "KclService.FormatCode": _format_code,
    "KclService.FormatPath": _format_path,
    "KclService.LintPath": _lint_path,
    "KclService.OverrideFile": _override_file,
    "KclService.ValidateCode": _validate_code,
    "KclService.LoadSettingsFiles": _load_settings_files,
    "KclService.Test": _test,
}

REQUESTS: dict[str, str] = {
    "BuiltinService.Ping": "PingArgs",
    "BuiltinService.ListMethod": "ListMethodArgs",
    "KclService.Ping": "PingArgs",
    "KclService.GetVersion": "GetVersionArgs",
    "KclService.ExecProgram": "ExecProgramArgs",
    "KclService.ParseFile": "ParseFileArgs",
    "KclService.ParseProgram": "ParseProgramArgs",
    "KclService.LoadPackage": "LoadPackageArgs",
    "KclService.ListOptions": "ParseProgramArgs",
    "KclService.ListVariables": "ListVariablesArgs",
    "KclService.GetSchemaTypeMapping": "GetSchemaTypeMappingArgs",
    "KclService.FormatCode": "FormatCodeArgs",
    "KclService.FormatPath": "FormatPathArgs",
    "KclService.LintPath": "LintPathArgs",
    "KclService.OverrideFile": "OverrideFileArgs",
    "KclService.ValidateCode": "ValidateCodeArgs",
    "KclService.ListDepFiles": "ListDepFilesArgs",
    "KclService.LoadSettingsFiles": "LoadSettingsFilesArgs",
    "KclService.Rename": "RenameArgs",
    "KclService.RenameCode": "RenameCodeArgs",
    "KclService.Test": "TestArgs",
    "KclService.UpdateDependencies": "UpdateDependenciesArgs",
    "KclService.BuildProgram": "BuildProgramArgs",
    "KclService.ExecArtifact": "ExecArtifactArgs",
}
"""Every method of the service, with the name of its request message."""


def call(method: str, args: dict[str, Any], limits: Limits) -> dict[str, Any]:
    """Answer ``method``; raises ServiceError (also for an unsupported method, and
    for a run past the request's limits). ExecProgram applies the limits to the run
    itself (a located error in ``err_message``); other methods run under them whole."""
    handler = METHODS.get(method)
    if handler is None:
        reason = UNSUPPORTED.get(method, "no such method")
        raise ServiceError(f"{method} is not supported by kclpy's server: {reason}")
    if method == "KclService.ExecProgram":
        return handler(args, limits)
    from kclpy.values.errors import KclRuntimeError
    from kclpy.vm.limits import AUTO, ResourceLimits, within

    bounds = ResourceLimits(
        AUTO if limits.max_memory is None else limits.max_memory, limits.timeout
    )
    started = time.monotonic()
    try:
        return within(bounds, lambda: handler(args, limits))
    except KclRuntimeError as error:
        seconds = time.monotonic() - started
        raise ServiceError(f"{method} stopped after {seconds:.1f}s: {error}") from None
