"""Where ``kcl vet``'s data came from: the data as a KCL literal written one entry
(or list item) per line, with the data file's position of every line's key and value,
so that an error the validation program reports inside the literal is moved to the
data file's line and column (JSON or YAML alike: both are read by PyYAML's composer,
which keeps positions). An error on an entry points where the entry begins (its key),
one on a list item or a schema instance where that value begins, as the real
``kcl vet`` reports them.

Takes the data text, its loaded value and the schema its mappings are instances of;
returns a :class:`PositionedLiteral` (when the positions cannot be matched to the
value, e.g. YAML merge keys, every error in the data points at the whole data).
Also owns :class:`DataLoader`, the YAML loader of vet's data.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar

import attrs
import yaml

from kclpy.diag import Diagnostic, Label
from kclpy.source import SourceFile, Span

MAX_PLACED_NESTING = 1_000
"""Deepest data whose values get lines of their own (libyaml's own limit); deeper data
is written on one line (PyYAML's pure scanner is quadratic in the nesting of flow
collections, libyaml refuses beyond it)."""

_SafeLoader: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # libyaml when built


class DataLoader(_SafeLoader):  # type: ignore[misc]
    """PyYAML's safe loader (libyaml's when present) without its timestamp type: a date
    in the data is the string it is written as (KCL has no date values; the real vet
    reads it so)."""

    yaml_implicit_resolvers: ClassVar[dict[Any, list[tuple[str, Any]]]] = {
        first: [(tag, regexp) for tag, regexp in resolvers if tag != "tag:yaml.org,2002:timestamp"]
        for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
    }


@attrs.frozen
class _Line:
    """One line of the literal: the data positions of its key and of its value, and
    the column (0-based, in the literal) where the value starts."""

    key: Span | None
    value: Span
    value_column: int


class PositionedLiteral:
    """The literal's text and, for each of its lines, where that line's data is."""

    def __init__(
        self, data_file: SourceFile, schema: str | None, scalar: Callable[..., str]
    ) -> None:
        self.data_file = data_file
        self.schema = schema
        self.scalar = scalar
        self.parts: list[str] = []
        self.lines: list[_Line | None] = []

    @property
    def text(self) -> str:
        return "".join(self.parts)

    @classmethod
    def build(
        cls,
        data: str,
        value: Any,
        data_path: str,
        schema: str | None,
        scalar: Callable[..., str],
    ) -> PositionedLiteral:
        """The literal of ``value`` (the loaded ``data``; its mappings at the top and in
        lists instances of ``schema``, ``scalar(value, schema)`` writing a value on one
        line); when the data's nodes do not match the value one to one, the value on
        one line standing for the whole data."""
        # a raw tab can only be white space in JSON, but YAML refuses some: a space
        # in its place keeps every offset
        text = data.replace("\t", " ")
        literal = cls(SourceFile(data_path, data), schema, scalar)
        try:
            if deeper_than(value, MAX_PLACED_NESTING):
                raise _Mismatch
            literal._write(yaml.compose(text, Loader=DataLoader), value, schema)
        except (yaml.YAMLError, _Mismatch):
            literal.parts = [scalar(value, schema)]
            whole = Span(literal.data_file, 0, len(data.rstrip()))
            literal.lines = [_Line(None, whole, 0)]
        return literal

    def _span(self, node: Any) -> Span:
        return Span(self.data_file, node.start_mark.index, node.end_mark.index)

    def _write(self, node: Any, value: Any, schema: str | None) -> None:
        """Write ``value`` (at the current column; its first line already begun), a
        mapping as an instance of ``schema`` when there is one. Lines are not indented
        (inside brackets KCL needs no indentation): the text stays linear in the data's
        size however deep it nests."""
        if node is None:  # an empty YAML document
            node = yaml.ScalarNode("tag:yaml.org,2002:null", "", _START, _START)
        if not self.lines:  # the literal's first line: the whole data
            self.lines.append(_Line(None, self._span(node), 0))
        if isinstance(value, dict) and value:
            if not isinstance(node, yaml.MappingNode) or len(node.value) != len(value):
                raise _Mismatch
            self._open("{" if schema is None else schema + " {")
            for (key_node, value_node), (key, item) in zip(node.value, value.items(), strict=True):
                if not isinstance(key_node, yaml.ScalarNode) or key_node.value != str(key):
                    raise _Mismatch
                key_text = self.scalar(str(key)) + ": "
                self._begin(key_node, value_node, len(key_text))
                self.parts.append(key_text)
                self._write(value_node, item, None)
            self._close("}")
        elif isinstance(value, list) and value:
            if not isinstance(node, yaml.SequenceNode) or len(node.value) != len(value):
                raise _Mismatch
            self._open("[")
            for item_node, item in zip(node.value, value, strict=True):
                self._begin(None, item_node, 0)
                self._write(item_node, item, schema)
            self._close("]")
        else:
            self.parts.append(self.scalar(value, schema))

    def _begin(self, key: Any, node: Any, key_width: int) -> None:
        self.parts.append("\n")
        key_span = None if key is None else self._span(key)
        self.lines.append(_Line(key_span, self._span(node), key_width))

    def _open(self, bracket: str) -> None:
        self.parts.append(bracket)

    def _close(self, bracket: str) -> None:
        self.parts.append("\n" + bracket)
        self.lines.append(None)

    def relocate(self, diagnostic: Diagnostic, code_path: str, first_line: int) -> Diagnostic:
        """``diagnostic`` with its labels inside the literal (which begins on line
        ``first_line`` of ``code_path``) moved to the data file."""
        diagnostic.labels = [
            self._moved(label, code_path, first_line) for label in diagnostic.labels
        ]
        if diagnostic.stack:
            diagnostic.stack = [
                self._moved(label, code_path, first_line) for label in diagnostic.stack
            ]
        return diagnostic

    def _moved(self, label: Label, code_path: str, first_line: int) -> Label:
        span = label.span
        if span is None or span.file.path != code_path:
            return label
        position = span.begin_pos
        index = position.line - first_line
        if not 0 <= index < len(self.lines):
            return label
        line = self.lines[index]
        if line is None:
            return label
        target = line.value
        if line.key is not None and position.col - 1 < line.value_column:
            # a label on an entry's key is about the entry: the key and its value
            target = Span(line.key.file, line.key.start, max(line.key.end, line.value.end))
        return Label(target, label.message)


def deeper_than(value: Any, limit: int) -> bool:
    """Whether lists and mappings nest in ``value`` more than ``limit`` levels."""
    level: list[Any] = [value]
    for _ in range(limit + 1):
        level = [
            item
            for container in level
            if isinstance(container, list | dict)
            for item in (container.values() if isinstance(container, dict) else container)
        ]
        if not level:
            return False
    return True


_START = yaml.Mark("", 0, 0, 0, None, None)


class _Mismatch(Exception):
    """The composed nodes do not match the loaded value."""
