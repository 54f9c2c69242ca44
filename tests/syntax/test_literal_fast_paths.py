"""Plain literals take fast paths in the layout filter; the values and the
diagnostics must be those of the general decoders (``kclpy.syntax.literals``)."""

from __future__ import annotations

import random
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kclpy.syntax import ast, parse_source
from kclpy.syntax.lexer import _PLAIN_LONG, TERMINATED_STRING, t_STRING
from kclpy.syntax.literals import decode_string, dedent_string

_TERMINATED = re.compile(TERMINATED_STRING)


@pytest.mark.parametrize(
    "literal",
    ['"a"', "''", '""', "'x\"y'", '"a\\nb"', '"$a"', "r'\\d'", '"""q"""', "'''a'b'''"],
)
def test_string_values_match_the_general_decoder(literal: str) -> None:
    module, diagnostics = parse_source(f"v = {literal}\n")
    assert diagnostics == []
    value = module.body[0].value
    assert isinstance(value, ast.StringExpr)
    assert value.value == decode_string(literal).value
    assert value.raw == literal


@pytest.mark.parametrize(
    ("literal", "expected"),
    [
        ("0", 0),
        ("7", 7),
        ("123456789012345678", 123456789012345678),
        ("1_000", 1000),
        ("0o17", 15),
        ("0x1F", 31),
        ("007", 7),
        ("1Ki", 1),
    ],
)
def test_int_values(literal: str, expected: int) -> None:
    module, diagnostics = parse_source(f"v = {literal}\n")
    assert diagnostics == []
    value = module.body[0].value
    assert isinstance(value, ast.NumberExpr) and value.value == expected


@pytest.mark.parametrize("literal", ["99999999999999999999", "0_"])
def test_bad_ints_are_still_reported(literal: str) -> None:
    _, diagnostics = parse_source(f"v = {literal}\n")
    assert diagnostics and all(d.is_error for d in diagnostics)


def test_interpolated_and_unterminated_strings_keep_their_paths() -> None:
    module, diagnostics = parse_source('a = 1\nv = "n${a}"\n')
    assert diagnostics == []
    assert isinstance(module.body[1].value, ast.JoinedStringExpr)
    _, diagnostics = parse_source('v = "abc\n')
    assert any("unterminated string" in d.message for d in diagnostics)


def _dedent_line_by_line(text: str) -> str:
    """The reference's rule spelled out line by line: the narrowest leading run of
    spaces and tabs over the lines that are not blank (and a blank last line), cut
    from every line, after dropping an empty first line."""
    lines = text.split("\n")
    widths = [len(line) - len(line.lstrip(" \t")) for line in lines if line.strip()]
    if lines[-1] and not lines[-1].strip():
        widths.append(len(lines[-1]) - len(lines[-1].lstrip(" \t")))
    indent = min(widths, default=0)
    kept = lines[1:] if len(lines) > 1 and lines[0] == "" else lines
    return "\n".join(line[min(indent, len(line) - len(line.lstrip(" \t"))) :] for line in kept)


def test_long_string_dedent_matches_the_line_by_line_rule() -> None:
    pieces = [" ", "\t", "\n", "a", "\r", "\x0c", "\u3000", "\x85", "  ", "\n    ", "\n\t"]
    chooser = random.Random(7)
    for _ in range(20000):
        text = "".join(chooser.choice(pieces) for _ in range(chooser.randint(0, 12)))
        assert dedent_string(text) == _dedent_line_by_line(text), repr(text)


@settings(max_examples=1000)
@given(
    prefix=st.sampled_from(["", "r", "R"]),
    quote=st.sampled_from(['"', "'"]),
    body=st.text(alphabet="\"'ab\n\\ ", max_size=14),
)
def test_terminated_strings_as_the_pattern_says(prefix: str, quote: str, body: str) -> None:
    """The quick test of a string's end agrees with the string pattern on every text
    of quotes, line breaks, backslashes and letters (not only on lexed tokens)."""
    text = prefix + quote + body
    assert decode_string(text).terminated == (_TERMINATED.fullmatch(text) is not None)


@settings(max_examples=2000)
@given(
    prefix=st.sampled_from(["", "r", "R"]),
    quote=st.sampled_from(['"', "'"]),
    body=st.text(alphabet="\"'a$ {}\n\t\\", max_size=16),
)
def test_long_strings_take_the_values_of_the_general_decoder(
    prefix: str, quote: str, body: str
) -> None:
    """Docstrings (long strings without backslashes) skip the general decoder: a long
    string the lexer cuts, terminated and clean, gets the general decoder's value."""
    token = _token_text(prefix + quote * 3 + body + quote * 3)
    info = decode_string(token)
    if not info.terminated or info.error is not None:
        return
    module, diagnostics = parse_source(f"v = {token}\n")
    value = module.body[0].value
    if not info.is_raw and "${" in token:
        return  # an interpolation (or an escaped one): the joined-string parser's, no fast path
    assert isinstance(value, ast.StringExpr) and diagnostics == []
    assert (value.value, value.raw) == (info.value, token)


def _token_text(literal: str) -> str:
    """The string token the lexer cuts from the start of ``literal``."""
    found = re.compile(t_STRING).match(literal)
    assert found is not None
    return found.group()


_PLAIN = re.compile(_PLAIN_LONG)
_FULL = re.compile(t_STRING)


@settings(max_examples=3000)
@given(
    prefix=st.sampled_from(["", "r"]),
    quote=st.sampled_from(['"', "'"]),
    body=st.text(alphabet="\"'a\n\\", max_size=16),
    tail=st.text(alphabet="\"'a\n\\", max_size=4),
)
def test_the_plain_long_string_pattern_cuts_as_the_full_one(
    prefix: str, quote: str, body: str, tail: str
) -> None:
    """Where the lexer's quick pattern for long strings matches, the full string
    pattern matches the same text (quotes, backslashes and line breaks anywhere)."""
    text = prefix + quote * 3 + body + tail
    plain = _PLAIN.match(text)
    if plain is not None:
        full = _FULL.match(text)
        assert full is not None and full.group() == plain.group()


INDENTED_TEXTS = [
    "schema A:\n    a: int\n    b: str\n\n    c?: int = 1\n",
    "schema A:\n    a: int\n    # c\n    b: str\n        # deeper comment\n    d: int\n",
    "schema A:\n\ta: int\n\tb: str\n",
    "schema A:\n    a: int\n\tb: str\n",
    "schema A:\n    a: int\n      b: str\n    c: int\n",
    "schema A:\n    a: int\n  b: str\n",
    "schema A:\n    a: int\n    \x0cb: str\n",
    "schema A:\n    a: int = \\\n    1\n    b: str\n",
    "if True:\n    a = 1\n    b = 2\nelse:\n    c = 3\n",
    "a = [\n    1,\n    2\n]\nb = {\n    c = 1\n    d = 2\n}\n",
    "x = 1 if True\n    else 2\n",
    "schema A:\n    a: int\n    check:\n        a > 0\n        a < 9\n",
    "\n    a = 1\n    b = 2\n",
    "a = 1\n" + " " * 70 + "b = 2\n",
]


def test_lines_at_the_same_indentation_lay_out_as_the_general_path(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A line indented with spaces as the current level takes only its line break; with
    that fast path off, every test program and odd indentations above (tabs, mixed,
    deeper comments, form feeds, continuations, conditionals) parse alike."""
    from pathlib import Path

    from kclpy.syntax import layout
    from kclpy.syntax.dump import dump

    root = Path(__file__).resolve().parents[2]
    texts = [path.read_text(encoding="utf-8") for path in sorted((root / "tests").rglob("*.k"))]
    texts += INDENTED_TEXTS

    def parse_all() -> list[str]:
        results = []
        for text in texts:
            module, diagnostics = parse_source(text)
            results.append(dump(module, comments=True) + "".join(d.message for d in diagnostics))
        return results

    fast = parse_all()
    monkeypatch.setattr(layout, "_at_level", lambda text, pos, level: False)
    assert parse_all() == fast
