"""Token kinds shared by the lexer, the layout filter and the parser.

The lexer produces *raw* kinds (``tokens`` in :mod:`kclpy.syntax.lexer`); the
layout filter turns them into the *parser* kinds listed in ``TERMINALS``: it
splits keywords off ``NAME``, merges ``not in``/``is not``/``?.``/``?[``, drops
comments and stray characters, and adds ``NEWLINE``/``INDENT``/``DEDENT``.
``DISPLAY`` gives the reference's spelling of each kind for error messages.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

KEYWORDS: dict[str, str] = {
    "True": "TRUE",
    "False": "FALSE",
    "None": "NONE",
    "Undefined": "UNDEFINED",
    "import": "IMPORT",
    "as": "AS",
    "if": "IF",
    "elif": "ELIF",
    "else": "ELSE",
    "for": "FOR",
    "in": "IN",
    "not": "NOT",
    "and": "AND",
    "or": "OR",
    "is": "IS",
    "schema": "SCHEMA",
    "mixin": "MIXIN",
    "protocol": "PROTOCOL",
    "check": "CHECK",
    "assert": "ASSERT",
    "lambda": "LAMBDA",
    "rule": "RULE",
    "type": "TYPE",
    "all": "ALL",
    "any": "ANY",
    "map": "MAP",
    "filter": "FILTER",
}

# Keywords that also work as plain names where an operand is expected
# (``{type = 1}``, ``protocol: str``); the others need ``$`` there (the
# reference is laxer still, but ``assert``/``import`` as names would make
# every statement start ambiguous). Any keyword may follow a dot.
SOFT_KEYWORDS = ("TYPE", "SCHEMA", "MIXIN", "PROTOCOL", "CHECK", "RULE")

PUNCTUATION: dict[str, str] = {
    "LPAREN": "(",
    "RPAREN": ")",
    "LBRACKET": "[",
    "QLBRACKET": "?[",
    "RBRACKET": "]",
    "LBRACE": "{",
    "RBRACE": "}",
    "COMMA": ",",
    "COLON": ":",
    "DOT": ".",
    "QDOT": "?.",
    "ELLIPSIS": "...",
    "AT": "@",
    "QUESTION": "?",
    "RARROW": "->",
    "PLUS": "+",
    "MINUS": "-",
    "STAR": "*",
    "SLASH": "/",
    "DSLASH": "//",
    "PERCENT": "%",
    "DSTAR": "**",
    "LSHIFT": "<<",
    "RSHIFT": ">>",
    "AMP": "&",
    "PIPE": "|",
    "CARET": "^",
    "TILDE": "~",
    "LT": "<",
    "GT": ">",
    "LE": "<=",
    "GE": ">=",
    "EQ": "==",
    "NE": "!=",
    "ASSIGN": "=",
    "PLUSEQ": "+=",
    "MINUSEQ": "-=",
    "STAREQ": "*=",
    "SLASHEQ": "/=",
    "DSLASHEQ": "//=",
    "PERCENTEQ": "%=",
    "DSTAREQ": "**=",
    "LSHIFTEQ": "<<=",
    "RSHIFTEQ": ">>=",
    "AMPEQ": "&=",
    "PIPEEQ": "|=",
    "CARETEQ": "^=",
}

# The binary operator of each augmented assignment token.
AUGMENTED: dict[str, str] = {
    "PLUSEQ": "+",
    "MINUSEQ": "-",
    "STAREQ": "*",
    "SLASHEQ": "/",
    "DSLASHEQ": "//",
    "PERCENTEQ": "%",
    "DSTAREQ": "**",
    "LSHIFTEQ": "<<",
    "RSHIFTEQ": ">>",
    "AMPEQ": "&",
    "PIPEEQ": "|",
    "CARETEQ": "^",
}

LAYOUT = ("NEWLINE", "INDENT", "DEDENT")
LITERALS = ("NAME", "NUMBER", "STRING")

# EXPR_START is injected before the tokens of a lone expression (string
# interpolation, ``-O`` values) so that one table serves both entry points.
TERMINALS: tuple[str, ...] = (
    *LAYOUT,
    *LITERALS,
    *sorted(set(KEYWORDS.values()) | {"NOTIN", "ISNOT"}),
    *PUNCTUATION,
    "LPARAMS",
    "RPARAMS",
    "EXPR_START",
)

DISPLAY: dict[str, str] = {
    "NEWLINE": "newline",
    "INDENT": "indent",
    "DEDENT": "dedent",
    "NAME": "identifier",
    "NUMBER": "literal",
    "STRING": "literal",
    "NOTIN": "not in",
    "ISNOT": "is not",
    "EXPR_START": "expression",
    "LPARAMS": "{",
    "RPARAMS": "}",
    "$end": "eof",
    **{kind: word for word, kind in KEYWORDS.items()},
    **PUNCTUATION,
}


class Token:
    """A token: ``type`` is its kind, ``value`` the payload (the matched text from
    the lexer; a name or a literal node after the layout filter), ``lexpos`` and
    ``end`` the code-point range in the file."""

    __slots__ = ("end", "lexpos", "type", "value")

    def __init__(self, kind: str, value: Any, lexpos: int, end: int) -> None:
        self.type = kind
        self.value = value
        self.lexpos = lexpos
        self.end = end

    def __repr__(self) -> str:
        return f"Token({self.type}, {self.value!r}, {self.lexpos})"
