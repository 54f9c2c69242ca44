"""The reference KCL as an oracle for the emitter tests.

Python runtime values are written as KCL source (:func:`to_kcl_literal`), whole
programs are built from them (:func:`document_program`, :func:`stream_program`,
:func:`yaml_stream_program`, :func:`encode_program`), and many programs are run by
the reference (``kcl_lib``) in ONE subprocess (:func:`run_programs`): the native
library can crash, so it never runs in the test process, and a crash only loses the
program that caused it (the subprocess restarts after it).

A program's result is what ``kcl run`` prints (:func:`cli_text`): the YAML (or JSON)
result and a newline, nothing for an empty result.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from kclpy.values import UNIT_FACTORS, NumberMultiplier, SchemaInstance
from tests.reference import call_reference_lines

_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
_KEYWORDS = frozenset(
    [
        "True",
        "False",
        "None",
        "Undefined",
        "import",
        "as",
        "rule",
        "schema",
        "mixin",
        "protocol",
        "check",
        "for",
        "assert",
        "if",
        "elif",
        "else",
        "or",
        "and",
        "not",
        "in",
        "is",
        "lambda",
        "all",
        "any",
        "filter",
        "map",
        "type",
    ]
)


@dataclass
class FakeSchema:
    """A schema type as values need it (name and package)."""

    name: str
    pkgpath: str = "__main__"


def schema_instance(name: str, attributes: Mapping[str, Any]) -> SchemaInstance:
    """A schema instance of a schema ``name`` (main package) with ``attributes``."""
    return SchemaInstance(FakeSchema(name), attributes)


@dataclass
class Source:
    """KCL source being built: schema definitions plus expressions."""

    schemas: list[str] = field(default_factory=list)
    keys: dict[str, tuple[str, ...]] = field(default_factory=dict)

    def schema(self, instance: SchemaInstance) -> str:
        """Declare the schema of ``instance`` (attributes in its key order); instances
        of one schema name must have the same keys."""
        name = instance.schema.name
        keys = tuple(instance)
        if name in self.keys:
            if self.keys[name] != keys:
                raise ValueError(f"schema {name} used with different attributes")
            return name
        self.keys[name] = keys
        lines = [f"schema {name}:"]
        for key in keys:
            if not _IDENTIFIER.match(key) or key in _KEYWORDS:
                raise ValueError(f"schema attribute {key!r} is not an identifier")
            lines.append(f"    {key}?: any")
        if len(lines) == 1:
            lines.append('    """No attributes."""')
        self.schemas.append("\n".join(lines) + "\n")
        return name

    def text(self, body: str) -> str:
        return "".join(self.schemas) + body


def _string_literal(text: str) -> str:
    out = ['"']
    for char in text:
        code = ord(char)
        if char == "\\":
            out.append("\\\\")
        elif char == '"':
            out.append('\\"')
        elif code < 0x20 or 0x7F <= code < 0xA0 or char in "\u2028\u2029\ufeff":
            out.append(f"\\u{code:04x}")
        elif 0xD800 <= code < 0xE000:
            raise ValueError("surrogates cannot be written in KCL")
        else:
            out.append(char)
    out.append('"')
    literal = "".join(out)
    if "${" in literal:
        # "${" would start an interpolation: split it over a concatenation.
        literal = "(" + literal.replace("${", '$" + "{') + ")"
    return literal


def _float_literal(value: float) -> str:
    if math.isnan(value):
        return "(1e300 * 1e300 - 1e300 * 1e300)"
    if math.isinf(value):
        return "(1e300 * 1e300)" if value > 0 else "(-1e300 * 1e300)"
    if value == 0.0 and math.copysign(1.0, value) < 0:
        return "(0.0 * -1.0)"
    return repr(value)


def to_kcl_literal(value: Any, source: Source | None = None) -> str:
    """``value`` as a KCL expression (schema instances need a ``source`` to declare
    their schemas in)."""
    if value is None:
        return "None"
    if value is True:
        return "True"
    if value is False:
        return "False"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return _float_literal(value)
    if isinstance(value, str):
        return _string_literal(value)
    if isinstance(value, NumberMultiplier):
        if not isinstance(value.number, int) or value.suffix not in UNIT_FACTORS:
            raise ValueError("only integer unit literals can be written")
        return f"{value.number}{value.suffix}"
    if isinstance(value, list):
        return "[" + ", ".join(to_kcl_literal(item, source) for item in value) + "]"
    if isinstance(value, SchemaInstance):
        if source is None:
            raise ValueError("schema instances need a Source")
        name = source.schema(value)
        entries = ", ".join(
            f"{key} = {to_kcl_literal(item, source)}" for key, item in value.items()
        )
        return f"{name} {{{entries}}}"
    if isinstance(value, dict):
        entries = []
        for key, item in value.items():
            key_text = _string_literal(key)
            entries.append(f"{key_text}: {to_kcl_literal(item, source)}")
        return "{" + ", ".join(entries) + "}"
    raise ValueError(f"cannot write {type(value).__name__} as KCL")


def document_program(document: Mapping[str, Any]) -> str:
    """A program whose output document is ``document`` (keys are variable names)."""
    source = Source()
    lines = []
    for name, value in document.items():
        if not _IDENTIFIER.match(name) or name in _KEYWORDS:
            raise ValueError(f"top-level name {name!r} is not an identifier")
        lines.append(f"{name} = {to_kcl_literal(value, source)}\n")
    return source.text("".join(lines))


def stream_program(documents: Sequence[Any]) -> str:
    """A program whose bare top-level list makes a stream of ``documents``."""
    source = Source()
    return source.text(to_kcl_literal(list(documents), source) + "\n")


def yaml_stream_program(values: Sequence[Any], options: Mapping[str, Any] | None) -> str:
    """A program calling ``manifests.yaml_stream(values, options)`` (no second
    argument when ``options`` is None)."""
    source = Source()
    body = to_kcl_literal(list(values), source)
    if options is not None:
        opts = ", ".join(f"{key} = {to_kcl_literal(value)}" for key, value in options.items())
        body += f", {{{opts}}}"
    return source.text(f"import manifests\nmanifests.yaml_stream({body})\n")


def encode_program(values: Sequence[tuple[str, Any, Mapping[str, Any]]]) -> str:
    """A program whose output ``out`` is the list of ``yaml.encode``/``json.encode``
    results of ``values``: (function, value, keyword arguments) triples with function
    one of ``yaml.encode``, ``yaml.encode_all``, ``json.encode``."""
    source = Source()
    calls = []
    for function, value, kwargs in values:
        arguments = [to_kcl_literal(value, source)]
        arguments += [f"{key}={to_kcl_literal(item)}" for key, item in kwargs.items()]
        calls.append(f"{function}({', '.join(arguments)})")
    return source.text("import yaml\nimport json\nout = [\n" + ",\n".join(calls) + "\n]\n")


@dataclass
class Result:
    """What the reference gave for one program."""

    yaml: str = ""
    json: str = ""
    error: str = ""

    def cli_text(self, format: str = "yaml") -> str:
        """What ``kcl run`` prints on stdout (``--format``)."""
        return cli_text(self.json if format == "json" else self.yaml)


def cli_text(result: str) -> str:
    """A ``yaml_result``/``json_result`` as the CLI prints it."""
    return result + "\n" if result else ""


_RUNNER = r"""
import json
import sys

import kcl_lib.api as api

api_ = api.API(plugin_agent=0)
for line in sys.stdin:
    request = json.loads(line)
    args = api.ExecProgramArgs(k_filename_list=["main.k"], k_code_list=[request["code"]])
    for flag, value in request["flags"].items():
        setattr(args, flag, value)
    try:
        if request["toml"]:
            toml = api_.generate_toml(api.GenerateTomlArgs(
                exec_args=args, sort_keys=request["flags"].get("sort_keys", False)))
            reply = {"yaml": toml.toml, "json": "", "error": ""}
        else:
            result = api_.exec_program(args)
            reply = {"yaml": result.yaml_result, "json": result.json_result,
                     "error": result.err_message}
    except Exception as error:
        reply = {"yaml": "", "json": "", "error": str(error) or "error"}
    sys.stdout.write(json.dumps(reply) + "\n")
    sys.stdout.flush()
"""


def run_programs(
    programs: Sequence[tuple[str, Mapping[str, bool]]],
    timeout: float = 120.0,
    toml: bool = False,
) -> list[Result]:
    """Run (source, exec flags) pairs through the reference; one result per program.

    Flags are ``ExecProgramArgs`` booleans (``sort_keys``, ``disable_none``,
    ``show_hidden``, ``include_schema_type_path``). With ``toml`` the reference's
    TOML text (``GenerateToml``) is the result's ``yaml``. A program that crashes the
    reference gets an error result starting with ``crash``.
    """
    requests = [{"code": code, "flags": dict(flags), "toml": toml} for code, flags in programs]
    return [
        Result(error=f"crash: {reply['crash']}")
        if "crash" in reply
        else Result(reply["yaml"], reply["json"], reply["error"])
        for reply in call_reference_lines(_RUNNER, requests, timeout)
    ]


def reference_goldens() -> dict[str, dict[str, Any]]:
    """What the reference says for every golden case, by golden file: ``encode.json``
    (id -> text of ``yaml.encode``/``json.encode``), ``emit.json`` (id -> what
    ``kcl run`` prints) and ``toml.json`` (id -> TOML text), ``{"error": message}``
    where the reference fails."""
    from tests.emit.cases import EMIT_CASES, ENCODE_CASES, TOML_CASES, encode_cases_program

    [encoded] = run_programs([(encode_cases_program(ENCODE_CASES), {})])
    if encoded.error:
        raise AssertionError(f"the reference failed on the encode cases: {encoded.error}")
    texts = json.loads(encoded.json)["out"]
    emitted = run_programs([(case.program(), case.flags()) for case in EMIT_CASES])
    toml = run_programs([(case.program(), case.flags()) for case in TOML_CASES], toml=True)
    return {
        "encode.json": {case.id: text for case, text in zip(ENCODE_CASES, texts, strict=True)},
        "emit.json": {
            case.id: {"error": result.error} if result.error else result.cli_text(format)
            for case, result in zip(EMIT_CASES, emitted, strict=True)
            for format in [case.options.format]
        },
        "toml.json": {
            case.id: {"error": result.error} if result.error else result.yaml
            for case, result in zip(TOML_CASES, toml, strict=True)
        },
    }
