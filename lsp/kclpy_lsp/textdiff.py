"""Whole-line edits between two versions of a text, in time linear in their size.

Formatting answers with the edits that turn the buffer into ``kcl fmt``'s text.
``difflib.SequenceMatcher`` finds the smallest such edits, but its time grows
with the square of the number of lines when many lines repeat (``}``, blank
lines, ``ports = [80]``), which every configuration file has: a 40 KB file took
1.5 s, a 250 KB one over 400 s. Here:

1. the lines both versions start and end with are left alone;
2. in between, the lines that occur exactly once in each version and in the same
   order in both (the longest such sequence, found in ``n log n``: patience
   diffing) anchor the comparison;
3. each gap between anchors is compared line by line with ``SequenceMatcher``
   when it is small (at most ``SMALL_GAP`` line pairs: bounded work per gap), and
   replaced whole otherwise (after its common first and last lines).

``line_changes`` gives the runs of lines that differ (sorted, never
overlapping); ``edits_of`` makes them whole-line edits (``line:0`` to
``line:0``), a run of lines replaced by as many lines one edit per line (small
edits keep the editor's cursor and folds in place); ``joined_edit`` makes them
one edit from the first changed line to the last (for a file that changes all
over: one edit is cheaper to build, send and apply than a hundred thousand).
"""

from __future__ import annotations

import difflib
from bisect import bisect_left
from collections import Counter
from typing import NamedTuple

from lsprotocol import types

SMALL_GAP = 2500  # line pairs a gap may have to be compared line by line

Block = tuple[int, int, int]  # a run of equal lines: start in old, start in new, length


class Change(NamedTuple):
    """Old lines ``first..stop`` (0-based, ``stop`` excluded) become ``lines``."""

    first: int
    stop: int
    lines: list[str]


def line_changes(before: str, after: str) -> list[Change]:
    """The runs of lines that differ between ``before`` and ``after``, in order."""
    old = before.splitlines(keepends=True)
    new = after.splitlines(keepends=True)
    changes: list[Change] = []
    old_at = new_at = 0
    for old_start, new_start, size in [*matching_blocks(old, new), (len(old), len(new), 0)]:
        if old_at != old_start or new_at != new_start:
            changes.append(Change(old_at, old_start, new[new_at:new_start]))
        old_at, new_at = old_start + size, new_start + size
    return changes


def line_edits(before: str, after: str) -> list[types.TextEdit]:
    """The whole-line edits turning ``before`` into ``after``."""
    return edits_of(line_changes(before, after))


def edits_of(changes: list[Change]) -> list[types.TextEdit]:
    """Each change as an edit; a run replaced by as many lines, one edit a line."""
    edits: list[types.TextEdit] = []
    for first, stop, lines in changes:
        if stop - first == len(lines):
            edits.extend(
                types.TextEdit(_lines(first + index, first + index + 1), line)
                for index, line in enumerate(lines)
            )
        else:
            edits.append(types.TextEdit(_lines(first, stop), "".join(lines)))
    return edits


def joined_edit(changes: list[Change], before: str) -> list[types.TextEdit]:
    """One edit from the first changed line to the last (none without changes)."""
    if not changes:
        return []
    first, stop = changes[0].first, changes[-1].stop
    old = before.splitlines(keepends=True)
    parts: list[str] = []
    at = first
    for change in changes:
        parts.extend(old[at : change.first])
        parts.extend(change.lines)
        at = change.stop
    return [types.TextEdit(_lines(first, stop), "".join(parts))]


def _lines(first: int, stop: int) -> types.Range:
    return types.Range(types.Position(first, 0), types.Position(stop, 0))


def matching_blocks(old: list[str], new: list[str]) -> list[Block]:
    """Runs of equal lines, in order in both lists, not overlapping."""
    head = _common_head(old, new, 0, 0, len(old), len(new))
    tail = _common_tail(old, new, head, head, len(old), len(new))
    blocks: list[Block] = [(0, 0, head)] if head else []
    old_at = new_at = head
    old_stop, new_stop = len(old) - tail, len(new) - tail
    for old_index, new_index in _anchors(old, new, head, head, old_stop, new_stop):
        blocks.extend(_gap(old, new, old_at, new_at, old_index, new_index))
        blocks.append((old_index, new_index, 1))
        old_at, new_at = old_index + 1, new_index + 1
    blocks.extend(_gap(old, new, old_at, new_at, old_stop, new_stop))
    if tail:
        blocks.append((old_stop, new_stop, tail))
    return _merged(blocks)


def _common_head(old: list[str], new: list[str], i: int, j: int, i_end: int, j_end: int) -> int:
    count = 0
    while i + count < i_end and j + count < j_end and old[i + count] == new[j + count]:
        count += 1
    return count


def _common_tail(old: list[str], new: list[str], i: int, j: int, i_end: int, j_end: int) -> int:
    count = 0
    while (
        i_end - count > i and j_end - count > j and old[i_end - count - 1] == new[j_end - count - 1]
    ):
        count += 1
    return count


def _anchors(
    old: list[str], new: list[str], i: int, j: int, i_end: int, j_end: int
) -> list[tuple[int, int]]:
    """The longest run, in order in both, of lines unique in each range."""
    old_counts = Counter(old[i:i_end])
    new_counts = Counter(new[j:j_end])
    new_index = {new[index]: index for index in range(j, j_end) if new_counts[new[index]] == 1}
    pairs = [
        (index, new_index[old[index]])
        for index in range(i, i_end)
        if old_counts[old[index]] == 1 and old[index] in new_index
    ]
    return _increasing(pairs)


def _increasing(pairs: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """The longest subsequence of ``pairs`` whose second items increase."""
    tails: list[int] = []  # the smallest last second item of a run of each length
    ends: list[int] = []  # the index in ``pairs`` of that run's last pair
    before: list[int] = []  # for each pair, the index of the pair preceding it in its run
    for index, (_old, new) in enumerate(pairs):
        length = bisect_left(tails, new)
        if length == len(tails):
            tails.append(new)
            ends.append(index)
        else:
            tails[length] = new
            ends[length] = index
        before.append(ends[length - 1] if length else -1)
    found: list[tuple[int, int]] = []
    index = ends[-1] if ends else -1
    while index != -1:
        found.append(pairs[index])
        index = before[index]
    return found[::-1]


def _gap(old: list[str], new: list[str], i: int, j: int, i_end: int, j_end: int) -> list[Block]:
    """Equal runs between two anchors: compared line by line when the gap is small."""
    head = _common_head(old, new, i, j, i_end, j_end)
    tail = _common_tail(old, new, i + head, j + head, i_end, j_end)
    blocks: list[Block] = [(i, j, head)] if head else []
    i_inner, j_inner = i + head, j + head
    i_stop, j_stop = i_end - tail, j_end - tail
    if 0 < (i_stop - i_inner) * (j_stop - j_inner) <= SMALL_GAP:
        matcher = difflib.SequenceMatcher(
            a=old[i_inner:i_stop], b=new[j_inner:j_stop], autojunk=False
        )
        blocks.extend(
            (i_inner + a, j_inner + b, size) for a, b, size in matcher.get_matching_blocks() if size
        )
    if tail:
        blocks.append((i_stop, j_stop, tail))
    return blocks


def _merged(blocks: list[Block]) -> list[Block]:
    """Adjacent runs joined into one."""
    merged: list[Block] = []
    for block in blocks:
        if merged:
            i, j, size = merged[-1]
            if i + size == block[0] and j + size == block[1]:
                merged[-1] = (i, j, size + block[2])
                continue
        merged.append(block)
    return merged
