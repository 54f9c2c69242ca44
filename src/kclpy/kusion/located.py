"""YAML documents that remember where each of their parts is, for diagnostics.

``load_documents(text, path)`` parses one or more YAML documents (safe
tags only) and returns each as a ``Located``: the plain Python value together
with the YAML node it came from, so a problem found later in the value can be
reported at its line and column (``Located.span()``) with a caret, as every
``kcl`` command prints errors. ``at(key)`` steps into a mapping key or list
index; a part that is not there, or text without a file (the output of
``kcl run``), simply has no span. A YAML syntax error is a ``SpecError`` that
points at the error's position, and so is a document nested deeper than
``MAX_DEPTH`` or one whose aliases would expand it beyond ``MAX_NODES`` values
(a "billion laughs"): hostile input is refused before it is built.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import attrs

from kclpy.kusion.model import SpecError
from kclpy.source import SourceFile, Span

MAX_DEPTH = 200
"""Deepest nesting of collections in a spec document."""

MAX_NODES = 2_000_000
"""Most values a document may hold once its aliases are expanded."""


@attrs.frozen
class Located:
    """A value of a YAML document with its node and the file it was read from."""

    value: Any
    node: Any = None  # yaml.Node, None when the value has no known position
    file: SourceFile | None = None

    def span(self) -> Span | None:
        """Where the value is: a scalar whole, a mapping or list by its first line."""
        if self.node is None or self.file is None:
            return None
        import yaml

        start = self.node.start_mark.index
        end = self.node.end_mark.index
        if not isinstance(self.node, yaml.ScalarNode):
            line_end = self.file.text.find("\n", start)
            end = min(end, line_end) if line_end >= 0 else end
        return Span(self.file, start, max(end, start + 1) if start < len(self.file.text) else start)

    def at(self, key: str | int) -> Located:
        """The value under a mapping ``key`` or at a list index (no position if absent)."""
        value = _child(self.value, key)
        return Located(value, _child_node(self.node, key), self.file)

    def key(self, key: str) -> Located:
        """The key ``key`` itself of a mapping (for "unknown field" problems)."""
        node = None
        if self.node is not None and _is_mapping(self.node):
            node = next((k for k, _ in self.node.value if _scalar(k) == key), None)
        return Located(key, node, self.file)

    def items(self) -> Iterator[tuple[Any, Located]]:
        """The (key, value) pairs of a mapping in document order."""
        if isinstance(self.value, dict):
            for key in self.value:
                yield key, self.at(key)

    def elements(self) -> Iterator[Located]:
        if isinstance(self.value, list):
            for index in range(len(self.value)):
                yield self.at(index)

    def find(self, path: tuple[str | int, ...]) -> Located:
        located = self
        for key in path:
            located = located.at(key)
        return located


def detached(value: Any) -> Located:
    """A value without a position (built in code, not read from a file)."""
    return Located(value)


@attrs.frozen
class Origin:
    """Where one resource of a spec was read: its ``{id, type, ...}`` mapping, or, for a
    plain Kubernetes manifest wrapped into a resource (``wrapped``), the manifest."""

    resource: Located
    wrapped: bool = False

    def locate(self, path: tuple[str | int, ...]) -> Located:
        """The part at ``path`` of the resource document (``("attributes", "path")``,
        ``("dependsOn", 0)``, ``("id",)``, ...)."""
        if not self.wrapped:
            return self.resource.find(path)
        if path[:1] == ("attributes",):
            return self.resource.find(path[1:])
        if path[:1] == ("id",):
            return self.resource.find(("metadata", "name"))
        if path[:1] == ("type",):
            return self.resource.at("kind")
        return detached(None)


NOWHERE = Origin(detached(None))


def load_documents(text: str, source: str, path: str | None) -> list[Located]:
    """Every non-empty YAML document of ``text``; spans only when ``path`` names a file."""
    import yaml

    file = SourceFile(path, text) if path is not None else None
    loader = _bounded_loader()(text)
    documents: list[Located] = []
    try:
        while loader.check_node():
            node = loader.get_node()
            if _expanded_size(node) > MAX_NODES:
                raise _too_big(node, source, file, f"more than {MAX_NODES:,} values")
            value = loader.construct_document(node)
            if value is not None:
                documents.append(Located(value, node, file))
    except yaml.YAMLError as error:
        raise _yaml_error(error, source, file) from None
    except _TooDeep as error:
        raise _too_big(error.node, source, file, f"nested deeper than {MAX_DEPTH}") from None
    finally:
        loader.dispose()
    return documents


class _TooDeep(Exception):
    def __init__(self, node: Any) -> None:
        super().__init__("too deep")
        self.node = node


def _bounded_loader() -> Any:
    """A safe loader that stops composing below ``MAX_DEPTH`` collections."""
    import yaml

    class BoundedLoader(yaml.SafeLoader):  # type: ignore[misc]
        depth = 0

        def compose_node(self, parent: Any, index: Any) -> Any:
            self.depth += 1
            try:
                if self.depth > MAX_DEPTH:
                    raise _TooDeep(parent)
                return super().compose_node(parent, index)
            finally:
                self.depth -= 1

    return BoundedLoader


def _expanded_size(root: Any) -> int:
    """How many values the document holds with every alias expanded (without expanding)."""
    import yaml

    sizes: dict[int, int] = {}
    stack: list[tuple[Any, bool]] = [(root, False)]
    while stack:
        node, children_done = stack.pop()
        if id(node) in sizes:
            continue
        if isinstance(node, yaml.SequenceNode):
            children = list(node.value)
        elif isinstance(node, yaml.MappingNode):
            children = [part for pair in node.value for part in pair]
        else:
            sizes[id(node)] = 1
            continue
        if children_done:
            sizes[id(node)] = 1 + sum(sizes.get(id(child), 1) for child in children)
            continue
        stack.append((node, True))
        stack.extend((child, False) for child in children if id(child) not in sizes)
    return sizes[id(root)]


def _too_big(node: Any, source: str, file: SourceFile | None, what: str) -> SpecError:
    message = f"{source}: the YAML is {what}" if file is None else f"the YAML is {what}"
    if file is None or node is None:
        return SpecError(message)
    start = min(node.start_mark.index, len(file.text))
    return SpecError(message, Span(file, start, min(start + 1, len(file.text))))


def _yaml_error(error: Exception, source: str, file: SourceFile | None) -> SpecError:
    mark = getattr(error, "problem_mark", None) or getattr(error, "context_mark", None)
    if file is None or mark is None:
        return SpecError(f"{source}: invalid YAML: {error}")
    start = min(mark.index, len(file.text))
    span = Span(file, start, min(start + 1, len(file.text)))
    problem = getattr(error, "problem", None)
    return SpecError(f"invalid YAML: {problem}" if problem else f"invalid YAML: {error}", span)


def _child(value: Any, key: str | int) -> Any:
    if isinstance(value, dict):
        return value.get(key)
    if isinstance(value, list) and isinstance(key, int) and 0 <= key < len(value):
        return value[key]
    return None


def _is_mapping(node: Any) -> bool:
    import yaml

    return isinstance(node, yaml.MappingNode)


def _scalar(node: Any) -> Any:
    import yaml

    return node.value if isinstance(node, yaml.ScalarNode) else None


def _child_node(node: Any, key: str | int) -> Any:
    import yaml

    if node is None:
        return None
    if isinstance(node, yaml.MappingNode):
        found = None
        for key_node, value_node in node.value:  # the last one wins, as in the value
            if isinstance(key, str) and _scalar(key_node) == key:
                found = value_node
        return found
    if isinstance(node, yaml.SequenceNode) and isinstance(key, int):
        return node.value[key] if 0 <= key < len(node.value) else None
    return None
