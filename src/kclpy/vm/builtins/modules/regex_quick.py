"""Which patterns Python's own engine may run for the ``regex`` module, unbounded.

Loading RE2 (``google-re2``: its extension and libraries) costs about 2.4 ms, a
noticeable part of a run whose configuration checks a name or a size with one
``regex.match``. Python's engine (``re``, always loaded) backtracks, so it may run
only patterns whose backtracking stays small, on short texts; these are the
*backtrack-free* patterns: a sequence (groups, without flags, are read inline) of

* characters and classes of explicit characters and ranges (negated or not), ``.``;
* repetitions (``?``, ``*``, ``+``, ``{m,n}``, greedy) of one such character or class;
* alternations of different fixed strings (``(E|Ki|Ei)``);
* ``^`` / ``\\A`` first and the end of text (``\\Z``, the translation of ``$``),

where no element can give up a character to what follows it: the characters the
rest of the pattern may start with there are none that a variable repetition takes,
nor one by which an alternative extends another (``E`` and ``Ei``: ``i``). A match
attempt then takes each run whole, once (a failed attempt backs off a run one
character at a time, each step failing at once): linear; a search of a text of
``n`` characters makes up to ``n`` attempts. A pattern anchored at the start makes
one attempt, so there one element may give characters up (``^[0-9.]+[0-9]*$``):
the attempt tries each length of its run, the rest taking its runs whole. Either
way at most a few times ``n * n`` steps: with ``n`` at most ``SHORT_TEXT`` a few
milliseconds at worst, microseconds on the texts a configuration checks. Escapes of
Unicode classes (``\\d``, ``\\w``, ``\\b``: Python's differ from Rust's at the
edges), flags, lazy repetitions, look-around and back-references are left to RE2.

On those patterns both engines find the same leftmost-first matches with the same
groups (the syntax is the same after :class:`_Translator`'s rewriting, which the
backtracking path already hands to ``re`` to validate).
"""

from __future__ import annotations

import re
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Final, Protocol, cast
else:  # typing.cast without importing typing (the types are the checker's, quoted)

    def cast(_kind: str, value: object) -> object:
        return value


SHORT_TEXT: Final = 512
"""Texts up to this length go to Python's engine (longer ones to RE2)."""

_MAX = 0x10FFFF
_Ranges = list[tuple[int, int]]


if TYPE_CHECKING:  # used in annotations only

    class _State(Protocol):
        """``re._parser.State``: the flags the pattern sets for itself."""

        flags: int


if TYPE_CHECKING:  # used in annotations only

    class _Parsed(Protocol):
        """``re._parser.SubPattern``: a sequence of (opcode, argument) items, the
        argument's shape given by the opcode (see :func:`_elements`)."""

        data: list[tuple[int, object]]
        state: _State


if TYPE_CHECKING:  # used in annotations only

    class _Parser(Protocol):
        """``re._parser``, loaded with ``re`` but not in its public API (nor typed)."""

        def parse(self, text: str) -> _Parsed: ...


if TYPE_CHECKING:  # used in annotations only

    class _Constants(Protocol):
        """The opcodes of ``re._constants`` read here (ints with names)."""

        ANY: int
        AT: int
        AT_BEGINNING: int
        AT_BEGINNING_STRING: int
        AT_END_STRING: int
        BRANCH: int
        IN: int
        LITERAL: int
        MAX_REPEAT: int
        NEGATE: int
        NOT_LITERAL: int
        RANGE: int
        SUBPATTERN: int


def _constants() -> _Constants:
    return cast("_Constants", sys.modules["re._constants"])


def quick_pattern(pattern: str, translated: str) -> re.Pattern[str] | None:
    """``re``'s compiled ``translated`` (the Rust ``pattern`` in Python syntax) when it
    is backtrack-free, else None."""
    if not _plain_braces(pattern):
        return None
    parser = cast("_Parser", sys.modules["re._parser"])
    try:
        parsed = parser.parse(translated)
        if parsed.state.flags & ~re.UNICODE or not _backtrack_free(parsed):
            return None
        return re.compile(translated)
    except (re.error, RecursionError, OverflowError, ValueError):
        return None


def _plain_braces(pattern: str) -> bool:
    """Whether every ``{`` of the pattern opens a count ``{m}``, ``{m,}`` or ``{m,n}``
    (engines differ on the others: ``{,n}``, ``\\x{..}``, a literal ``{``)."""
    start = pattern.find("{")
    while start >= 0:
        end = pattern.find("}", start)
        low, _, high = pattern[start + 1 : end].partition(",") if end > 0 else ("", "", "")
        if not (_digits(low) and (not high or _digits(high))):
            return False
        start = pattern.find("{", end)
    return True


def _digits(text: str) -> bool:
    return text.isascii() and text.isdigit()


def _backtrack_free(parsed: _Parsed) -> bool:
    items = parsed.data
    elements = _elements(items, top=True)
    if elements is None:
        return False
    giving = 0  # elements that may give characters up to what follows
    for index, (_starts, _nullable, gives) in enumerate(elements):
        if not gives:
            continue
        follow: _Ranges = []  # what the rest may start with, up to its first sure character
        for starts, nullable, _gives in elements[index + 1 :]:
            follow.extend(starts)
            if not nullable:
                break
        if _meet(gives, follow):
            giving += 1
    constants = _constants()
    anchored = bool(items) and items[0] in (
        (constants.AT, constants.AT_BEGINNING),
        (constants.AT, constants.AT_BEGINNING_STRING),
    )
    return giving == 0 or (giving == 1 and anchored)


_Element = tuple[_Ranges, bool, _Ranges]
"""One element of the flat sequence: the characters it may start with, whether it may
match nothing, and the characters a match of it may give up to what follows (a
variable repetition's own; an alternation's, where one alternative extends another)."""


def _elements(items: list[tuple[int, object]], top: bool = False) -> list[_Element] | None:
    constants = _constants()
    out: list[_Element] = []
    for position, (op, value) in enumerate(items):
        if op is constants.AT:
            if value in (constants.AT_BEGINNING, constants.AT_BEGINNING_STRING):
                if not (top and position == 0):
                    return None
            elif value is constants.AT_END_STRING:
                out.append(([], False, []))  # (no character may follow it)
            else:
                return None
            continue
        if op is constants.SUBPATTERN:
            _group, add_flags, del_flags, inner = cast(
                "tuple[int | None, int, int, _Parsed]", value
            )
            nested = _elements(inner.data) if not (add_flags or del_flags) else None
            if nested is None:
                return None
            out.extend(nested)
            continue
        if op is constants.BRANCH:
            branch = _alternatives(cast("tuple[None, list[_Parsed]]", value)[1])
            if branch is None:
                return None
            out.append(branch)
            continue
        if op is constants.MAX_REPEAT:
            low, high, inner = cast("tuple[int, int, _Parsed]", value)
            atom = _atom(inner.data) if len(inner.data) == 1 else None
            if atom is None:
                return None
            out.append((atom, low == 0, atom if low != high else []))
            continue
        atom = _atom([(op, value)])
        if atom is None:
            return None
        out.append((atom, False, []))
    return out


def _alternatives(branches: list[_Parsed]) -> _Element | None:
    """An alternation of fixed strings, none twice (after a match of one, another may
    only go on where it extends it: by the character after the shorter one)."""
    constants = _constants()
    texts: list[tuple[int, ...]] = []
    for branch in branches:
        codes = tuple(cast("int", code) for kind, code in branch.data if kind is constants.LITERAL)
        if len(codes) != len(branch.data) or codes in texts:
            return None
        texts.append(codes)
    starts = [(text[0], text[0]) for text in texts if text]
    gives = [
        (longer[len(text)], longer[len(text)])
        for text in texts
        for longer in texts
        if len(longer) > len(text) and longer[: len(text)] == text
    ]
    return starts, any(not text for text in texts), gives


def _atom(items: list[tuple[int, object]]) -> _Ranges | None:
    """The characters one character item matches (None: not a plain one)."""
    constants = _constants()
    ((op, value),) = items
    if op is constants.LITERAL:
        return [(cast("int", value), cast("int", value))]
    if op is constants.NOT_LITERAL:
        return _complement([(cast("int", value), cast("int", value))])
    if op is constants.ANY:
        return [(0, 9), (11, _MAX)]  # all but "\n" (no DOTALL: flags are refused)
    if op is not constants.IN:
        return None
    ranges: _Ranges = []
    negated = False
    for kind, item in cast("list[tuple[int, object]]", value):
        if kind is constants.NEGATE:
            negated = True
        elif kind is constants.LITERAL:
            code = cast("int", item)
            ranges.append((code, code))
        elif kind is constants.RANGE:
            ranges.append(cast("tuple[int, int]", item))
        else:
            return None  # a category (\d, \w, \s) inside the class
    return _complement(ranges) if negated else ranges


def _complement(ranges: _Ranges) -> _Ranges:
    out: _Ranges = []
    low = 0
    for start, end in sorted(ranges):
        if start > low:
            out.append((low, start - 1))
        low = max(low, end + 1)
    if low <= _MAX:
        out.append((low, _MAX))
    return out


def _meet(left: _Ranges, right: _Ranges) -> bool:
    return any(a <= d and c <= b for a, b in left for c, d in right)
