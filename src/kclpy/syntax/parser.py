"""The KCL parser: ply.yacc over the layout filter's tokens, producing ``ast.Module``.

Takes source text (or a fragment: an interpolated ``${...}``, a ``-O`` value)
and returns the tree plus diagnostics; it never raises on bad input.

* The LALR tables of the grammar (:mod:`kclpy.syntax.grammar`) are generated ahead
  of time into ``parsetab.py`` (run ``python -m kclpy.syntax.tables --regen``);
  loading them writes nothing and prints nothing. A test checks they match the
  grammar and pins the number of conflicts (all shift/reduce, resolved as shift =
  "keep the expression going").
* One table serves files and lone expressions: a synthetic ``EXPR_START`` token
  selects the expression entry.
* A keyword the grammar cannot take where it stands is read again as a name
  (``import: [str]`` in a schema, ``{in = 1}``), as the reference's parser, which
  dispatches on a keyword only where it starts something.
* Syntax errors are reported in the reference's words, one per problem. A statement
  one token would complete stands (a missing operand at its end becomes an empty
  name, junk after a whole statement is skipped), so that its names are still
  checked; a name missing in a dotted one is a placeholder too (``import .a..b``);
  an error inside a bracket closed later skips to that bracket where the grammar
  takes it (``schema B(A, C):`` keeps ``A`` and its body, so both are checked);
  otherwise the parser drops the bad statement and resynchronises at the
  next one on the same or a lower indentation (via the ``error NEWLINE``
  alternatives of statement lists). A bracket never closed is named in a second
  label, and at the end of the input the error is the missing closing bracket.
  When the input ends inside an unfinished construct, the statements completed so
  far are salvaged so callers (the language server) still get a partial tree.
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from contextlib import contextmanager

from kclpy.diag import Code, Diagnostic, Label, make_error
from kclpy.source import SourceFile, Span
from kclpy.syntax import ast, build, driver
from kclpy.syntax.grammar import PRECEDENCE, Tables, grammar_dict, grammar_signature
from kclpy.syntax.layout import LayoutResult, layout
from kclpy.syntax.lexer import raw_tokens
from kclpy.syntax.scan import fused_layout
from kclpy.syntax.tokens import DISPLAY, KEYWORDS, TERMINALS, Token

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

TABLE_MODULE = "kclpy.syntax.parsetab"
MAX_INTERPOLATION_DEPTH = 8
_OPERAND_START = frozenset(("NAME", "NUMBER", "STRING", "LPAREN", "LBRACKET", "LBRACE"))


_lock = threading.RLock()
_parser: Any = None


def get_parser() -> Any:
    """The parse tables (loaded once). When ``parsetab.py`` does not match the grammar
    (edited without ``--regen``), ply builds fresh tables in memory instead."""
    global _parser
    with _lock:
        if _parser is None:
            pdict = grammar_dict()
            from kclpy.syntax import parsetab

            if parsetab._lr_signature == grammar_signature(pdict):
                _parser = Tables(parsetab, pdict)
            else:  # pragma: no cover - a developer's stale tables
                from kclpy.syntax.tables import build_in_memory

                _parser = build_in_memory(pdict)
    return _parser


class _Cursor:
    """The parser's input: ``tokens[index:]``, after ``pending`` (a token the error
    handler inserts) when set."""

    __slots__ = ("index", "pending", "size", "tokens")

    def __init__(self, tokens: list[Any]) -> None:
        self.tokens = tokens
        self.index = 0
        self.size = len(tokens)
        self.pending: Any = None


class _Parse:
    """The state of one parse: input cursor, file and diagnostics, for ``p_error``."""

    def __init__(
        self, parser: Any, file: SourceFile, tokens: list[Any], diagnostics: list[Diagnostic]
    ) -> None:
        self.parser = parser
        self.file = file
        self.cursor = _Cursor(tokens)
        self.diagnostics = diagnostics
        self.fragment: tuple[int, int] | None = None
        self.failed = False
        self.end = len(file.text)
        self._unclosed: frozenset[int] | None = None

    def reread(self, tok: Any) -> bool:
        """A keyword the grammar cannot take where it stands is a name there, as in the
        reference, whose parser dispatches on a keyword only where it starts something
        (``import: [str]`` in a schema, ``{in = 1}``, ``f(if = 1)``, ``a.b = for``);
        but ``for`` right after an opening bracket or a separator starts a
        comprehension (``{for = 1}`` is an error there)."""
        kind = tok.type
        if kind not in _KEYWORD_KINDS or KEYWORDS.get(tok.value) != kind:
            return False
        if kind == "FOR" and self._starts_item():
            return False
        if not driver.accepts(_machine(self.parser), self.parser.statestack, "NAME"):
            return False
        tok.type = "NAME"
        return True

    def _starts_item(self) -> bool:
        """Whether the token read last follows an opening bracket, a comma or a line
        break inside brackets (shifted tokens may be renamed: their text tells)."""
        index = self.cursor.index - 2
        if index < 0:
            return False
        before = self.cursor.tokens[index]
        value = before.value
        return value in _ITEM_STARTERS or (before.type == "NEWLINE" and value != 0)

    def on_error(self, tok: Any) -> bool:
        """Report the error at ``tok`` (None: the end of the input); True when the
        statement so far stands and the input goes on after the rest of its line."""
        self.failed = True
        expected = self.parser.action[self.parser.state]
        if self.fragment is not None and "$end" in expected:
            start, end = self.fragment
            text = self.file.text[start:end]
            self._report(f"invalid string interpolation expression: '{text}'", start, start)
            return False
        opener = self._innermost_bracket()
        unclosed = opener if opener is not None and self._never_closed(opener) else None
        if tok is None:  # at the last character, where the reference points
            at = max(len(self.file.text[: self.end].rstrip()) - 1, 0)
            message = _message(tok, expected)
            if unclosed is not None:
                if self._told_within(unclosed):
                    return False  # (one error for one problem)
                message = f'expected one of ["{_CLOSERS[unclosed.type]}"] got eof'
            self._report(message, at, at, unclosed)
            return False
        self._report(_message(tok, expected), *_token_range(self.end, tok), unclosed)
        if opener is not None and unclosed is None and self.fragment is None:
            return self._close(opener)
        if opener is not None or self.fragment is not None:
            _resync(self.cursor, tok)
            return False
        return self._recover(tok)

    def _recover(self, tok: Any) -> bool:
        """Keep the statement the error is in when one token would complete it, as the
        reference does: an operand missing at its end becomes a placeholder (an empty
        name: ``a ==``), or the statement before ``tok`` is whole and the rest of its
        line is skipped (``error, if ...``). True when so; else the input is moved to
        where the grammar's ``error`` rules take it on."""
        machine = _machine(self.parser)
        stack = self.parser.statestack
        if tok.type == "NEWLINE" and tok.value == 0:
            if driver.accepts(machine, stack, "NAME", "NEWLINE"):
                self.cursor.index -= 1  # (the line break, read again after the operand)
                self.cursor.pending = Token("NAME", "", tok.lexpos, tok.lexpos)
                return True
        elif tok.type not in _LAYOUT and driver.accepts(machine, stack, "NEWLINE"):
            _resync(self.cursor, tok)
            return True
        elif self._names_only() and driver.accepts(machine, stack, "NAME", tok.type):
            self.cursor.index -= 1  # (a name missing in a dotted one: `import a..b`)
            self.cursor.pending = Token("NAME", "", tok.lexpos, tok.lexpos)
            return True
        _resync(self.cursor, tok)
        return False

    def _close(self, opener: Any) -> bool:
        """Inside a bracket closed later in the input, where the grammar would take its
        closing bracket: the rest up to that bracket is skipped and the construct stands
        with what came before the error (``schema B(A, C):`` is ``schema B(A):``, so that
        its parent and body are still checked). True when so; else the bad statement is
        skipped."""
        closer = _CLOSER_KINDS[opener.type]
        cursor = self.cursor
        if driver.accepts(_machine(self.parser), self.parser.statestack, closer):
            index = _matching_closer(cursor.tokens, cursor.index - 1, closer)
            if index is not None:
                cursor.index = index
                return True
        _resync(cursor, cursor.tokens[cursor.index - 1])
        return False

    def _names_only(self) -> bool:
        """Whether the grammar takes only a name where the parser stands."""
        expected = self.parser.action[self.parser.state]
        return all(kind in _NAMES or kind not in TERMINALS for kind in expected)

    def _told_within(self, opener: Any) -> bool:
        """Whether an error inside the bracket ``opener`` has been reported already."""
        return any(
            d.span is not None and d.span.file is self.file and d.span.start > opener.lexpos
            for d in self.diagnostics
        )

    def _innermost_bracket(self) -> Any:
        """The innermost bracket open where the parser stands, if any."""
        for symbol in reversed(self.parser.symstack):
            if symbol.type in _OPENERS and isinstance(symbol, Token):
                return symbol
        return None

    def _never_closed(self, opener: Any) -> bool:
        """Whether no bracket in the input closes ``opener`` (the offsets of those
        brackets are found once a parse, from the tokens' text: the parser renames
        the tokens it has shifted)."""
        if self._unclosed is None:
            text = self.file.text
            opened: list[int] = []
            for tok in self.cursor.tokens:
                start = tok.lexpos
                if tok.end - start not in (1, 2):
                    continue
                piece = text[start : tok.end]
                if piece in _OPENER_TEXTS:
                    opened.append(start)
                elif piece in _CLOSER_TEXTS and opened:
                    opened.pop()
            self._unclosed = frozenset(opened)
        return opener.lexpos in self._unclosed

    def _report(self, message: str, start: int, end: int, opener: Any = None) -> None:
        span = Span(self.file, start, end)
        diagnostic = make_error(Code.INVALID_SYNTAX, message, span)
        if opener is not None:
            text = self.file.text[opener.lexpos : opener.end]
            where = Span(self.file, opener.lexpos, opener.end)
            diagnostic.labels.append(Label(where, f"unclosed '{text}'"))
        self.diagnostics.append(diagnostic)


_LAYOUT = frozenset(("NEWLINE", "INDENT", "DEDENT"))
_CLOSERS = {"LPAREN": ")", "LBRACKET": "]", "QLBRACKET": "]", "LBRACE": "}", "LPARAMS": "}"}
_OPENERS = frozenset(_CLOSERS)
_CLOSER_KINDS = {"LPAREN": "RPAREN", "LBRACKET": "RBRACKET", "QLBRACKET": "RBRACKET"}
_CLOSER_KINDS |= {"LBRACE": "RBRACE", "LPARAMS": "RBRACE"}
_CLOSING = frozenset(_CLOSER_KINDS.values())
_OPENER_TEXTS = frozenset(("(", "[", "?[", "{"))
_CLOSER_TEXTS = frozenset((")", "]", "}"))
_ITEM_STARTERS = frozenset(("(", "[", "{", ","))


def _token_range(end: int, tok: Any) -> tuple[int, int]:
    if tok is None:
        return end, end
    return tok.lexpos, max(tok.lexpos, getattr(tok, "end", tok.lexpos))


def describe(tok: Any) -> str:
    """The reference's name for the token found where another was expected."""
    if tok is None:
        return "eof"
    kind = tok.type
    if kind == "NAME" or kind in _KEYWORD_KINDS:
        return "identifier"
    if kind == "NUMBER":
        node = tok.value
        return f"{node.value}{node.suffix or ''}" if isinstance(node, ast.NumberExpr) else "int"
    if kind == "STRING":
        node = tok.value
        return str(node.value) if isinstance(node, ast.StringExpr) else "string"
    if kind == "DOLLAR":
        return "$"
    return str(DISPLAY.get(kind, kind))


_KEYWORD_KINDS = frozenset(KEYWORDS.values())


_TRAILERS = frozenset(("DOT", "QDOT", "LPAREN", "LBRACKET", "QLBRACKET", "LBRACE"))
_BINARY = frozenset(kind for level in PRECEDENCE for kind in level[1:])
_NAMES = frozenset(("NAME", *_KEYWORD_KINDS))
_STATEMENT_START = frozenset(("IMPORT", "ASSERT"))


def _message(tok: Any, expected: dict[str, int]) -> str:
    """Say what was expected in the reference's style, keeping the list short."""
    got = describe(tok)
    kinds = [kind for kind in TERMINALS if kind in expected]
    if kinds and set(kinds) <= _NAMES:
        return f'expected one of ["identifier"] got {got}'
    if got in ("indent", "dedent") or _STATEMENT_START & set(kinds):
        return f"unexpected token '{got}'"
    if set(kinds) >= _OPERAND_START:
        if (_BINARY - {"PLUS", "MINUS"}) & set(kinds):
            return f"unexpected token '{got}'"
        return f'expected one of ["identifier", "literal", "(", "[", "{{"] got {got}'
    in_noise = {"IN"} if "ELSE" in kinds else set()
    for noise in (_TRAILERS | (_BINARY - {"IN"}) | in_noise, {"COMMA"}):
        kept = [kind for kind in kinds if kind not in noise]
        if kept:
            kinds = kept
    names: list[str] = []
    for kind in kinds:
        name = DISPLAY.get(kind, kind)
        if name not in names:
            names.append(name)
    if 0 < len(names) <= 4:
        listed = ", ".join(f'"{name}"' for name in names)
        return f"expected one of [{listed}] got {got}"
    return f"unexpected token '{got}'"


def _matching_closer(tokens: list[Any], index: int, closer: str) -> int | None:
    """The index of the bracket that closes the one open before ``tokens[index]``, when
    it is of the kind ``closer``; else None."""
    depth = 0
    for at in range(index, len(tokens)):
        kind = tokens[at].type
        if kind in _OPENERS:
            depth += 1
        elif kind in _CLOSING:
            if depth == 0:
                return at if kind == closer else None
            depth -= 1
    return None


def _resync(cursor: _Cursor, bad: Any) -> None:
    """Skip to the end of the bad statement: the next NEWLINE outside brackets that
    starts a line on the same or a lower indentation (a deeper block after the bad
    line is skipped whole). A NEWLINE is inserted where the skip stops elsewhere, so
    that ``error NEWLINE`` can close the bad statement."""
    tokens = cursor.tokens
    index = cursor.index
    size = cursor.size
    if (
        bad.type == "NEWLINE"
        and bad.value == 0
        and (index >= size or tokens[index].type != "INDENT")
    ):
        return
    balance = 0
    while index < size:
        kind = tokens[index].type
        if kind == "INDENT":
            balance += 1
        elif kind == "DEDENT":
            balance -= 1
            if balance < 0:
                break
            if balance == 0:
                index += 1
                break
        elif kind == "NEWLINE" and tokens[index].value == 0 and balance == 0:
            if index + 1 < size and tokens[index + 1].type == "INDENT":
                index += 1
                continue
            break
        index += 1
    cursor.index = index
    if index >= size or tokens[index].type != "NEWLINE":
        at = tokens[index].lexpos if index < size else (tokens[-1].end if tokens else 0)
        cursor.pending = Token("NEWLINE", 0, at, at)


def _run(parse: _Parse) -> Any:
    """Run ply over the tokens with ``parse`` as the error handler's state."""
    saved = (build.FILE, build.DIAGNOSTICS)
    build.FILE = parse.file
    build.DIAGNOSTICS = parse.diagnostics
    try:
        return driver.run(_machine(parse.parser), parse.cursor, parse.on_error, parse.reread)
    finally:
        build.FILE, build.DIAGNOSTICS = saved


_MACHINES: dict[int, driver.Machine] = {}


def _machine(parser: Any) -> driver.Machine:
    """The driver's view of a parser's tables (built once per parser)."""
    machine = _MACHINES.get(id(parser))
    if machine is None or machine.parser is not parser:
        machine = _MACHINES[id(parser)] = driver.Machine(parser)
    return machine


def _salvage(parser: Any, file: SourceFile) -> ast.Module:
    """The statements completed before the input ended inside an unfinished construct."""
    body: list[ast.Stmt] = []
    for symbol in getattr(parser, "symstack", [])[1:]:
        value = getattr(symbol, "value", None)
        if symbol.type == "top_items" and isinstance(value, list):
            body.extend(value)
        elif isinstance(value, ast.Stmt):
            body.append(value)
    return ast.Module(Span(file, 0, len(file.text)), file, body, [])


@contextmanager
def paused_cycle_collector() -> Iterator[None]:
    """Pause the cycle collector: a parse (or an analysis) allocates many objects and
    few cycles, and collections triggered by a growing tree would cost as much as the
    work itself. Reference counting still frees."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def parse_module(
    file: SourceFile, diagnostics: list[Diagnostic], start: int = 0, end: int | None = None
) -> ast.Module:
    """Parse a whole file, or the statements in ``file.text[start:end]`` (a region
    that begins at a line start; offsets stay those of the whole file, for the
    language server's per-statement reparse); diagnostics go to ``diagnostics``."""
    with _lock:
        collecting = gc.isenabled()  # (paused_cycle_collector inline: ~1 us a file)
        gc.disable()
        try:
            parser = _parser or get_parser()
            laid = _laid_out(file, start, end, diagnostics, 0, False)
            diagnostics.extend(laid.diagnostics)
            parse = _Parse(parser, file, laid.tokens, diagnostics)
            result = _run(parse)
            module = result if isinstance(result, ast.Module) else _salvage(parser, file)
            module.comments = laid.comments
            return module
        finally:
            if collecting:
                gc.enable()


def parse_fragment(
    file: SourceFile,
    start: int,
    end: int,
    diagnostics: list[Diagnostic],
    interpolation: bool = False,
    depth: int = 0,
) -> ast.Expr | None:
    """Parse ``file.text[start:end]`` as one expression (None after a syntax error)."""
    with _lock, paused_cycle_collector():
        parser = get_parser()
        laid = _laid_out(file, start, end, diagnostics, depth, True)
        diagnostics.extend(laid.diagnostics)
        if not laid.tokens:
            text = file.text[start:end]
            message = f"invalid string interpolation expression: '{text}'"
            if not interpolation:
                message = 'expected one of ["identifier", "literal", "(", "[", "{"] got eof'
            diagnostics.append(make_error(Code.INVALID_SYNTAX, message, Span(file, start, end)))
            return None
        laid.tokens.insert(0, Token("EXPR_START", None, start, start))
        parse = _Parse(parser, file, laid.tokens, diagnostics)
        parse.end = end
        if interpolation:
            parse.fragment = (start, end)
        result = _run(parse)
        if parse.failed or not isinstance(result, ast.Expr):
            return None
        return result


def _laid_out(
    file: SourceFile,
    start: int,
    end: int | None,
    diagnostics: list[Diagnostic],
    depth: int,
    expression: bool,
) -> LayoutResult:
    """The parser's tokens of ``file.text[start:end]``: by the fused pass, or, for a
    text that needs the lexer's general rules, by the lexer then the layout filter
    (the interpolations' reports of the abandoned pass dropped: made again)."""
    interpolate = _interpolator(file, diagnostics, depth)
    mark = len(diagnostics)
    laid = fused_layout(file, interpolate, start, end, expression)
    if laid is None:
        del diagnostics[mark:]
        laid = layout(file, raw_tokens(file.text, start, end), interpolate, expression)
    return laid


def _interpolator(file: SourceFile, diagnostics: list[Diagnostic], depth: int) -> Any:
    def interpolate(start: int, end: int) -> tuple[ast.Expr | None, str | None]:
        if depth >= MAX_INTERPOLATION_DEPTH:
            message = "string interpolation nested too deeply"
            diagnostics.append(make_error(Code.INVALID_SYNTAX, message, Span(file, start, end)))
            return None, None
        end, spec = _format_spec(file, start, end, diagnostics)
        expr = parse_fragment(file, start, end, diagnostics, True, depth + 1)
        return expr, spec

    return interpolate


def _format_spec(
    file: SourceFile, start: int, end: int, diagnostics: list[Diagnostic]
) -> tuple[int, str | None]:
    """Split ``expr: #json`` at its top-level colon: (end of the expression, spec)."""
    if ":" not in file.text[start:end]:
        return end, None
    depth = 0
    raw = raw_tokens(file.text, start, end)
    for index, tok in enumerate(raw):
        kind = tok.type
        if kind in ("LPAREN", "LBRACKET", "LBRACE"):
            depth += 1
        elif kind in ("RPAREN", "RBRACKET", "RBRACE"):
            depth -= 1
        elif kind == "COLON" and depth == 0:
            rest = raw[index + 1 :]
            if len(rest) == 1 and rest[0].type == "COMMENT":
                return tok.lexpos, rest[0].value.strip()
            at = rest[0].lexpos if rest else tok.lexpos + 1
            message = "invalid joined string spec without #"
            diagnostics.append(make_error(Code.INVALID_SYNTAX, message, Span(file, at, at)))
            return tok.lexpos, None
    return end, None
