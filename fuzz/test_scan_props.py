"""Property test of the fused scanner (hypothesis): on random token soups (names,
keywords, operators, brackets, strings, numbers, comments, line breaks with random
indentation, now and then a character only the general rules take), in statement
and expression mode, :func:`kclpy.syntax.scan.fused_layout` gives exactly what the
two-pass route gives (lexer, then layout filter): the parser's tokens with their
values and offsets, the comments, the diagnostics (the filter's and the
interpolations'), or None exactly where the scanner leaves a piece to the general
rules."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kclpy.diag import Diagnostic
from kclpy.source import SourceFile, Span
from kclpy.syntax import lexer, parser
from kclpy.syntax.layout import LayoutResult, layout
from kclpy.syntax.scan import fused_layout
from kclpy.syntax.tokens import KEYWORDS, PUNCTUATION

pytestmark = pytest.mark.filterwarnings("ignore::hypothesis.errors.HypothesisWarning")

_WORDS = ["a", "b_1", "Name", "$if", "$x", *KEYWORDS]
_OPERATORS = [*PUNCTUATION.values(), ";", "!"]  # (`?.` and `?[` too: two raw tokens)
_LITERALS = [
    '"s"',
    "'q'",
    '""',
    '"a${b}c"',
    '"${a: #json}"',
    '"${"',
    '"\\n\\$"',
    'r"raw\\d"',
    '"""doc\n  text"""',
    "'''x'''",
    '"unterminated',
    '"""open',
    "1",
    "0x1F",
    "1.5e3",
    "2Ki",
    "1_000",
    "08",
    "1.",
    "3e",
    "# note",
    "#",
]
_BREAKS = ["\n", "\n", "\n  ", "\n    ", "\n\t", "\n \t", "\n\n  ", "\\\n", "\r\n", "\n\x0c"]
_STRAY = ["é", "`", "$", "\\", "名", "²"]


@st.composite
def _soups(draw: Any) -> str:
    """Random token soup: pieces from the lists above, joined with or without blanks."""
    common = st.sampled_from(_WORDS + _OPERATORS + _LITERALS + _BREAKS)
    pieces = draw(st.lists(st.one_of(common, common, common, st.sampled_from(_STRAY)), max_size=40))
    separators = draw(st.lists(st.sampled_from(["", " ", " ", "  "]), min_size=len(pieces)))
    return "".join(piece + gap for piece, gap in zip(pieces, separators, strict=False))


def _shape(value: Any) -> Any:
    """A token value or node as nested plain data (spans as offsets)."""
    if value is None or isinstance(value, str | int | float):
        return value
    if isinstance(value, Span):
        return (value.start, value.end)
    if isinstance(value, list):
        return [_shape(item) for item in value]
    fields = []
    for cls in type(value).__mro__:
        fields += [name for name in getattr(cls, "__slots__", ()) if name not in ("file", "id")]
    return (type(value).__name__, [(name, _shape(getattr(value, name, None))) for name in fields])


def _summary(laid: LayoutResult, reported: list[Diagnostic]) -> Any:
    tokens = [(tok.type, _shape(tok.value), tok.lexpos, tok.end) for tok in laid.tokens]
    comments = [(comment.span.start, comment.span.end, comment.text) for comment in laid.comments]
    diagnostics = [
        (item.code, item.message, _shape(item.labels)) for item in laid.diagnostics + reported
    ]
    return tokens, comments, diagnostics


def _needs_general_rules(text: str) -> bool:
    findall, _kinds = lexer._scanner()
    return any(piece[-1] for piece in findall(text))


@settings(max_examples=1500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_soups(), st.booleans())
def test_fused_pass_gives_the_tokens_of_the_two_pass_route(text: str, expression: bool) -> None:
    file = SourceFile("soup.k", text)
    fused_reports: list[Diagnostic] = []
    fused = fused_layout(file, parser._interpolator(file, fused_reports, 0), expression=expression)
    if fused is None:
        assert _needs_general_rules(text)
        return
    reports: list[Diagnostic] = []
    two_pass = layout(
        file, lexer.raw_tokens(text), parser._interpolator(file, reports, 0), expression
    )
    assert _summary(fused, fused_reports) == _summary(two_pass, reports)
