"""``kcl import -m json|yaml|toml``: data to KCL configuration.

``data_to_kcl(document, source, max_depth)`` takes one parsed document (a mapping)
and returns KCL text (``data_chunks``: the same in pieces) with one top-level
attribute per key, in the input's order, laid out as ``kcl fmt`` prints it (so it
is not formatted again): mappings one key a line, lists of scalars on one line,
other lists one item a line (no commas). Keys that are keywords are ``$``-escaped;
a top-level key that cannot be a KCL name is an error (a nested one is quoted).

The walk is a loop over an explicit stack, not recursion, and writes each line
once (the text grows with the output, not with the depth times the output); a
value nested deeper than ``max_depth`` containers is refused where it starts.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from kclpy.source import SourceFile
from kclpy.tools.importer.bounds import MAX_DEPTH, too_deep
from kclpy.tools.importer.failures import failure_at
from kclpy.tools.importer.literals import (
    NotRepresentable,
    attribute_name,
    literal,
    string_literal,
)

INDENT = "    "
_CHUNK = 4096  # lines joined into one string at a time (fewer small objects held)
_NAMES = 1 << 16  # key names remembered

# a block being written: its entries as (key, value), whether it is a mapping, and
# the indentation of its entries
_Frame = tuple[Iterator[tuple[Any, Any]], bool, str]


def data_to_kcl(document: Any, source: SourceFile, max_depth: int = MAX_DEPTH) -> str:
    """The KCL text of a data document whose root is a mapping."""
    return "".join(data_chunks(document, source, max_depth))


def data_chunks(document: Any, source: SourceFile, max_depth: int = MAX_DEPTH) -> list[str]:
    """The KCL text of a data document, in pieces to join (a caller that lets go of the
    document first holds less memory as it joins them)."""
    if not isinstance(document, dict):
        found = type(document).__name__ if document is not None else "null"
        raise failure_at(
            source,
            f"the data's root must be a mapping to become top-level KCL attributes, found {found}",
        )
    writer = _Writer(source, max_depth)
    for key, value in document.items():
        name = attribute_name(str(key))
        if name.startswith('"'):
            raise failure_at(
                source,
                f"the top-level key {key!r} cannot be a KCL attribute name",
                [str(key)],
                "top-level keys must be names (letters, digits and _); nested keys may be any",
            )
        writer.attribute(name, str(key), value)
    return writer.pieces()


def _is_block(value: Any) -> bool:
    """Whether ``value`` is written over several lines: a non-empty mapping, or a list
    holding a mapping or a list."""
    if isinstance(value, dict):
        return bool(value)
    return isinstance(value, list) and any(isinstance(item, dict | list) for item in value)


class _Writer:
    """The lines of the KCL text, joined in chunks as they come; the names of keys
    met (up to ``_NAMES``) kept, as data repeats them."""

    def __init__(self, source: SourceFile, max_depth: int) -> None:
        self.source = source
        self.max_depth = max_depth
        self.lines: list[str] = []
        self.chunks: list[str] = []
        self.names: dict[str, str] = {}

    def pieces(self) -> list[str]:
        self._flush()
        return self.chunks

    def _flush(self) -> None:
        if self.lines:
            self.chunks.append("\n".join(self.lines) + "\n")
            self.lines = []

    def attribute(self, name: str, key: str, value: Any) -> None:
        """Write ``name = value`` at the top level (the root mapping is depth 1)."""
        path: list[str | int] = [key]  # the keys of the open blocks
        stack: list[_Frame] = []
        if not isinstance(value, dict | list):
            self.lines.append(f"{name} = {self._scalar(value, path)}")
            return
        self._open(f"{name} = ", value, path, stack)
        names = self.names
        while stack:
            entries, mapping, indent = stack[-1]
            lines = self.lines
            for child_key, child in entries:  # the block's entries, until one opens a block
                if mapping:
                    child_key = str(child_key)
                    prefix = indent + (names.get(child_key) or self._name(child_key))
                else:
                    prefix = indent
                if type(child) is str:  # the common case, at once
                    lines.append(prefix + string_literal(child))
                elif not isinstance(child, dict | list):
                    lines.append(prefix + self._scalar(child, [*path, child_key]))
                else:
                    path.append(child_key)
                    if self._open(prefix, child, path, stack):
                        break  # on with the new block's entries
            else:  # the block is done
                stack.pop()
                path.pop()
                lines.append(indent[len(INDENT) :] + ("}" if mapping else "]"))
                if len(lines) >= _CHUNK:
                    self._flush()

    def _name(self, key: str) -> str:
        """``key = `` as a nested key is written (remembered)."""
        known = attribute_name(key) + " = "
        if len(self.names) < _NAMES:
            self.names[key] = known
        return known

    def _open(self, prefix: str, value: Any, path: list[str | int], stack: list[_Frame]) -> bool:
        """Write the first line of the list or mapping ``value`` after ``prefix``; a
        block's entries go on the stack (True), the key of a one-line value leaves
        ``path`` (False)."""
        # its depth: the root mapping, the open blocks, itself
        if len(stack) + 2 > self.max_depth:
            raise too_deep(self.source, path, self.max_depth)
        if not _is_block(value):
            self.lines.append(prefix + self._scalar(value, path))
            path.pop()
            return False
        indent = INDENT * (len(stack) + 1)
        if isinstance(value, dict):
            self.lines.append(prefix + "{")
            stack.append((iter(value.items()), True, indent))
        else:
            self.lines.append(prefix + "[")
            stack.append((enumerate(value), False, indent))
        return True

    def _scalar(self, value: Any, path: list[str | int]) -> str:
        try:
            return literal(value)
        except NotRepresentable as error:
            raise failure_at(self.source, str(error), path) from None
