"""Rendering of diagnostics in the reference's style and the short/json forms."""

from __future__ import annotations

import json

from kclpy.diag import Code, make_error
from kclpy.diag.render import render, render_all
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
