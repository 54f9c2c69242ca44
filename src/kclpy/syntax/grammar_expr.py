"""Grammar rules for expressions, types and literals (ply ``p_`` functions).

Each docstring is a production in ply's notation; :mod:`kclpy.syntax.parser`
collects the rules of this module and :mod:`kclpy.syntax.grammar_stmt` into one
LALR table, and ``grammar/kcl.grammar`` mirrors them (checked by a test).
Actions are tiny: they read ``p.slice`` directly (terminals are tokens with
``value``/``lexpos``/``end``, nonterminals carry their node in ``value``).

Precedence follows the reference (lowest first): ``if-else``, ``as``, ``or``,
``and``, ``== !=``, ``in``/``not in``, ``is``/``is not``, ``< <= > >=``, ``|``,
``^``, ``&``, shifts, ``+ -``, ``* / // %``, ``**`` (left-associative), then
unary operators, which apply to a primary expression only. Items and
statements need no separator, so wherever an expression may end a token may
also continue it (``a -1``, ``a (b)``, ``S {...}``): those shift/reduce
conflicts are left to ply's default, shift, which keeps the expression going
exactly like the reference's greedy recursive descent (their count is pinned).
"""

from __future__ import annotations

from kclpy.source import Span
from kclpy.syntax import ast, build
from kclpy.syntax.ast import node_ids
from kclpy.syntax.driver import collect, collects, in_place, unit, valueless, wraps
from kclpy.syntax.tokens import PUNCTUATION

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    P = Any  # ply's YaccProduction


new = object.__new__

_CONSTANTS = {"TRUE": True, "FALSE": False, "NONE": None, "UNDEFINED": "Undefined"}
_COMPARISONS = frozenset(("EQ", "NE", "LT", "LE", "GT", "GE", "IN", "NOTIN", "IS", "ISNOT"))
_OPS = {**PUNCTUATION, "AND": "and", "OR": "or", "IN": "in", "NOTIN": "not in"}
_OPS.update({"IS": "is", "ISNOT": "is not", "NOT": "not"})


# --------------------------------------------------------------------------- names


@wraps
def p_ident(p: P) -> None:
    """ident : NAME
    | TYPE
    | SCHEMA
    | MIXIN
    | PROTOCOL
    | CHECK
    | RULE"""
    s = p.slice
    s[0].value = s[1]


@unit
def p_name_ident(p: P) -> None:
    """name : ident"""
    s = p.slice
    s[0].value = s[1].value


@wraps
def p_name(p: P) -> None:
    """name : ASSERT
    | IMPORT
    | IF
    | ELIF
    | ELSE
    | FOR
    | IN
    | NOT
    | AND
    | OR
    | IS
    | AS
    | LAMBDA
    | ALL
    | ANY
    | MAP
    | FILTER
    | TRUE
    | FALSE
    | NONE
    | UNDEFINED"""
    s = p.slice
    s[0].value = s[1]


@in_place
def p_dotted_first(p: P) -> None:
    """dotted : NAME
    | TYPE
    | SCHEMA
    | MIXIN
    | PROTOCOL
    | CHECK
    | RULE"""
    s = p.slice
    tok = s[1]
    span = new(Span)  # (the commonest node: built without constructor calls, see ast.Node)
    span.file = build.FILE
    span.start = tok.lexpos
    span.end = tok.end
    node = new(ast.NameExpr)
    node.span = span
    node.id = next(node_ids)
    node.name = tok.value
    s[0].value = node


@in_place
def p_dotted_more(p: P) -> None:
    """dotted : dotted DOT name"""
    s = p.slice
    value = s[1].value
    tok = s[3].value
    span = new(Span)
    span.file = build.FILE
    span.start = value.span.start
    span.end = tok.end
    node = new(ast.SelectorExpr)
    node.span = span
    node.id = next(node_ids)
    node.value = value
    node.attr = tok.value
    node.optional = False
    s[0].value = node


# --------------------------------------------------------------------------- operators


@unit
def p_test(p: P) -> None:
    """test : simple"""
    s = p.slice
    s[0].value = s[1].value


def p_test_if(p: P) -> None:
    """test : simple IF simple ELSE test"""
    s = p.slice
    body = s[1].value
    orelse = s[5].value
    sp = Span(build.FILE, body.span.start, orelse.span.end)
    s[0].value = ast.IfExpr(sp, body, s[3].value, orelse)


@unit
def p_simple(p: P) -> None:
    """simple : dotted
    | postfix"""
    s = p.slice
    s[0].value = s[1].value


def p_simple_unary(p: P) -> None:
    """simple : MINUS primary
    | PLUS primary
    | TILDE primary
    | NOT primary"""
    s = p.slice
    tok = s[1]
    operand = s[2].value
    sp = Span(build.FILE, tok.lexpos, operand.span.end)
    s[0].value = ast.UnaryExpr(sp, _OPS[tok.type], operand)


@in_place
def p_simple_binary(p: P) -> None:
    """simple : simple OR simple
    | simple AND simple
    | simple PIPE simple
    | simple CARET simple
    | simple AMP simple
    | simple LSHIFT simple
    | simple RSHIFT simple
    | simple PLUS simple
    | simple MINUS simple
    | simple STAR simple
    | simple SLASH simple
    | simple DSLASH simple
    | simple PERCENT simple
    | simple DSTAR simple"""
    s = p.slice
    left = s[1].value
    right = s[3].value
    sp = Span(build.FILE, left.span.start, right.span.end)
    s[0].value = ast.BinaryExpr(sp, _OPS[s[2].type], left, right)


def p_simple_compare(p: P) -> None:
    """simple : simple EQ simple
    | simple NE simple
    | simple IN simple
    | simple NOTIN simple
    | simple IS simple
    | simple ISNOT simple
    | simple LT simple
    | simple LE simple
    | simple GT simple
    | simple GE simple"""
    s = p.slice
    s[0].value = build.comparison(s[1].value, _OPS[s[2].type], s[3].value)


def p_simple_as(p: P) -> None:
    """simple : simple AS type"""
    s = p.slice
    value = s[1].value
    typ = s[3].value
    s[0].value = ast.AsExpr(Span(build.FILE, value.span.start, typ.span.end), value, typ)


# --------------------------------------------------------------------------- primaries


@unit
def p_primary(p: P) -> None:
    """primary : dotted
    | postfix"""
    s = p.slice
    s[0].value = s[1].value


def p_postfix_call(p: P) -> None:
    """postfix : dotted call_args
    | postfix call_args"""
    s = p.slice
    func = s[1].value
    args, keywords, end = s[2].value
    s[0].value = ast.CallExpr(Span(build.FILE, func.span.start, end), func, args, keywords)


@in_place
def p_postfix_schema(p: P) -> None:
    """postfix : dotted config_expr"""
    s = p.slice
    name = s[1].value
    config = s[2].value
    span = new(Span)
    span.file = build.FILE
    span.start = name.span.start
    span.end = config.span.end
    node = new(ast.SchemaExpr)
    node.span = span
    node.id = next(node_ids)
    node.name = name
    node.args = []
    node.keywords = []
    node.config = config
    s[0].value = node


def p_postfix_schema_args(p: P) -> None:
    """postfix : dotted call_args config_expr"""
    s = p.slice
    name = s[1].value
    args, keywords, _ = s[2].value
    config = s[3].value
    sp = Span(build.FILE, name.span.start, config.span.end)
    s[0].value = ast.SchemaExpr(sp, name, args, keywords, config)


def p_postfix_selector(p: P) -> None:
    """postfix : dotted QDOT name
    | postfix QDOT name
    | postfix DOT name"""
    s = p.slice
    value = s[1].value
    tok = s[3].value
    sp = Span(build.FILE, value.span.start, tok.end)
    s[0].value = ast.SelectorExpr(sp, value, tok.value, s[2].type == "QDOT")


def p_postfix_subscript(p: P) -> None:
    """postfix : dotted subscript
    | postfix subscript"""
    s = p.slice
    value = s[1].value
    optional, index, lower, upper, step, is_slice, end = s[2].value
    s[0].value = ast.SubscriptExpr(
        Span(build.FILE, value.span.start, end),
        value,
        index,
        lower=lower,
        upper=upper,
        step=step,
        is_slice=is_slice,
        optional=optional,
    )


def p_subscript_index(p: P) -> None:
    """subscript : LBRACKET test RBRACKET
    | QLBRACKET test RBRACKET"""
    s = p.slice
    s[0].value = (s[1].type == "QLBRACKET", s[2].value, None, None, None, False, s[3].end)


def p_subscript_slice(p: P) -> None:
    """subscript : LBRACKET opt_test COLON opt_test RBRACKET
    | QLBRACKET opt_test COLON opt_test RBRACKET
    | LBRACKET opt_test COLON opt_test COLON opt_test RBRACKET
    | QLBRACKET opt_test COLON opt_test COLON opt_test RBRACKET"""
    s = p.slice
    step = s[6].value if len(s) == 8 else None
    s[0].value = (s[1].type == "QLBRACKET", None, s[2].value, s[4].value, step, True, s[-1].end)


def p_opt_test(p: P) -> None:
    """opt_test :
    | test"""
    s = p.slice
    s[0].value = s[1].value if len(s) == 2 else None


@valueless
def p_empty(p: P) -> None:
    """empty :"""
    p.slice[0].value = None


@unit
def p_atom_literal(p: P) -> None:
    """postfix : NUMBER
    | STRING"""
    s = p.slice
    s[0].value = s[1].value


def p_atom_constant(p: P) -> None:
    """postfix : TRUE
    | FALSE
    | NONE
    | UNDEFINED"""
    s = p.slice
    tok = s[1]
    s[0].value = ast.ConstExpr(Span(build.FILE, tok.lexpos, tok.end), _CONSTANTS[tok.type])


def p_atom_paren(p: P) -> None:
    """postfix : LPAREN test RPAREN"""
    s = p.slice
    s[0].value = ast.ParenExpr(Span(build.FILE, s[1].lexpos, s[3].end), s[2].value)


@unit
def p_atom_compound(p: P) -> None:
    """postfix : list_expr
    | config_expr
    | lambda_expr
    | quant_expr"""
    s = p.slice
    s[0].value = s[1].value


# --------------------------------------------------------------------------- calls


def p_call_args_empty(p: P) -> None:
    """call_args : LPAREN RPAREN
    | LPAREN nl RPAREN"""
    s = p.slice
    s[0].value = ([], [], s[-1].end)


def p_call_args(p: P) -> None:
    """call_args : LPAREN arg_list item_sep RPAREN
    | LPAREN nl arg_list item_sep RPAREN"""
    s = p.slice
    args, keywords = build.call_parts(s[-3].value)
    s[0].value = (args, keywords, s[-1].end)


@collects
def p_arg_list(p: P) -> None:
    """arg_list : arg
    | arg_list item_sep arg"""
    collect(p)


@in_place
def p_arg(p: P) -> None:
    """arg : test"""
    s = p.slice
    value = s[1].value
    s[0].value = (None, value, value.span.start)


def p_arg_keyword(p: P) -> None:
    """arg : test ASSIGN test"""
    s = p.slice
    key = s[1].value
    s[0].value = (key, s[3].value, key.span.start)


# --------------------------------------------------------------------------- types


@unit
def p_type(p: P) -> None:
    """type : type_elem
    | type PIPE type_elem"""
    s = p.slice
    if len(s) == 2:
        s[0].value = s[1].value
        return
    left = s[1].value
    right = s[3].value
    sp = Span(build.FILE, left.span.start, right.span.end)
    if isinstance(left, ast.UnionType):
        s[0].value = ast.UnionType(sp, [*left.types, right])
    else:
        s[0].value = ast.UnionType(sp, [left, right])


def p_type_any(p: P) -> None:
    """type_elem : ANY"""
    s = p.slice
    s[0].value = ast.AnyType(Span(build.FILE, s[1].lexpos, s[1].end))


@in_place
def p_type_named(p: P) -> None:
    """type_elem : dotted"""
    s = p.slice
    name = s[1].value
    node = new(ast.NamedType)
    node.span = name.span
    node.id = next(node_ids)
    node.name = name.name if type(name) is ast.NameExpr else build.dotted_name(name)
    s[0].value = node


def p_type_literal(p: P) -> None:
    """type_elem : NUMBER
    | STRING
    | TRUE
    | FALSE
    | NONE
    | UNDEFINED"""
    s = p.slice
    tok = s[1]
    sp = Span(build.FILE, tok.lexpos, tok.end)
    kind = tok.type
    if kind == "NUMBER":
        s[0].value = ast.LiteralType(sp, tok.value.value, tok.value.suffix)
    elif kind == "STRING":
        node = tok.value
        if isinstance(node, ast.JoinedStringExpr):
            build.error("string interpolation is not allowed in a type", sp.start, sp.end)
        s[0].value = ast.LiteralType(sp, getattr(node, "value", ""))
    elif kind == "UNDEFINED":
        s[0].value = ast.NamedType(sp, "Undefined")
    else:
        s[0].value = ast.LiteralType(sp, _CONSTANTS[kind])


def p_type_list(p: P) -> None:
    """type_elem : LBRACKET RBRACKET
    | LBRACKET type RBRACKET"""
    s = p.slice
    elem = s[2].value if len(s) == 4 else None
    s[0].value = ast.ListType(Span(build.FILE, s[1].lexpos, s[-1].end), elem)


def p_type_dict(p: P) -> None:
    """type_elem : LBRACE COLON RBRACE
    | LBRACE type COLON RBRACE
    | LBRACE COLON type RBRACE
    | LBRACE type COLON type RBRACE"""
    s = p.slice
    key = s[2].value if s[2].type == "type" else None
    value = s[-2].value if s[-2].type == "type" else None
    s[0].value = ast.DictType(Span(build.FILE, s[1].lexpos, s[-1].end), key, value)


def p_type_function(p: P) -> None:
    """type_elem : LPAREN RPAREN
    | LPAREN type_list RPAREN
    | LPAREN RPAREN RARROW type
    | LPAREN type_list RPAREN RARROW type"""
    s = p.slice
    params = s[2].value if s[2].type == "type_list" else []
    ret = s[-1].value if s[-2].type == "RARROW" else None
    end = ret.span.end if ret is not None else s[-1].end
    s[0].value = ast.FunctionType(Span(build.FILE, s[1].lexpos, end), params, ret)


def p_type_list_items(p: P) -> None:
    """type_list : type
    | type_list COMMA type
    | type_list COMMA"""
    s = p.slice
    if len(s) == 2:
        s[0].value = [s[1].value]
        return
    items = s[1].value
    if len(s) == 4:
        items.append(s[3].value)
    s[0].value = items
