"""The grammar as ply reads it: the ``p_`` rule functions of the grammar modules, the
terminals, the operator precedence and the pinned conflict counts; its signature; and
:class:`Tables`, the generated LALR tables in the shape the parser's driver reads.

Shared by :mod:`kclpy.syntax.parser` (which loads ``parsetab.py`` through
:class:`Tables`) and :mod:`kclpy.syntax.tables` (which generates it with ply); it
imports neither, nor ply.
"""

from __future__ import annotations

import sys

from kclpy.syntax import grammar_collections, grammar_expr, grammar_stmt
from kclpy.syntax.tokens import TERMINALS

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

PRECEDENCE = (
    ("left", "AS"),
    ("left", "OR"),
    ("left", "AND"),
    ("left", "EQ", "NE"),
    ("left", "IN", "NOTIN"),
    ("left", "IS", "ISNOT"),
    ("left", "LT", "LE", "GT", "GE"),
    ("left", "PIPE"),
    ("left", "CARET"),
    ("left", "AMP"),
    ("left", "LSHIFT", "RSHIFT"),
    ("left", "PLUS", "MINUS"),
    ("left", "STAR", "SLASH", "DSLASH", "PERCENT"),
    ("left", "DSTAR"),
)

SHIFT_REDUCE_CONFLICTS = 80
"""Pinned by tests/syntax/test_tables.py. All are resolved as shift, on purpose:

* an expression that could end before ``- + * ** if ( [ {`` (the next item or
  statement needs no separator) goes on instead: ``a -1``, ``f (x)``, ``S {}``,
  ``x if c else y``, also after ``assert``, in check lines and in unification
  (``x: S {}`` is a schema value, not ``x: S`` then a dict);
* a statement keyword that is also a name (``type``, ``schema``, ``rule``,
  ``mixin``, ``protocol``, ``check``) starts its statement: ``type T = int``,
  ``check:`` in a schema, ``mixin [...]``;
* ``else``/``elif`` bind to the nearest ``if`` item;
* a function type's return type takes the rest of a union:
  ``(int) -> int | str``; ``(A)`` followed by ``->`` is a function type;
* ``schema A:`` followed by a line break (and an indented block) has a body.
"""
REDUCE_REDUCE_CONFLICTS = 0


def p_error(tok: Any) -> None:
    """ply's error hook, which it requires of a grammar; never called: the parser's
    driver reports errors through the handler of each parse (``driver.run``)."""


def grammar_dict() -> dict[str, Any]:
    """The ply grammar: every ``p_`` rule of the grammar modules plus tokens and precedence."""
    pdict: dict[str, Any] = {}
    for module in (grammar_stmt, grammar_expr, grammar_collections):
        for name, value in vars(module).items():
            if name.startswith("p_") and callable(value):
                pdict[name] = value
    pdict.update(tokens=TERMINALS, precedence=PRECEDENCE, start="start", p_error=p_error)
    return pdict


def grammar_signature(pdict: dict[str, Any]) -> str:
    """ply's signature of a grammar (start symbol, precedence, tokens and the rule
    docstrings in ply's order), computed without importing ply."""
    rules = []
    module_names: dict[str, str] = {}
    for name, item in pdict.items():
        if name.startswith("p_") and name != "p_error" and callable(item):
            module = module_names.get(item.__module__)
            if module is None:
                module = module_names[item.__module__] = str(sys.modules[item.__module__])
            rules.append((item.__code__.co_firstlineno, module, name, item.__doc__))
    rules.sort()
    parts = [pdict["start"], "".join("".join(level) for level in pdict["precedence"])]
    parts.append(" ".join(sorted(pdict["tokens"])))
    parts.extend(doc for _, _, _, doc in rules if doc)
    return "".join(parts)


class Rule:
    """One production as the driver reads it: name, length, action and text
    (``name -> body``, as ply's ``str``)."""

    __slots__ = ("callable", "len", "name", "str")

    def __init__(self, name: str, length: int, action: Any, text: str) -> None:
        self.name = name
        self.len = length
        self.callable = action
        self.str = text


class Tables:
    """The LALR tables of ``parsetab.py`` in the shape the driver reads (ply's
    ``LRParser`` attributes), with the rule actions bound by name."""

    __slots__ = (
        "action",
        "defaulted_states",
        "derived",
        "errorok",
        "goto",
        "productions",
        "state",
        "statestack",
        "symstack",
    )

    def __init__(self, tables: Any, pdict: dict[str, Any]) -> None:
        self.action: dict[int, dict[str, int]] = tables._lr_action
        self.goto: dict[int, dict[str, int]] = tables._lr_goto
        self.productions = [
            Rule(name, length, pdict[function] if function else None, text)
            for text, name, length, function, _file, _line in tables._lr_productions
        ]
        # what the driver's machine derives, stored by --regen (driver.Machine.derived)
        self.derived: tuple[Any, ...] | None = getattr(tables, "_lr_derived", None)
        # ply's defaulted states: one possible action, and it is a reduction
        self.defaulted_states: dict[int, int] = {}
        if self.derived is not None:
            defaults = self.derived[1]
            self.defaulted_states = {s: t for s, t in enumerate(defaults) if t is not None}
        else:
            for state, actions in self.action.items():
                only = list(actions.values())
                if len(only) == 1 and only[0] < 0:
                    self.defaulted_states[state] = only[0]
        self.errorok = True
        self.state = 0
        self.statestack: list[int] = []
        self.symstack: list[Any] = []
