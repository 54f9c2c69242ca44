"""The KCL lexer: ply.lex rules that cut source text into raw tokens.

Takes a string (or a slice of one) and returns a list of ``Token``
objects whose ``type`` is a raw kind, ``value`` the matched text and
``lexpos`` the code-point offset in the whole text. Everything is a plain
string rule, so ply matches one master regular expression with no Python call
per token; ply orders string rules by decreasing regex length, which is why
every operator is written fully escaped (longer operators get longer regexes)
and the catch-all ``ERRORCHAR`` is the only one-character regex. Keywords,
literal values, indentation and error messages are the layout filter's job
(:mod:`kclpy.syntax.layout`).
"""

from __future__ import annotations

import re
import sys
import threading
from collections.abc import Callable

from kclpy.patterns import compiled
from kclpy.syntax.tokens import Token

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    _Master = tuple[
        Any, dict[str, str | None], dict[str, list[tuple[str, str]]], dict[str, tuple[Any, str]]
    ]

# string.ascii_letters without importing ``string`` (which compiles string.Template's
# pattern at import, 0.3 ms of every cold run)
_ASCII_LETTERS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"

tokens = (
    "STRING",
    "NUMBER",
    "NAME",
    "COMMENT",
    "NEWLINE",
    "LPAREN",
    "RPAREN",
    "LBRACKET",
    "RBRACKET",
    "LBRACE",
    "RBRACE",
    "COMMA",
    "COLON",
    "DOT",
    "ELLIPSIS",
    "AT",
    "QUESTION",
    "RARROW",
    "PLUS",
    "MINUS",
    "STAR",
    "SLASH",
    "DSLASH",
    "PERCENT",
    "DSTAR",
    "LSHIFT",
    "RSHIFT",
    "AMP",
    "PIPE",
    "CARET",
    "TILDE",
    "LT",
    "GT",
    "LE",
    "GE",
    "EQ",
    "NE",
    "ASSIGN",
    "PLUSEQ",
    "MINUSEQ",
    "STAREQ",
    "SLASHEQ",
    "DSLASHEQ",
    "PERCENTEQ",
    "DSTAREQ",
    "LSHIFTEQ",
    "RSHIFTEQ",
    "AMPEQ",
    "PIPEEQ",
    "CARETEQ",
    "SEMI",
    "BANG",
    "DOLLAR",
    "BACKSLASH",
    "ERRORCHAR",
)

# Strings: triple-quoted (or unterminated: to the end of the file), then
# single-line (or unterminated: to the end of the line), as the reference scans
# them. The layout filter tells terminated and unterminated apart.
_TRIPLE_DQ = r'"""[^"\\]*(?:(?:\\[\s\S]|"(?!""))[^"\\]*)*"""'
_TRIPLE_SQ = r"'''[^'\\]*(?:(?:\\[\s\S]|'(?!''))[^'\\]*)*'''"
_SINGLE_DQ = r'"[^"\\\n]*(?:\\[^\n][^"\\\n]*)*"'
_SINGLE_SQ = r"'[^'\\\n]*(?:\\[^\n][^'\\\n]*)*'"
_UNTERMINATED_TRIPLE = r'"""[\s\S]*|' r"'''[\s\S]*"
_UNTERMINATED_SINGLE = r'"[^\n]*|' r"'[^\n]*"
TERMINATED_STRING = f"[rR]?(?:{_TRIPLE_DQ}|{_TRIPLE_SQ}|{_SINGLE_DQ}|{_SINGLE_SQ})"

t_STRING = (
    f"[rR]?(?:{_TRIPLE_DQ}|{_TRIPLE_SQ}|{_UNTERMINATED_TRIPLE}"
    f"|{_SINGLE_DQ}|{_SINGLE_SQ}|{_UNTERMINATED_SINGLE})"
)

# Numbers as the reference scans them: a prefix or decimal digits, an optional
# fraction (a dot not followed by a dot or a letter) or exponent, and any
# identifier-like suffix (validated later: ``Ki``, ``M``... or an error).
t_NUMBER = (
    r"(?:0[box][0-9A-Fa-f_]*|[0-9][0-9_]*)"
    r"(?:\.(?![.]|[^\W\d])(?:[0-9][0-9_]*(?:[eE][+-]?[0-9_]*)?)?|[eE][+-]?[0-9_]*)?"
    r"(?:[^\W\d]\w*)?"
)

t_NAME = r"\$?[^\W\d]\w*"
t_COMMENT = r"\#[^\n]*"
t_NEWLINE = r"\n"
t_ignore_LINE_CONTINUATION = r"\\(?:\n|\Z)"

t_DSTAREQ = r"\*\*\="
t_DSLASHEQ = r"\/\/\="
t_LSHIFTEQ = r"\<\<\="
t_RSHIFTEQ = r"\>\>\="
t_ELLIPSIS = r"\.\.\."
t_DSTAR = r"\*\*"
t_DSLASH = r"\/\/"
t_LSHIFT = r"\<\<"
t_RSHIFT = r"\>\>"
t_PLUSEQ = r"\+\="
t_MINUSEQ = r"\-\="
t_STAREQ = r"\*\="
t_SLASHEQ = r"\/\="
t_PERCENTEQ = r"\%\="
t_AMPEQ = r"\&\="
t_PIPEEQ = r"\|\="
t_CARETEQ = r"\^\="
t_EQ = r"\=\="
t_NE = r"\!\="
t_LE = r"\<\="
t_GE = r"\>\="
t_RARROW = r"\-\>"
t_LPAREN = r"\("
t_RPAREN = r"\)"
t_LBRACKET = r"\["
t_RBRACKET = r"\]"
t_LBRACE = r"\{"
t_RBRACE = r"\}"
t_COMMA = r"\,"
t_COLON = r"\:"
t_DOT = r"\."
t_AT = r"\@"
t_QUESTION = r"\?"
t_PLUS = r"\+"
t_MINUS = r"\-"
t_STAR = r"\*"
t_SLASH = r"\/"
t_PERCENT = r"\%"
t_AMP = r"\&"
t_PIPE = r"\|"
t_CARET = r"\^"
t_TILDE = r"\~"
t_LT = r"\<"
t_GT = r"\>"
t_ASSIGN = r"\="
t_SEMI = r"\;"
t_BANG = r"\!"
t_DOLLAR = r"\$"
t_BACKSLASH = r"\\"
t_ERRORCHAR = r"."

# Whitespace the reference skips: space, tab, CR, VT, FF, NEL, LRM/RLM, LS/PS.
t_ignore = " \t\r\x0b\x0c\x85\u200e\u200f\u2028\u2029"


def t_error(token: Any) -> None:  # pragma: no cover - ERRORCHAR matches everything
    token.lexer.skip(1)


def _rules() -> list[tuple[str, str]]:
    """The string rules in ply's order: by decreasing regex length, a stable sort of
    the rules in name order (as ``dir()`` lists them to ply)."""
    rules = [
        (name, value)
        for name, value in sorted(globals().items())
        if name.startswith("t_") and name != "t_ignore" and isinstance(value, str)
    ]
    rules.sort(key=lambda rule: len(rule[1]), reverse=True)
    return rules


def master_pattern() -> str:
    """The one regular expression ply.lex builds from the string rules above, each
    rule a named group. Built here so that running the lexer imports no ply (its
    reflection costs ~15 ms of start-up); a test checks ply.lex builds the same."""
    return "|".join(f"(?P<{name}>{regex})" for name, regex in _rules())


def _punctuation() -> dict[str, list[tuple[str, str]]]:
    """Per first character, the literal rules (operators, brackets, newline) that can
    start with it, in ply's order: the master regex would try them in that order, and
    no other rule can match at such a character, so ``startswith`` tests give the same
    token (sre tries ~60 alternatives in turn: ``}`` took 1.4 us, a name 0.2 us).
    ``$`` (a name may start with it) and ``\\`` (line continuation) stay with the regex."""
    table: dict[str, list[tuple[str, str]]] = {}
    for name, regex in _rules():
        if name.startswith("t_ignore") or not compiled(r"(?:\\[^\w\s]|\\n)+").fullmatch(regex):
            continue
        literal = (
            regex.encode().decode("unicode_escape")
            if regex == r"\n"
            else compiled(r"\\(.)").sub(r"\1", regex)
        )
        if literal[0] in "$\\":
            continue
        table.setdefault(literal[0], []).append((literal, sys.intern(name[2:])))
    return table


def _simple() -> dict[str, tuple[Any, str]]:
    """Per first character, the one rule that matches there whenever the master regex
    would pick it, as (match function, kind): ASCII letters and ``_`` start a name
    (but ``r``/``R`` may start a raw string), digits a number, quotes a string
    (terminated or not, the string rule always matches there). Matching that rule
    alone (group 1, and the spaces after it) spares sre trying the string
    alternatives first, the group lookup and a turn of the loop for the blank."""
    name = compiled(f"({t_NAME}) *").match
    number = compiled(f"({t_NUMBER}) *").match
    quoted = compiled(f"({t_STRING}) *").match
    table = {char: (name, "NAME") for char in _ASCII_LETTERS + "_" if char not in "rR"}
    table.update((char, (number, "NUMBER")) for char in "0123456789")
    table.update((char, (quoted, "STRING")) for char in "\"'")
    return table


_master: _Master | None = None
_scan: Any = None
_lock = threading.Lock()


def _master_regex() -> _Master:
    """The compiled master regex, per group name the token kind (None: skipped), the
    punctuation table and the table of simple tokens."""
    global _master
    with _lock:
        if _master is None:
            regex = compiled(master_pattern(), re.UNICODE)
            kinds = {
                name: None if name.startswith("t_ignore_") else sys.intern(name[2:])
                for name in regex.groupindex
            }
            _master = (regex, kinds, _punctuation(), _simple())
    return _master


_PLAIN_LONG = r'[rR]?(?:"""(?:[^"]++|"(?!""))*+(?<!\\)"""|' r"'''(?:[^']++|'(?!''))*+(?<!\\)''')"
"""A long string whose closing quotes follow no backslash (most docstrings): matched by
runs of one excluded character, a quote of its kind alone between them, which sre scans
far faster than the full pattern's two-character class with its escape pairs (the k8s
models' docstrings, most of the characters of a konfig run, quote words). Where it
matches, the full pattern matches the same text: only there does a backslash pair
with the character after it, which differs only at a quote right after a backslash:
a lone one is content in both, one that starts three quotes fails this pattern (its
closing quotes follow no backslash)."""


def scanner_pattern(line_breaks: bool = False) -> str:
    """One regular expression that cuts a run of ordinary tokens in C (``findall``).

    Each match is the blanks before a token (and line continuations), then the token
    in one of six groups: an ASCII name (not a raw string's ``r``, not touching a
    non-ASCII character), punctuation, a number, a string, a comment, or any other
    character, or the end of the text. Where the first five match, the master regex
    picks the same rule (the first character decides between them; punctuation keeps
    ply's order within a first character); the sixth group marks where
    :func:`raw_tokens` hands over to the general loop. Nothing is skipped: every
    character is in some match. Blanks and line continuations are taken without
    backtracking (no token starts with a blank; one always follows them, as any
    character or the end is one), which spares sre saving its state at each.

    ``line_breaks`` (the fused pass of :mod:`kclpy.syntax.scan`): a line break in the
    operator group also takes the blank lines after it (a run of line breaks is one
    NEWLINE to the layout, and the blanks before the next token are then exactly that
    line's indentation). Not a group of its own: each group costs every match."""
    punctuation = _punctuation()
    if line_breaks:
        del punctuation["\n"]
    alone = [
        first for first, rules in punctuation.items() if [rule[0] for rule in rules] == [first]
    ]
    longer = [
        literal
        for first, rules in punctuation.items()
        if first not in alone
        for literal, _kind in rules
    ]
    operators = "[" + "".join(map(re.escape, alone)) + "]|" + "|".join(map(re.escape, longer))
    blank = "[" + re.escape(t_ignore) + "]*+"
    if line_breaks:
        operators = r"\n(?:" + blank + r"\n)*+|" + operators
    blanks = blank + r"(?:\\(?:\n|\Z)" + blank + ")*+"
    name = r"(?![rR][\"'])\$?[A-Za-z_][A-Za-z0-9_]*+(?![^\x00-\x7f])"  # possessive: no shorter
    other = "[^" + re.escape(t_ignore) + r"]|\Z"
    strings = f"{_PLAIN_LONG}|{t_STRING}"
    groups = (name, operators, t_NUMBER, strings, t_COMMENT, other)
    return f"({blanks})" + "(?:" + "|".join(f"({group})" for group in groups) + ")"


def punctuation_kinds() -> dict[str, str]:
    """The raw kind of each punctuation literal the scanner's operator group takes."""
    return {literal: kind for rules in _punctuation().values() for literal, kind in rules}


def _scanner() -> tuple[Any, dict[str, str]]:
    """The compiled scanner pattern and the kind of each punctuation literal."""
    global _scan
    with _lock:
        if _scan is None:
            _scan = (compiled(scanner_pattern()).findall, punctuation_kinds())
    return _scan  # type: ignore[no-any-return]


_SPACES = compiled("[" + t_ignore + "]+")


def raw_tokens(text: str, start: int = 0, end: int | None = None) -> list[Token]:
    """The raw tokens of ``text[start:end]``, with offsets into the whole ``text``.

    The scanner pattern cuts the text into (blanks, token) pieces in one C call;
    this loop only turns them into tokens, offsets counted from the lengths. At the
    first character the scanner leaves to the general rules (a stray character, a
    lone ``$`` or ``\\``, a non-ASCII name) the general loop takes the rest.
    """
    stop = len(text) if end is None else end
    findall, punctuation = _scan or _scanner()
    result: list[Token] = []
    append = result.append
    new = object.__new__  # a token without an __init__ call (60 of the 150 ns of Token(...))
    pos = start
    for blank, name, operator, number, quoted, comment, _other in findall(text, start, stop):
        if blank:
            pos += len(blank)
        if name:
            kind = "NAME"
            value = name
        elif operator:
            kind = punctuation[operator]
            value = operator
        elif quoted:
            kind = "STRING"
            value = quoted
        elif number:
            kind = "NUMBER"
            value = number
        elif comment:
            kind = "COMMENT"
            value = comment
        else:  # (only blanks were left when the text ends)
            if pos < stop:
                _general_tokens(text, pos, stop, append)
            break
        after = pos + len(value)
        token = new(Token)
        token.type = kind
        token.value = value
        token.lexpos = pos
        token.end = after
        append(token)
        pos = after
    return result


def _general_tokens(text: str, start: int, stop: int, append: Callable[[Token], None]) -> None:
    """Append the raw tokens of ``text[start:stop]`` by every rule: ply's master regular
    expression in a tight loop (what ply's own ``token()`` does, minus its per-token
    bookkeeping), skipping blanks in runs and taking punctuation, names and numbers
    from tables by their first character."""
    regex, kinds, punctuation, simple = _master_regex()
    match = regex.match
    spaces = _SPACES.match
    ignore = t_ignore
    unicode = not text.isascii()  # names then follow the XID rules (_xid_name)
    pos = start
    while pos < stop:
        char = text[pos]
        if char in ignore:
            pos = spaces(text, pos, stop).end()  # type: ignore[union-attr]
            continue
        rule = simple.get(char)
        if rule is not None:
            found = rule[0](text, pos, stop)
            after = found.end(1)
            if unicode and rule[1] == "NAME" and _beyond_ascii(text, pos, after, stop):
                pos = _xid_name(text, pos, stop, append)
                continue
            append(Token(rule[1], found.group(1), pos, after))
            pos = found.end()
            continue
        candidates = punctuation.get(char)
        if candidates is not None:
            for literal, literal_kind in candidates:
                if text.startswith(literal, pos, stop):
                    after = pos + len(literal)
                    append(Token(literal_kind, literal, pos, after))
                    pos = after
                    break
            else:  # pragma: no cover - every punctuation character is a token
                raise AssertionError(f"no punctuation rule for {char!r}")
            continue
        found = match(text, pos, stop)
        if found is None:  # pragma: no cover - ERRORCHAR matches any character
            append(Token("ERRORCHAR", text[pos], pos, pos + 1))
            pos += 1
            continue
        after = found.end()
        kind = kinds[found.lastgroup]
        if unicode and (kind == "NAME" or (kind == "ERRORCHAR" and char.isidentifier())):
            pos = _xid_name(text, pos, stop, append)
            continue
        if kind is not None:
            append(Token(kind, found.group(), pos, after))
        pos = after


def general_tokens(text: str, start: int = 0, end: int | None = None) -> list[Token]:
    """The raw tokens of ``text[start:end]`` by the general loop alone (tests compare
    them with :func:`raw_tokens`)."""
    result: list[Token] = []
    _general_tokens(text, start, len(text) if end is None else end, result.append)
    return result


# Names take the characters the reference's lexer takes: Unicode XID_Start (and "_")
# first, XID_Continue after (Rust's unicode-xid; ``str.isidentifier`` checks the same
# properties). The NAME rule's ``\w`` differs both ways: it stops at combining marks and
# vowel signs (``é`` written with a combining accent, ``नाम``) and at ``‿``, misses a
# few letters (``℘``), and takes ``²`` or ``½``. An ASCII text has none of these; in
# another, a name that touches a non-ASCII character is scanned again by these rules.


def _beyond_ascii(text: str, start: int, end: int, stop: int) -> bool:
    """Whether the name matched at ``text[start:end]`` holds or is followed by a
    non-ASCII character (then :func:`_xid_name` decides where it ends)."""
    return not text[start:end].isascii() or (end < stop and not text[end].isascii())


def _xid_name(text: str, pos: int, stop: int, append: Callable[[Token], None]) -> int:
    """Append the name at ``pos`` (maybe after ``$``) by the XID rules, or an ERRORCHAR
    when its first character cannot start one; the offset to go on from."""
    start = pos + 1 if text[pos] == "$" else pos
    if start >= stop or not text[start].isidentifier():
        append(Token("ERRORCHAR", text[pos], pos, pos + 1))
        return pos + 1
    end = start + 1
    while end < stop and ("a" + text[end]).isidentifier():
        end += 1
    append(Token("NAME", text[pos:end], pos, end))
    return end


def regex_tokens(text: str) -> list[Token]:
    """The raw tokens from the master regex alone (tests compare with raw_tokens)."""
    regex, kinds, _, _ = _master_regex()
    result: list[Token] = []
    pos = 0
    while pos < len(text):
        if text[pos] in t_ignore:
            pos = _SPACES.match(text, pos).end()  # type: ignore[union-attr]
            continue
        found = regex.match(text, pos)
        assert found is not None
        kind = kinds[found.lastgroup]
        if kind is not None:
            result.append(Token(kind, found.group(), pos, found.end()))
        pos = found.end()
    return result
