"""The ``regex`` system module: Rust-style regular expressions in linear time.

The reference uses Rust's ``fancy-regex``: the ``regex`` crate (a linear-time
engine) for plain patterns, a backtracking engine with a bound for look-around and
backreferences. So here: a pattern is translated for RE2 (``google-re2``, linear
time; Rust's Unicode ``\\d \\w \\s`` become explicit classes) and runs there;
only a pattern RE2 cannot express (look-around, backreferences, ``\\<``/``\\>``,
the ``x`` flag) runs on the ``regex`` package's backtracking engine, each search
bounded by ``BACKTRACK_SECONDS`` (past it: ``RuntimeError(BacktrackLimitExceeded)``).
RE2's ``\\b`` is ASCII: patterns with ``\\b``/``\\B`` use RE2 on ASCII texts and
the bounded engine on others, so results stay the reference's. For the backtracking
engine, patterns are translated to Python syntax:

* ``(?<name>...)`` becomes ``(?P<name>...)`` and ``\\k<name>`` becomes ``(?P=name)``;
* ``$`` means end of text unless multi-line mode is on (Python's ``$`` also matches
  before a final newline), ``\\z`` is ``\\Z``;
* inline flags may appear anywhere (``a(?i)b``): they become scoped groups running to
  the end of the enclosing group, reopened after each ``|``;
* ``\\x{...}``, ``\\u{...}``, ``\\U{...}`` code points; ``[[:alpha:]]`` ASCII classes
  and nested classes (union only) inside brackets;
* ``\\pL``, ``\\p{Lu}``, ``\\p{Letter}``, ``\\P{...}``: Unicode general categories.

Not supported (the pattern fails to compile): class set operations (``&&``, ``--``,
``~~``), negated nested classes, Unicode scripts and binary properties in ``\\p``, the
``U`` (swap greed) flag.

Semantics follow the reference: ``match`` and ``search`` are unanchored searches;
matches are found left to right and an empty match right after the previous match
is skipped (``findall("aaa", "a*") == ["aaa"]``). ``findall`` returns the whole
matches, or, when the pattern has two or more groups, a list of the groups of each
match (a pattern with one group still returns whole matches, as in the reference).
``replace`` understands ``$1``, ``${1}``, ``$name``, ``${name}`` and ``$$``; a count
of 0 (or less) replaces everything. Deliberate differences (see
``docs/differences-modules.md``): a group that did not take part in a match gives
``""`` in ``findall`` (the reference panics), and ``split(s, p, maxsplit=n)`` splits at
most n times and keeps the rest as the last item (the reference returns only the
first n pieces). An invalid pattern is an error named like the reference's
(``called `Result::unwrap()` on an `Err` value: UnclosedOpenParen``).
"""

from __future__ import annotations

import functools
from collections.abc import Iterator

from kclpy.values import Value
from kclpy.values.errors import KclRuntimeError
from kclpy.vm.builtins.modules.regex_quick import SHORT_TEXT, quick_pattern

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Final, Protocol, TypeAlias

    class Match(Protocol):
        """A match of any engine (``re``, RE2, ``regex``): what this module reads of it."""

        def span(self) -> tuple[int, int]: ...

        def start(self) -> int: ...

        def end(self) -> int: ...

        def group(self, group: int | str, /) -> str | None: ...

        def groups(self) -> tuple[str | None, ...]: ...

    class Linear(Protocol):
        """A compiled pattern of RE2 (``google-re2``, untyped), or of Python's ``re``
        (:mod:`regex_quick`'s backtrack-free patterns, which run the same way)."""

        @property
        def groups(self) -> int: ...

        def search(self, string: str, position: int = 0, /) -> Match | None: ...

        def finditer(self, string: str, /) -> Iterator[Match]: ...

    class Backtracking(Protocol):
        """A compiled pattern of the ``regex`` package (untyped): searches take a timeout."""

        @property
        def groups(self) -> int: ...

        def search(self, string: str, position: int, /, *, timeout: float) -> Match | None: ...


_POSIX: Final[dict[str, tuple[tuple[int, int], ...]]] = {
    "alnum": ((0x30, 0x39), (0x41, 0x5A), (0x61, 0x7A)),
    "alpha": ((0x41, 0x5A), (0x61, 0x7A)),
    "ascii": ((0x00, 0x7F),),
    "blank": ((0x09, 0x09), (0x20, 0x20)),
    "cntrl": ((0x00, 0x1F), (0x7F, 0x7F)),
    "digit": ((0x30, 0x39),),
    "graph": ((0x21, 0x7E),),
    "lower": ((0x61, 0x7A),),
    "print": ((0x20, 0x7E),),
    "punct": ((0x21, 0x2F), (0x3A, 0x40), (0x5B, 0x60), (0x7B, 0x7E)),
    "space": ((0x09, 0x0D), (0x20, 0x20)),
    "upper": ((0x41, 0x5A),),
    "word": ((0x30, 0x39), (0x41, 0x5A), (0x5F, 0x5F), (0x61, 0x7A)),
    "xdigit": ((0x30, 0x39), (0x41, 0x46), (0x61, 0x66)),
}


def _code(code: int, re2: bool) -> str:
    """A code point as an escape of the target engine."""
    return f"\\x{{{code:x}}}" if re2 else f"\\U{code:08x}"


def _ranges_text(ranges: tuple[tuple[int, int], ...], negated: bool, re2: bool = False) -> str:
    """Class contents for code point ranges (or for their complement)."""
    if negated:
        complement: list[tuple[int, int]] = []
        low = 0
        for start, end in ranges:
            if start > low:
                complement.append((low, start - 1))
            low = end + 1
        complement.append((low, 0x10FFFF))
        ranges = tuple(complement)
    return "".join(f"{_code(start, re2)}-{_code(end, re2)}" for start, end in ranges)


_CATEGORY_NAMES: Final[dict[str, str]] = {
    "letter": "L", "casedletter": "LC", "uppercaseletter": "Lu", "lowercaseletter": "Ll",
    "titlecaseletter": "Lt", "modifierletter": "Lm", "otherletter": "Lo", "mark": "M",
    "combiningmark": "M", "nonspacingmark": "Mn", "spacingmark": "Mc", "enclosingmark": "Me",
    "number": "N", "decimalnumber": "Nd", "digit": "Nd", "letternumber": "Nl",
    "othernumber": "No", "punctuation": "P", "connectorpunctuation": "Pc",
    "dashpunctuation": "Pd", "openpunctuation": "Ps", "closepunctuation": "Pe",
    "initialpunctuation": "Pi", "finalpunctuation": "Pf", "otherpunctuation": "Po",
    "symbol": "S", "mathsymbol": "Sm", "currencysymbol": "Sc", "modifiersymbol": "Sk",
    "othersymbol": "So", "separator": "Z", "spaceseparator": "Zs", "lineseparator": "Zl",
    "paragraphseparator": "Zp", "other": "C", "control": "Cc", "format": "Cf",
    "surrogate": "Cs", "privateuse": "Co", "unassigned": "Cn",
}  # fmt: skip
_UNWRAP: Final = "called `Result::unwrap()` on an `Err` value: "
_WORD: Final = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_")


class PatternError(Exception):
    """A pattern the translator rejects; ``str()`` is the reference-style error name."""


class NeedsBacktracking(Exception):
    """The pattern uses a feature RE2 lacks (look-around, backreferences, ...)."""


# Rust's Unicode-aware \d, \w and \s as RE2 class contents (RE2's own are ASCII)
_RE2_CLASSES: Final[dict[str, str]] = {
    "d": "\\p{Nd}",
    "w": "\\p{L}\\p{M}\\p{Nd}\\p{Nl}\\p{Pc}\\x{200c}\\x{200d}",
    "s": "\\t\\n\\x{b}\\f\\r\\x{20}\\x{85}\\x{a0}\\x{1680}\\x{2000}-\\x{200a}"
    "\\x{2028}\\x{2029}\\x{202f}\\x{205f}\\x{3000}",
}


@functools.cache
def _category_ranges(category: str) -> str:
    """Class contents (ranges) for a Unicode general category (one or two letters)."""
    import unicodedata

    def belongs(code: int) -> bool:
        found = unicodedata.category(chr(code))
        if category == "LC":
            return found in ("Lu", "Ll", "Lt")
        return found == category if len(category) == 2 else found[0] == category

    parts: list[str] = []
    start = -1
    for code in range(0x110000 + 1):
        inside = code < 0x110000 and belongs(code)
        if inside and start < 0:
            start = code
        elif not inside and start >= 0:
            end = code - 1
            parts.append(f"\\U{start:08x}" if start == end else f"\\U{start:08x}-\\U{end:08x}")
            start = -1
    return "".join(parts)


def _property(name: str, negated: bool, re2: bool = False) -> tuple[str, bool]:
    """(class contents, negated) for ``\\p{name}``."""
    key = name.replace(" ", "").replace("_", "").replace("-", "").lower()
    if key.startswith("^"):
        key = key[1:]
        negated = not negated
    if key == "any":
        return f"\\x00-{_code(0x10FFFF, re2)}", negated
    if key == "ascii":
        return "\\x00-\\x7f", negated
    category = _CATEGORY_NAMES.get(key)
    if category is None:
        for short in set(_CATEGORY_NAMES.values()):
            if short.lower() == key:
                category = short
    if category is None:
        detail = f"regex parse error: \\p{{{name}}} error: Unicode property not found"
        raise PatternError(f"InnerError(Syntax({detail}))")
    if re2:  # RE2 knows the general categories (but not LC)
        parts = ("Lu", "Ll", "Lt") if category == "LC" else (category,)
        return "".join(f"\\p{{{part}}}" for part in parts), negated
    return _category_ranges(category), negated


def _count_groups(pattern: str) -> int:
    """The number of capturing groups (an estimate good enough to check backreferences)."""
    count = 0
    index = 0
    in_class = False
    while index < len(pattern):
        char = pattern[index]
        if char == "\\":
            index += 2
            continue
        if in_class:
            in_class = char != "]"
        elif char == "[":
            in_class = True
        elif char == "(":
            rest = pattern[index + 1 : index + 4]
            if not rest.startswith("?") or (
                rest.startswith(("?P<", "?<")) and rest[2:3] not in "=!"
            ):
                count += 1
        index += 1
    return count


class _Translator:
    """Rewrites one Rust pattern as a Python pattern."""

    def __init__(self, pattern: str, re2: bool = False) -> None:
        self.pattern = pattern
        self.re2 = re2  # the target: RE2 (raise NeedsBacktracking) or Python
        self.ascii_boundary = False  # RE2's \\b and \\B: right for ASCII texts only
        self.pos = 0
        self.out: list[str] = []
        # One frame per open group: [extra ")" to close, reopen texts, multiline]
        self.frames: list[tuple[list[str], bool]] = [([], False)]
        self.group_count = _count_groups(pattern)

    @property
    def multiline(self) -> bool:
        return self.frames[-1][1]

    def run(self) -> str:
        text = self.pattern
        while self.pos < len(text):
            char = text[self.pos]
            if char == "\\":
                self.out.append(self.escape(in_class=False))
            elif char == "[":
                self.pos += 1
                self.out.append(self.char_class())
            elif char == "(":
                self.group()
            elif char == ")":
                self.close_group()
            elif char == "|":
                reopen = self.frames[-1][0]
                self.out.append(")" * len(reopen) + "|" + "".join(reopen))
                self.pos += 1
            elif char == "$":  # unlike \\z, ^ and $ may not be repeated (Python agrees)
                self.out.append("$" if self.multiline else "\\z" if self.re2 else "\\Z")
                self.pos += 1
            else:
                self.out.append(char)
                self.pos += 1
        self.out.append(")" * len(self.frames[-1][0]))
        return "".join(self.out)

    # -- groups -----------------------------------------------------------------------

    def group(self) -> None:
        text = self.pattern
        rest = text[self.pos :]
        multiline = self.multiline
        if self.re2 and rest.startswith(("(?=", "(?!", "(?<=", "(?<!", "(?>")):
            raise NeedsBacktracking(rest[:4])
        if rest.startswith("(?<") and not rest.startswith(("(?<=", "(?<!")):
            self.out.append("(?P<")
            self.pos += 3
        elif rest.startswith("(?") and len(rest) > 2 and (rest[2].isalpha() or rest[2] == "-"):
            if rest.startswith("(?P"):
                self.out.append("(?P")
                self.pos += 3
            else:
                end = self.pos + 2
                while end < len(text) and (text[end].isalpha() or text[end] == "-"):
                    end += 1
                flags = text[self.pos + 2 : end]
                closer = text[end : end + 1]
                if closer not in (":", ")"):
                    raise PatternError(f'UnknownFlag("{text[self.pos : end + 1]}")')
                on, off, multiline = self.flags(flags, multiline)
                spec = on + ("-" + off if off else "")
                self.pos = end + 1
                if closer == ")":
                    self.set_flags(spec, multiline)
                    return
                self.out.append(f"(?{spec}:" if spec else "(?:")
                self.frames.append(([], multiline))
                return
        else:
            self.out.append("(")
            self.pos += 1
        self.frames.append(([], multiline))

    def flags(self, flags: str, multiline: bool) -> tuple[str, str, bool]:
        on, off = flags.split("-", 1) if "-" in flags else (flags, "")
        keep_on = ""
        keep_off = ""
        for letter in on:
            if letter not in "imsxuR":
                raise PatternError(f'UnknownFlag("(?{flags}")')
            if letter == "x" and self.re2:
                raise NeedsBacktracking("(?x)")  # RE2 has no verbose mode
            if letter in "imsx":
                keep_on += letter
        for letter in off:
            if letter not in "imsxuR":
                raise PatternError(f'UnknownFlag("(?{flags}")')
            if letter in "imsx":
                keep_off += letter
        if "m" in keep_on:
            multiline = True
        if "m" in keep_off:
            multiline = False
        return keep_on, keep_off, multiline

    def set_flags(self, spec: str, multiline: bool) -> None:
        """``(?flags)``: scope the flags over the rest of the enclosing group."""
        if not spec:
            return
        opener = f"(?{spec}:"
        reopen, _ = self.frames[-1]
        self.out.append(opener)
        self.frames[-1] = ([*reopen, opener], multiline)

    def close_group(self) -> None:
        if len(self.frames) == 1:
            raise PatternError("ParseError")
        reopen, _ = self.frames.pop()
        self.out.append(")" * len(reopen) + ")")
        self.pos += 1

    # -- escapes ----------------------------------------------------------------------

    def codepoint(self, start: int) -> str:
        """``\\x{..}``-style escapes from ``start`` (just after the letter)."""
        text = self.pattern
        letter = text[start - 1]
        if text[start : start + 1] == "{":
            end = text.find("}", start)
            digits = text[start + 1 : end] if end > 0 else ""
            if end < 0 or not digits or any(c not in "0123456789abcdefABCDEF" for c in digits):
                raise PatternError("InvalidHex")
            self.pos = end + 1
        else:
            width = {"x": 2, "u": 4, "U": 8}[letter]
            digits = text[start : start + width]
            if len(digits) != width or any(c not in "0123456789abcdefABCDEF" for c in digits):
                raise PatternError("InvalidHex")
            self.pos = start + width
        code = int(digits, 16)
        if code > 0x10FFFF:
            raise PatternError("InvalidCodepointValue")
        return _code(code, self.re2)

    def escape(self, in_class: bool) -> str:
        text = self.pattern
        if self.pos + 1 >= len(text):
            raise PatternError("TrailingBackslash")
        letter = text[self.pos + 1]
        self.pos += 2
        if letter in "xuU":
            return self.codepoint(self.pos)
        if letter in "pP":
            if text[self.pos : self.pos + 1] == "{":
                end = text.find("}", self.pos)
                if end < 0:
                    raise PatternError("UnclosedUnicodeName")
                name = text[self.pos + 1 : end]
                self.pos = end + 1
            else:
                name = text[self.pos : self.pos + 1]
                self.pos += 1
            ranges, negated = _property(name, letter == "P", self.re2)
            if in_class:
                if negated:
                    raise PatternError("InvalidClass")
                return ranges
            return ("[^" if negated else "[") + ranges + "]"
        if self.re2 and letter in "dDsSwW":
            return self.unicode_class(letter, in_class)
        if self.re2 and not in_class and (letter in "k<>" or letter.isdigit()):
            raise NeedsBacktracking("\\" + letter)  # backreferences, \\< and \\>
        if not in_class:
            if letter == "z":
                return "\\z" if self.re2 else "(?:\\Z)"
            if letter == "k" and text[self.pos : self.pos + 1] == "<":
                end = text.find(">", self.pos)
                if end < 0:
                    raise PatternError("InvalidBackref")
                name = text[self.pos + 1 : end]
                self.pos = end + 1
                return f"(?P={name})"
            if letter == "<":
                return "(?:\\b(?=\\w))"
            if letter == ">":
                return "(?:\\b(?<=\\w))"
            if letter in "bB":
                self.ascii_boundary = self.re2
            if letter in "AbB":  # assertions may be repeated in Rust, not in Python
                return "(?:\\" + letter + ")"
            if letter in "dDsSwW":
                return "\\" + letter
            if letter.isdigit():
                return self.backreference(letter)
        elif letter in "dDsSwW":
            return "\\" + letter
        if letter in "afnrtv":
            return "\\" + letter
        if letter.isascii() and letter.isalnum():
            raise PatternError(f'InvalidEscape("\\\\{letter}")')
        return "\\" + letter

    def unicode_class(self, letter: str, in_class: bool) -> str:
        """RE2 text for Rust's Unicode ``\\d \\w \\s`` and their negations."""
        contents = _RE2_CLASSES[letter.lower()]
        if letter.islower():
            return contents if in_class else f"[{contents}]"
        if not in_class:
            return f"[^{contents}]"
        if letter == "D":
            return "\\P{Nd}"
        raise NeedsBacktracking("\\" + letter)  # a negated class inside a class

    def backreference(self, first: str) -> str:
        end = self.pos
        while end < len(self.pattern) and self.pattern[end].isdigit():
            end += 1
        number = int(first + self.pattern[self.pos : end])
        self.pos = end
        if number == 0 or number > self.group_count or number > 99:
            raise PatternError("InvalidBackref")
        return f"(?:\\{number})"

    # -- classes ----------------------------------------------------------------------

    def char_class(self) -> str:
        """A bracket class, from just after ``[`` to its ``]`` (consumed)."""
        text = self.pattern
        negated = text[self.pos : self.pos + 1] == "^"
        if negated:
            self.pos += 1
        parts: list[str] = []
        first = True
        while True:
            if self.pos >= len(text):
                raise PatternError("InvalidClass")
            char = text[self.pos]
            if char == "]" and not first:
                self.pos += 1
                break
            first = False
            if char == "[":
                if text.startswith("[:", self.pos):
                    end = text.find(":]", self.pos + 2)
                    name = text[self.pos + 2 : end] if end > 0 else ""
                    ranges = _POSIX.get(name.lstrip("^"))
                    if ranges is not None:
                        parts.append(_ranges_text(ranges, name.startswith("^"), self.re2))
                        self.pos = end + 2
                        continue
                self.pos += 1
                if text[self.pos : self.pos + 1] == "^":
                    raise PatternError("InvalidClass")
                nested = self.char_class()
                parts.append(nested[1:-1])
                continue
            if char in "&-~" and text[self.pos + 1 : self.pos + 2] == char:
                raise PatternError("InvalidClass")
            if char == "\\":
                parts.append(self.escape(in_class=True))
                continue
            parts.append("\\" + char if char in "[]" else char)
            self.pos += 1
        return ("[^" if negated else "[") + "".join(parts) + "]"


_ERRORS: Final = (
    ("missing ), unterminated subpattern", "UnclosedOpenParen"),
    ("unbalanced parenthesis", "ParseError"),
    ("nothing to repeat", "TargetNotRepeatable"),
    ("multiple repeat", "TargetNotRepeatable"),
    ("unterminated character set", "InvalidClass"),
    ("look-behind requires fixed-width pattern", "LookBehindNotConst"),
)


def _python_error(message: str) -> str:
    for prefix, name in _ERRORS:
        if message.startswith(prefix):
            return name
    if message.startswith("unknown group name"):
        name = message.split(" ", 3)[-1].strip("'")
        return f'InvalidGroupNameBackref("{name}")'
    return message


class Bounded:
    """A backtracking pattern (the ``regex`` package) whose every search is bounded
    by ``BACKTRACK_SECONDS``, as fancy-regex bounds its backtracking."""

    def __init__(self, compiled: Backtracking) -> None:
        self.compiled = compiled
        self.groups: int = compiled.groups

    def search(self, string: str, position: int = 0) -> Match | None:
        try:
            return self.compiled.search(string, position, timeout=BACKTRACK_SECONDS)
        except TimeoutError:
            raise KclRuntimeError(_UNWRAP + "RuntimeError(BacktrackLimitExceeded)") from None


BACKTRACK_SECONDS: Final = 1.0


class AsciiOrBounded:
    """A pattern with ``\\b``/``\\B``: RE2 on ASCII texts (where its ASCII word
    boundary is Rust's Unicode one), the bounded engine on other texts."""

    def __init__(self, linear: Linear, pattern: str) -> None:
        self.linear = linear
        self.pattern = pattern
        self.groups: int = linear.groups
        self._ascii: tuple[str, bool] = ("", True)

    def search(self, string: str, position: int = 0) -> Match | None:
        if self._ascii[0] is not string:
            self._ascii = (string, string.isascii())
        if self._ascii[1]:
            return self.linear.search(string, position)
        return Bounded(_compile_backtracking(self.pattern)).search(string, position)


class ShortOrLinear:
    """A backtrack-free pattern (``regex_quick``): Python's engine on texts of up to
    ``SHORT_TEXT`` characters (RE2 is not loaded for them), the linear engine on
    longer ones."""

    def __init__(self, quick: Linear, pattern: str) -> None:
        self.quick = quick
        self.pattern = pattern
        self.groups: int = quick.groups

    def engine(self, string: str) -> Engine:
        """The compiled pattern that matches ``string``."""
        return self.quick if len(string) <= SHORT_TEXT else _compile_linear(self.pattern)

    def search(self, string: str, position: int = 0) -> Match | None:
        return self.engine(string).search(string, position)


Engine: TypeAlias = "Linear | AsciiOrBounded | Bounded"
"""A compiled pattern on one engine (or on RE2 and the bounded one, by the text)."""
Compiled: TypeAlias = "ShortOrLinear | Engine"
"""A compiled pattern as :func:`_compile` gives it."""


@functools.lru_cache(maxsize=256)
def _compile(pattern: str) -> Compiled:
    """A compiled pattern: :class:`ShortOrLinear` when the pattern is backtrack-free
    (Python's engine on short texts), else as :func:`_compile_linear`."""
    try:
        quick = quick_pattern(pattern, _Translator(pattern).run())
    except Exception:  # an invalid pattern (the linear path reports it), or any doubt
        quick = None
    if quick is not None:
        return ShortOrLinear(quick, pattern)
    return _compile_linear(pattern)


@functools.lru_cache(maxsize=256)
def _compile_linear(pattern: str) -> Engine:
    """A compiled pattern: RE2 (linear time) when it can express it, else the
    backtracking engine, bounded. Both offer ``search``, ``groups`` and matches
    with ``span``/``group``/``groups``."""
    import re2

    try:
        translator = _Translator(pattern, re2=True)
        translated = translator.run()
        options = re2.Options()
        options.log_errors = False
        linear: Linear = re2.compile(translated, options)
        return AsciiOrBounded(linear, pattern) if translator.ascii_boundary else linear
    except (NeedsBacktracking, re2.error):
        pass  # a feature only a backtracking engine has (or an invalid pattern)
    except PatternError as error:
        raise KclRuntimeError(_UNWRAP + str(error)) from None
    return Bounded(_compile_backtracking(pattern))


@functools.lru_cache(maxsize=64)
def _compile_backtracking(pattern: str) -> Backtracking:
    """The pattern for the ``regex`` package (validated by ``re``, whose errors and
    limits, such as fixed-width look-behind, are those of the reference)."""
    import re
    import warnings

    import regex

    try:
        translated = _Translator(pattern).run()
    except PatternError as error:
        raise KclRuntimeError(_UNWRAP + str(error)) from None
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            re.compile(translated)
            compiled: Backtracking = regex.compile(translated, regex.VERSION0)
            return compiled
    except (re.error, regex.error) as error:
        raise KclRuntimeError(_UNWRAP + _python_error(str(error.msg))) from None


def _text(function: str, value: Value) -> str:
    if type(value) is not str:
        from kclpy.vm.builtins.convert import type_name

        raise KclRuntimeError(f"{function}() expected str, got {type_name(value)}")
    return value


def _matches(compiled: Compiled, string: str) -> list[Match]:
    """Matches left to right, skipping an empty match right after the previous match."""
    found: list[Match] = []
    last_end = -1
    quick = False
    if isinstance(compiled, ShortOrLinear):
        engine = compiled.engine(string)
        quick = engine is compiled.quick  # (Python's engine: the loop below)
        compiled = engine
    if isinstance(compiled, AsciiOrBounded) and string.isascii():
        compiled = compiled.linear
    if not quick and not isinstance(compiled, Bounded | AsciiOrBounded):
        # RE2: one pass (its search() encodes the whole text on every call); its
        # iterator moves one character on after an empty match, as the loop below
        for item in compiled.finditer(string):
            start, end = item.span()
            if start == end == last_end:
                continue
            last_end = end
            found.append(item)
        return found
    position = 0
    while position <= len(string):
        match = compiled.search(string, position)
        if match is None:
            break
        start, end = match.span()
        if start == end:
            position = end + 1
            if end == last_end:
                continue
        else:
            position = end
        last_end = end
        found.append(match)
    return found


def _expand(match: Match, template: str) -> str:
    """Rust's ``$name`` / ``${name}`` / ``$$`` replacement expansion."""
    out: list[str] = []
    index = 0
    while index < len(template):
        dollar = template.find("$", index)
        if dollar < 0:
            out.append(template[index:])
            break
        out.append(template[index:dollar])
        index = dollar + 1
        if template[index : index + 1] == "$":
            out.append("$")
            index += 1
            continue
        if template[index : index + 1] == "{":
            close = template.find("}", index)
            if close < 0:
                out.append("$")
                continue
            name = template[index + 1 : close]
            index = close + 1
        else:
            end = index
            while end < len(template) and template[end] in _WORD:
                end += 1
            name = template[index:end]
            if not name:
                out.append("$")
                continue
            index = end
        out.append(_group(match, name))
    return "".join(out)


def _group(match: Match, name: str) -> str:
    try:
        value = match.group(int(name) if name.isdigit() else name)
    except IndexError:
        return ""
    return value or ""


def _int(value: Value) -> int:
    """A count argument (0 when not positive)."""
    if value is None:
        return 0
    if type(value) is not int:
        raise KclRuntimeError("invalid int value")
    return max(value, 0)


def match(string: Value, pattern: Value) -> bool:
    """Whether ``pattern`` occurs anywhere in ``string``."""
    return _compile(_text("match", pattern)).search(_text("match", string)) is not None


def search(string: Value, pattern: Value) -> bool:
    """Same as :func:`match`."""
    return _compile(_text("search", pattern)).search(_text("search", string)) is not None


def compile(pattern: Value) -> bool:
    """Whether ``pattern`` is a valid regular expression."""
    try:
        _compile(_text("compile", pattern))
    except KclRuntimeError:
        return False
    return True


def findall(string: Value, pattern: Value) -> list[Value]:
    """Every match, or the groups of every match when the pattern has 2+ groups."""
    compiled = _compile(_text("findall", pattern))
    found = _matches(compiled, _text("findall", string))
    if compiled.groups >= 2:
        return [[group or "" for group in item.groups()] for item in found]
    return [item.group(0) for item in found]


def replace(string: Value, pattern: Value, replace: Value, count: Value = 0) -> str:
    """``string`` with the first ``count`` matches (all when 0) replaced."""
    text = _text("replace", string)
    compiled = _compile(_text("replace", pattern))
    template = _text("replace", replace)
    limit = _int(count)
    found = _matches(compiled, text)
    if limit:
        found = found[:limit]
    out: list[str] = []
    previous = 0
    for item in found:
        out.append(text[previous : item.start()])
        out.append(_expand(item, template))
        previous = item.end()
    out.append(text[previous:])
    return "".join(out)


def split(string: Value, pattern: Value, maxsplit: Value = 0) -> list[str]:
    """``string`` cut at the matches (at most ``maxsplit`` cuts when it is positive)."""
    text = _text("split", string)
    found = _matches(_compile(_text("split", pattern)), text)
    limit = _int(maxsplit)
    if limit > 0:
        found = found[:limit]
    pieces: list[str] = []
    previous = 0
    for item in found:
        pieces.append(text[previous : item.start()])
        previous = item.end()
    pieces.append(text[previous:])
    return pieces


MEMBERS: Final[dict[str, object]] = {
    "match": match,
    "search": search,
    "compile": compile,
    "findall": findall,
    "replace": replace,
    "split": split,
}
