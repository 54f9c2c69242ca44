"""Implicit references between resources: ``$kusion_path.<id>.<attribute.path>``.

A string attribute whose whole value is such a reference is an edge from the
referenced resource to the referencing one, and at apply time it is replaced
by that attribute of the *applied* referenced resource (for example a
Terraform output). Ids may themselves contain dots, so a reference is split
by the longest known id that prefixes it.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterator
from typing import Any

import attrs

from kclpy.diag import Code
from kclpy.kusion.model import REFERENCE_PREFIX, UNKNOWN, KusionError, SpecError


@attrs.frozen
class Reference:
    """A parsed reference: the target resource id and the attribute path in it."""

    text: str
    target: str
    path: tuple[str, ...]


class UnresolvedReference(KusionError):
    """A reference whose value is not available (yet)."""

    code = Code.UNRESOLVED_REFERENCE


def is_reference(value: Any) -> bool:
    return isinstance(value, str) and value.startswith(REFERENCE_PREFIX)


def iter_reference_texts(value: Any) -> Iterator[str]:
    """Every reference string anywhere inside a JSON value."""
    for _, text in iter_references(value):
        yield text


def iter_references(
    value: Any, path: tuple[str | int, ...] = ()
) -> Iterator[tuple[tuple[str | int, ...], str]]:
    """Every reference string inside a JSON value, with the path of keys and indexes
    where it is."""
    if is_reference(value):
        yield path, value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from iter_references(item, (*path, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from iter_references(item, (*path, index))


def parse_reference(text: str, known_ids: Collection[str]) -> Reference:
    """Split ``text`` into target id and attribute path, by the longest known id."""
    body = text[len(REFERENCE_PREFIX) :]
    best = ""
    for candidate in known_ids:
        if body.startswith(candidate + ".") and len(candidate) > len(best):
            best = candidate
    if not best:
        raise SpecError(f"reference {text!r} does not name a known resource id followed by a path")
    path = tuple(body[len(best) + 1 :].split("."))
    if any(not segment for segment in path):
        raise SpecError(f"reference {text!r} has an empty attribute path segment")
    return Reference(text, best, path)


def reference_targets(attributes: Any, known_ids: Collection[str]) -> list[str]:
    """The ids referenced from ``attributes``, in first-seen order."""
    targets: list[str] = []
    for text in iter_reference_texts(attributes):
        target = parse_reference(text, known_ids).target
        if target not in targets:
            targets.append(target)
    return targets


def lookup_path(value: Any, path: tuple[str, ...]) -> Any:
    """Follow ``path`` (keys, or list indexes written as integers) inside ``value``."""
    current = value
    for segment in path:
        if isinstance(current, dict) and segment in current:
            current = current[segment]
        elif isinstance(current, list) and segment.isdigit() and int(segment) < len(current):
            current = current[int(segment)]
        else:
            raise UnresolvedReference(f"attribute path {'.'.join(path)!r} not found")
    return current


def contains_unknown(value: Any) -> bool:
    if value == UNKNOWN:
        return True
    if isinstance(value, dict):
        return any(contains_unknown(item) for item in value.values())
    if isinstance(value, list):
        return any(contains_unknown(item) for item in value)
    return False


Lookup = Callable[[str], "dict[str, Any] | None"]


def substitute(value: Any, known_ids: Collection[str], lookup: Lookup, strict: bool) -> Any:
    """Replace references in ``value``; unresolvable ones raise when ``strict``, else stay."""
    if is_reference(value):
        return _resolve(value, known_ids, lookup, strict)
    if isinstance(value, dict):
        return {key: substitute(item, known_ids, lookup, strict) for key, item in value.items()}
    if isinstance(value, list):
        return [substitute(item, known_ids, lookup, strict) for item in value]
    return value


def _resolve(text: str, known_ids: Collection[str], lookup: Lookup, strict: bool) -> Any:
    reference = parse_reference(text, known_ids)
    attributes = lookup(reference.target)
    try:
        if attributes is None:
            raise UnresolvedReference(f"resource {reference.target!r} has not been applied")
        resolved = lookup_path(attributes, reference.path)
        if contains_unknown(resolved):
            raise UnresolvedReference("the value is only known after apply")
    except UnresolvedReference as error:
        if strict:
            raise UnresolvedReference(f"cannot resolve {text!r}: {error}") from None
        return text
    return resolved
