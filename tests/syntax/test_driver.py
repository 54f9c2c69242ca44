"""The LR driver reduces marked rules without calling their actions; each action
must compute exactly what the driver does in its place (ply calls the actions
when it builds the tables in memory)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from kclpy.syntax import driver, parse_source, parser, parsetab
from kclpy.syntax.dump import dump
from kclpy.syntax.parser import get_parser

ROOT = Path(__file__).resolve().parents[2]


def _marked_rules() -> list[tuple[str, driver.Rule, list[str]]]:
    machine = driver.Machine(get_parser())
    rules = []
    for (text, *_), rule in zip(parsetab._lr_productions, machine.rules, strict=True):
        if rule[3] not in (driver.CALL, driver.IN_PLACE):
            rules.append((text, rule, text.split("->")[1].split()))
    return rules


def _run_action(rule: driver.Rule, body: list[str]) -> tuple[Any, list[Any], list[Any]]:
    """The action's result on symbols holding fresh values (None for ``empty``,
    a list for a list symbol), those values and the body's symbols."""
    name, _length, action, _kind, _goto = rule
    values: list[Any] = [
        None if symbol == "empty" else [object()] if symbol == name else object() for symbol in body
    ]
    production = driver.Production(None)
    production.slice = [driver.Symbol(name)] + [
        driver.Symbol(symbol, value) for symbol, value in zip(body, values, strict=True)
    ]
    action(production)
    return production.slice[0].value, values, production.slice[1:]


_MARKED = _marked_rules()


@pytest.mark.parametrize(("text", "rule", "body"), _MARKED, ids=[text for text, _, _ in _MARKED])
def test_marked_rule_actions_do_what_the_driver_does(
    text: str, rule: driver.Rule, body: list[str]
) -> None:
    kind = rule[3]
    result, values, symbols = _run_action(rule, body)
    if getattr(rule[2], "valueless", False):
        assert result is None  # nothing reads the value of a separator
    elif kind == driver.UNIT:
        assert result is values[0]
    elif kind == driver.EMPTY:
        assert result is None
    elif kind == driver.KEEP_FIRST:
        assert result is values[0]
    elif kind == driver.START:
        assert result == [values[0]]
    elif kind == driver.WRAP:
        assert result is symbols[0]  # the symbol itself (a token, in the parser)
    else:
        assert kind == driver.COLLECT
        assert result is values[0] and result[-1] is values[-1] and len(result) == 2


def test_every_kind_is_used() -> None:
    kinds = {rule[3] for _, rule, _ in _MARKED}
    assert kinds == {
        driver.UNIT,
        driver.EMPTY,
        driver.KEEP_FIRST,
        driver.START,
        driver.COLLECT,
        driver.WRAP,
    }


def _parse_all(texts: list[str]) -> list[str]:
    results = []
    for text in texts:
        module, diagnostics = parse_source(text)
        results.append(dump(module, comments=True) + "".join(d.message for d in diagnostics))
    return results


def test_in_place_rules_build_the_trees_their_actions_build_apart() -> None:
    """An in-place rule's action, given its first symbol as the result, builds what
    it builds on a fresh symbol: every test program parses to the same tree and
    diagnostics with the in-place rules run as ordinary actions."""
    tables = get_parser()
    machine = parser._machine(tables)
    in_place = [index for index, rule in enumerate(machine.rules) if rule[3] == driver.IN_PLACE]
    assert in_place
    texts = [path.read_text(encoding="utf-8") for path in sorted((ROOT / "tests").rglob("*.k"))]
    fast = _parse_all(texts)
    saved = list(machine.rules)
    try:
        for index in in_place:
            name, length, action, _kind, goto = machine.rules[index]
            machine.rules[index] = (name, length, action, driver.CALL, goto)
        plain = _parse_all(texts)
    finally:
        machine.rules[:] = saved
    assert fast == plain


def test_recovery_through_an_inserted_newline() -> None:
    # the error handler skips to the end of the line and, finding no NEWLINE token
    # there, inserts one (in the slot of a token already read) to close the bad
    # statement; the diagnostics are the reference's. The bad statement goes whole (no
    # statement is made of its beginning), and `c = 2` is inside the `(` never closed
    module, diagnostics = parse_source("b = f({x = 1)\nc = 2\n")
    assert module.body == []
    assert [d.message for d in diagnostics] == [
        'expected one of [")"] got newline',
        "unexpected token ')'",
    ]


LIST_TEXTS = [
    'a = [1, "x", 2.5, 3, "${a}", 4Ki]\n',
    "a = [\n    1,\n    2,\n    3\n]\n",
    "a = [1\n2\n3]\n",
    "a = [1, 2, 3,]\n",
    "a = [1, 2 + 3, 4, 5 if True else 6, 7]\n",
    "a = [1, 2, 3 for x in []]\n",
    "a = [1, 2, *[3], 4, [5, 6], 7]\n",
    'a = [1, "a" "b", 2]\n',
    "a = [1, 2,\n\n    3, 4,\n    # a comment\n    5]\n",
    "a = [1, 2, 3\n",
    "a = [1, 2, , 3]\n",
    "a = [1 2 3]\n",
    "a = [1, 2, 3).x\n",
    "a = [[1, 2], [3, 4], {k = [5, 6]}]\n",
    "a = [1, 2, if True: 3, 4]\n",
    "a = [1, 2,\n    if True:\n        3\n        4\n    5, 6]\n",
]


def _without_runs(texts: list[str]) -> list[str]:
    machine = parser._machine(get_parser())
    saved = dict(machine.runs)
    machine.runs.clear()
    try:
        return _parse_all(texts)
    finally:
        machine.runs.update(saved)


def test_lists_take_literal_runs() -> None:
    machine = parser._machine(get_parser())
    assert machine.runs  # the list-item states of `[...]`
    for run in machine.runs.values():
        assert run.items == {"NUMBER", "STRING"}
        assert {"COMMA", "RBRACKET"} <= run.ends


def test_literal_runs_build_the_trees_the_machine_builds() -> None:
    """With literal runs taken or not, every test program and the list shapes above
    parse to the same trees and diagnostics."""
    texts = [path.read_text(encoding="utf-8") for path in sorted((ROOT / "tests").rglob("*.k"))]
    texts += LIST_TEXTS
    assert _parse_all(texts) == _without_runs(texts)


def test_a_separator_that_does_not_return_to_the_list_is_no_run() -> None:
    """_takes_run refuses token sequences that do not come back to the list's state
    by appending to it (a separator alone, an item that goes on as an expression)."""
    machine = parser._machine(get_parser())
    state = next(iter(machine.runs))
    below = next(b for b, s in machine.goto.items() if s.get("list_items") == state)
    takes = driver._takes_run
    assert takes(machine, below, state, "list_items", ("COMMA", "NUMBER", "COMMA"))
    assert not takes(machine, below, state, "list_items", ("COMMA", "COMMA"))
    assert not takes(machine, below, state, "list_items", ("COMMA", "NUMBER", "PLUS", "COMMA"))
    assert not takes(machine, below, state, "list_items", ("COMMA", "NUMBER", "DOT"))


STATEMENT_TEXTS = [
    "a = 1\nb = 2\n\n\nc = 3\n",
    "a = 1\nb = \nc = 3\n",
    "a = 1\n)\nb = 2\n",
    "a = 1\n    b = 2\nc = 3\n",
    "a = 1\nif a:\n    b = 2\nc = 3\n",
    "a = 1\nelse:\n    b = 2\n",
    "a = 1\nschema A:\n    x: int\nb = A {}\n",
    "a = 1\n",
    "a = 1",
    "a = 1\n@deprecated\nb = 2\n",
]


def test_absorbed_newlines_build_the_trees_the_machine_builds() -> None:
    """With the top-level line breaks absorbed or shifted and reduced, every test
    program and the statement shapes above (errors after a line break included) parse
    to the same trees and diagnostics."""
    machine = parser._machine(get_parser())
    absorbed = [
        (state, token, value)
        for state, row in enumerate(machine.actions)
        for token, value in row.items()
        if value >= driver.ABSORB
    ]
    assert [(state, token) for state, token, _ in absorbed] == [
        (state, "NEWLINE") for state, _, _ in absorbed
    ] and absorbed  # top_items : top_items NEWLINE
    texts = [path.read_text(encoding="utf-8") for path in sorted((ROOT / "tests").rglob("*.k"))]
    texts += STATEMENT_TEXTS + LIST_TEXTS
    fast = _parse_all(texts)
    saved = list(machine.actions)
    try:
        for state, token, value in absorbed:
            machine.actions[state] = {**machine.actions[state], token: value - driver.ABSORB}
        plain = _parse_all(texts)
    finally:
        machine.actions[:] = saved
    assert fast == plain
