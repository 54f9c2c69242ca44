"""Grammar rules for bracketed forms: lists, configs, comprehensions, quantifiers
and lambdas, with the layout tokens allowed inside brackets (ply ``p_`` functions).

Between items a separator is optional (``[1 2 3]``); it may be a comma, a line
break and any INDENT/DEDENT the shared indentation stack produced there, as in
the reference, which skips them at those points only. ``if`` items and entries
take an inline item or an indented block. See :mod:`kclpy.syntax.grammar_expr`
for the conventions.
"""

from __future__ import annotations

from kclpy.source import Span
from kclpy.syntax import ast, build
from kclpy.syntax.ast import node_ids
from kclpy.syntax.driver import collect, collects, in_place, literal_items, unit, valueless
from kclpy.syntax.grammar_expr import p_postfix_selector, p_postfix_subscript

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    P = Any  # ply's YaccProduction

new = object.__new__

# --------------------------------------------------------------------------- layout inside brackets


@valueless
def p_nl(p: P) -> None:
    """nl : NEWLINE
    | NEWLINE INDENT
    | NEWLINE dedents
    | dedents"""


@valueless
def p_dedents(p: P) -> None:
    """dedents : DEDENT
    | dedents DEDENT"""


@valueless
def p_opt_nl(p: P) -> None:
    """opt_nl :
    | nl"""


@valueless
def p_item_sep(p: P) -> None:
    """item_sep :
    | nl
    | COMMA
    | COMMA nl"""


@valueless
def p_block_sep(p: P) -> None:
    """block_sep :
    | NEWLINE
    | COMMA
    | COMMA NEWLINE"""


# --------------------------------------------------------------------------- lists


def p_list_expr_empty(p: P) -> None:
    """list_expr : LBRACKET RBRACKET
    | LBRACKET nl RBRACKET"""
    s = p.slice
    s[0].value = ast.ListExpr(Span(build.FILE, s[1].lexpos, s[-1].end), [])


@in_place
def p_list_expr(p: P) -> None:
    """list_expr : LBRACKET list_content RBRACKET
    | LBRACKET nl list_content RBRACKET"""
    s = p.slice
    items, generators = s[-2].value
    sp = Span(build.FILE, s[1].lexpos, s[-1].end)
    if not generators:
        s[0].value = ast.ListExpr(sp, items)
        return
    if len(items) > 1:
        first = items[0].span
        build.error(
            f"multiple list comp clause expression found: expected 1, got {len(items)}",
            first.start,
            first.end,
        )
    s[0].value = ast.ListCompExpr(sp, items[0], generators)


@in_place
def p_list_content(p: P) -> None:
    """list_content : list_items item_sep
    | list_items item_sep comp_clauses opt_nl"""
    s = p.slice
    s[0].value = (s[1].value, s[3].value if len(s) == 5 else None)


@collects
@literal_items(
    ("NUMBER", "STRING"),
    (("COMMA",), ("COMMA", "NEWLINE"), ("NEWLINE",)),
    ("COMMA", "RBRACKET", "NEWLINE"),
)
def p_list_items(p: P) -> None:
    """list_items : list_item
    | list_items item_sep list_item"""
    collect(p)


@unit
def p_list_item(p: P) -> None:
    """list_item : test
    | list_if"""
    s = p.slice
    s[0].value = s[1].value


def p_list_item_star(p: P) -> None:
    """list_item : STAR test"""
    s = p.slice
    value = s[2].value
    s[0].value = ast.StarredExpr(Span(build.FILE, s[1].lexpos, value.span.end), value)


def p_list_if(p: P) -> None:
    """list_if : list_if_chain
    | list_if_chain ELSE COLON list_if_body"""
    s = p.slice
    first, last = s[1].value
    if len(s) == 5:
        body, end = s[4].value
        last.orelse = body
        _extend_chain(first, end)
    s[0].value = first


def p_list_if_chain(p: P) -> None:
    """list_if_chain : IF test COLON list_if_body"""
    s = p.slice
    body, end = s[4].value
    item = ast.ListIfItem(Span(build.FILE, s[1].lexpos, end), s[2].value, body)
    s[0].value = (item, item)


def p_list_if_chain_elif(p: P) -> None:
    """list_if_chain : list_if_chain ELIF test COLON list_if_body"""
    s = p.slice
    first, last = s[1].value
    body, end = s[5].value
    item = ast.ListIfItem(Span(build.FILE, s[2].lexpos, end), s[3].value, body)
    last.orelse = item
    _extend_chain(first, end)
    s[0].value = (first, item)


def p_list_if_body(p: P) -> None:
    """list_if_body : list_item"""
    s = p.slice
    item = s[1].value
    s[0].value = ([item], item.span.end)


def p_list_if_block(p: P) -> None:
    """list_if_body : NEWLINE INDENT block_list_items block_sep DEDENT"""
    s = p.slice
    items = s[3].value
    s[0].value = (items, items[-1].span.end)


@collects
def p_block_list_items(p: P) -> None:
    """block_list_items : list_item
    | block_list_items block_sep list_item"""
    collect(p)


def _extend_chain(first: ast.ListIfItem | ast.ConfigIfEntry, end: int) -> None:
    """Stretch every if/elif item of a chain to the end of its last branch."""
    node: object = first
    while isinstance(node, ast.ListIfItem | ast.ConfigIfEntry):
        build.set_end(node, end)
        node = node.orelse


# --------------------------------------------------------------------------- comprehensions


@collects
def p_comp_clauses(p: P) -> None:
    """comp_clauses : comp_for
    | comp_clauses opt_nl comp_for"""
    collect(p)


def p_comp_clauses_if(p: P) -> None:
    """comp_clauses : comp_clauses opt_nl IF test"""
    s = p.slice
    clauses = s[1].value
    last = clauses[-1]
    cond = s[4].value
    last.ifs.append(cond)
    build.set_end(last, cond.span.end)
    s[0].value = clauses


def p_comp_for(p: P) -> None:
    """comp_for : FOR comp_targets IN simple
    | FOR comp_targets COMMA IN simple"""
    s = p.slice
    it = s[-1].value
    sp = Span(build.FILE, s[1].lexpos, it.span.end)
    s[0].value = ast.CompClause(sp, s[2].value, it, [])


def p_comp_targets(p: P) -> None:
    """comp_targets : dotted
    | comp_targets COMMA dotted"""
    s = p.slice
    name = build.loop_variable(s[-1].value)
    if len(s) == 2:
        s[0].value = [name]
    else:
        names = s[1].value
        names.append(name)
        s[0].value = names


# --------------------------------------------------------------------------- configs


def p_config_expr_empty(p: P) -> None:
    """config_expr : LBRACE RBRACE
    | LBRACE nl RBRACE"""
    s = p.slice
    s[0].value = ast.ConfigExpr(Span(build.FILE, s[1].lexpos, s[-1].end), [])


@in_place
def p_config_expr(p: P) -> None:
    """config_expr : LBRACE config_content RBRACE
    | LBRACE nl config_content RBRACE"""
    s = p.slice
    entries, generators = s[-2].value
    sp = new(Span)  # (nodes built without constructor calls, see ast.Node)
    sp.file = build.FILE
    sp.start = s[1].lexpos
    sp.end = s[-1].end
    if not generators:
        node = new(ast.ConfigExpr)
        node.span = sp
        node.id = next(node_ids)
        node.entries = entries
        s[0].value = node
        return
    if len(entries) > 1:
        first = entries[0].span
        build.error(
            f"multiple config comp clause expression found: expected 1, got {len(entries)}",
            first.start,
            first.end,
        )
    entry = entries[0]
    if not isinstance(entry, ast.ConfigEntry):
        build.error("missing config comp clause expression", entry.span.start, entry.span.end)
        s[0].value = ast.ConfigExpr(sp, entries)
        return
    s[0].value = ast.DictCompExpr(sp, entry, generators)


@in_place
def p_config_content(p: P) -> None:
    """config_content : entries item_sep
    | entries item_sep comp_clauses opt_nl"""
    s = p.slice
    s[0].value = (s[1].value, s[3].value if len(s) == 5 else None)


@collects
def p_entries(p: P) -> None:
    """entries : entry
    | entries item_sep entry"""
    collect(p)


@in_place
def p_entry(p: P) -> None:
    """entry : test COLON test
    | test ASSIGN test
    | test PLUSEQ test"""
    s = p.slice
    key = s[1].value
    value = s[3].value
    span = new(Span)
    span.file = build.FILE
    span.start = key.span.start
    span.end = value.span.end
    node = new(ast.ConfigEntry)
    node.span = span
    node.id = next(node_ids)
    node.key = key
    node.op = _ENTRY_OPS[s[2].type]
    node.value = value
    s[0].value = node


_ENTRY_OPS = {"COLON": ast.OP_UNION, "ASSIGN": ast.OP_OVERRIDE, "PLUSEQ": ast.OP_INSERT}


def p_entry_shorthand(p: P) -> None:
    """entry : test"""
    s = p.slice
    name = s[1].value
    if not isinstance(name, ast.NameExpr):
        end = name.span.end
        build.error('expected one of [":", "=", "+="] got }', end, end)
        s[0].value = ast.ConfigEntry(name.span, None, ast.OP_UNION, name)
        return
    # ``{a}`` is ``{a = a}``; key and value share the span (how fmt tells them apart).
    value = ast.NameExpr(name.span, name.name)
    s[0].value = ast.ConfigEntry(name.span, name, ast.OP_OVERRIDE, value)


def p_entry_unpack(p: P) -> None:
    """entry : DSTAR test"""
    s = p.slice
    value = s[2].value
    sp = Span(build.FILE, s[1].lexpos, value.span.end)
    s[0].value = ast.ConfigEntry(sp, None, ast.OP_UNION, value)


@unit
def p_entry_if(p: P) -> None:
    """entry : config_if"""
    s = p.slice
    s[0].value = s[1].value


def p_config_if(p: P) -> None:
    """config_if : config_if_chain
    | config_if_chain ELSE COLON config_if_body"""
    s = p.slice
    first, last = s[1].value
    if len(s) == 5:
        body, end = s[4].value
        last.orelse = body
        _extend_chain(first, end)
    s[0].value = first


def p_config_if_chain(p: P) -> None:
    """config_if_chain : IF test COLON config_if_body"""
    s = p.slice
    body, end = s[4].value
    entry = ast.ConfigIfEntry(Span(build.FILE, s[1].lexpos, end), s[2].value, body)
    s[0].value = (entry, entry)


def p_config_if_chain_elif(p: P) -> None:
    """config_if_chain : config_if_chain ELIF test COLON config_if_body"""
    s = p.slice
    first, last = s[1].value
    body, end = s[5].value
    entry = ast.ConfigIfEntry(Span(build.FILE, s[2].lexpos, end), s[3].value, body)
    last.orelse = entry
    _extend_chain(first, end)
    s[0].value = (first, entry)


def p_config_if_body(p: P) -> None:
    """config_if_body : entry"""
    s = p.slice
    entry = s[1].value
    s[0].value = ([entry], entry.span.end)


def p_config_if_block(p: P) -> None:
    """config_if_body : NEWLINE INDENT block_entries block_sep DEDENT"""
    s = p.slice
    entries = s[3].value
    s[0].value = (entries, entries[-1].span.end)


@collects
def p_block_entries(p: P) -> None:
    """block_entries : entry
    | block_entries block_sep entry"""
    collect(p)


# --------------------------------------------------------------------------- quantifiers, lambdas


def p_quant_expr(p: P) -> None:
    """quant_expr : quant_op quant_vars IN quant_target LBRACE opt_nl simple opt_nl RBRACE
    | quant_op quant_vars IN quant_target LBRACE opt_nl simple IF test opt_nl RBRACE"""
    s = p.slice
    op = s[1].value
    cond = s[9].value if len(s) == 12 else None
    sp = Span(build.FILE, op.lexpos, s[-1].end)
    s[0].value = ast.QuantExpr(sp, op.value, s[2].value, s[4].value, s[7].value, cond)


def p_quant_op(p: P) -> None:
    """quant_op : ALL
    | ANY
    | MAP
    | FILTER"""
    s = p.slice
    s[0].value = s[1]


def p_quant_vars(p: P) -> None:
    """quant_vars : dotted
    | dotted COMMA dotted"""
    s = p.slice
    first = build.loop_variable(s[1].value)
    s[0].value = [first, build.loop_variable(s[3].value)] if len(s) == 4 else [first]


@unit
def p_quant_target(p: P) -> None:
    """quant_target : dotted
    | quant_postfix
    | list_expr
    | config_expr
    | STRING"""
    s = p.slice
    s[0].value = s[1].value


def p_quant_postfix_selector(p: P) -> None:
    """quant_postfix : dotted QDOT name
    | quant_postfix QDOT name
    | quant_postfix DOT name"""
    p_postfix_selector(p)


def p_quant_postfix_subscript(p: P) -> None:
    """quant_postfix : dotted subscript
    | quant_postfix subscript"""
    p_postfix_subscript(p)


def p_lambda_expr(p: P) -> None:
    """lambda_expr : LAMBDA LBRACE lambda_body RBRACE
    | LAMBDA param_list LBRACE lambda_body RBRACE
    | LAMBDA RARROW type LBRACE lambda_body RBRACE
    | LAMBDA param_list RARROW type LBRACE lambda_body RBRACE
    | LAMBDA braced_params RARROW type LBRACE lambda_body RBRACE"""
    s = p.slice
    size = len(s)
    params = s[2].value if size in (6, 8) else []
    ret = s[-4].value if size in (7, 8) else None
    sp = Span(build.FILE, s[1].lexpos, s[-1].end)
    s[0].value = ast.LambdaExpr(sp, params, ret, s[-2].value)


def p_lambda_body(p: P) -> None:
    """lambda_body : empty
    | lambda_body stmt
    | lambda_body NEWLINE
    | lambda_body INDENT
    | lambda_body DEDENT"""
    s = p.slice
    if len(s) == 2:
        s[0].value = []
        return
    body = s[1].value
    if s[2].type == "stmt":
        stmt = build.plain_statement(s[2].value)
        if stmt is not None:
            body.append(stmt)
    s[0].value = body


def p_braced_params(p: P) -> None:
    """braced_params : LPARAMS RPARAMS
    | LPARAMS nl RPARAMS
    | LPARAMS param_items item_sep RPARAMS
    | LPARAMS nl param_items item_sep RPARAMS"""
    s = p.slice
    s[0].value = s[-3].value if s[-3].type == "param_items" else []


@collects
def p_param_items(p: P) -> None:
    """param_items : param
    | param_items item_sep param"""
    collect(p)


@unit
def p_param_list(p: P) -> None:
    """param_list : params
    | params COMMA"""
    s = p.slice
    s[0].value = s[1].value


@collects
def p_params(p: P) -> None:
    """params : param
    | params COMMA param
    | params param"""
    collect(p)


def p_param(p: P) -> None:
    """param : ident
    | ident COLON type
    | ident ASSIGN test
    | ident COLON type ASSIGN test"""
    s = p.slice
    tok = s[1].value
    size = len(s)
    typ = s[3].value if size in (4, 6) and s[2].type == "COLON" else None
    default = s[-1].value if s[-2].type == "ASSIGN" else None
    last = default or typ
    end = last.span.end if last is not None else tok.end
    s[0].value = ast.Param(Span(build.FILE, tok.lexpos, end), tok.value, typ, default)
