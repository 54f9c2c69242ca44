"""The layout filter between the lexer and the parser.

Takes the raw tokens of a file and returns the parser's token list:

* ``NEWLINE`` once per run of line breaks, then ``INDENT`` or ``DEDENT``\\ s from
  an indentation stack shared by the whole file, brackets or not (as in the
  reference, where a closing bracket on a deeper line leaves a ``DEDENT``
  behind); the first line's indentation is ignored; a line break right before
  ``else``/``elif`` is dropped so that the grammar needs no lookahead for them;
* keywords split off ``NAME`` (``$name`` stays a name; the parser reads a keyword
  it cannot take as a name again), ``not in``, ``is not``,
  ``?.`` and ``?[`` merged into one token;
* number and string tokens carry their AST node as value; interpolated strings
  are split and their ``${...}`` parts parsed through a callback;
* comments go to a side list; ``;``, ``!``, stray ``\\`` and unknown characters
  become diagnostics in the reference's words.

This is the tokenizer loop, hence one long function.
"""

from __future__ import annotations

from collections.abc import Callable

from kclpy.depth import MAX_BRACKETS
from kclpy.diag import Code, Diagnostic, make_error
from kclpy.source import SourceFile, Span
from kclpy.syntax import ast, lexer
from kclpy.syntax.ast import node_ids
from kclpy.syntax.literals import (
    decode_number,
    decode_string,
    dedent_string,
    split_interpolation,
)
from kclpy.syntax.tokens import KEYWORDS, Token

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

new = object.__new__

MAX_DEPTH = MAX_BRACKETS
"""Deepest bracket nesting accepted; deeper input stops with a diagnostic."""

Interpolate = Callable[[int, int], tuple[ast.Expr | None, str | None]]
"""Parses ``text[start:end]`` of a ``${...}``: (expression or None, format spec)."""

_OPENERS = frozenset(("LPAREN", "LBRACKET", "LBRACE", "LPARAMS"))
_CLOSERS = frozenset(("RPAREN", "RBRACKET", "RBRACE", "RPARAMS"))
_DROP_NEWLINE_BEFORE = frozenset(("ELSE", "ELIF"))


class LayoutResult:
    """The parser's tokens, the comments and the diagnostics of one file or fragment."""

    __slots__ = ("comments", "diagnostics", "tokens")

    def __init__(self) -> None:
        self.tokens: list[Any] = []
        self.comments: list[ast.Comment] = []
        self.diagnostics: list[Diagnostic] = []


def compare_levels(tabs: int, spaces: int, level: tuple[int, int]) -> int | None:
    """-1, 0, 1 as the reference orders indent levels; None when tabs and spaces disagree."""
    if tabs < level[0]:
        return -1 if spaces <= level[1] else None
    if tabs > level[0]:
        return 1 if spaces >= level[1] else None
    return (spaces > level[1]) - (spaces < level[1])


def plural(count: int, word: str) -> str:
    return f"{count} {word}" if count == 1 else f"{count} {word}s"


def layout(
    file: SourceFile,
    raw: list[Any],
    interpolate: Interpolate,
    expression: bool = False,
) -> LayoutResult:
    """Turn raw tokens into parser tokens (``expression``: no NEWLINE/INDENT/DEDENT)."""
    result = LayoutResult()
    out = result.tokens
    append = out.append
    diagnostics = result.diagnostics
    text = file.text

    def error(message: str, start: int, end: int) -> None:
        diagnostics.append(make_error(Code.INVALID_SYNTAX, message, Span(file, start, end)))

    indents: list[tuple[int, int]] = [(0, 0)]
    depth = 0
    nesting = Nesting()
    partners: dict[int, int] | None = None  # matching ``}`` of each ``{``, found when needed
    newline: Any = None
    index = 0
    count = len(raw)
    while index < count:
        tok = raw[index]
        index += 1
        kind = tok.type
        value = tok.value
        if newline is None:  # mid-line: most tokens pass as they are (commonest first)
            if kind == "NAME":
                if value[0] != "$" and value not in KEYWORDS:  # a plain name
                    append(tok)
                    continue
            elif kind in PLAIN:  # an operator
                append(tok)
                continue
            elif kind == "NEWLINE":
                newline = tok
                continue
            elif kind == "QUESTION" and (index >= count or raw[index].type not in AFTER_QUESTION):
                append(tok)  # `attr?:`, `a ? b` (not `?.`, `?[`)
                continue
        elif kind == "NEWLINE":
            continue
        if kind == "COMMENT":
            comment = value.rstrip("\r")
            pos = tok.lexpos
            result.comments.append(ast.Comment(Span(file, pos, pos + len(comment)), comment))
            continue
        pos = tok.lexpos

        if (
            newline is not None
            and not expression
            and not nesting.calls
            and not nesting.open_ifs
            and _at_level(text, pos, indents[-1])
        ):
            # most lines: outside brackets, indented with spaces as the line before (at
            # column 0 outside blocks, or an attribute of a schema): only the line break
            newline.value = depth
            if out and not (kind == "NAME" and KEYWORDS.get(value) in _DROP_NEWLINE_BEFORE):
                append(newline)
            newline = None
        if newline is not None and not expression and nesting.in_call_arguments():
            # the reference ends the arguments at the line break: report, no layout
            error('expected one of [")"] got newline', newline.lexpos, newline.lexpos + 1)
            newline = None
        if newline is not None and not expression:
            newline.value = depth
            prefix = text[text.rfind("\n", 0, pos) + 1 : pos]
            before_else = kind == "NAME" and KEYWORDS.get(value) in _DROP_NEWLINE_BEFORE
            opened = newline if out else None  # the raw line break becomes the parser's
            start_line(out, opened, prefix, pos, before_else, indents, nesting, depth, error)
        newline = None

        if kind in PLAIN:
            append(tok)
            continue
        if kind == "NAME":
            if value[0] == "$":
                tok.value = value[1:]
            else:
                keyword = KEYWORDS.get(value)
                if keyword is not None and index < count and named(keyword, raw[index].type, out):
                    keyword = None
                if keyword is not None:
                    tok.type = keyword
                    if keyword == "LAMBDA" and index < count and raw[index].type == "LBRACE":
                        if partners is None:
                            partners = _brace_partners(raw)
                        _mark_braced_params(raw, index, partners)
                    elif keyword in ("NOT", "IS", "ELSE") and index < count:
                        following = raw[index]
                        pair = (keyword, following.value if following.type == "NAME" else "")
                        merged = MERGES.get(pair)
                        if merged is not None:
                            index += 1
                            tok.type = merged[0]
                            tok.end = following.lexpos + len(following.value)
                            if merged[1]:
                                error(merged[1], pos, tok.end)
        elif kind == "NUMBER":
            number, suffix, message, where = decode_number(value)
            if message is not None:
                if where:
                    at = len(text[: pos + where].encode("utf-8"))  # the reference counts bytes
                    message = f"{message}, start: {at}, stop: {at + 1}"
                error(message, pos + where, tok.end)
            tok.value = ast.NumberExpr(Span(file, pos, tok.end), number, suffix)
        elif kind == "STRING":
            tok.value = string_node(file, tok, interpolate, error)
        elif kind in _OPENERS:
            depth += 1
            nesting.open(kind == "LPAREN" and ends_operand(out) and not _line_ends(raw, index))
            if depth > MAX_DEPTH:
                error(f"too many nested brackets (more than {MAX_DEPTH})", pos, tok.end)
                break
        elif kind in _CLOSERS:
            if depth:
                depth -= 1
                nesting.close(depth)
        elif kind == "QUESTION":
            if index < count and raw[index].type in AFTER_QUESTION:
                following = raw[index]
                index += 1
                tok.end = following.lexpos + 1
                if following.type == "DOT":
                    tok.type = "QDOT"
                else:
                    tok.type = "QLBRACKET"
                    depth += 1
                    nesting.open(False)
        elif kind in DROPPED:
            error(DROPPED[kind], pos, tok.end)
            continue
        elif kind == "BANG":
            error("invalid token '!', consider using 'not '", pos, tok.end)
            tok.type = "NOT"
        if tok.type in IF_OR_ELSE:
            nesting.branch(tok.type, depth, ends_operand(out))
        append(tok)

    if not expression:
        end = len(text)
        if out and out[-1].type != "NEWLINE":
            at = newline.lexpos if newline is not None else end
            append(Token("NEWLINE", depth, at, at + (1 if newline is not None else 0)))
        for _ in range(len(indents) - 1):
            append(Token("DEDENT", None, end, end))
    return result


def start_line(
    out: list[Any],
    newline: Any,
    prefix: str,
    pos: int,
    before_else: bool,
    indents: list[tuple[int, int]],
    nesting: Nesting,
    depth: int,
    error: Callable[[str, int, int], None],
) -> None:
    """The tokens of a line start after a line break (outside call arguments): the
    line break ``newline`` (None before the first token) and the INDENT or DEDENTs of
    the indentation ``prefix`` against the stack ``indents`` (updated); a NEWLINE right
    before ``else``/``elif`` (``before_else``) at an unchanged level is dropped, unless an
    ``if`` expression of this depth waits for it. Both passes share this rule."""
    tabs = prefix.count("\t")
    spaces = prefix.count(" ")
    order = compare_levels(tabs, spaces, indents[-1])
    layout_tokens: list[Any] = []
    if order is None:
        error("inconsistent use of tabs and spaces in indentation", pos, pos)
    elif order > 0:
        indents.append((tabs, spaces))
        layout_tokens.append(Token("INDENT", None, pos, pos))
    elif order < 0:
        while order is not None and order < 0:
            popped = indents.pop()
            layout_tokens.append(Token("DEDENT", None, pos, pos))
            order = compare_levels(tabs, spaces, indents[-1])
        if order is None:
            error("inconsistent use of tabs and spaces in indentation", pos, pos)
        elif order > 0:
            indents.append(popped)
            layout_tokens.pop()
            if depth == 0:
                width = plural(spaces - indents[-2][1], "space")
                error(
                    f"invalid indentation with {width}, try to align indents "
                    "by adding or removing spaces",
                    pos,
                    pos,
                )
    if newline is not None and not (
        not layout_tokens and before_else and not nesting.open_if(depth)
    ):
        nesting.end_line(depth)
        out.append(newline)
    out.extend(layout_tokens)


_PADS = [" " * width for width in range(64)]


def _at_level(text: str, pos: int, level: tuple[int, int]) -> bool:
    """Whether the token at ``pos`` starts a line indented by exactly ``level``'s
    spaces and no tab (the general path would find the indentation unchanged)."""
    tabs, spaces = level
    if tabs:
        return False
    if not spaces:
        return pos == 0 or text[pos - 1] == "\n"
    start = pos - spaces
    return (
        spaces < 64
        and start > 0
        and text[start - 1] == "\n"
        and text.startswith(_PADS[spaces], start)
    )


class Nesting:
    """What the reference's recursive descent knows and a token filter must track:

    * whether the innermost bracket is a call's ``(`` with an argument on its
      own line: then a line break between arguments ends the call
      (``f(1,`` newline ``2)`` is ``expected one of [")"] got newline``);
    * the bracket depths of conditional expressions still waiting for their
      ``else``: a line break there is no line continuation, so the newline
      before an ``else`` is kept (and the parser reports the missing ``else``).
    """

    __slots__ = ("calls", "open_ifs")

    def __init__(self) -> None:
        self.calls: list[bool] = []
        self.open_ifs: list[int] = []

    def open(self, strict_call: bool) -> None:
        self.calls.append(strict_call)

    def close(self, depth: int) -> None:
        if self.calls:
            self.calls.pop()
        while self.open_ifs and self.open_ifs[-1] > depth:
            self.open_ifs.pop()

    def in_call_arguments(self) -> bool:
        return bool(self.calls) and self.calls[-1]

    def branch(self, kind: str, depth: int, after_operand: bool) -> None:
        if kind == "IF" and after_operand:
            self.open_ifs.append(depth)
        elif kind == "ELSE" and self.open_if(depth):
            self.open_ifs.pop()

    def open_if(self, depth: int) -> bool:
        return bool(self.open_ifs) and self.open_ifs[-1] == depth

    def end_line(self, depth: int) -> None:
        while self.open_ifs and self.open_ifs[-1] >= depth:
            self.open_ifs.pop()


IF_OR_ELSE = frozenset(("IF", "ELSE"))
AFTER_QUESTION = frozenset(("DOT", "LBRACKET"))  # `?.` and `?[` are one token

OPERAND_ENDS = (
    frozenset(("NAME", "NUMBER", "STRING", "TRUE", "FALSE", "NONE", "UNDEFINED")) | _CLOSERS
)


def ends_operand(out: list[Any]) -> bool:
    """Whether the last token out ends an operand (so ``(`` calls, ``if`` is an expression's)."""
    return bool(out) and out[-1].type in OPERAND_ENDS


def _line_ends(raw: list[Any], index: int) -> bool:
    """Whether only a comment, if anything, is left on the line from ``raw[index]``."""
    while index < len(raw) and raw[index].type == "COMMENT":
        index += 1
    return index >= len(raw) or raw[index].type == "NEWLINE"


def _mark_braced_params(raw: list[Any], start: int, partners: dict[int, int]) -> None:
    """``lambda {x: int} -> T {...}``: the first braces hold parameters when the
    matching ``}`` is followed by ``->`` (the reference looks ahead the same way)."""
    end = partners.get(start)
    if end is not None and end + 1 < len(raw) and raw[end + 1].type == "RARROW":
        raw[start].type = "LPARAMS"
        raw[end].type = "RPARAMS"


def _brace_partners(raw: list[Any]) -> dict[int, int]:
    """The index of the matching ``}`` of every ``{`` in ``raw`` (one pass, any depth)."""
    partners: dict[int, int] = {}
    opened: list[int] = []
    for index, tok in enumerate(raw):
        if tok.type == "LBRACE":
            opened.append(index)
        elif tok.type == "RBRACE" and opened:
            partners[opened.pop()] = index
    return partners


# Keywords that start a schema body's statement before an attribute could (the others
# are names before `?`; elsewhere a keyword the grammar cannot take is a name: the
# parser reads it again as one).
DISPATCHED = frozenset(("IF", "MIXIN", "CHECK", "ASSERT"))


def named(keyword: str, following: str, out: list[Any]) -> bool:
    """Whether a keyword is a name by the kind of the token after it (``following``)
    and the tokens out, where the parser could take it as a keyword: an optional
    attribute (``else?: str``) or the first name in brackets before a colon
    (``[if: str]: str``, ``schema A[for: int]``)."""
    if following == "QUESTION":
        return keyword not in DISPATCHED
    return following == "COLON" and bool(out) and out[-1].type == "LBRACKET"


MERGES: dict[tuple[str, str], tuple[str, str]] = {
    ("NOT", "in"): ("NOTIN", ""),
    ("IS", "not"): ("ISNOT", ""),
    ("NOT", "is"): ("ISNOT", "'not is' here is invalid, consider using 'is not'"),
    ("ELSE", "if"): ("ELIF", "'else if' here is invalid in KCL, consider using the 'elif' keyword"),
}

DROPPED = {
    "SEMI": "the semicolon ';' here is unnecessary, please remove it",
    "BACKSLASH": "unexpected character after line continuation character",
    "ERRORCHAR": "unknown start of token",
}

PLAIN = (
    frozenset(lexer.tokens)
    - _OPENERS
    - _CLOSERS
    - DROPPED.keys()
    - {"NAME", "NUMBER", "STRING", "COMMENT", "NEWLINE", "QUESTION", "BANG"}
)
"""Raw kinds that pass the filter unchanged (operators and punctuation)."""


def string_node(
    file: SourceFile, tok: Any, interpolate: Interpolate, error: Callable[[str, int, int], None]
) -> ast.Expr:
    """The StringExpr or JoinedStringExpr of a string token, reporting literal errors."""
    raw = tok.value
    pos = tok.lexpos
    quote = raw[0]
    if (quote == '"' or quote == "'") and len(raw) > 1 and raw[-1] == quote:
        content = raw[1:-1]
        if not (quote in content or "\\" in content or "$" in content or "\n" in content):
            # the common case: a short quoted string with nothing to decode (built
            # without constructor calls, see ast.Node)
            span = new(Span)
            span.file = file
            span.start = pos
            span.end = tok.end
            node = new(ast.StringExpr)
            node.span = span
            node.id = next(node_ids)
            node.value = content
            node.raw = raw
            return node
    start = 1 if quote == "r" or quote == "R" else 0
    triple = raw[start : start + 3]
    if (
        (triple == '"""' or triple == "'''")
        and "\\" not in raw
        and raw.find(triple, start + 3) == len(raw) - 3
    ):
        # a docstring: a long string, terminated (at its first closing quotes, at
        # least three characters on), without backslashes: its value is only dedented
        value = dedent_string(raw[start + 3 : -3])
        if start or "${" not in value:  # (a raw string is never interpolated)
            return ast.StringExpr(Span(file, pos, tok.end), value, raw)
    info = decode_string(raw)
    if not info.terminated:
        error("unterminated string", pos + (1 if info.is_raw else 0), tok.end)
    elif info.error is not None:
        error(info.error, pos + info.content_start, tok.end)
    span = Span(file, pos, tok.end)
    if info.is_raw or "${" not in info.value:
        return ast.StringExpr(span, info.value, raw)
    width = 3 if info.is_long else 1
    prefix = info.content_start - width
    body = raw[prefix:] if info.terminated else raw[prefix:] + info.quote * width
    pieces, closed = split_interpolation(info.value, body, width)
    if not closed:
        error("invalid joined string", pos, tok.end)
    parts: list[str | ast.FormattedValue] = []
    for piece in pieces:
        if piece[0] == "text":
            parts.append(str(piece[1]))
            continue
        start = pos + prefix + int(piece[1])
        end = pos + prefix + piece[2]
        expr, spec = interpolate(start + 2, end - 1)
        if expr is None:
            expr = ast.NameExpr(Span(file, start + 2, start + 2), "")
        parts.append(ast.FormattedValue(Span(file, start, end), expr, spec))
    if all(isinstance(part, str) for part in parts):  # only escaped ``\${``
        return ast.StringExpr(span, "".join(str(part) for part in parts), raw)
    return ast.JoinedStringExpr(span, parts, raw)
