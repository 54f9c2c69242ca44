"""The LR driver loop that runs ply's parse tables.

A tuned copy of ply's ``LRParser.parseopt_notrack`` (same shift/reduce and
error-recovery behaviour, including the ``error`` token and the three-token
silence after an error). :class:`Machine` holds ply's tables in the shape the
loop reads fastest (lists indexed by state, one goto map per rule) and sorts
the rules into kinds whose reductions run no Python code:

* *unit* rules (marked with :func:`unit`) whose one symbol's value passes up:
  the top symbol is renamed, and a run of them (``NUMBER -> postfix -> simple
  -> test``) is taken in one step, memoised by (state below, state, lookahead),
  and in the step of the reduction before it when that memo holds it;
* *empty* rules (of a :func:`valueless` function, whose action does nothing):
  the new symbol's value is None;
* *keep-first* rules (marked with :func:`keep_first`): the value is the first
  symbol's (``items : items NEWLINE``), so that symbol is renamed in place;
* *list* rules (marked with :func:`collects`): ``items : item`` starts a list,
  ``items : items sep item`` appends to the first symbol's list in place;
* *in-place* rules (marked with :func:`in_place`): the action runs as usual, but
  its result symbol is the first body symbol, renamed (no new symbol; the hot
  rules: ``dotted : NAME``, ``entry : test ASSIGN test``...);
* *wrapping* rules (marked with :func:`wraps`): a one-symbol rule whose value is
  that symbol itself (``ident : NAME``: the token, for its text and position) gets
  a new symbol holding it, without a call.

A list rule may also take *literal runs* (marked with :func:`literal_items`): once
its list is on the stack, a run of ``separator literal`` tokens (``, 1, "a", 2``)
extends the list straight from the token list, each literal token's value being
its item already, without stepping the machine through the separator's, the
literal's and the list's reductions. The run is taken only in states where the
tables show, by stepping through them once when the machine is built, that those
tokens would lead back to the same state with the list one item longer and no
action run on the way (:func:`_takes_run`); a 1M-item list parses 2.5x faster.

A token may also be *absorbed*: where the machine, with ``X`` on top, shifts ``tok``
into a state whose only action is reducing ``X : X tok`` by keeping the first
symbol (``top_items : top_items NEWLINE``, after every top-level statement), the
token is dropped instead and the machine stays where it is (:func:`_absorbed`),
provided the token after it is one that state accepts (so errors are reported
where they were). Such an entry of the action table holds ``ABSORB`` plus the
state it would shift to.

Nonterminal symbols are slotted objects; a unit rule renames a token in place
(tokens are read once, so a shifted token is never looked at as a token
again). It takes a ply ``LRParser`` or the parser's ``Tables`` (for their
tables) and never imports ply itself.
"""

from __future__ import annotations

from collections.abc import Callable

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, TypeVar

    F = TypeVar("F", bound=Callable[..., Any])
    Rule = tuple[str, int, Any, int, dict[int, int]]


_ERROR_COUNT = 3

ABSORB = 1 << 24
"""Added to the shift target of an absorbed token in the action table (states are fewer)."""

CALL, UNIT, EMPTY, KEEP_FIRST, START, COLLECT, IN_PLACE, WRAP = range(8)
"""Rule kinds: call the action; rename the top symbol; push None; rename the first
symbol; put the value in a new list; append the last symbol's value to the first's;
call the action with the first symbol as the result, then rename it; a new symbol
whose value is the top symbol."""


def unit(function: F) -> F:
    """Mark a rule function whose one-symbol rules pass their symbol's value up
    (its other rules still call it)."""
    function.unit = True  # type: ignore[attr-defined]
    return function


def collects(function: F) -> F:
    """Mark the rule function of a left-recursive list (``items : item | items sep
    item``): a one-symbol rule starts a list of its value, a longer one appends its
    last symbol's value to its first symbol's list."""
    function.collects = True  # type: ignore[attr-defined]
    return function


def collect(p: Any) -> None:
    """The action of a :func:`collects` rule, as the driver takes it without a call:
    ``items : item`` starts a list, ``items : items ... item`` appends to it."""
    s = p.slice
    if len(s) == 2:
        s[0].value = [s[1].value]
    else:
        items = s[1].value
        items.append(s[-1].value)
        s[0].value = items


def valueless(function: F) -> F:
    """Mark a rule function that does nothing (separators, layout): its one-symbol
    rules are unit rules, its other rules push None."""
    function.unit = True  # type: ignore[attr-defined]
    function.valueless = True  # type: ignore[attr-defined]
    return function


def keep_first(function: F) -> F:
    """Mark a rule function whose value is its first symbol's value, which must
    be a nonterminal (``items : items NEWLINE``)."""
    function.keep_first = True  # type: ignore[attr-defined]
    return function


def wraps(function: F) -> F:
    """Mark a rule function of one-symbol rules whose value is the body symbol itself
    (``s[0].value = s[1]``)."""
    function.wraps = True  # type: ignore[attr-defined]
    return function


def in_place(function: F) -> F:
    """Mark a rule function whose result may overwrite its first symbol: it reads
    every ``s[i]`` it needs before it sets ``s[0].value``, and keeps no symbol itself
    (``s[0]`` is then ``s[1]``, renamed to the rule's name afterwards)."""
    function.in_place = True  # type: ignore[attr-defined]
    return function


def literal_items(
    kinds: tuple[str, ...], separators: tuple[tuple[str, ...], ...], follows: tuple[str, ...]
) -> Callable[[F], F]:
    """Mark a list rule function (see :func:`collects`) whose lists may take runs of
    one-token items of these token ``kinds`` (tokens whose value is the item's node),
    each after one of the ``separators`` (token sequences, one or two long) and
    before one of the tokens ``follows``."""

    def mark(function: F) -> F:
        function.literal_items = (kinds, separators, follows)  # type: ignore[attr-defined]
        return function

    return mark


class Run:
    """How a state holding a list takes literal runs: the item token kinds, the
    separators (of one token; of two, keyed by the first), and the tokens that may
    follow an item."""

    __slots__ = ("ends", "items", "pairs", "singles")

    def __init__(
        self,
        items: frozenset[str],
        singles: frozenset[str],
        pairs: dict[str, str],
        ends: frozenset[str],
    ) -> None:
        self.items = items
        self.singles = singles
        self.pairs = pairs
        self.ends = ends

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Run) and (
            (self.items, self.singles, self.pairs, self.ends)
            == (other.items, other.singles, other.pairs, other.ends)
        )


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


"""(name, length, action, kind, goto): ``goto`` maps the state uncovered by the
reduction to the state after it."""


class Machine:
    """A parser's tables for the loop: ``actions[state]`` maps a token kind to a
    shift (> 0), a reduction (< 0, minus the rule's index) or accept (0);
    ``defaults[state]`` is the reduction a state takes without reading a token
    (ply's defaulted states) or None; ``rules`` by index."""

    __slots__ = ("actions", "chains", "defaults", "goto", "parser", "rules", "runs")

    def __init__(self, parser: Any) -> None:
        self.parser = parser
        states = range(max(parser.action) + 1)
        self.actions: list[dict[str, int]] = [parser.action.get(state, {}) for state in states]
        self.goto: dict[int, dict[str, int]] = parser.goto
        self.chains: dict[int, dict[str | None, tuple[int, str]]] = {}
        kinds = [_kind(rule.callable, rule.len) for rule in parser.productions]
        stored: tuple[Any, ...] = getattr(parser, "derived", None) or ((),)
        fresh = stored[0] == kinds  # (stored, and the rules' marks as when stored)
        if fresh:
            _kinds, self.defaults, by_name, runs, absorbed = stored
            self.runs = {
                state: Run(frozenset(items), frozenset(singles), pairs, frozenset(ends))
                for state, (items, singles, pairs, ends) in runs.items()
            }
        else:
            self.defaults = [parser.defaulted_states.get(s) for s in states]
            by_name = {}
            for state, row in parser.goto.items():
                for name, target in row.items():
                    by_name.setdefault(name, {})[state] = target
        self.rules: list[Rule] = [
            (rule.name, rule.len, rule.callable, kind, by_name.get(rule.name, {}))
            for rule, kind in zip(parser.productions, kinds, strict=True)
        ]
        if not fresh:
            self.runs = _runs(self, by_name)
            absorbed = _absorbed(self, by_name)
        for state, token, target in absorbed:
            row = self.actions[state] = dict(self.actions[state])  # (the parser's: intact)
            row[token] = ABSORB + target

    def derived(self) -> tuple[Any, ...]:
        """What building the machine derives from the tables and the rules' marks, as
        plain data (``parsetab.py`` stores it; see :func:`kclpy.syntax.tables.compact_tables`):
        the rule kinds, the default reductions, the goto targets by symbol, the literal
        runs by state and the absorbed tokens."""
        by_name = {name: targets for name, _length, _action, _kind, targets in self.rules}
        runs = {
            state: (
                tuple(sorted(run.items)),
                tuple(sorted(run.singles)),
                dict(run.pairs),
                tuple(sorted(run.ends)),
            )
            for state, run in sorted(self.runs.items())
        }
        absorbed = [
            (state, token, target - ABSORB)
            for state, row in enumerate(self.actions)
            for token, target in row.items()
            if target >= ABSORB
        ]
        kinds = [kind for _name, _length, _action, kind, _targets in self.rules]
        return kinds, self.defaults, by_name, runs, absorbed


def _runs(machine: Machine, by_name: dict[str, dict[int, int]]) -> dict[int, Run]:
    """The literal runs of the list rules marked :func:`literal_items`, by the state
    the list's symbol is in (where every state below agrees)."""
    found_runs: dict[int, Run] = {}
    for production in machine.parser.productions:
        marked = getattr(production.callable, "literal_items", None)
        if marked is not None and production.len == 1:
            found: dict[int, list[Run | None]] = {}
            for below, state in by_name.get(production.name, {}).items():
                run = _run_of(machine, below, state, production.name, *marked)
                found.setdefault(state, []).append(run)
            for state, runs in found.items():  # every state below must agree
                first = runs[0]
                if first is not None and all(run == first for run in runs):
                    found_runs[state] = first
    return found_runs


def _kind(action: Any, length: int) -> int:
    """The kind of a rule of ``length`` symbols by its action's marks."""
    if getattr(action, "unit", False) and length == 1:
        return UNIT
    if getattr(action, "valueless", False):
        return EMPTY
    if getattr(action, "keep_first", False) and length >= 1:
        return KEEP_FIRST
    if getattr(action, "collects", False) and length >= 1:
        return START if length == 1 else COLLECT
    if getattr(action, "in_place", False) and length >= 1:
        return IN_PLACE
    if getattr(action, "wraps", False) and length == 1:
        return WRAP
    return CALL


def run(
    machine: Machine,
    cursor: Any,
    on_error: Callable[[Any], bool],
    reread: Callable[[Any], bool] | None = None,
) -> Any:
    """Parse the tokens ``cursor.tokens[cursor.index:]`` with the machine's tables;
    returns the start symbol's value, or None when the input ended in an
    unrecoverable error (the stacks stay in ``parser.symstack``/``parser.statestack``
    for salvaging).

    At a token no action takes, ``reread(token)`` (when given) may change the token
    in place and return True: it is read again, and there is no error. Else
    ``on_error(token or None at the end)`` reports the error (unless still recovering
    from the last one); it may move ``cursor.index`` on and set ``cursor.pending``, a
    token to read first, and return True when the input so changed reads on as it
    is (no ``error`` token), or False to recover through the grammar's ``error``
    rules."""
    parser = machine.parser
    actions = machine.actions
    defaults = machine.defaults
    rules = machine.rules
    chains = machine.chains
    runs = machine.runs
    production = Production(parser)
    pair: list[Any] = [None, None]  # the slice of a one-symbol in-place rule
    new = object.__new__
    statestack = [0]
    symstack: list[Any] = [Symbol("$end")]
    parser.statestack = statestack
    parser.symstack = symstack
    tokens = cursor.tokens
    index = cursor.index
    size = cursor.size
    lookahead: Any = None
    lookaheadstack: list[Any] = []
    errorcount = 0
    state = 0
    top = 0  # len(statestack) - 1 (== len(symstack) - 1): stack reads by a
    # non-negative index, which 3.11 specialises (a negative one goes the slow way)
    while True:
        t = defaults[state]
        if t is None:
            if lookahead is None:
                if lookaheadstack:
                    lookahead = lookaheadstack.pop()
                elif index < size:
                    lookahead = tokens[index]
                    index += 1
                else:
                    lookahead = Symbol("$end")
            try:
                t = actions[state][lookahead.type]
            except KeyError:
                t = None

        if t is not None:
            if t > 0:
                if t >= ABSORB:  # `X tok` that would reduce to `X` at once: drop tok
                    t -= ABSORB
                    if not lookaheadstack and index < size and tokens[index].type in actions[t]:
                        lookahead = None
                        if errorcount:
                            errorcount -= 1
                        continue
                statestack.append(t)
                state = t
                symstack.append(lookahead)
                top += 1
                lookahead = None
                if errorcount:
                    errorcount -= 1
                continue
            if t < 0:
                pname, plen, action, kind, targets = rules[-t]
                if kind == IN_PLACE:
                    first = symstack[top + 1 - plen]
                    if plen == 1:
                        pair[0] = pair[1] = first
                        production.slice = pair
                        action(production)
                    else:
                        body = symstack[top - plen :]
                        body[0] = first
                        production.slice = body
                        action(production)
                        top += 1 - plen
                        del symstack[top + 1 :]
                        del statestack[top + 1 :]
                    first.type = pname
                    below = statestack[top - 1]
                    state = targets[below]
                    statestack[top] = state
                elif kind == UNIT:
                    # A run of unit reductions only renames the top symbol and
                    # moves the top state: taken in one step, memoised.
                    below = statestack[top - 1]
                    ahead = None if lookahead is None else lookahead.type
                    try:
                        hop = chains[below << 16 | state][ahead]
                    except KeyError:
                        hop = _unit_chain(machine, below, pname, ahead)
                        chains.setdefault(below << 16 | state, {})[ahead] = hop
                    state, symstack[top].type = hop
                    statestack[top] = state
                    continue
                elif kind == CALL:
                    sym = new(Symbol)
                    sym.type = pname
                    sym.value = None
                    if plen:
                        body = symstack[top - plen :]
                        body[0] = sym
                        production.slice = body
                        top -= plen
                        del symstack[top + 1 :]
                        action(production)
                        del statestack[top + 1 :]
                    else:
                        production.slice = [sym]
                        action(production)
                    symstack.append(sym)
                    below = statestack[top]
                    state = targets[below]
                    statestack.append(state)
                    top += 1
                elif kind == EMPTY:
                    if plen:
                        top -= plen
                        del symstack[top + 1 :]
                        del statestack[top + 1 :]
                    sym = new(Symbol)
                    sym.type = pname
                    sym.value = None
                    symstack.append(sym)
                    below = statestack[top]
                    state = targets[below]
                    statestack.append(state)
                    top += 1
                elif kind == WRAP:
                    sym = new(Symbol)
                    sym.type = pname
                    sym.value = symstack[top]
                    symstack[top] = sym
                    below = statestack[top - 1]
                    state = targets[below]
                    statestack[top] = state
                else:
                    # the first symbol becomes the result, renamed in place: its value
                    # put in a new list, or a list it holds extended, or kept
                    first = symstack[top]
                    if kind == START:
                        first.value = [first.value]
                    elif plen > 1:
                        item = first.value
                        top += 1 - plen
                        del symstack[top + 1 :]
                        del statestack[top + 1 :]
                        first = symstack[top]
                        if kind == COLLECT:
                            first.value.append(item)
                    first.type = pname
                    state = targets[statestack[top - 1]]
                    statestack[top] = state
                    run = runs.get(state)
                    if (
                        run is not None
                        and lookahead is not None
                        and not errorcount
                        and not lookaheadstack
                    ):
                        # a run of literal items: `, 1, 2, 3` appended as they are
                        items = first.value
                        singles = run.singles
                        pairs = run.pairs
                        kinds = run.items
                        ends = run.ends
                        while True:
                            at = index
                            kind = lookahead.type
                            if kind in pairs and at < size and tokens[at].type == pairs[kind]:
                                at += 1
                            elif kind not in singles:
                                break
                            if at + 1 >= size:
                                break
                            item = tokens[at]
                            after = tokens[at + 1]
                            if item.type not in kinds or after.type not in ends:
                                break
                            items.append(item.value)
                            lookahead = after
                            index = at + 2
                    continue
                # a unit chain right after the reduction (the memo of the UNIT branch,
                # where it has one for this state and lookahead): taken in this step
                follow = chains.get(below << 16 | state)
                if follow is not None:
                    chained = follow.get(None if lookahead is None else lookahead.type)
                    if chained is not None:
                        state, symstack[top].type = chained
                        statestack[top] = state
                continue
            result = symstack[-1].value
            del symstack[1:]  # the tables outlive the parse: they must not keep the tree
            return result

        # A syntax error: report it (unless still recovering from the last one),
        # then let the `error` token pop states until some rule accepts it.
        if reread is not None and lookahead.type != "$end":
            cursor.index = index
            if reread(lookahead):
                continue
        if errorcount == 0 or parser.errorok:
            errorcount = _ERROR_COUNT
            parser.errorok = False
            parser.state = state
            cursor.index = index
            resumed = on_error(None if lookahead.type == "$end" else lookahead)
            index = cursor.index
            if resumed:  # the input goes on from the cursor, without recovery
                lookahead = cursor.pending
                cursor.pending = None
                del lookaheadstack[:]
                errorcount = 0
                continue
            if cursor.pending is not None:  # goes in the slot of a token already read
                index -= 1
                tokens[index] = cursor.pending
                cursor.pending = None
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
            # down to a state that shifts `error`, past default reductions that would
            # make a statement of the bad one's beginning (`x = [1 +` is no `x`)
            while len(statestack) > 1 and actions[state].get("error", 0) <= 0:
                symstack.pop()
                statestack.pop()
                state = statestack[-1]
        else:
            symstack.pop()
            statestack.pop()
            state = statestack[-1]
        top = len(statestack) - 1


def _absorbed(machine: Machine, by_name: dict[str, dict[int, int]]) -> list[tuple[int, str, int]]:
    """(state, token, target) where the machine, in ``state`` (entered by ``X``), shifts
    ``token`` into ``target`` whose only action, whatever follows, is reducing
    ``X : X token`` by keeping the first symbol: the reduction leaves the stacks as
    they were before the shift."""
    found: list[tuple[int, str, int]] = []
    for index, (name, length, _action, kind, _targets) in enumerate(machine.rules):
        if kind != KEEP_FIRST or length != 2:
            continue
        body = machine.parser.productions[index].str.split("->")[1].split()
        if body[0] != name:
            continue
        token = body[1]
        for state in set(by_name.get(name, {}).values()):  # the states entered by `name`
            target = machine.actions[state].get(token)
            if target is None or target <= 0:
                continue
            default = machine.defaults[target]
            after = machine.actions[target]
            if default == -index or (
                default is None and after and all(act == -index for act in after.values())
            ):
                found.append((state, token, target))
    return found


def _run_of(
    machine: Machine,
    below: int,
    state: int,
    name: str,
    kinds: tuple[str, ...],
    separators: tuple[tuple[str, ...], ...],
    follows: tuple[str, ...],
) -> Run | None:
    """The literal runs the list ``name`` in ``state`` (over ``below``) takes: every
    separator, item kind and following token for which the tables agree."""
    ends = set(follows)
    usable: list[tuple[str, ...]] = []
    for separator in separators:
        fits = {
            end
            for end in ends
            if all(
                _takes_run(machine, below, state, name, (*separator, kind, end)) for kind in kinds
            )
        }
        if fits:
            usable.append(separator)
            ends = fits
    if not usable:
        return None
    singles = frozenset(sep[0] for sep in usable if len(sep) == 1)
    pairs = {sep[0]: sep[1] for sep in usable if len(sep) == 2}
    if len(pairs) + len(singles) != len(usable):
        return None  # (two pairs with the same first token: not needed, not taken)
    return Run(frozenset(kinds), singles, pairs, frozenset(ends))


def _takes_run(
    machine: Machine, below: int, state: int, name: str, tokens: tuple[str, ...]
) -> bool:
    """Whether the machine, in ``state`` over ``below`` with ``tokens[0]`` read, shifts
    every token but the last and then, with only reductions that run no action, comes
    back to ``state`` by appending to the list ``name``."""
    stack = [below, state]
    position = 0
    last = len(tokens) - 1
    while True:
        top = stack[-1]
        t = machine.defaults[top]
        if t is None:
            t = machine.actions[top].get(tokens[position])
        if not t:
            return False
        if t > 0:
            if position == last:
                return False
            stack.append(t)
            position += 1
            continue
        pname, length, _action, kind, targets = machine.rules[-t]
        if kind not in (UNIT, EMPTY, KEEP_FIRST, START, COLLECT) or len(stack) - length < 1:
            return False
        if length:
            del stack[-length:]
        target = targets.get(stack[-1])
        if target is None:
            return False
        stack.append(target)
        if pname == name:
            return kind == COLLECT and stack == [below, state] and position == last


def _unit_chain(machine: Machine, below: int, pname: str, lookahead: str | None) -> tuple[int, str]:
    """Where reducing by the unit rule ``-> pname`` over state ``below`` ends: the
    state and symbol name after every unit reduction that follows (with the
    lookahead, or in defaulted states only when no token has been read)."""
    goto = machine.goto
    actions = machine.actions
    defaults = machine.defaults
    state = goto[below][pname]
    while True:
        t = defaults[state]
        if t is None and lookahead is not None:
            t = actions[state].get(lookahead)
        if t is None or t >= 0:
            return state, pname
        name, _length, _action, kind, _targets = machine.rules[-t]
        if kind != UNIT:
            return state, pname
        pname = name
        state = goto[below][pname]


def accepts(machine: Machine, statestack: list[int], *kinds: str) -> bool:
    """Whether the machine with these states would shift tokens of these ``kinds`` one
    after the other, with the reductions it takes on each first (the stack itself is
    left as it is)."""
    stack = list(statestack)
    for kind in kinds:
        while True:
            state = stack[-1]
            t = machine.defaults[state]
            if t is None:
                t = machine.actions[state].get(kind)
            if t is None:
                return False
            if t > 0:
                stack.append(t - ABSORB if t >= ABSORB else t)
                break
            if t == 0:
                return True
            _name, length, _action, _kind, targets = machine.rules[-t]
            if length:
                if length >= len(stack):
                    return False
                del stack[-length:]
            target = targets.get(stack[-1])
            if target is None:
                return False
            stack.append(target)
    return True
