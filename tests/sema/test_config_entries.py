"""Config entries on the checker's short path and around it (``ConfigChecker._declared_entry``).

A plain name key of a declared schema attribute (or of a dict) is checked by a short
path; these cases hold its diagnostics, and those of the entries just beside it
(index signatures, undeclared keys, ``+=``, keys read later, loop-variable keys,
repeated keys, nested values), to what the general path gave (codes, label
positions and messages, recorded before the short path existed).
"""

from __future__ import annotations

import pytest
from checking import checked

Labels = list[tuple[int, int, str]]

CASES: dict[str, tuple[str, list[tuple[str, Labels]]]] = {
    "wrong_literal": (
        'schema S:\n    port: int\n    name: str\n\ns = S {port = "x", name = 1}\n',
        [
            (
                "TYPE_ERROR",
                [
                    (5, 8, "expected int, got str(x)"),
                    (2, 5, "variable is defined here, its type is int, but got str(x)"),
                ],
            ),
            (
                "TYPE_ERROR",
                [
                    (5, 20, "expected str, got int(1)"),
                    (3, 5, "variable is defined here, its type is str, but got int(1)"),
                ],
            ),
        ],
    ),
    "int_to_float": (
        "schema S:\n    ratio: float\n    on: bool\n\ns = S {ratio = 1, on = True}\n",
        [],
    ),
    "union_literal": (
        'schema S:\n    tier: "a" | "b"\n\ns = S {tier = "c"}\nt = S {tier = "a"}\n',
        [
            (
                "TYPE_ERROR",
                [
                    (4, 8, "expected str(a) | str(b), got str(c)"),
                    (2, 5, "variable is defined here, its type is str(a) | str(b), but got str(c)"),
                ],
            )
        ],
    ),
    "dict_value": (
        'd: {str:int} = {a = "x", b = 1, c = None}\n',
        [
            (
                "TYPE_ERROR",
                [
                    (1, 17, "expected int, got str(x)"),
                    (1, 1, "variable is defined here, its type is int, but got str(x)"),
                ],
            ),
            (
                "TYPE_ERROR",
                [(1, 1, "expected {str:int}, got {str(a) | str(b) | str(c):str(x) | int(1)}")],
            ),
        ],
    ),
    "index_signature": (
        'schema S:\n    [str]: int\n    a: str\n\ns = S {a = 1, b = "x"}\n',
        [
            (
                "INDEX_SIGNATURE_ERROR",
                [
                    (
                        3,
                        5,
                        "the type 'str' of schema attribute 'a' does not meet the index signature "
                        "definition [str]: int",
                    )
                ],
            ),
            (
                "TYPE_ERROR",
                [
                    (5, 8, "expected str, got int(1)"),
                    (3, 5, "variable is defined here, its type is str, but got int(1)"),
                ],
            ),
            ("TYPE_ERROR", [(5, 15, "expected int, got str(x)")]),
        ],
    ),
    "undeclared": (
        'schema S:\n    name: str\n\ns = S {nmae = "x"}\n',
        [
            (
                "COMPILE_ERROR",
                [(4, 8, "Cannot add member 'nmae' to schema 'S', did you mean '[\"name\"]'?")],
            ),
            (
                "COMPILE_ERROR",
                [(4, 7, "attribute 'name' of S is required and can't be None or Undefined")],
            ),
        ],
    ),
    "insert": (
        "schema S:\n    items: [int]\n    n: int\n\ns = S {items += [1], n += 1}\n",
        [("ILLEGAL_ATTRIBUTE_ERROR", [(5, 27, "only list type can in inserted, got 'int(1)'")])],
    ),
    "read_later": (
        "schema S:\n    a: int\n    b: str\n\ns = S {a = 1, b = a + 1}\n",
        [
            (
                "TYPE_ERROR",
                [
                    (5, 15, "expected str, got int"),
                    (3, 5, "variable is defined here, its type is str, but got int"),
                ],
            )
        ],
    ),
    "loop_key": (
        'schema S:\n    a: int\n\nx = [S {k = 1} for k in ["a"]]\ny = [{k = 1} for k in ["a"]]\n',
        [
            ("COMPILE_ERROR", [(4, 9, "Cannot add member 'k' to schema 'S'")]),
            (
                "COMPILE_ERROR",
                [(4, 8, "attribute 'a' of S is required and can't be None or Undefined")],
            ),
        ],
    ),
    "repeated": (
        'schema S:\n    a: int\n\ns = S {a = 1, a = "x"}\n',
        [
            (
                "TYPE_ERROR",
                [
                    (4, 15, "expected int, got str(x)"),
                    (2, 5, "variable is defined here, its type is int, but got str(x)"),
                ],
            )
        ],
    ),
    "nested_schema": (
        "schema A:\n    n: int\n\nschema B:\n    a: A\n    m: {str:str}\n\n"
        'b = B {a = {n = "x"}, m = {k = 1}}\n',
        [
            (
                "TYPE_ERROR",
                [
                    (8, 13, "expected int, got str(x)"),
                    (2, 5, "variable is defined here, its type is int, but got str(x)"),
                ],
            ),
            (
                "TYPE_ERROR",
                [
                    (8, 8, "expected int, got str"),
                    (2, 5, "variable is defined here, its type is int, but got str"),
                ],
            ),
            (
                "TYPE_ERROR",
                [
                    (8, 28, "expected str, got int(1)"),
                    (6, 5, "variable is defined here, its type is str, but got int(1)"),
                ],
            ),
            (
                "TYPE_ERROR",
                [
                    (8, 23, "expected {str:str}, got {str(k):int(1)}"),
                    (
                        6,
                        5,
                        "variable is defined here, its type is {str:str}, but got {str(k):int(1)}",
                    ),
                ],
            ),
        ],
    ),
}


def diagnostics(source: str) -> list[tuple[str, Labels]]:
    """(code, labels as (line, column, message)) of each diagnostic, in order."""
    model = checked(source)
    found = []
    for diagnostic in model.diagnostics:
        labels = []
        for label in diagnostic.labels:
            assert label.span is not None
            position = label.span.begin_pos
            labels.append((position.line, position.col, label.message))
        found.append((diagnostic.code.name, labels))
    return found


@pytest.mark.parametrize("name", sorted(CASES))
def test_config_entry_diagnostics(name: str) -> None:
    source, expected = CASES[name]
    assert diagnostics(source) == expected
