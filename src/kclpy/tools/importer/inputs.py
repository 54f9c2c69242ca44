"""Reading the inputs of ``kcl import``: files of JSON, YAML or TOML, parsed to
plain Python values, within the bounds of ``bounds.ImportLimits``.

``load_documents(source, format, limits)`` takes a ``SourceFile`` and ``json`` |
``yaml`` | ``toml`` and returns the list of its documents (YAML may hold several).
YAML is read with the YAML 1.2 core schema, as the reference does: ``yes``/``on``
and dates stay strings; each document's nodes are measured (depth, aliases) before
they become values. ``detect_mode(path, text)`` guesses the mode of ``auto``.
Errors raise ``ImportFailure`` (``failures``; re-exported here).
"""

from __future__ import annotations

import json
import re
import tomllib
from typing import Any

import yaml

from kclpy.source import SourceFile
from kclpy.tools.importer.bounds import (
    DEFAULT_LIMITS,
    ImportLimits,
    YamlBudget,
    check_memory,
    deep_offset,
    failure_at_mark,
    too_deep,
)
from kclpy.tools.importer.failures import ImportFailure as ImportFailure
from kclpy.tools.importer.failures import failure_at as failure_at
from kclpy.tools.importer.failures import failure_at_line, failure_at_offset


class _Yaml12Loader(getattr(yaml, "CSafeLoader", yaml.SafeLoader)):  # type: ignore[misc]
    """The safe loader with the YAML 1.2 core schema's scalars, as the reference
    reads YAML: only true/false are booleans, ints are decimal (no leading 0), ``0o`` or ``0x``,
    ``1.5e3`` is a float, and dates, ``yes``, ``=`` or ``1:20`` stay strings.

    libyaml's composer (C) stops at 1,000 levels; the pure-Python one, used where
    libyaml is missing, recurses a level per level, so ``compose_node`` stops it at
    ``max_depth``."""

    max_depth = DEFAULT_LIMITS.max_depth
    _depth = 0

    def compose_node(self, parent: Any, index: Any) -> Any:
        if self._depth >= self.max_depth:
            message = f"the input is nested too deeply (more than {self.max_depth} levels)"
            raise yaml.composer.ComposerError(None, None, message, self.peek_event().start_mark)
        self._depth += 1
        try:
            return super().compose_node(parent, index)
        finally:
            self._depth -= 1


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
    try:
        return int(text, 0) if text[:2] in ("0o", "0x") else int(text, 10)
    except ValueError:  # `!!int x`, or more digits than Python converts
        raise _bad_scalar(text, "an integer", node) from None


def _yaml12_float(loader: yaml.SafeLoader, node: yaml.ScalarNode) -> float:
    text = str(loader.construct_scalar(node)).lower()
    try:
        return float(text.replace(".inf", "inf").replace(".nan", "nan"))
    except ValueError:
        raise _bad_scalar(text, "a number", node) from None


def _bad_scalar(text: str, kind: str, node: yaml.ScalarNode) -> yaml.YAMLError:
    shown = text if len(text) <= 40 else text[:40] + "..."
    message = f"{shown!r} is not {kind}"
    return yaml.constructor.ConstructorError(None, None, message, node.start_mark)


_Yaml12Loader.add_constructor("tag:yaml.org,2002:int", _yaml12_int)
_Yaml12Loader.add_constructor("tag:yaml.org,2002:float", _yaml12_float)


def load_documents(
    source: SourceFile, data_format: str, limits: ImportLimits = DEFAULT_LIMITS
) -> list[Any]:
    """The documents of ``source`` read as ``data_format`` (json, yaml, toml)."""
    text = source.text
    if not text.strip():
        raise failure_at(source, "the input is empty")
    check_memory(source, data_format)
    if data_format == "json":
        lone = _LONE_SURROGATE.search(text) if "\\u" in text else None
        if lone is not None:  # JSON can write one; UTF-8 (and so KCL text) cannot hold it
            message = "invalid JSON: a lone surrogate (half of a UTF-16 pair) is no character"
            raise failure_at_offset(source, lone.start(2), message)
        try:
            return [json.loads(text)]
        except json.JSONDecodeError as error:
            raise _syntax_failure(source, "JSON", error.msg, error.lineno, error.colno) from None
        except RecursionError:  # deeper than the interpreter's budget: C recursion
            raise too_deep(source, (), limits.max_depth) from None
        except ValueError as error:  # a number of more digits than Python converts
            raise _number_failure(source, "JSON", error) from None
    if data_format == "toml":
        return [_load_toml(source, limits)]
    return _load_yaml(source, limits)


# `\\uD800`-`\\uDFFF` after an even number of backslashes, and not a pair's halves
_LONE_SURROGATE = re.compile(
    r"(?<!\\)((?:\\\\)*)(\\u[dD][89abAB][0-9a-fA-F]{2}(?!\\u[dD][c-fC-F][0-9a-fA-F]{2})"
    r"|(?<!\\u[dD][89abAB][0-9a-fA-F]{2})\\u[dD][c-fC-F][0-9a-fA-F]{2})"
)


def _load_toml(source: SourceFile, limits: ImportLimits) -> Any:
    # tomllib recurses a level per nested array or inline table: measure them first
    if deep_offset(source.text, limits.max_depth) is not None:
        raise too_deep(source, (), limits.max_depth)
    try:
        return tomllib.loads(source.text)
    except tomllib.TOMLDecodeError as error:
        message = str(error)
        where = re.search(r"\(at line (\d+), column (\d+)\)", message)
        line, column = (int(where[1]), int(where[2])) if where else (1, 1)
        message = re.sub(r"\s*\(at (line \d+, column \d+|end of document)\)", "", message)
        raise _syntax_failure(source, "TOML", message, line, column) from None
    except ValueError as error:
        raise _number_failure(source, "TOML", error) from None


def _number_failure(source: SourceFile, language: str, error: ValueError) -> ImportFailure:
    """A number Python will not convert (too many digits), at the first long one."""
    found = re.search(r"\d{1000}", source.text)
    message = f"invalid {language}: {error}"
    return failure_at_offset(source, found.start() if found else 0, message)


def _load_yaml(source: SourceFile, limits: ImportLimits) -> list[Any]:
    """The documents of a YAML stream, each measured by a ``YamlBudget`` (depth,
    aliases, cycles) between its composition and its construction."""
    loader = _Yaml12Loader(source.text)
    loader.max_depth = limits.max_depth
    budget = YamlBudget(source, limits)
    documents: list[Any] = []
    try:
        while loader.check_node():
            node = loader.get_node()
            budget.check(node)
            document = _construct(loader, node)
            if document is not None:
                documents.append(document)
    except yaml.MarkedYAMLError as error:
        message = error.problem or error.context or "invalid YAML"
        mark = error.problem_mark or error.context_mark
        raise failure_at_mark(source, mark, f"invalid YAML: {message}") from None
    except (yaml.YAMLError, RecursionError) as error:
        raise failure_at(source, f"invalid YAML: {error}") from None
    finally:
        loader.dispose()
    return documents


def _construct(loader: _Yaml12Loader, node: yaml.Node) -> Any:
    """The value of a document's nodes; the safe constructor's own errors on odd tags
    (``!!timestamp x``, ``!!binary`` of bad base64, ...) become located ones."""
    try:
        return loader.construct_document(node)
    except yaml.YAMLError:
        raise
    except (ValueError, TypeError, AttributeError, OverflowError, LookupError) as error:
        message = f"cannot make a value of the document: {error}"
        raise yaml.constructor.ConstructorError(None, None, message, node.start_mark) from None


def _syntax_failure(
    source: SourceFile, language: str, message: str, line: int, column: int
) -> ImportFailure:
    return failure_at_line(source, line, column, f"invalid {language}: {message}")


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
