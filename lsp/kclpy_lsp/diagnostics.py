"""One LSP diagnostic per problem.

A problem can be reported twice on one range: the loader and the checker both
report a missing module (``E2F04`` "pkgpath nothere not found in the program"
and "Cannot find the module nothere from ..."), and a file loaded by several
programs is reported by each. The editor would show both, one over the other.
``unique`` keeps the first diagnostic of each range and code (of each range and
message for diagnostics without a code), in order.
"""

from __future__ import annotations

from collections.abc import Iterable

from lsprotocol import types


def unique(found: Iterable[types.Diagnostic]) -> list[types.Diagnostic]:
    """The diagnostics without a later one on the same range with the same code
    (the same message when it has no code)."""
    seen: set[tuple[int, int, int, int, str]] = set()
    kept: list[types.Diagnostic] = []
    for diagnostic in found:
        where = diagnostic.range
        what = str(diagnostic.code) if diagnostic.code is not None else diagnostic.message
        key = (where.start.line, where.start.character, where.end.line, where.end.character, what)
        if key not in seen:
            seen.add(key)
            kept.append(diagnostic)
    return kept
