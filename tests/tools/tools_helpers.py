"""Shared helpers of the tools tests: a run with overrides, the reference in a subprocess."""

from __future__ import annotations

from typing import Any

from reference import ReferenceFailed, call_reference, reference_available

from kclpy import emit
from kclpy.compile.stmts import PackageCompiler
from kclpy.diag import Diagnostic
from kclpy.loader import MAIN, Loader
from kclpy.sema import check_program
from kclpy.tools.override import apply_overrides
from kclpy.vm.runner import Runner
from kclpy.vm.values import KclRuntimeError

HAVE_REFERENCE = reference_available()


def run_with_overrides(code: str, specs: list[str]) -> tuple[str, list[Diagnostic]]:
    """Load ``code`` as main.k, apply the specs, check, compile and run it: (YAML, errors)."""
    loader = Loader("", {}, {"main.k": code})
    program = loader.load(["main.k"])
    errors = [d for d in program.diagnostics if d.is_error]
    errors += apply_overrides(program, specs)
    if errors:
        return "", errors
    model = check_program(program)
    errors = [d for d in model.diagnostics if d.is_error]
    if errors:
        return "", errors
    codes = {}
    for pkgpath, modules in program.packages.items():
        compiler = PackageCompiler(pkgpath, modules, model)
        codes[pkgpath] = compiler.compile()
        errors += [d for d in compiler.diagnostics if d.is_error]
    if errors:
        return "", errors
    runner = Runner(codes, MAIN, {}, "", program.root)
    try:
        output = runner.run()
        text = emit.render(output.documents, emit.EmitOptions(), output.stream_options)
    except KclRuntimeError as error:
        return "", _runtime(error)
    return text, []


def _runtime(error: KclRuntimeError) -> list[Diagnostic]:
    from kclpy.diag import Code, make_error

    return [make_error(Code.EVALUATION_ERROR, str(error), None)]


_SCRIPT = r"""
import json, sys
import kcl_lib.api as api


def handle(request):
    service = api.API()  # a fresh one: a failed request can leave the service unusable
    out = {}
    try:
        kind = request["kind"]
        if kind == "run":
            args = api.ExecProgramArgs(k_filename_list=request["files"], overrides=request["specs"])
            result = service.exec_program(args)
            out = {"yaml": result.yaml_result, "error": result.err_message}
        elif kind == "override_file":
            result = service.override_file(
                api.OverrideFileArgs(file=request["file"], specs=request["specs"])
            )
            out = {"result": result.result, "text": open(request["file"]).read()}
        elif kind == "list_variables":
            from google.protobuf import json_format
            result = service.list_variables(api.ListVariablesArgs(files=request["files"]))
            out = json_format.MessageToDict(result)
        elif kind == "list_options":
            from google.protobuf import json_format
            result = service.list_options(api.ParseProgramArgs(paths=request["files"]))
            out = json_format.MessageToDict(result)
        elif kind == "schema_types":
            from google.protobuf import json_format
            args = api.GetSchemaTypeMappingArgs(
                exec_args=api.ExecProgramArgs(k_filename_list=request["files"])
            )
            out = json_format.MessageToDict(service.get_schema_type_mapping(args))
    except Exception as error:
        out = {"exception": str(error)}
    return out


requests = json.loads(sys.stdin.read())
sys.stdout.write(json.dumps([handle(request) for request in requests]))
"""


def reference(requests: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Run requests through the reference KCL in one subprocess; one answer each."""
    try:
        result: list[dict[str, Any]] = call_reference(_SCRIPT, requests, timeout=120)
    except ReferenceFailed as error:
        return [{"exception": str(error)} for _ in requests]
    return result
