"""The public API of kclpy.syntax, the walker and the dumper."""

from __future__ import annotations

import pathlib
import subprocess
import sys

from kclpy.depth import MAX_BRACKETS
from kclpy.syntax import ast, parse_bytes, parse_expr, parse_file, parse_source
from kclpy.syntax.dump import dump
from kclpy.syntax.walk import Visitor, iter_children, walk


def test_parse_source_returns_module_and_no_diagnostics() -> None:
    module, diagnostics = parse_source("a = 1\n", "main.k")
    assert isinstance(module, ast.Module)
    assert diagnostics == []
    assert module.file.path == "main.k"
    assert module.span.start == 0 and module.span.end == 6


def test_ids_are_unique() -> None:
    module, _ = parse_source("a = [1, 2, {b = c}]\n")
    ids = [node.id for node in walk(module)]
    assert len(ids) == len(set(ids))


def test_comments_are_kept() -> None:
    module, _ = parse_source("# head\na = 1  # tail\r\n")
    assert [c.text for c in module.comments] == ["# head", "# tail"]
    assert module.comments[1].span.begin_pos == (2, 8)


def test_docstrings() -> None:
    source = (
        '"""Module."""\nschema A:\n    """Schema."""\n    a: int\nrule R:\n    """Rule."""\n    a\n'
    )
    module, diagnostics = parse_source(source)
    assert diagnostics == []
    assert module.doc == "Module."
    schema, rule = module.body
    assert isinstance(schema, ast.SchemaStmt) and schema.doc == "Schema."
    assert isinstance(rule, ast.RuleStmt) and rule.doc == "Rule."
    assert len(schema.body) == 1 and len(rule.checks) == 1


def test_parse_file_and_bytes(tmp_path: pathlib.Path) -> None:
    path = tmp_path / "main.k"
    path.write_bytes(b"\xef\xbb\xbfa = 'caf\xc3\xa9'\n")
    module, diagnostics = parse_file(str(path))
    assert diagnostics == []
    stmt = module.body[0]
    assert isinstance(stmt, ast.AssignStmt) and isinstance(stmt.value, ast.StringExpr)
    assert stmt.value.value == "café"
    module, diagnostics = parse_bytes(b"a = 1\nb = '\xff'\n", "bad.k")
    assert [d.code.id for d in diagnostics] == ["E1001"]
    assert diagnostics[0].span is not None and diagnostics[0].span.begin_pos == (2, 6)
    assert len(module.body) == 2


def test_missing_file_is_a_diagnostic(tmp_path: pathlib.Path) -> None:
    module, diagnostics = parse_file(str(tmp_path / "nope.k"))
    assert module.body == []
    assert diagnostics and diagnostics[0].code.kind == "IOError"


def test_parse_expr() -> None:
    expr, diagnostics = parse_expr('{name = "x", n = 1 + 2}')
    assert diagnostics == []
    assert isinstance(expr, ast.ConfigExpr)
    expr, diagnostics = parse_expr("a = 1")
    assert expr is None and diagnostics
    expr, diagnostics = parse_expr("")
    assert expr is None and diagnostics


def test_walk_is_preorder_in_source_order() -> None:
    module, _ = parse_source("a = b + c\n")
    names = [n.name for n in walk(module) if isinstance(n, ast.NameExpr)]
    assert names == ["a", "b", "c"]
    stmt = module.body[0]
    assert next(iter(iter_children(stmt))) is stmt.targets[0]  # type: ignore[attr-defined]


def test_visitor_dispatch_and_skip() -> None:
    module, _ = parse_source("a = f(b)\nc = [d]\n")

    class Names(Visitor):
        def __init__(self) -> None:
            self.seen: list[str] = []

        def visit_NameExpr(self, node: ast.NameExpr) -> None:
            self.seen.append(node.name)

        def visit_ListExpr(self, node: ast.ListExpr) -> bool:
            return False

    visitor = Names()
    visitor.visit(module)
    assert visitor.seen == ["a", "f", "b", "c"]


def test_deep_nesting_does_not_recurse() -> None:
    depth = 250
    source = "a = " + "[" * depth + "1" + "]" * depth + "\n"
    module, diagnostics = parse_source(source)
    assert diagnostics == []
    assert len(list(walk(module))) > depth
    assert dump(module).count("ListExpr") == depth
    too_deep = "a = " + "(" * (MAX_BRACKETS + 1) + "1" + ")" * (MAX_BRACKETS + 1) + "\n"
    module, diagnostics = parse_source(too_deep)
    assert any("nested" in d.message for d in diagnostics)
    long_chain = "a = " + " + ".join(["1"] * 20000) + "\n"
    module, diagnostics = parse_source(long_chain)
    assert diagnostics == []
    assert sum(1 for _ in walk(module)) > 20000
    assert dump(module).count("BinaryExpr") == 19999


def test_dump_format() -> None:
    module, _ = parse_source("a = None\n")
    assert dump(module) == (
        "Module 1:1-2:1\n"
        "  body[0]: AssignStmt 1:1-1:9\n"
        "    targets[0]: NameExpr name='a' 1:1-1:2\n"
        "    value: ConstExpr value=None 1:5-1:9\n"
    )


def test_import_is_cheap() -> None:
    code = (
        "import sys, kclpy.syntax; "
        "print('ply' in sys.modules, 'kclpy.syntax.parser' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "False"]


def test_partial_tree_after_errors() -> None:
    module, diagnostics = parse_source("a = 1\nb = (\nc = 2\n")
    assert diagnostics
    assert any(isinstance(s, ast.AssignStmt) and s.targets[0].name == "a" for s in module.body)  # type: ignore[attr-defined]
    module, diagnostics = parse_source("a = 1\nschema A:\n    x: int\n    y: [")
    assert diagnostics
    assert module.body and isinstance(module.body[0], ast.AssignStmt)
