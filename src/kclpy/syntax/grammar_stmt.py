"""Grammar rules for modules, statements, schemas, rules and decorators.

See :mod:`kclpy.syntax.grammar_expr` for the conventions. Statements need no
separator (``a = 1 b = 2`` is two assignments), blocks are ``NEWLINE INDENT
... DEDENT``, and the statement lists that can resynchronise after a syntax
error (module, blocks, schema bodies, check blocks) carry an ``error NEWLINE``
alternative. Schema-only forms (``a: T`` without a value, ``a: T += v``,
``[str]: T``) are built by the shared statement rules and rejected by the
lists outside schema bodies, like the reference.
"""

from __future__ import annotations

from kclpy.diag import Code
from kclpy.source import Span
from kclpy.syntax import ast, build
from kclpy.syntax.ast import node_ids
from kclpy.syntax.driver import collect, collects, in_place, keep_first, unit
from kclpy.syntax.tokens import AUGMENTED

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    P = Any  # ply's YaccProduction


new = object.__new__

_SUFFIX_KINDS = (("Mixin", "mixin"), ("Protocol", "protocol"))


# --------------------------------------------------------------------------- module


def p_start(p: P) -> None:
    """start : module
    | EXPR_START test"""
    s = p.slice
    s[0].value = s[-1].value


@in_place
def p_module(p: P) -> None:
    """module : top_items"""
    s = p.slice
    body = s[1].value
    doc = ""
    if body and build.is_docstring(body[0]):
        doc = build.docstring_value(body[0])
        body = body[1:]
    text = build.FILE.text
    s[0].value = ast.Module(Span(build.FILE, 0, len(text)), build.FILE, body, [], doc)


@in_place
def p_top_items(p: P) -> None:
    """top_items : empty
    | top_items stmt"""
    s = p.slice
    if len(s) == 2:
        s[0].value = []
        return
    items = s[1].value
    stmt = build.plain_statement(s[2].value)
    if stmt is not None:
        items.append(stmt)
    s[0].value = items


@keep_first
def p_top_items_skip(p: P) -> None:
    """top_items : top_items NEWLINE
    | top_items error NEWLINE"""
    s = p.slice
    s[0].value = s[1].value


def p_stmt_decorated(p: P) -> None:
    """stmt : decorators expr_stmt"""
    s = p.slice
    s[0].value = s[2].value  # the reference accepts and ignores decorators here


@unit
def p_stmt(p: P) -> None:
    """stmt : expr_stmt
    | assert_stmt
    | import_stmt
    | type_alias_stmt
    | if_stmt
    | schema_stmt
    | rule_stmt"""
    s = p.slice
    s[0].value = s[1].value


# --------------------------------------------------------------------------- simple statements


@in_place
def p_expr_stmt(p: P) -> None:
    """expr_stmt : test"""
    s = p.slice
    expr = s[1].value
    s[0].value = ast.ExprStmt(expr.span, expr)


@in_place
def p_expr_stmt_assign(p: P) -> None:
    """expr_stmt : test ASSIGN assign_rhs
    | test COLON type ASSIGN assign_rhs"""
    s = p.slice
    first = s[1].value
    chain = s[-1].value
    value = chain[-1]
    typ = s[3].value if len(s) == 6 else None
    sp = Span(build.FILE, first.span.start, value.span.end)
    if typ is not None and len(chain) == 1 and isinstance(first, ast.StringExpr | ast.ListExpr):
        attr = _attribute(first, typ, sp, "=", value)
        if attr is not None:
            s[0].value = attr
            return
    if len(chain) == 1 and first.__class__ is ast.NameExpr:
        targets: list[ast.Expr] = [first]  # the common case: one plain name
    else:
        targets = build.targets_of([first, *chain[:-1]])
    s[0].value = ast.AssignStmt(sp, targets, value, typ)


@collects
def p_assign_rhs(p: P) -> None:
    """assign_rhs : test
    | assign_rhs ASSIGN test"""
    collect(p)


def p_expr_stmt_annotation(p: P) -> None:
    """expr_stmt : test COLON type"""
    s = p.slice
    target = s[1].value
    typ = s[3].value
    sp = Span(build.FILE, target.span.start, typ.span.end)
    attr = _attribute(target, typ, sp, "=", None)
    if attr is None:
        build.error('expected one of ["="] got newline', typ.span.end, typ.span.end)
        s[0].value = ast.ExprStmt(sp, target)
        return
    s[0].value = attr


def p_expr_stmt_typed_aug(p: P) -> None:
    """expr_stmt : test COLON type augassign test"""
    s = p.slice
    target = s[1].value
    value = s[5].value
    sp = Span(build.FILE, target.span.start, value.span.end)
    attr = _attribute(target, s[3].value, sp, s[4].value, value)
    if attr is None:
        build.error(f'expected one of ["="] got {s[4].value}=', sp.start, sp.end)
        s[0].value = ast.ExprStmt(sp, value)
        return
    s[0].value = attr


def _attribute(
    target: ast.Expr, typ: ast.TypeNode, sp: Span, op: str, value: ast.Expr | None
) -> ast.SchemaAttr | ast.IndexSignature | None:
    """``name: T [op value]`` as a schema attribute (or ``[K]: T`` as an index signature)."""
    if isinstance(target, ast.NameExpr):
        name = target.name
    elif isinstance(target, ast.StringExpr):
        name = target.value
    elif isinstance(target, ast.ListExpr) and len(target.items) == 1 and value is not None:
        key = _key_type(target.items[0])
        if key is None:
            return None
        return ast.IndexSignature(sp, None, key, typ, value if op == "=" else None)
    elif isinstance(target, ast.ListExpr) and len(target.items) == 1:
        key = _key_type(target.items[0])
        return ast.IndexSignature(sp, None, key, typ, None) if key is not None else None
    else:
        return None
    return ast.SchemaAttr(sp, name, target.span, typ, value, op=op)


def _key_type(expr: ast.Expr) -> ast.TypeNode | None:
    if isinstance(expr, ast.NameExpr | ast.SelectorExpr):
        name = build.dotted_name(expr)
        return ast.AnyType(expr.span) if name == "any" else ast.NamedType(expr.span, name)
    return None


def p_expr_stmt_aug(p: P) -> None:
    """expr_stmt : test augassign test"""
    s = p.slice
    target = s[1].value
    value = s[3].value
    sp = Span(build.FILE, target.span.start, value.span.end)
    if not build.check_target(target):
        s[0].value = ast.ExprStmt(sp, value)
        return
    s[0].value = ast.AugAssignStmt(sp, target, s[2].value, value)


def p_augassign(p: P) -> None:
    """augassign : PLUSEQ
    | MINUSEQ
    | STAREQ
    | SLASHEQ
    | DSLASHEQ
    | PERCENTEQ
    | DSTAREQ
    | LSHIFTEQ
    | RSHIFTEQ
    | AMPEQ
    | PIPEEQ
    | CARETEQ"""
    s = p.slice
    s[0].value = AUGMENTED[s[1].type]


def p_expr_stmt_unification(p: P) -> None:
    """expr_stmt : test COLON dotted config_expr
    | test COLON dotted call_args config_expr"""
    s = p.slice
    target = s[1].value
    name = s[3].value
    config = s[-1].value
    args, keywords = (s[4].value[0], s[4].value[1]) if len(s) == 6 else ([], [])
    value = ast.SchemaExpr(
        Span(build.FILE, name.span.start, config.span.end), name, args, keywords, config
    )
    sp = Span(build.FILE, target.span.start, config.span.end)
    if not isinstance(target, ast.NameExpr):
        build.error("expected identifier", target.span.start, target.span.end)
        s[0].value = ast.ExprStmt(sp, value)
        return
    s[0].value = ast.UnificationStmt(sp, target, value)


def p_assert_stmt(p: P) -> None:
    """assert_stmt : ASSERT simple
    | ASSERT simple IF simple
    | ASSERT simple COMMA test
    | ASSERT simple IF simple COMMA test"""
    s = p.slice
    size = len(s)
    cond = s[4].value if size in (5, 7) and s[3].type == "IF" else None
    msg = s[-1].value if s[-2].type == "COMMA" else None
    end = s[-1].value.span.end
    sp = Span(build.FILE, s[1].lexpos, end)
    s[0].value = ast.AssertStmt(sp, s[2].value, cond, msg)


def p_import_stmt(p: P) -> None:
    """import_stmt : IMPORT import_path
    | IMPORT import_path AS ident"""
    s = p.slice
    path, end = s[2].value
    alias = None
    if len(s) == 5:
        alias = s[4].value.value
        end = s[4].value.end
    s[0].value = ast.ImportStmt(Span(build.FILE, s[1].lexpos, end), path, alias)


@in_place
def p_import_path(p: P) -> None:
    """import_path : import_names
    | import_dots import_names"""
    s = p.slice
    names, end = s[-1].value
    dots = s[1].value if len(s) == 3 else ""
    s[0].value = (dots + names, end)


def p_import_dots(p: P) -> None:
    """import_dots : DOT
    | ELLIPSIS
    | import_dots DOT
    | import_dots ELLIPSIS"""
    s = p.slice
    dots = "..." if s[-1].type == "ELLIPSIS" else "."
    s[0].value = (s[1].value if len(s) == 3 else "") + dots


@in_place
def p_import_names(p: P) -> None:
    """import_names : name
    | import_names DOT name"""
    s = p.slice
    tok = s[-1].value
    if len(s) == 2:
        s[0].value = (tok.value, tok.end)
    else:
        s[0].value = (f"{s[1].value[0]}.{tok.value}", tok.end)


def p_type_alias_stmt(p: P) -> None:
    """type_alias_stmt : TYPE ident ASSIGN type"""
    s = p.slice
    tok = s[2].value
    typ = s[4].value
    name = ast.NameExpr(Span(build.FILE, tok.lexpos, tok.end), tok.value)
    s[0].value = ast.TypeAliasStmt(Span(build.FILE, s[1].lexpos, typ.span.end), name, typ)


# --------------------------------------------------------------------------- if statements


def p_if_stmt(p: P) -> None:
    """if_stmt : if_chain
    | if_chain ELSE COLON suite"""
    s = p.slice
    first, last = s[1].value
    if len(s) == 5:
        body, end = s[4].value
        last.orelse = body
    else:
        end = last.span.end
    node: ast.Stmt = first
    while isinstance(node, ast.IfStmt):
        build.set_end(node, end)
        node = node.orelse[0] if len(node.orelse) == 1 else None  # type: ignore[assignment]
    s[0].value = first


def p_if_chain(p: P) -> None:
    """if_chain : IF test COLON suite"""
    s = p.slice
    body, end = s[4].value
    node = ast.IfStmt(Span(build.FILE, s[1].lexpos, end), s[2].value, body, [])
    s[0].value = (node, node)


def p_if_chain_elif(p: P) -> None:
    """if_chain : if_chain ELIF test COLON suite"""
    s = p.slice
    first, last = s[1].value
    body, end = s[5].value
    node = ast.IfStmt(Span(build.FILE, s[2].lexpos, end), s[3].value, body, [])
    last.orelse = [node]
    s[0].value = (first, node)


def p_suite(p: P) -> None:
    """suite : expr_stmt"""
    s = p.slice
    stmt = s[1].value
    plain = build.plain_statement(stmt)
    s[0].value = ([plain] if plain is not None else [], stmt.span.end)


def p_suite_block(p: P) -> None:
    """suite : NEWLINE INDENT block_items DEDENT"""
    s = p.slice
    body = s[3].value
    s[0].value = (body, body[-1].span.end if body else s[2].lexpos)


def p_block_items(p: P) -> None:
    """block_items : stmt
    | error NEWLINE
    | block_items stmt
    | block_items NEWLINE
    | block_items error NEWLINE"""
    s = p.slice
    first = s[1]
    items = first.value if first.type == "block_items" else []
    last = s[-1]
    if last.type == "stmt":
        stmt = build.plain_statement(last.value)
        if stmt is not None:
            items.append(stmt)
    s[0].value = items


# --------------------------------------------------------------------------- decorators


@collects
def p_decorators(p: P) -> None:
    """decorators : decorator
    | decorators decorator"""
    collect(p)


def p_decorator(p: P) -> None:
    """decorator : AT dotted NEWLINE
    | AT dotted call_args NEWLINE"""
    s = p.slice
    name = s[2].value
    args, keywords, end = s[3].value if len(s) == 5 else ([], [], name.span.end)
    sp = Span(build.FILE, s[1].lexpos, end)
    s[0].value = ast.Decorator(sp, build.dotted_name(name), args, keywords)


# --------------------------------------------------------------------------- schemas


@in_place
def p_schema_stmt(p: P) -> None:
    """schema_stmt : schema_def
    | decorators schema_def"""
    s = p.slice
    node = s[-1].value
    if len(s) == 3:
        node.decorators = s[1].value
        node.span = Span(build.FILE, s[1].value[0].span.start, node.span.end)
    s[0].value = node


def p_schema_def(p: P) -> None:
    """schema_def : schema_head COLON
    | schema_head COLON NEWLINE
    | schema_head COLON NEWLINE INDENT schema_body DEDENT"""
    s = p.slice
    kw, name_tok, params, parent, host = s[1].value
    kind = kw.value
    for suffix, suffix_kind in _SUFFIX_KINDS:
        if kind == "schema" and name_tok.value.endswith(suffix):
            kind = suffix_kind
    body: dict[str, Any] = s[5].value if len(s) == 7 else {}
    end = max(body.pop("end", 0), s[2].end)
    node = ast.SchemaStmt(
        Span(build.FILE, kw.lexpos, end),
        kind,
        name_tok.value,
        Span(build.FILE, name_tok.lexpos, name_tok.end),
        params=params,
        parent=parent,
        for_host=host,
        **body,
    )
    s[0].value = node


def p_schema_head(p: P) -> None:
    """schema_head : SCHEMA ident opt_schema_params opt_parent opt_for_host
    | MIXIN ident opt_schema_params opt_parent opt_for_host
    | PROTOCOL ident opt_schema_params opt_parent opt_for_host"""
    s = p.slice
    s[0].value = (s[1], s[2].value, s[3].value, s[4].value, s[5].value)


def p_opt_schema_params(p: P) -> None:
    """opt_schema_params : empty
    | LBRACKET RBRACKET
    | LBRACKET param_list RBRACKET"""
    s = p.slice
    s[0].value = s[2].value if len(s) == 4 else []


@unit
def p_opt_parent(p: P) -> None:
    """opt_parent : empty
    | LPAREN dotted RPAREN"""
    s = p.slice
    s[0].value = s[2].value if len(s) == 4 else None


@unit
def p_opt_for_host(p: P) -> None:
    """opt_for_host : empty
    | FOR dotted"""
    s = p.slice
    s[0].value = s[2].value if len(s) == 3 else None


@in_place
def p_schema_body(p: P) -> None:
    """schema_body : schema_items
    | schema_items check_block
    | check_block"""
    s = p.slice
    items = s[1].value if s[1].type == "schema_items" else []
    checks = s[-1].value if s[-1].type == "check_block" else []
    s[0].value = _schema_parts(items, checks)


def _schema_parts(items: list[Any], checks: list[ast.CheckExpr]) -> dict[str, Any]:
    """Sort the items of a schema body into the SchemaStmt fields."""
    doc = ""
    end = 0
    if items and build.is_docstring(items[0]):
        doc = build.docstring_value(items[0])
        end = items[0].span.end
        items = items[1:]
    mixins: list[ast.Expr] = []
    index_signature: ast.IndexSignature | None = None
    body: list[ast.Stmt] = []
    for position, item in enumerate(items):
        if isinstance(item, tuple):
            if position:  # the reference reads a later ``mixin [..]`` as a name subscripted
                build.error("name 'mixin' is not defined", item[2], item[2] + 5, Code.COMPILE_ERROR)
            mixins.extend(item[0])
            end = max(end, item[1])
            continue
        end = max(end, item.span.end)
        item = _as_attribute(item)
        if isinstance(item, ast.IndexSignature):
            if index_signature is not None:
                build.error(
                    "duplicate schema index signature definitions, "
                    "only one is allowed in the schema",
                    item.span.start,
                    item.span.end,
                )
            index_signature = item  # (the last one stands, as in the reference)
            continue
        body.append(item)
    if checks:
        end = max(end, checks[-1].span.end)
    return {
        "doc": doc,
        "mixins": mixins,
        "index_signature": index_signature,
        "body": body,
        "checks": checks,
        "end": end,
    }


def _as_attribute(item: Any) -> Any:
    """``name: T = v`` written in a schema body declares an attribute."""
    if (
        isinstance(item, ast.AssignStmt)
        and item.type is not None
        and len(item.targets) == 1
        and isinstance(item.targets[0], ast.NameExpr)
    ):
        target = item.targets[0]
        return ast.SchemaAttr(item.span, target.name, target.span, item.type, item.value)
    return item


@collects
def p_schema_items(p: P) -> None:
    """schema_items : schema_item
    | schema_items schema_item"""
    collect(p)


def p_schema_items_error(p: P) -> None:
    """schema_items : error NEWLINE"""
    p.slice[0].value = []


@keep_first
def p_schema_items_skip(p: P) -> None:
    """schema_items : schema_items NEWLINE
    | schema_items error NEWLINE"""
    s = p.slice
    s[0].value = s[1].value


@unit
def p_schema_item(p: P) -> None:
    """schema_item : expr_stmt
    | assert_stmt
    | if_stmt
    | mixin_stmt
    | index_signature
    | attr_stmt"""
    s = p.slice
    s[0].value = s[1].value


def p_mixin_stmt(p: P) -> None:
    """mixin_stmt : MIXIN LBRACKET RBRACKET
    | MIXIN LBRACKET mixin_names item_sep RBRACKET
    | MIXIN LBRACKET nl mixin_names item_sep RBRACKET"""
    s = p.slice
    names = s[-3].value if len(s) > 4 else []
    s[0].value = (names, s[-1].end, s[1].lexpos)


@collects
def p_mixin_names(p: P) -> None:
    """mixin_names : dotted
    | mixin_names item_sep dotted"""
    collect(p)


_NO_DEFAULT = ("=", None)
"""The (operator, value) of an attribute declared without a value (no ``attr_default``)."""


@in_place
def p_attr_stmt(p: P) -> None:
    """attr_stmt : attr_name QUESTION COLON type
    | attr_name QUESTION COLON type attr_default
    | decorators attr_name COLON type
    | decorators attr_name COLON type attr_default
    | decorators attr_name QUESTION COLON type
    | decorators attr_name QUESTION COLON type attr_default"""
    s = p.slice
    decorators = s[1].value if s[1].type == "decorators" else []
    name, name_span = _attr_name(s[2].value if decorators else s[1].value)
    last = s[-1]
    if last.type == "attr_default":  # (no empty default: one reduction fewer an attribute)
        op, value = last.value
        optional = s[-4].type == "QUESTION"
        typ = s[-2].value
    else:
        op, value = _NO_DEFAULT
        optional = s[-3].type == "QUESTION"
        typ = last.value
    span = new(Span)  # (the commonest statement: built without constructor calls, see ast.Node)
    span.file = build.FILE
    span.start = decorators[0].span.start if decorators else name_span.start
    span.end = value.span.end if value is not None else typ.span.end
    node = new(ast.SchemaAttr)
    node.span = span
    node.id = next(node_ids)
    node.name = name
    node.name_span = name_span
    node.type = typ
    node.value = value
    node.optional = optional
    node.op = op
    node.decorators = decorators
    node.doc = ""
    s[0].value = node


@unit
def p_attr_name(p: P) -> None:
    """attr_name : dotted
    | STRING"""
    s = p.slice
    s[0].value = s[1].value


def _attr_name(node: ast.Expr) -> tuple[str, Span]:
    """An attribute's name and its span, from the name (maybe dotted) or string written."""
    if isinstance(node, (ast.StringExpr, ast.JoinedStringExpr)):
        return getattr(node, "value", ""), node.span
    return build.dotted_name(node), node.span


@in_place
def p_attr_default(p: P) -> None:
    """attr_default : ASSIGN test
    | augassign test"""
    s = p.slice
    if s[1].type == "ASSIGN":
        s[0].value = ("=", s[2].value)
    else:
        s[0].value = (s[1].value, s[2].value)


def p_index_signature(p: P) -> None:
    """index_signature : LBRACKET dotted COLON type RBRACKET COLON type
    | LBRACKET dotted COLON type RBRACKET COLON type attr_default
    | LBRACKET dotted COLON ELLIPSIS type RBRACKET COLON type
    | LBRACKET dotted COLON ELLIPSIS type RBRACKET COLON type attr_default
    | LBRACKET ELLIPSIS type RBRACKET COLON type
    | LBRACKET ELLIPSIS type RBRACKET COLON type attr_default"""
    s = p.slice
    key_name = build.dotted_name(s[2].value) if s[2].type == "dotted" else None
    any_other = s[2].type == "ELLIPSIS" or s[4].type == "ELLIPSIS"
    body = s if s[-1].type == "attr_default" else [*s, None]
    key_type = body[-5].value
    value_type = body[-2].value
    _, value = s[-1].value if body is s else _NO_DEFAULT
    end = value.span.end if value is not None else value_type.span.end
    s[0].value = ast.IndexSignature(
        Span(build.FILE, s[1].lexpos, end), key_name, key_type, value_type, value, any_other
    )


def p_check_block(p: P) -> None:
    """check_block : CHECK COLON NEWLINE INDENT check_items DEDENT"""
    s = p.slice
    s[0].value = s[5].value


def p_check_items(p: P) -> None:
    """check_items : check_expr
    | error NEWLINE
    | check_items check_expr
    | check_items NEWLINE
    | check_items error NEWLINE"""
    s = p.slice
    first = s[1]
    items = first.value if first.type == "check_items" else []
    if s[-1].type == "check_expr":
        items.append(s[-1].value)
    s[0].value = items


def p_check_expr(p: P) -> None:
    """check_expr : simple
    | simple IF simple
    | simple COMMA primary
    | simple IF simple COMMA primary"""
    s = p.slice
    size = len(s)
    cond = s[3].value if size >= 4 and s[2].type == "IF" else None
    msg = s[-1].value if size >= 4 and s[-2].type == "COMMA" else None
    test = s[1].value
    sp = Span(build.FILE, test.span.start, s[-1].value.span.end)
    s[0].value = ast.CheckExpr(sp, test, cond, msg)


# --------------------------------------------------------------------------- rules


def p_rule_stmt(p: P) -> None:
    """rule_stmt : rule_def
    | decorators rule_def"""
    p_schema_stmt(p)


def p_rule_def(p: P) -> None:
    """rule_def : RULE ident opt_schema_params opt_rule_parents opt_for_host COLON NEWLINE INDENT check_items DEDENT"""  # noqa: E501
    s = p.slice
    tok = s[2].value
    checks = s[9].value
    doc = ""
    end = checks[-1].span.end if checks else s[7].end
    if checks and build.is_docstring(checks[0]):
        doc = build.docstring_value(checks[0])
        checks = checks[1:]
    s[0].value = ast.RuleStmt(
        Span(build.FILE, s[1].lexpos, end),
        tok.value,
        Span(build.FILE, tok.lexpos, tok.end),
        params=s[3].value,
        parents=s[4].value,
        for_host=s[5].value,
        checks=checks,
        doc=doc,
    )


def p_opt_rule_parents(p: P) -> None:
    """opt_rule_parents : empty
    | LPAREN RPAREN
    | LPAREN dotted_list RPAREN"""
    s = p.slice
    s[0].value = s[2].value if len(s) == 4 else []


def p_dotted_list(p: P) -> None:
    """dotted_list : dotted
    | dotted_list COMMA dotted
    | dotted_list COMMA"""
    s = p.slice
    if len(s) == 2:
        s[0].value = [s[1].value]
        return
    items = s[1].value
    if len(s) == 4:
        items.append(s[3].value)
    s[0].value = items
