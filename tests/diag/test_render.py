"""Rendering of diagnostics in the reference's style and the short/json forms."""

from __future__ import annotations

import json
import unicodedata

from kclpy.diag import Code, make_error
from kclpy.diag.excerpt import WIDTH
from kclpy.diag.render import MAX_MESSAGE, render, render_all
from kclpy.source import SourceFile, Span, decode_source


def _span(text: str, start: int, end: int) -> Span:
    return Span(SourceFile("main.k", text), start, end)


def test_human_has_header_location_source_and_caret() -> None:
    text = 'a = 1\nb: int = "s"\n'
    span = _span(text, 6, 7)
    diag = make_error(Code.TYPE_ERROR, "expected int, got str(s)", span)
    assert render(diag) == (
        "error[E2G22]: TypeError\n"
        " --> main.k:2:1\n"
        "  |\n"
        '2 | b: int = "s"\n'
        "  | ^ expected int, got str(s)\n"
        "  |"
    )


def test_caret_width_follows_span_and_tabs() -> None:
    text = "\tabc = x\n"
    diag = make_error(Code.COMPILE_ERROR, "name 'x' is not defined", _span(text, 7, 8))
    lines = render(diag).splitlines()
    assert lines[3] == "1 |     abc = x"
    assert lines[4] == "  |           ^ name 'x' is not defined"


def test_short_and_json_forms() -> None:
    diag = make_error(Code.INVALID_SYNTAX, "unexpected token ')'", _span("a = )\n", 4, 5))
    assert render(diag, "short") == "main.k:1:5: error[E1001]: InvalidSyntax: unexpected token ')'"
    data = json.loads(render(diag, "json"))
    assert data["code"] == "E1001" and data["labels"][0]["column"] == 5


def test_render_all_separates_diagnostics() -> None:
    diag = make_error(Code.EVALUATION_ERROR, "boom", None)
    assert render_all([diag, diag], "short").count("boom") == 2


def test_colour_only_when_asked() -> None:
    diag = make_error(Code.EVALUATION_ERROR, "boom", _span("x\n", 0, 1))
    assert "\x1b[" not in render(diag)
    assert "\x1b[" in render(diag, colour=True)


def test_positions_are_code_points() -> None:
    file = SourceFile("m.k", "é = 1\nb = 2\n")
    assert file.pos(0) == (1, 1)
    assert file.pos(2) == (1, 3)
    assert file.pos(6) == (2, 1)
    assert file.line_text(2) == "b = 2"
    assert file.offset(2, 1) == 6


def test_invalid_utf8_is_reported_not_raised() -> None:
    file, error = decode_source("bad.k", b"a = '\xff'\n")
    assert error is not None and "offset 5" in error
    assert file.text.startswith("a = '")


def _columns(text: str) -> int:
    """Display columns of ``text`` on a terminal (wide characters take two)."""
    return sum(2 if unicodedata.east_asian_width(char) in "WF" else 1 for char in text)


def _snippet(text: str, token: str) -> tuple[str, str]:
    """The source and caret lines of a diagnostic on the first ``token`` in ``text``."""
    start = text.index(token)
    diag = make_error(Code.COMPILE_ERROR, "bad", _span(text, start, start + len(token)))
    lines = render(diag).splitlines()
    return lines[3], lines[4]


def _under_carets(source: str, carets: str) -> str:
    """The source text the carets stand under, in display columns."""
    first = carets.index("^")
    width = carets.count("^")
    shown = ""
    column = 0
    for char in source:
        if first <= column < first + width:
            shown += char
        column += _columns(char)
    return shown


def test_long_line_shows_a_bounded_window_around_the_caret() -> None:
    items = ", ".join(f'"k{index}": {index}' for index in range(20_000))
    for text, cut_left, cut_right in (
        (f"a = {{{items}, bad: oops}}\n", True, False),
        (f"a = {{{items}, bad: oops, {items}}}\n", True, True),
        (f"oops = {{{items}}}\n", False, True),
    ):
        assert len(text) > 200_000
        source, carets = _snippet(text, "oops")
        assert len(source) + len(carets) < 400
        assert _under_carets(source, carets) == "oops"
        assert source.startswith("1 | ...") == cut_left
        assert source.endswith("...") == cut_right


def test_long_line_window_counts_tabs_and_wide_characters() -> None:
    wide = ", ".join(f'"键{index}": "値{index}"' for index in range(5_000))
    text = f"a = {{\t{wide},\tbad: oops, {wide}}}\n"
    source, carets = _snippet(text, "oops")
    assert source.startswith("1 | ...") and source.endswith("...")
    assert "\t" not in source and _columns(source) <= 150
    assert _under_carets(source, carets) == "oops"


def test_wide_characters_before_the_caret_on_a_short_line() -> None:
    source, carets = _snippet('a = "键値" + oops\n', "oops")
    assert source == '1 | a = "键値" + oops'
    assert _under_carets(source, carets) == "oops"


def test_control_characters_are_not_echoed_raw() -> None:
    source, carets = _snippet('a = "\x1b[2J\u202e" + oops\n', "oops")
    assert "\x1b" not in source and "\u202e" not in source
    assert _under_carets(source, carets) == "oops"


def test_lines_up_to_the_window_are_shown_whole() -> None:
    text = "a = " + "x" * (WIDTH - 11) + " + oops\n"
    source, carets = _snippet(text, "oops")
    assert source == "1 | " + text.rstrip("\n")
    source, carets = _snippet(text.replace("a = ", "a = x"), "oops")
    assert source.startswith("1 | ...") and _under_carets(source, carets) == "oops"


def test_long_messages_are_cut_in_the_text_styles_only() -> None:
    value = "y" * 200_000
    message = f"expected int, got str({value})"
    diag = make_error(Code.TYPE_ERROR, message, _span(f'a: int = "{value}"\n', 9, 200_011))
    for style in ("human", "short"):
        text = render(diag, style)
        assert len(text) < 2 * MAX_MESSAGE and "expected int, got str(yyy" in text
        assert "characters) ..." in text and text.rstrip("\n |").endswith("yyy)")
    assert json.loads(render(diag, "json"))["message"] == message
