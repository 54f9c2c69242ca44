"""``kcl import -m json|yaml|toml``: data to KCL configuration.

``data_to_kcl(document, source)`` takes one parsed document (a mapping) and
returns KCL text with one top-level attribute per key, in the input's order, laid
out as the reference does: mappings one key a line, lists of scalars on one line,
other lists one item a line. Keys that are keywords are ``$``-escaped; a
top-level key that cannot be a KCL name is an error (a nested one is quoted).
"""

from __future__ import annotations

from typing import Any

from kclpy.source import SourceFile
from kclpy.tools.importer.inputs import failure_at
from kclpy.tools.importer.literals import (
    NotRepresentable,
    attribute_name,
    literal,
)

INDENT = "    "


def data_to_kcl(document: Any, source: SourceFile) -> str:
    """The KCL text of a data document whose root is a mapping."""
    if not isinstance(document, dict):
        found = type(document).__name__ if document is not None else "null"
        raise failure_at(
            source,
            f"the data's root must be a mapping to become top-level KCL attributes, found {found}",
        )
    lines: list[str] = []
    for key, value in document.items():
        name = attribute_name(str(key))
        if name.startswith('"'):
            raise failure_at(
                source,
                f"the top-level key {key!r} cannot be a KCL attribute name",
                [str(key)],
                "top-level keys must be names (letters, digits and _); nested keys may be any",
            )
        lines.append(f"{name} = {_value(value, source, [str(key)], 0)}")
    return "\n".join(lines) + "\n"


def _value(value: Any, source: SourceFile, path: list[str | int], depth: int) -> str:
    """The KCL text of ``value`` at indentation ``depth`` (its first line unindented)."""
    inner = INDENT * (depth + 1)
    if isinstance(value, dict):
        if not value:
            return "{}"
        items = [
            f"{inner}{attribute_name(str(key))} = "
            f"{_value(item, source, [*path, str(key)], depth + 1)}"
            for key, item in value.items()
        ]
        return "{\n" + "\n".join(items) + "\n" + INDENT * depth + "}"
    if isinstance(value, list):
        if not value:
            return "[]"
        if not any(isinstance(item, dict | list) for item in value):
            return _scalar(value, source, path)
        items = [
            f"{inner}{_value(item, source, [*path, index], depth + 1)},"
            for index, item in enumerate(value)
        ]
        return "[\n" + "\n".join(items) + "\n" + INDENT * depth + "]"
    return _scalar(value, source, path)


def _scalar(value: Any, source: SourceFile, path: list[str | int]) -> str:
    try:
        return literal(value)
    except NotRepresentable as error:
        raise failure_at(source, str(error), path) from None
