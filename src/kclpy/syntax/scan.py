"""The fused scanner: source text straight to the parser's tokens, in one pass.

Takes a file (or a region of it), the interpolation callback and the mode
(statements or one expression); returns what :func:`kclpy.syntax.layout.layout`
returns for the lexer's raw tokens of the same text: the parser's tokens, the
comments and the diagnostics. Returns None when the text needs the lexer's general
rules (a stray character, a lone ``$`` or ``\\``, a non-ASCII name): the caller then
takes the two-pass route, :func:`~kclpy.syntax.lexer.raw_tokens` then the layout
filter, which stays the definition of both.

Why one pass: the scanner's ``findall`` already cuts the text into pieces (a tuple
of strings per token); the two-pass route turned each into a raw token and a second
loop read those again. Here the loop reads the pieces and builds only the parser's
tokens. A line break is one piece with the blank lines after it, so the blanks of
the next piece are that line's indentation, compared as a string with the text that
set the current level (equal text, equal level: the common line start costs one
comparison). The filter's look-ahead (``?.``, ``not in``, a keyword before ``?``,
``lambda {x: int} ->``, only a comment left after ``(``) reads the next pieces.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator

from kclpy.diag import Code, make_error
from kclpy.patterns import compiled
from kclpy.source import SourceFile, Span
from kclpy.syntax import ast, lexer
from kclpy.syntax.ast import node_ids
from kclpy.syntax.layout import (
    DROPPED,
    IF_OR_ELSE,
    MAX_DEPTH,
    MERGES,
    PLAIN,
    Interpolate,
    LayoutResult,
    Nesting,
    ends_operand,
    named,
    start_line,
    string_node,
)
from kclpy.syntax.literals import decode_number
from kclpy.syntax.tokens import KEYWORDS, Token

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

Piece = tuple[str, str, str, str, str, str, str]
"""One match of the scanner: blanks, then one of name, operator (or line breaks),
number, string, comment, other (any other character: the general rules' case, or
the end of the text)."""

_BLANK, _NAME, _OPERATOR, _NUMBER, _STRING, _COMMENT, _OTHER = range(7)

_OPENERS = frozenset("([{")
_CLOSERS = frozenset(")]}")
_SQUARE_OR_CURLY = frozenset("[{")  # (an opening `(` may be a call's: the helper's)
_AFTER_QUESTION = {".": "QDOT", "[": "QLBRACKET"}  # `?.` and `?[` are one token
_MERGING = frozenset(("NOT", "IS", "ELSE"))  # keywords that may merge with the next name
_PLAIN_KEYWORDS = frozenset(
    word for word, kind in KEYWORDS.items() if kind not in _MERGING | {"IF", "LAMBDA"}
)
"""Keywords that are the keyword's token unless ``?`` or ``:`` follows (the rule of
:func:`~kclpy.syntax.layout.named`); the others have look-ahead of their own or
open an ``if`` expression."""
_NAMING = frozenset("?:")

_scanner: tuple[Any, dict[str, str], dict[str, str]] | None = None
_lock = threading.Lock()


def _scanner_parts() -> tuple[Any, dict[str, str], dict[str, str]]:
    """The scanner's ``findall`` (line breaks a group of their own), every operator's
    kind, and the kinds of the operators that pass the filter unchanged."""
    global _scanner
    with _lock:
        if _scanner is None:
            kinds = lexer.punctuation_kinds()
            del kinds["\n"]
            plain = {literal: kind for literal, kind in kinds.items() if kind in PLAIN}
            _scanner = (compiled(lexer.scanner_pattern(line_breaks=True)).findall, kinds, plain)
    return _scanner


def fused_layout(
    file: SourceFile,
    interpolate: Interpolate,
    start: int = 0,
    end: int | None = None,
    expression: bool = False,
) -> LayoutResult | None:
    """The parser's tokens of ``file.text[start:end]`` (``expression``: no
    NEWLINE/INDENT/DEDENT), or None where the general rules are needed (the caller
    then drops what ``interpolate`` reported and takes the two-pass route)."""
    findall, kinds, plain = _scanner or _scanner_parts()
    text = file.text
    pieces = findall(text, start, len(text) if end is None else end)
    fused = _Fused(file, pieces, interpolate, expression, kinds)
    if not fused.run(start, plain):
        return None
    fused.finish()
    return fused.result


class _Fused:
    """The state of one pass: the layout filter's (indentation stack, bracket depth,
    nesting) plus the pieces and the iterator over them, which look-ahead reads and
    merges advance."""

    __slots__ = (
        "depth",
        "expression",
        "file",
        "indents",
        "interpolate",
        "kinds",
        "nesting",
        "out",
        "params",
        "partners",
        "pending",
        "pieces",
        "result",
        "walk",
    )

    def __init__(
        self,
        file: SourceFile,
        pieces: list[Piece],
        interpolate: Interpolate,
        expression: bool,
        kinds: dict[str, str],
    ) -> None:
        self.file = file
        self.pieces = pieces
        self.interpolate = interpolate
        self.expression = expression
        self.kinds = kinds
        self.result = LayoutResult()
        self.out = self.result.tokens
        self.indents: list[tuple[int, int]] = [(0, 0)]
        self.depth = 0
        self.nesting = Nesting()
        self.params: dict[int, str] | None = None  # pieces that are `lambda {x: int}` braces
        self.partners: dict[int, int] | None = None  # matching `}` of each `{`, when needed
        self.pending = -1  # the offset of a line break not yet laid out, or -1
        self.walk: Iterator[tuple[int, Piece]] = iter(())

    def run(self, pos: int, plain: dict[str, str]) -> bool:
        """Lay out every piece from offset ``pos``; False at the first piece that
        needs the general rules. The commonest cases are inline: a name or an
        operator mid-line, a line break, a line at the level of the one before, a
        string, a number; the rest are the helpers' (keywords, brackets...)."""
        file = self.file
        pieces = self.pieces
        out = self.out
        append = out.append
        new = object.__new__  # a token without an __init__ call
        keywords = KEYWORDS
        kinds = self.kinds
        nesting = self.nesting
        calls = nesting.calls
        open_ifs = nesting.open_ifs
        expression = self.expression
        interpolate = self.interpolate
        error = self.error
        pad: str | None = ""  # the indentation text that set the current level
        pending = -1
        self.walk = walk = enumerate(pieces)
        for index, (blank, name, operator, number, quoted, comment, other) in walk:
            if blank:
                pos += len(blank)
            if pending >= 0:  # the first piece after line breaks
                if operator and operator[0] == "\n":  # (after a comment line)
                    pos += len(operator)
                    continue
                if comment:
                    self.comment(pos, comment)
                    pos += len(comment)
                    continue
                if not (name or operator or number or quoted):
                    if other:
                        return False  # a piece for the general rules
                    break  # the end of the text
                if expression:
                    pass
                elif blank == pad and not open_ifs and not (calls and calls[-1]):
                    # most lines: at the level of the line before, not between a call's
                    # arguments, no `if` waiting for `else`: only the line break
                    if out and name != "else" and name != "elif":
                        token = new(Token)
                        token.type = "NEWLINE"
                        token.value = self.depth
                        token.lexpos = pending
                        token.end = pending + 1
                        append(token)
                else:
                    pad = self.line_start(pending, pos, blank, name, pad)
                pending = -1
            if name:
                name_kind = "NAME"
                if name < "A" or name in keywords:  # `$name`, or a keyword
                    if name not in _PLAIN_KEYWORDS or pieces[index + 1][_OPERATOR] in _NAMING:
                        pos = self.word(index, pos, name)
                        continue
                    name_kind = keywords[name]
                after = pos + len(name)
                token = new(Token)
                token.type = name_kind
                token.value = name
                token.lexpos = pos
                token.end = after
                append(token)
                pos = after
            elif operator:
                kind = plain.get(operator)
                if kind is None:
                    if operator[0] == "\n":  # line breaks: laid out at the next token
                        pending = pos
                        pos += len(operator)
                        continue
                    if operator == "?":  # `attr?:`, `a ? b`, not `?.`, `?[`
                        if pieces[index + 1][_OPERATOR] not in _AFTER_QUESTION:
                            kind = "QUESTION"
                    elif self.params is None:  # (no `lambda {x: int}` braces to mark)
                        if operator in _CLOSERS:
                            kind = kinds[operator]
                            if self.depth:
                                self.depth -= 1
                                if open_ifs:
                                    nesting.close(self.depth)
                                elif calls:
                                    calls.pop()  # (Nesting.close, no `if` to end)
                        elif operator in _SQUARE_OR_CURLY and self.depth < MAX_DEPTH:
                            kind = kinds[operator]
                            self.depth += 1
                            calls.append(False)  # (Nesting.open: not a call)
                    if kind is None:
                        pos = self.punctuation(index, pos, operator)
                        if pos < 0:
                            break  # too deep
                        continue
                after = pos + len(operator)
                token = new(Token)
                token.type = kind
                token.value = operator
                token.lexpos = pos
                token.end = after
                append(token)
                pos = after
            elif quoted:
                after = pos + len(quoted)
                token = new(Token)
                token.type = "STRING"
                token.value = quoted
                token.lexpos = pos
                token.end = after
                token.value = string_node(file, token, interpolate, error)
                append(token)
                pos = after
            elif number:
                after = pos + len(number)
                value, suffix, message, where = decode_number(number)
                if message is not None:
                    self.number_error(pos, after, message, where)
                span = new(Span)  # (a node without constructor calls, see ast.Node)
                span.file = file
                span.start = pos
                span.end = after
                node = new(ast.NumberExpr)
                node.span = span
                node.id = next(node_ids)
                node.value = value
                node.suffix = suffix
                token = new(Token)
                token.type = "NUMBER"
                token.value = node
                token.lexpos = pos
                token.end = after
                append(token)
                pos = after
            elif comment:
                self.comment(pos, comment)
                pos += len(comment)
            elif other:
                return False  # a piece for the general rules
            else:
                break  # the end of the text
        self.pending = pending
        return True

    def finish(self) -> None:
        """The last NEWLINE and the DEDENTs of the levels still open (statements only)."""
        if self.expression:
            return
        out = self.out
        pending = self.pending
        if out and out[-1].type != "NEWLINE":
            at = pending if pending >= 0 else len(self.file.text)
            out.append(Token("NEWLINE", self.depth, at, at + (1 if pending >= 0 else 0)))
        end = len(self.file.text)
        for _ in range(len(self.indents) - 1):
            out.append(Token("DEDENT", None, end, end))

    def error(self, message: str, start: int, end: int) -> None:
        diagnostic = make_error(Code.INVALID_SYNTAX, message, Span(self.file, start, end))
        self.result.diagnostics.append(diagnostic)

    def comment(self, pos: int, comment: str) -> None:
        text = comment.rstrip("\r")
        span = Span(self.file, pos, pos + len(text))
        self.result.comments.append(ast.Comment(span, text))

    def line_start(
        self, newline: int, pos: int, blank: str, name: str, pad: str | None
    ) -> str | None:
        """Lay out a line start the common case does not cover (in brackets, after an
        ``if`` waiting for ``else``, at another level); the indentation text of the
        level now current (None: no text known, every line takes this way)."""
        if self.nesting.in_call_arguments():
            # the reference ends the arguments at the line break: report, no layout
            self.error('expected one of [")"] got newline', newline, newline + 1)
            return pad
        prefix = blank[blank.rfind("\n") + 1 :]  # (after a line continuation's break)
        token = Token("NEWLINE", self.depth, newline, newline + 1) if self.out else None
        before_else = name == "else" or name == "elif"
        indents = self.indents
        start_line(
            self.out, token, prefix, pos, before_else, indents, self.nesting, self.depth, self.error
        )
        return prefix if indents[-1] == (prefix.count("\t"), prefix.count(" ")) else None

    def word(self, index: int, pos: int, name: str) -> int:
        """A name that is not plain mid-line: ``$name``, a keyword (maybe a name by
        what follows, maybe merged with the next name), or any name at a line start."""
        after = pos + len(name)
        kind = "NAME"
        value = name
        if name[0] == "$":
            value = name[1:]
        else:
            keyword = KEYWORDS.get(name)
            following = self.pieces[index + 1]
            if keyword is not None and named(keyword, self.kind_of(following), self.out):
                keyword = None
            if keyword == "LAMBDA" and following[_OPERATOR] == "{":
                self.mark_params(index + 1)
            elif keyword in _MERGING:
                merged = MERGES.get((keyword, following[_NAME]))
                if merged is not None:
                    next(self.walk)
                    after += len(following[_BLANK]) + len(following[_NAME])
                    keyword = merged[0]
                    if merged[1]:
                        self.error(merged[1], pos, after)
            if keyword is not None:
                kind = keyword
                if kind in IF_OR_ELSE:
                    self.nesting.branch(kind, self.depth, ends_operand(self.out))
        self.out.append(Token(kind, value, pos, after))
        return after

    def kind_of(self, piece: Piece) -> str:
        """The raw kind of an operator piece (the only kinds look-ahead asks about)."""
        return self.kinds.get(piece[_OPERATOR], "")

    def punctuation(self, index: int, pos: int, operator: str) -> int:
        """An operator that is not plain: a bracket (depth, nesting), ``?`` (maybe
        ``?.``/``?[``), ``;`` (dropped) or ``!``; the offset after it, -1 when the
        brackets are nested too deeply (the pass stops there)."""
        kind = self.kinds[operator]
        after = pos + len(operator)
        if operator in _OPENERS:
            if self.params is not None:
                kind = self.params.get(index, kind)
            self.depth += 1
            self.nesting.open(
                kind == "LPAREN" and ends_operand(self.out) and not self.line_ends(index + 1)
            )
            if self.depth > MAX_DEPTH:
                self.error(f"too many nested brackets (more than {MAX_DEPTH})", pos, after)
                return -1
        elif operator in _CLOSERS:
            if self.params is not None:
                kind = self.params.get(index, kind)
            if self.depth:
                self.depth -= 1
                self.nesting.close(self.depth)
        elif kind == "QUESTION":
            following = self.pieces[index + 1]
            merged = _AFTER_QUESTION.get(following[_OPERATOR])
            if merged is not None:
                next(self.walk)
                after += len(following[_BLANK]) + 1
                kind = merged
                if merged == "QLBRACKET":
                    self.depth += 1
                    self.nesting.open(False)
        elif kind in DROPPED:
            self.error(DROPPED[kind], pos, after)
            return after
        elif kind == "BANG":
            self.error("invalid token '!', consider using 'not '", pos, after)
            kind = "NOT"
        self.out.append(Token(kind, operator, pos, after))
        return after

    def line_ends(self, index: int) -> bool:
        """Whether only a comment, if anything, is left on the line from piece ``index``."""
        pieces = self.pieces
        while pieces[index][_COMMENT]:
            index += 1
        piece = pieces[index]
        return piece[_OPERATOR][:1] == "\n" or not any(piece[_NAME:])

    def mark_params(self, start: int) -> None:
        """``lambda {x: int} -> T {...}``: the first braces hold parameters when the
        matching ``}`` is followed by ``->`` (the reference looks ahead the same way)."""
        pieces = self.pieces
        if self.partners is None:
            self.partners = _brace_partners(pieces)
        close = self.partners.get(start)
        if close is not None and pieces[close + 1][_OPERATOR] == "->":
            if self.params is None:
                self.params = {}
            self.params[start] = "LPARAMS"
            self.params[close] = "RPARAMS"

    def number_error(self, pos: int, after: int, message: str, where: int) -> None:
        """Report a bad number literal (where its bad part starts, in bytes too)."""
        if where:
            at = len(self.file.text[: pos + where].encode("utf-8"))  # the reference counts bytes
            message = f"{message}, start: {at}, stop: {at + 1}"
        self.error(message, pos + where, after)


def _brace_partners(pieces: list[Piece]) -> dict[int, int]:
    """The index of the matching ``}`` of every ``{`` among the pieces (any depth)."""
    partners: dict[int, int] = {}
    opened: list[int] = []
    for index, piece in enumerate(pieces):
        operator = piece[_OPERATOR]
        if operator == "{":
            opened.append(index)
        elif operator == "}" and opened:
            partners[opened.pop()] = index
    return partners
