"""Config literals of constant entries, built by one CONFIG_CONST instruction, give the
values (and the entry operators merging reads) the entry-by-entry build gives: each
case is run as written (folded) and with every value parenthesised (not folded)."""

from __future__ import annotations

import re

import pytest

import kclpy

SCHEMA = (
    "schema S:\n    name: str\n    port: int = 80\n    labels: {str:str} = {}\n"
    "    items: [int] = [1]\n\n"
)

CASES = {
    "scalars": 'a = {x = 1, y = True, z = 1.0, w = None, s = "s", e = {}}\n',
    "nested": 'a = {n = {p = {q = 1, r = "r"}}, m: {k: 2}}\nb = a | {n.p.q = 3}\n',
    "union_keeps_operators": "a = {x: 1, y = 2}\nb = a | {x: 1, y = 3}\nc = {**a, y = 4}\n",
    "union_conflict": "a = {x: 1, y: 2}\nb = a | {y: 3}\n",
    "schema_instance": (
        SCHEMA + 's = S {name = "a", port = 1, labels = {idx = "0"}}\nt = s | {port = 2}\n'
    ),
    "schema_insert_after": SCHEMA + 's = S {name = "a"}\nt = s | {items += [2]}\n',
    "schema_union_conflict": SCHEMA + 's = S {name: "a", port: 1}\nt = s | {port: 2}\n',
    "fresh_per_evaluation": (
        "f = lambda { {a = {b = 1}} }\nx = f()\ny = f() | {a.b = 2}\nz = [{k = {v = 1}} "
        "for _ in range(2)]\n"
    ),
    "loop_variable_key": 'a = [{k = 1} for k in ["p", "q"]]\n',
    "repeated_key": "a = {x = 1, x = 2}\n",
}


ENTRY = re.compile(r"([{,] *\w+ *(?:=|:) *)([^,{}\[\]]+|\{[^{}]*\})(?=[,}])")


def unfolded(source: str) -> str:
    """``source`` with each ``= value`` / ``: value`` of a config entry parenthesised
    (the schema declaration, indented, left as it is)."""
    lines = source.split("\n")
    return "\n".join(
        line if line[:1] in (" ", "") else ENTRY.sub(r"\1(\2)", line) for line in lines
    )


def outcome(source: str) -> tuple[bool, str]:
    result = kclpy.run(source)
    if not result.ok:
        return False, result.diagnostics[0].message
    return True, result.yaml


@pytest.mark.parametrize("name", sorted(CASES))
def test_folded_literal_builds_what_its_entries_build(name: str) -> None:
    source = CASES[name]
    plain = unfolded(source)
    assert plain != source
    assert outcome(source) == outcome(plain)


def test_fold_keeps_one_apart_from_true_and_one_point_zero() -> None:
    result = kclpy.run("a = [[1, 2], [True, 2], [1.0, 2]]\nb = [{x = 1}, {x = True}, {x = 1.0}]\n")
    assert result.ok
    assert result.documents[0] == {
        "a": [[1, 2], [True, 2], [1.0, 2]],
        "b": [{"x": 1}, {"x": True}, {"x": 1.0}],
    }
    kinds = [type(item["x"]) for item in result.documents[0]["b"]]
    assert kinds == [int, bool, float]
