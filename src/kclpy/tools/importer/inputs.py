"""Reading the inputs of ``kcl import``: files of JSON, YAML or TOML, parsed to
plain Python values, and the errors about them as diagnostics.

``load_documents(source, format)`` takes a ``SourceFile`` and ``json`` | ``yaml`` |
``toml`` and returns the list of its documents (YAML may hold several). YAML is read
with the YAML 1.2 core schema, as the reference does: ``yes``/``on`` and dates stay
strings. ``detect_mode(path, text)`` guesses the mode of ``auto``.
``ImportFailure`` carries the diagnostics of a failed import; ``failure_at`` builds
one pointing into an input (``locate`` finds a JSON pointer's key in the text, a
best effort that falls back to the start of the file).
"""

from __future__ import annotations

import json
import re
import tomllib
from collections.abc import Sequence
from typing import Any

import yaml

from kclpy.diag import Code, Diagnostic, make_error
from kclpy.source import SourceFile, Span


class ImportFailure(Exception):
    """An input could not be imported; ``diagnostics`` say where and why."""

    def __init__(self, diagnostics: list[Diagnostic]) -> None:
        super().__init__("; ".join(d.message for d in diagnostics))
        self.diagnostics = diagnostics


def failure_at(
    source: SourceFile | None, message: str, path: Sequence[str | int] = (), *notes: str
) -> ImportFailure:
    """An ImportFailure at the key ``path`` (a JSON pointer's parts) of ``source``."""
    span = None
    if source is not None:
        start = locate(source.text, path)
        span = Span(source, start, start + 1 if start < len(source.text) else start)
    return ImportFailure([make_error(Code.IMPORT_ERROR, message, span, *notes)])


def locate(text: str, path: Sequence[str | int]) -> int:
    """The offset of the last key of ``path`` found in ``text``, looking for each key
    after the previous one (list indexes are skipped): exact for the usual layouts
    of JSON and YAML, approximate otherwise."""
    offset = 0
    for part in path:
        if isinstance(part, int):
            continue
        key = re.escape(part)
        pattern = re.compile(rf"""(?:"{key}"|'{key}'|(?<![\w.-]){key})\s*:""")
        found = pattern.search(text, offset)
        if found is None:
            break
        offset = found.start()
    return offset


class _Yaml12Loader(getattr(yaml, "CSafeLoader", yaml.SafeLoader)):  # type: ignore[misc]
    """The safe loader with the YAML 1.2 core schema's scalars, as the reference
    reads YAML: only true/false are booleans, ints are decimal (no leading 0), ``0o`` or ``0x``,
    ``1.5e3`` is a float, and dates, ``yes``, ``=`` or ``1:20`` stay strings."""


_REPLACED = {
    "tag:yaml.org,2002:bool",
    "tag:yaml.org,2002:int",
    "tag:yaml.org,2002:float",
    "tag:yaml.org,2002:timestamp",
    "tag:yaml.org,2002:value",
}
_Yaml12Loader.yaml_implicit_resolvers = {
    first: [(tag, regexp) for tag, regexp in resolvers if tag not in _REPLACED]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}
for _tag, _pattern, _first in (
    ("bool", r"^(?:true|True|TRUE|false|False|FALSE)$", "tTfF"),
    ("int", r"^(?:[-+]?(?:0|[1-9][0-9]*)|0o[0-7]+|0x[0-9a-fA-F]+)$", "-+0123456789"),
    (
        "float",
        r"^(?:[-+]?(?:\.[0-9]+|(?:0|[1-9][0-9]*)(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?"
        r"|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$",
        "-+.0123456789",
    ),
):
    _Yaml12Loader.add_implicit_resolver(
        f"tag:yaml.org,2002:{_tag}", re.compile(_pattern), list(_first)
    )


def _yaml12_int(loader: yaml.SafeLoader, node: yaml.ScalarNode) -> int:
    text = str(loader.construct_scalar(node))
    return int(text, 0) if text[:2] in ("0o", "0x") else int(text, 10)


def _yaml12_float(loader: yaml.SafeLoader, node: yaml.ScalarNode) -> float:
    text = str(loader.construct_scalar(node)).lower()
    return float(text.replace(".inf", "inf").replace(".nan", "nan"))


_Yaml12Loader.add_constructor("tag:yaml.org,2002:int", _yaml12_int)
_Yaml12Loader.add_constructor("tag:yaml.org,2002:float", _yaml12_float)


def load_documents(source: SourceFile, data_format: str) -> list[Any]:
    """The documents of ``source`` read as ``data_format`` (json, yaml, toml)."""
    text = source.text
    if not text.strip():
        raise failure_at(source, "the input is empty")
    if data_format == "json":
        try:
            return [json.loads(text)]
        except json.JSONDecodeError as error:
            raise _syntax_failure(source, "JSON", error.msg, error.lineno, error.colno) from None
        except RecursionError:
            raise failure_at(source, "the JSON input is nested too deeply") from None
    if data_format == "toml":
        try:
            return [tomllib.loads(text)]
        except tomllib.TOMLDecodeError as error:
            message = str(error)
            where = re.search(r"\(at line (\d+), column (\d+)\)", message)
            line, column = (int(where[1]), int(where[2])) if where else (1, 1)
            message = re.sub(r"\s*\(at (line \d+, column \d+|end of document)\)", "", message)
            raise _syntax_failure(source, "TOML", message, line, column) from None
    return _load_yaml(source)


def _load_yaml(source: SourceFile) -> list[Any]:
    try:
        documents = list(yaml.load_all(source.text, Loader=_Yaml12Loader))
    except yaml.MarkedYAMLError as error:
        mark = error.problem_mark or error.context_mark
        line, column = (mark.line + 1, mark.column + 1) if mark else (1, 1)
        message = error.problem or error.context or "invalid YAML"
        raise _syntax_failure(source, "YAML", message, line, column) from None
    except (yaml.YAMLError, RecursionError) as error:
        raise failure_at(source, f"invalid YAML: {error}") from None
    return [document for document in documents if document is not None]


def _syntax_failure(
    source: SourceFile, language: str, message: str, line: int, column: int
) -> ImportFailure:
    start = source.offset(line, column)
    span = Span(source, start, min(start + 1, len(source.text)))
    return ImportFailure([make_error(Code.IMPORT_ERROR, f"invalid {language}: {message}", span)])


def detect_mode(path: str, text: str) -> str:
    """The mode ``auto`` means for this input: a CRD, an OpenAPI or JSON Schema
    document by its keys, else data by the file extension (JSON when unknown)."""
    head = text[:20000]
    if re.search(r"^kind:\s*['\"]?CustomResourceDefinition\b", head, re.MULTILINE) or (
        '"CustomResourceDefinition"' in head and '"kind"' in head
    ):
        return "crd"
    if re.search(r"""^["']?(swagger|openapi)["']?\s*:""", head, re.MULTILINE) or re.search(
        r'"(swagger|openapi)"\s*:', head
    ):
        return "openapi"
    if re.search(r'"\$schema"\s*:\s*"[^"]*json-schema', head) or re.search(
        r"^\$schema:\s*['\"]?\S*json-schema", head, re.MULTILINE
    ):
        return "jsonschema"
    extension = path.rsplit(".", 1)[-1].lower() if "." in path else ""
    if extension in ("yaml", "yml"):
        return "yaml"
    if extension == "toml":
        return "toml"
    return "json"
