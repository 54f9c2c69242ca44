"""Path selectors (``kcl run -S a.b.0``): pick values out of the output document."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from kclpy.values import UNDEFINED
from kclpy.values.errors import KclRuntimeError


def select_path(document: Any, path: str) -> Any:
    """The value at a dotted path; numeric parts index lists."""
    value = document
    for part in path.split("."):
        if isinstance(value, dict) and part in value:
            value = value[part]
        elif (
            isinstance(value, list)
            and part.lstrip("-").isdigit()
            and -len(value) <= int(part) < len(value)
        ):
            value = value[int(part)]
        else:
            value = UNDEFINED
        if value is UNDEFINED:
            raise KclRuntimeError(f"invalid path select operand {path}, value not found")
    return value


def select_paths(documents: list[Any], paths: Sequence[str]) -> list[Any]:
    """The documents a run prints for the given selectors (one value, or a list of them)."""
    document = documents[0] if documents else {}
    selected = [select_path(document, path) for path in paths]
    value = selected[0] if len(selected) == 1 else selected
    if isinstance(value, list) and value and all(isinstance(item, dict) for item in value):
        return list(value)  # a list of configs (or several selected) prints as a stream
    return [value]
