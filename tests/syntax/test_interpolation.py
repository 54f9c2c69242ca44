"""Interpolated strings: parts, format specs, escapes and spans into the original file."""

from __future__ import annotations

from kclpy.syntax import ast, parse_source
from kclpy.syntax.walk import walk


def joined(source: str) -> tuple[ast.JoinedStringExpr, str]:
    module, diagnostics = parse_source(source)
    assert diagnostics == []
    stmt = module.body[0]
    assert isinstance(stmt, ast.AssignStmt)
    assert isinstance(stmt.value, ast.JoinedStringExpr)
    return stmt.value, source


def text_of(node: ast.Node, source: str) -> str:
    return source[node.span.start : node.span.end]


def test_parts_and_spans() -> None:
    node, src = joined('x = "a ${b + 1} c ${d.e: #json}!"\n')
    assert node.parts[0] == "a "
    first = node.parts[1]
    assert isinstance(first, ast.FormattedValue)
    assert text_of(first, src) == "${b + 1}"
    assert text_of(first.value, src) == "b + 1"
    assert node.parts[2] == " c "
    second = node.parts[3]
    assert isinstance(second, ast.FormattedValue)
    assert second.format_spec == "#json"
    assert text_of(second.value, src) == "d.e"
    assert node.parts[4] == "!"
    assert text_of(node, src) == '"a ${b + 1} c ${d.e: #json}!"'


def test_every_inner_span_points_into_the_file() -> None:
    src = 'x = 1\ny = """\n  line ${f(a, "k")["z"]}\n  """\n'
    node, _ = joined(src.replace("x = 1\n", ""))
    src = src.replace("x = 1\n", "")
    inner = [n for n in walk(node) if isinstance(n, ast.NameExpr)]
    assert [text_of(n, src) for n in inner] == ["f", "a"]
    call = next(n for n in walk(node) if isinstance(n, ast.SubscriptExpr))
    assert text_of(call, src) == 'f(a, "k")["z"]'
    line, col = node.span.file.pos(inner[0].span.start)
    assert (line, col) == (2, 10)


def test_yaml_spec_and_single_quotes_inside() -> None:
    node, src = joined("""x = "${d['k']: #yaml}"\n""")
    part = node.parts[0]
    assert isinstance(part, ast.FormattedValue)
    assert part.format_spec == "#yaml"
    assert text_of(part.value, src) == "d['k']"


def test_escaped_dollar_is_text() -> None:
    module, diagnostics = parse_source('x = "a \\${b} c"\n')
    assert diagnostics == []
    stmt = module.body[0]
    assert isinstance(stmt, ast.AssignStmt)
    assert isinstance(stmt.value, ast.StringExpr)
    assert stmt.value.value == "a ${b} c"


def test_raw_strings_do_not_interpolate() -> None:
    module, _ = parse_source('x = r"${a}"\n')
    stmt = module.body[0]
    assert isinstance(stmt, ast.AssignStmt)
    assert isinstance(stmt.value, ast.StringExpr)
    assert stmt.value.value == "${a}"


def test_bare_dollar_is_text() -> None:
    module, _ = parse_source('x = "$a and $ {b}"\n')
    stmt = module.body[0]
    assert isinstance(stmt, ast.AssignStmt)
    assert isinstance(stmt.value, ast.StringExpr)


def test_bad_interpolation_reports_at_the_expression() -> None:
    src = 'a = 1\nb = "${b = a + 1}"\n'
    _, diagnostics = parse_source(src, "main.k")
    assert len(diagnostics) == 1
    assert diagnostics[0].message == "invalid string interpolation expression: 'b = a + 1'"
    assert diagnostics[0].span is not None
    assert diagnostics[0].span.begin_pos == (2, 8)


def test_error_inside_interpolation_keeps_file_positions() -> None:
    src = 'x = 1\ny = "${a +}"\n'
    _, diagnostics = parse_source(src, "main.k")
    assert diagnostics
    assert diagnostics[0].span is not None
    assert diagnostics[0].span.begin_pos[0] == 2
