"""The LR driver loop that runs ply's parse tables.

A tuned copy of ply's ``LRParser.parseopt_notrack`` (same shift/reduce and
error-recovery behaviour, including the ``error`` token and the three-token
silence after an error), with two savings on the hot path: nonterminal
symbols are slotted objects, and *unit* rules whose action only passes the
child's value up (marked with :func:`unit`) are reduced without calling
Python code. It takes a ply ``LRParser`` (for its tables) and never imports
ply itself.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

F = TypeVar("F", bound=Callable[..., Any])

_ERROR_COUNT = 3


def unit(function: F) -> F:
    """Mark a one-symbol rule whose value is its child's value."""
    function.unit = True  # type: ignore[attr-defined]
    return function


class Symbol:
    """A grammar symbol on the parse stack (tokens are pushed as they are)."""

    __slots__ = ("type", "value")

    def __init__(self, kind: str, value: Any = None) -> None:
        self.type = kind
        self.value = value

    def __repr__(self) -> str:
        return f"Symbol({self.type})"


class Production:
    """What grammar actions receive: ``slice[0]`` is the result, ``slice[1:]`` the rule body."""

    __slots__ = ("lexer", "parser", "slice")

    def __init__(self, parser: Any) -> None:
        self.slice: list[Any] = []
        self.parser = parser
        self.lexer = None

    def __getitem__(self, index: int) -> Any:
        return self.slice[index].value

    def __setitem__(self, index: int, value: Any) -> None:
        self.slice[index].value = value

    def __len__(self) -> int:
        return len(self.slice)


def compile_rules(parser: Any) -> list[tuple[str, int, Any, bool]]:
    """(name, length, action, is_unit) for each production of a ply parser."""
    rules = []
    for production in parser.productions:
        action = production.callable
        is_unit = production.len == 1 and getattr(action, "unit", False)
        rules.append((production.name, production.len, action, is_unit))
    return rules


def run(
    parser: Any,
    rules: list[tuple[str, int, Any, bool]],
    get_token: Callable[[], Any],
    on_error: Callable[[Any], None],
) -> Any:
    """Parse the tokens from ``get_token`` with ``parser``'s tables; returns the start
    symbol's value, or None when the input ended in an unrecoverable error (the
    stacks stay in ``parser.symstack``/``parser.statestack`` for salvaging)."""
    actions = parser.action
    goto = parser.goto
    defaulted = parser.defaulted_states
    production = Production(parser)
    statestack = [0]
    symstack: list[Any] = [Symbol("$end")]
    parser.statestack = statestack
    parser.symstack = symstack
    lookahead: Any = None
    lookaheadstack: list[Any] = []
    errorcount = 0
    state = 0
    default = defaulted.get
    chains = _chains(parser)
    while True:
        t = default(state)
        if t is None:
            if lookahead is None:
                lookahead = lookaheadstack.pop() if lookaheadstack else get_token()
                if lookahead is None:
                    lookahead = Symbol("$end")
            t = actions[state].get(lookahead.type)

        if t is not None:
            if t > 0:
                statestack.append(t)
                state = t
                symstack.append(lookahead)
                lookahead = None
                if errorcount:
                    errorcount -= 1
                continue
            if t < 0:
                pname, plen, action, is_unit = rules[-t]
                if is_unit:
                    # A run of unit reductions (NAME -> ident -> ... -> test) only
                    # renames the top symbol and moves the top state: taken in one
                    # step, memoised by (state below, state, lookahead).
                    below = statestack[-2]
                    key = (below, state, None if lookahead is None else lookahead.type)
                    hop = chains.get(key)
                    if hop is None:
                        hop = chains[key] = _unit_chain(parser, rules, below, pname, key[2])
                    state, pname = hop
                    top = symstack[-1]
                    if top.__class__ is Symbol:
                        top.type = pname
                    else:
                        symstack[-1] = Symbol(pname, top.value)
                    statestack[-1] = state
                    continue
                sym = Symbol(pname)
                if plen:
                    targ = symstack[-plen - 1 :]
                    targ[0] = sym
                    production.slice = targ
                    del symstack[-plen:]
                    action(production)
                    del statestack[-plen:]
                else:
                    production.slice = [sym]
                    action(production)
                symstack.append(sym)
                state = goto[statestack[-1]][pname]
                statestack.append(state)
                continue
            return symstack[-1].value

        # A syntax error: report it (unless still recovering from the last one),
        # then let the `error` token pop states until some rule accepts it.
        if errorcount == 0 or parser.errorok:
            errorcount = _ERROR_COUNT
            parser.errorok = False
            parser.state = state
            on_error(None if lookahead.type == "$end" else lookahead)
        else:
            errorcount = _ERROR_COUNT

        if len(statestack) <= 1 and lookahead.type != "$end":
            lookahead = None
            state = 0
            del lookaheadstack[:]
            continue
        if lookahead.type == "$end":
            return None
        if lookahead.type != "error":
            if symstack[-1].type == "error":
                lookahead = None
                continue
            error = Symbol("error", lookahead)
            lookaheadstack.append(lookahead)
            lookahead = error
        else:
            symstack.pop()
            statestack.pop()
            state = statestack[-1]


def _chains(parser: Any) -> dict[tuple[int, int, str | None], tuple[int, str]]:
    """The memo of unit-reduction runs, kept on the parser object."""
    chains: dict[tuple[int, int, str | None], tuple[int, str]] | None = getattr(
        parser, "unit_chains", None
    )
    if chains is None:
        chains = {}
        parser.unit_chains = chains
    return chains


def _unit_chain(
    parser: Any,
    rules: list[tuple[str, int, Any, bool]],
    below: int,
    pname: str,
    lookahead: str | None,
) -> tuple[int, str]:
    """Where reducing by the unit rule ``-> pname`` over state ``below`` ends: the
    state and symbol name after every unit reduction that follows (with the
    lookahead, or in defaulted states only when no token has been read)."""
    goto = parser.goto
    actions = parser.action
    defaulted = parser.defaulted_states
    state = goto[below][pname]
    while True:
        t = defaulted.get(state)
        if t is None and lookahead is not None:
            t = actions[state].get(lookahead)
        if t is None or t >= 0:
            return state, pname
        name, _length, _action, is_unit = rules[-t]
        if not is_unit:
            return state, pname
        pname = name
        state = goto[below][pname]
