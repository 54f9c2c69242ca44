"""The parser builds its commonest nodes without constructor calls (see ``ast.Node``):
such nodes must be complete, every slot set as the constructor would set it, with a
fresh id and a span in the parsed file."""

from __future__ import annotations

import pickle
from pathlib import Path

import pytest

from kclpy.source import Span
from kclpy.syntax import ast, parse_source
from kclpy.syntax.dump import dump
from kclpy.syntax.walk import walk

CASES = sorted((Path(__file__).parent / "cases").glob("*.k"))

HOT_PATHS = '''\
import a.b as c

schema Base:
    """doc"""
    name: str
    port?: int = 8080
    labels: {str:str} = {"app" = "web", team: "x"}
    kind: c.Kind
    @deprecated
    old?: [str] = []

schema App(Base):
    replicas: int = 1

app = App {
    name = "web"
    labels: {tier = "front", "k": 2.5}
    ports += [80, 443]
    nested.path.key = 0x1F
    sizes = {small: 1Ki}
}
value = app.labels.tier
'''


def _slots(kind: type) -> set[str]:
    return {name for klass in kind.__mro__ for name in getattr(klass, "__slots__", ())}


def _assert_complete(module: ast.Module) -> None:
    ids: set[int] = set()
    for node in walk(module):
        for name in _slots(type(node)):
            assert hasattr(node, name), f"{type(node).__name__}.{name} unset at {node.span}"
        assert type(node.id) is int and node.id not in ids
        ids.add(node.id)
        spans = [node.span, getattr(node, "name_span", node.span)]
        for span in spans:
            assert type(span) is Span and span.file is module.file
            assert 0 <= span.start <= span.end <= len(module.file.text)


@pytest.mark.parametrize("case", CASES, ids=lambda path: path.name)
def test_every_node_of_the_cases_is_complete(case: Path) -> None:
    module, _ = parse_source(case.read_text(), str(case))
    _assert_complete(module)


def test_the_hot_paths_build_complete_nodes() -> None:
    module, diagnostics = parse_source(HOT_PATHS)
    assert diagnostics == []
    _assert_complete(module)
    kinds = {type(node) for node in walk(module)}
    for kind in (
        ast.NameExpr,
        ast.SelectorExpr,
        ast.ConfigEntry,
        ast.ConfigExpr,
        ast.SchemaExpr,
        ast.NamedType,
        ast.SchemaAttr,
        ast.StringExpr,
        ast.NumberExpr,
    ):
        assert kind in kinds


def test_fast_built_nodes_equal_constructed_ones() -> None:
    module, _ = parse_source('x = {a.b: "s", c = 1}\n')
    config = module.body[0].value
    assert isinstance(config, ast.ConfigExpr)
    first, second = config.entries
    assert isinstance(first, ast.ConfigEntry) and isinstance(second, ast.ConfigEntry)
    file = module.file
    expected = ast.ConfigEntry(
        Span(file, 5, 13),
        ast.SelectorExpr(Span(file, 5, 8), ast.NameExpr(Span(file, 5, 6), "a"), "b"),
        ast.OP_UNION,
        ast.StringExpr(Span(file, 10, 13), "s", '"s"'),
    )
    assert dump(first) == dump(expected)
    assert first.value.raw == expected.value.raw  # type: ignore[union-attr]
    number = second.value
    assert isinstance(number, ast.NumberExpr)
    assert (number.value, number.suffix, number.span) == (1, None, Span(file, 19, 20))


def test_fast_built_trees_pickle() -> None:
    module, _ = parse_source(HOT_PATHS)
    copy = pickle.loads(pickle.dumps(module))
    assert dump(copy, comments=True) == dump(module, comments=True)
    assert [node.id for node in walk(copy)] == [node.id for node in walk(module)]
