"""The checker's parts: each holds the shared context and every part it declares.

A part names its collaborators as class annotations by their protocols
(``exprs: Expressions``, ``sema.shared``) and ``checker.Checker`` connects them; a
collaborator left unconnected would only fail on the path that uses it, so every
declared one is checked here, as is the rule table of each walking part (one rule
per syntax node type). No module of the stage imports, even for type checking
only, a module that imports it back.
"""

from __future__ import annotations

import pytest

from kclpy.loader import Program
from kclpy.sema import shared
from kclpy.sema.base import CheckContext
from kclpy.sema.checker import Checker
from kclpy.sema.model import Model
from kclpy.syntax import ast

PARTS = (
    "operators",
    "assign",
    "annotations",
    "names",
    "exprs",
    "config",
    "calls",
    "statements",
    "schemas",
    "declarations",
)


def build() -> Checker:
    return Checker(Program(""), Model())


def node_types(base: type) -> set[type]:
    return {
        value
        for value in vars(ast).values()
        if isinstance(value, type) and issubclass(value, base) and value is not base
    }


@pytest.mark.parametrize("name", PARTS)
def test_part_holds_the_shared_context_and_its_collaborators(name: str) -> None:
    checker = build()
    part = getattr(checker, name)
    assert part.ctx is checker.ctx
    assert isinstance(checker.ctx, CheckContext)
    declared = {
        attr: annotation
        for klass in type(part).__mro__
        for attr, annotation in vars(klass).get("__annotations__", {}).items()
    }
    for attr, annotation in declared.items():
        held = getattr(part, attr)  # AttributeError: declared, never connected
        assert isinstance(held, getattr(shared, annotation)), (name, attr)
        assert held is getattr(checker, attr)


def test_parts_are_not_a_class_chain() -> None:
    checker = build()
    for name in PARTS:
        bases = type(getattr(checker, name)).__bases__
        assert bases == (object,), (name, bases)


def test_every_expression_and_statement_node_has_a_rule() -> None:
    checker = build()
    assert set(checker.exprs.handlers) == node_types(ast.Expr)
    assert set(checker.statements.handlers) == node_types(ast.Stmt)


# none: a schema type lives with its SchemaInfo (sema.symbols, above types), and the
# lazy dict types are handed relations' union and widening (types.install_lattice)
KNOWN_CIRCLES: list[list[str]] = []


def test_no_import_circle_inside_sema() -> None:
    grimp = pytest.importorskip("grimp", reason="grimp comes with import-linter (test extra)")
    graph = grimp.build_graph("kclpy")
    modules = sorted(name for name in graph.modules if name.startswith("kclpy.sema."))
    circles: list[list[str]] = []
    placed: set[str] = set()
    for module in modules:
        if module in placed:
            continue
        circle = sorted(
            other
            for other in modules
            if other == module
            or (
                graph.chain_exists(module, other, as_packages=False)
                and graph.chain_exists(other, module, as_packages=False)
            )
        )
        placed.update(circle)
        if len(circle) > 1:
            circles.append(circle)
    assert circles == KNOWN_CIRCLES
