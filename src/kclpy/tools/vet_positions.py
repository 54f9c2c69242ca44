"""Where ``kcl vet``'s data came from: the data as a KCL config literal written one
entry per line, with the data file's position of every line's key and value, so
that an error the validation program reports inside the literal is moved to the
data file's line and column (JSON or YAML alike: both are read by PyYAML's
composer, which keeps positions).

Takes the data text and its loaded value; returns a :class:`PositionedLiteral`
(when the positions cannot be matched to the value, e.g. YAML merge keys, every
error in the data points at the whole data).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from kclpy.diag import Diagnostic, Label
from kclpy.source import SourceFile, Span

INDENT = "    "


class _Line:
    """One line of the literal: the data positions of its key and of its value, and
    the column (0-based, in the literal) where the value starts."""

    __slots__ = ("key", "value", "value_column")

    def __init__(self, key: Span | None, value: Span, value_column: int) -> None:
        self.key = key
        self.value = value
        self.value_column = value_column


class PositionedLiteral:
    """The literal's text and, for each of its lines, where that line's data is."""

    def __init__(self, data_file: SourceFile, scalar: Callable[[Any], str]) -> None:
        self.data_file = data_file
        self.scalar = scalar
        self.parts: list[str] = []
        self.lines: list[_Line | None] = []

    @property
    def text(self) -> str:
        return "".join(self.parts)

    @classmethod
    def build(
        cls, data: str, value: Any, data_path: str, scalar: Callable[[Any], str]
    ) -> PositionedLiteral:
        """The literal of ``value`` (the loaded ``data``); when the data's nodes do not
        match the value one to one, the value on one line standing for the whole data."""
        import yaml

        # a raw tab can only be white space in JSON, but YAML refuses some: a space
        # in its place keeps every offset
        text = data.replace("\t", " ")
        literal = cls(SourceFile(data_path, data), scalar)
        try:
            literal._write(yaml.compose(text, Loader=yaml.SafeLoader), value, 0)
        except (yaml.YAMLError, _Mismatch):
            literal.parts = [scalar(value)]
            whole = Span(literal.data_file, 0, len(data.rstrip()))
            literal.lines = [_Line(None, whole, 0)]
        return literal

    def _span(self, node: Any) -> Span:
        return Span(self.data_file, node.start_mark.index, node.end_mark.index)

    def _write(self, node: Any, value: Any, depth: int) -> None:
        """Write ``value`` (at the current column; its first line already begun)."""
        import yaml

        if isinstance(value, dict) and value:
            if not isinstance(node, yaml.MappingNode) or len(node.value) != len(value):
                raise _Mismatch
            self._open("{", depth, node)
            for (key_node, value_node), (key, item) in zip(node.value, value.items(), strict=True):
                if not isinstance(key_node, yaml.ScalarNode) or key_node.value != str(key):
                    raise _Mismatch
                key_text = self.scalar(str(key)) + ": "
                self._begin(depth + 1, key_node, value_node, len(key_text))
                self.parts.append(key_text)
                self._write(value_node, item, depth + 1)
            self._close("}", depth)
        elif isinstance(value, list) and value:
            if not isinstance(node, yaml.SequenceNode) or len(node.value) != len(value):
                raise _Mismatch
            self._open("[", depth, node)
            for item_node, item in zip(node.value, value, strict=True):
                self._begin(depth + 1, None, item_node, 0)
                self._write(item_node, item, depth + 1)
            self._close("]", depth)
        else:
            self.parts.append(self.scalar(value))

    def _begin(self, depth: int, key: Any, node: Any, key_width: int) -> None:
        self.parts.append("\n" + INDENT * depth)
        key_span = None if key is None else self._span(key)
        self.lines.append(_Line(key_span, self._span(node), len(INDENT) * depth + key_width))

    def _open(self, bracket: str, depth: int, node: Any) -> None:
        self.parts.append(bracket)
        if not self.lines:  # the literal's first line: the whole data
            self.lines.append(_Line(None, self._span(node), 0))

    def _close(self, bracket: str, depth: int) -> None:
        self.parts.append("\n" + INDENT * depth + bracket)
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


class _Mismatch(Exception):
    """The composed nodes do not match the loaded value."""
