"""The bounds of ``kcl import``: how big, how deep and how aliased an input may be.

``ImportLimits`` holds them (the command line sets ``max_input_size`` with
``--max-input-size``); every refusal is an ``ImportFailure`` located in the input:

* **size**: ``read_input(path, limits)`` reads at most ``max_input_size`` bytes (a
  file, a FIFO or a device alike) and refuses a longer input;
  ``check_memory(source, format)`` asks the memory policy of ``kcl run``
  (``kclpy.vm.limits``) whether the parsed values are likely to fit.
* **depth**: ``max_depth`` nested containers (libyaml's own limit; the reference
  stops at 128). JSON parses in C (a ``RecursionError`` past the interpreter's
  budget is located by ``deep_offset``); YAML's nodes and JSON schemas are measured
  by loops, not recursion, and the data writer counts as it goes.
* **aliases**: ``YamlBudget`` walks each composed YAML document's node graph (a
  node an alias names is shared, not copied) and counts the nodes it stands for
  once expanded; past ``alias_ratio`` nodes per character of input (at least
  ``alias_floor``) the collection that crosses the budget is refused, as is an
  alias inside the collection it names (a cycle).
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from typing import Any, Final

import attrs
import yaml

from kclpy.diag import Code, make_error
from kclpy.source import SourceFile, decode_source
from kclpy.tools.importer.failures import ImportFailure, failure_at, failure_at_offset

MAX_DEPTH: Final = 1000
"""Containers nested in one another (libyaml refuses more; the reference, 128)."""

ALIAS_RATIO: Final = 10
"""Nodes a YAML input may stand for, once its aliases are expanded, per character."""

ALIAS_FLOOR: Final = 100_000
"""Expanded nodes any YAML input may have, however short."""

MAX_INPUT_SIZE: Final = 1 << 30
"""Bytes of one input (the reference needs 7 GiB for 200 MB of JSON)."""

# bytes of memory the parsed values take per character of input (measured: JSON 5.7,
# YAML 57 at its peak, with the composed nodes)
_PARSED_SIZE: Final = {"json": 8, "toml": 8, "yaml": 64}
_READ_CHUNK: Final = 1 << 20


@attrs.frozen
class ImportLimits:
    """The bounds of one import (0 for ``max_input_size``: none)."""

    max_depth: int = MAX_DEPTH
    alias_ratio: int = ALIAS_RATIO
    alias_floor: int = ALIAS_FLOOR
    max_input_size: int = MAX_INPUT_SIZE


DEFAULT_LIMITS: Final = ImportLimits()


def read_input(path: str, limits: ImportLimits) -> SourceFile:
    """The text of the file ``path``, refused past ``limits.max_input_size`` bytes."""
    limit = limits.max_input_size
    try:
        with open(path, "rb") as handle:
            if not limit:
                data = handle.read()
            else:
                parts: list[bytes] = []
                size = 0
                while size <= limit:
                    part = handle.read(min(_READ_CHUNK, limit + 1 - size))
                    if not part:
                        break
                    parts.append(part)
                    size += len(part)
                data = b"".join(parts)
    except OSError as error:
        message = f"cannot read {path}: {error.strerror or error}"
        raise ImportFailure([make_error(Code.IO_ERROR, message, None)]) from None
    if limit and len(data) > limit:
        raise _too_big(path, limit)
    source, problem = decode_source(path, data)
    if problem is not None:
        raise ImportFailure([make_error(Code.IO_ERROR, problem, None)])
    return source


def _too_big(path: str, limit: int) -> ImportFailure:
    """The refusal of an input longer than ``limit`` bytes, at the start of the file
    (the line where it passes the limit may be most of the file: not shown)."""
    message = f"the input is larger than the limit of {_size(limit)}"
    note = "raise the limit with --max-input-size (0: none)"
    return failure_at_offset(SourceFile(path, ""), 0, message, note)


def check_memory(source: SourceFile, data_format: str) -> None:
    """Refuse, before parsing, an input whose values would not fit under the memory
    limit (the policy of ``kcl run``'s ``--max-memory``)."""
    from kclpy.values.errors import KclRuntimeError
    from kclpy.vm.limits import check_allocation

    try:
        check_allocation(len(source.text), _PARSED_SIZE.get(data_format, _PARSED_SIZE["yaml"]))
    except KclRuntimeError as error:
        message = f"the input is too big to read: {error.message}"
        raise failure_at_offset(source, 0, message, code=Code.RESOURCE_LIMIT_ERROR) from None


def too_deep(source: SourceFile, path: Sequence[str | int], max_depth: int) -> ImportFailure:
    """The failure for a value nested deeper than ``max_depth`` containers, at the
    bracket that opens the first one too deep (found by ``deep_offset``), else at
    the key ``path``."""
    message = f"the input is nested too deeply (more than {max_depth} levels)"
    offset = deep_offset(source.text, max_depth)
    if offset is None:
        return failure_at(source, message, path)
    return failure_at_offset(source, offset, message)


# a JSON (or TOML basic) string, a TOML literal string, or a bracket
_BRACKETS = re.compile(r""""(?:[^"\\]|\\.)*"|'[^'\n]*'|[\[\]{}]""", re.DOTALL)


def deep_offset(text: str, max_depth: int) -> int | None:
    """The offset of the first bracket opening a container nested deeper than
    ``max_depth`` (brackets inside JSON strings skipped), or None."""
    depth = 0
    for found in _BRACKETS.finditer(text):
        char = text[found.start()]
        if char in "[{":
            depth += 1
            if depth > max_depth:
                return found.start()
        elif char in "]}":
            depth -= 1
    return None


def check_depth(document: Any, source: SourceFile, max_depth: int) -> None:
    """Refuse a parsed value nested deeper than ``max_depth`` containers (a loop)."""
    stack: list[tuple[Any, int, list[str | int]]] = [(document, 1, [])]
    while stack:
        value, depth, path = stack.pop()
        if isinstance(value, dict):
            entries: Iterator[tuple[Any, Any]] = iter(value.items())
        elif isinstance(value, list):
            entries = enumerate(value)
        else:
            continue
        if depth > max_depth:
            raise too_deep(source, path, max_depth)
        for key, item in entries:
            if isinstance(item, dict | list):
                stack.append((item, depth + 1, [*path, key if isinstance(key, int) else str(key)]))


class YamlBudget:
    """The expansion budget of one YAML input, spent document by document."""

    def __init__(self, source: SourceFile, limits: ImportLimits) -> None:
        self.source = source
        self.max_depth = limits.max_depth
        self.ratio, self.floor = limits.alias_ratio, limits.alias_floor
        self.budget = max(self.floor, self.ratio * len(source.text))
        self.spent = 0

    def check(self, root: yaml.Node) -> None:
        """Measure the document ``root`` (depth, expansion, cycles); refuse it past
        the bounds. A loop over the node graph, each shared node measured once."""
        sizes: dict[int, tuple[int, int]] = {}  # id -> (expanded nodes, depth)
        # each open collection: the node, its children left, nodes and depth so far
        stack: list[tuple[yaml.Node, Iterator[yaml.Node], list[int]]] = []
        open_ids: set[int] = set()
        self._enter(root, stack, open_ids)
        while stack:
            node, children, totals = stack[-1]
            child = next(children, None)
            if child is None:
                stack.pop()
                open_ids.discard(id(node))
                sizes[id(node)] = (totals[0], totals[1])
                if self.spent + totals[0] > self.budget:
                    raise self._expansion(node, totals[0])
                if stack:
                    _add(stack[-1][2], totals[0], totals[1])
            elif id(child) in open_ids:
                raise self._failure(child, "an alias names a collection that contains it")
            elif id(child) in sizes:
                size, depth = sizes[id(child)]
                if len(stack) + depth > self.max_depth:
                    raise self._too_deep(node)
                _add(totals, size, depth)
            elif isinstance(child, yaml.ScalarNode):
                _add(totals, 1, 0)
            else:
                self._enter(child, stack, open_ids)
        self.spent += sizes[id(root)][0] if id(root) in sizes else 1

    def _enter(
        self,
        node: yaml.Node,
        stack: list[tuple[yaml.Node, Iterator[yaml.Node], list[int]]],
        open_ids: set[int],
    ) -> None:
        if not isinstance(node, yaml.CollectionNode):
            return
        if len(stack) + 1 > self.max_depth:
            raise self._too_deep(node)
        stack.append((node, _children(node), [1, 0]))
        open_ids.add(id(node))

    def _expansion(self, node: yaml.Node, size: int) -> ImportFailure:
        before = ", with the documents before it," if self.spent else ""
        return self._failure(
            node,
            f"this collection{before} stands for {self.spent + size:,} nodes once its "
            f"aliases are expanded, more than the {self.budget:,} allowed for this input",
            f"an input may stand for {self.ratio} nodes per character once its aliases "
            f"are expanded (at least {self.floor:,})",
        )

    def _too_deep(self, node: yaml.Node) -> ImportFailure:
        message = f"the input is nested too deeply (more than {self.max_depth} levels)"
        return self._failure(node, message)

    def _failure(self, node: yaml.Node, message: str, *notes: str) -> ImportFailure:
        return failure_at_mark(self.source, node.start_mark, message, *notes)


def _children(node: yaml.Node) -> Iterator[yaml.Node]:
    if isinstance(node, yaml.MappingNode):
        for key, value in node.value:
            yield key
            yield value
    else:
        yield from node.value


def _add(totals: list[int], size: int, depth: int) -> None:
    """Count a measured child (``size`` nodes, ``depth`` levels) into its parent's
    ``totals``."""
    totals[0] += size
    totals[1] = max(totals[1], depth + 1)


def failure_at_mark(
    source: SourceFile, mark: yaml.Mark | None, message: str, *notes: str
) -> ImportFailure:
    """An ImportFailure at a YAML mark (the start of the file without one)."""
    start = source.offset(mark.line + 1, mark.column + 1) if mark is not None else 0
    return failure_at_offset(source, start, message, *notes)


def _size(count: int) -> str:
    for unit, scale in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if count >= scale:
            return f"{count / scale:.1f} {unit}"
    return f"{count} bytes"
