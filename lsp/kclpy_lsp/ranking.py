"""Completion lists that stay short and put the likely names first.

Completion offers names from several sources (the attributes of a block, the
names in scope, builtins, keywords, schemas of packages not imported yet), which
in a large workspace come to many hundreds of items: hundreds of kilobytes per
keystroke, which the editor then sorts and filters again. Here:

* the word typed before the cursor (``typed_word``) filters each source: a name
  is kept when the word's letters occur in it in order, the first of them at the
  start of the name or of one of its parts (``pers`` and ``PS`` find
  ``PersonSpec``), case ignored, as editors match;
* each source has a rank (``Rank``): an item's ``sort_text`` starts with its
  source's rank, then its own order within the source;
* at most ``LIMIT`` items are sent; when some were left out the list is marked
  incomplete, so the editor asks again as the word grows.

Takes completion items; returns an LSP ``CompletionList``.
"""

from __future__ import annotations

import re
from enum import IntEnum

from lsprotocol import types

LIMIT = 150  # items in one answer at most

_WORD = re.compile(r"[A-Za-z_$][\w$]*$")
_PART_START = re.compile(r"(?:^|(?<=[_$\W])|(?<=[a-z0-9])(?=[A-Z]))\w")


class Rank(IntEnum):
    """The order of the sources of completion items (lower first)."""

    UNSET = 0  # attributes of the block not set yet, members after a dot, values
    LOCAL = 1  # names of the enclosing scopes
    PACKAGE = 2  # names of the package
    SET = 3  # attributes of the block already set
    BUILTIN = 4
    KEYWORD = 5
    IMPORTABLE = 6  # schemas of packages not imported yet


def typed_word(prefix: str) -> str:
    """The name being typed at the end of ``prefix`` ('' after a space or a dot)."""
    found = _WORD.search(prefix)
    return found.group().lstrip("$") if found is not None else ""


def matches(label: str, word: str) -> bool:
    """Whether ``word``'s letters occur in ``label`` in order, the first one at the
    start of ``label`` or of one of its parts (case ignored)."""
    if not word:
        return True
    lowered = label.lower()
    wanted = word.lower()
    for start in (found.start() for found in _PART_START.finditer(label)):
        if lowered[start] == wanted[0] and _in_order(lowered, wanted, start):
            return True
    return False


def _in_order(text: str, word: str, start: int) -> bool:
    index = start
    for char in word:
        index = text.find(char, index)
        if index == -1:
            return False
        index += 1
    return True


def ranked(item: types.CompletionItem, rank: Rank) -> types.CompletionItem:
    """The item with its source's rank in front of its ``sort_text``."""
    item.sort_text = f"{int(rank)}{item.sort_text or item.label}"
    return item


def bounded(
    groups: list[tuple[Rank, list[types.CompletionItem]]], word: str
) -> types.CompletionList:
    """The items of every source that match ``word``, best ranks first, at most
    ``LIMIT`` of them (an item a better source offers already is not repeated)."""
    chosen: dict[tuple[str, str], types.CompletionItem] = {}
    complete = True
    for rank, items in sorted(groups, key=lambda group: group[0]):
        for item in sorted(items, key=lambda item: item.sort_text or item.label):
            key = (item.label, item.insert_text or item.label)
            if key in chosen or not matches(item.filter_text or item.label, word):
                continue
            if len(chosen) == LIMIT:
                complete = False
                break
            chosen[key] = ranked(item, rank)
    return types.CompletionList(is_incomplete=not complete, items=list(chosen.values()))
