"""Shared helpers of the tools tests: a run with overrides, the reference in a subprocess."""

from __future__ import annotations

from typing import Any

from reference import ReferenceFailed, call_reference, reference_available

from kclpy.diag import Diagnostic
from kclpy.emit import EmitOptions
from kclpy.loader import Program
from kclpy.pipeline import driver
from kclpy.tools.override import apply_overrides

HAVE_REFERENCE = reference_available()


def run_with_overrides(code: str, specs: list[str]) -> tuple[str, list[Diagnostic]]:
    """Run ``code`` as main.k through the driver with the specs applied after loading:
    (YAML, errors)."""

    def edit(program: Program) -> list[Diagnostic]:
        return apply_overrides(program, specs)

    inputs = driver.Inputs(["main.k"], sources={"main.k": code}, edit=edit)
    result = driver.run(inputs, driver.RunSettings(), EmitOptions())
    errors = [d for d in result.diagnostics if d.is_error]
    return ("", errors) if errors else (result.text, [])


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
