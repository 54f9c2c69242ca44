"""The printer behind ``kcl fmt`` (:mod:`kclpy.tools.format`): a module's syntax tree
back to text, statement by statement, with its comments put back by position
(:mod:`kclpy.tools.format_base`; expressions: :mod:`kclpy.tools.format_exprs`).

Blank lines between statements are the reference's (:meth:`Printer.blank_after`):
one always follows a run of imports, a schema and an ``if`` without ``else``, and
precedes ``check:``; none follows a schema's docstring, mixins or index signature,
nor the statements the reference reads up to the next one; else two lines or more
between statements (blank or comments) give one, as does a single blank one. None
separates comments from the statement after them, nor the comments ending a file.
"""

from __future__ import annotations

from collections.abc import Sequence

from kclpy.syntax import ast
from kclpy.syntax.lexer import raw_tokens
from kclpy.tools.format_base import INDENT
from kclpy.tools.format_exprs import ExprPrinter


class Printer(ExprPrinter):
    """Prints one module: ``Printer(module).module()``."""

    # ------------------------------------------------------------------ module and blocks

    def module(self) -> str:
        module = self.module_node
        out: list[str] = []
        doc = self.module_doc()
        if doc is not None:
            out.extend(self.leading(doc[0], 0))
            out.append(doc[1] + self.trailing(doc[0] + len(doc[1])))
            if module.body:
                out.append("")
        out.extend(self.block(module.body, 0, top=True))
        # the comments after the last statement, one a line (as the reference prints
        # them), after a blank line if one always follows that statement
        rest = [line for line in self.leading(len(self.text) + 1, 0) if line]
        if rest and module.body and self.always_blank_after(module.body[-1]):
            out.append("")
        out.extend(rest)
        while out and out[-1] == "":
            out.pop()
        return "\n".join(out) + "\n"

    def module_doc(self) -> tuple[int, str] | None:
        """Where the module's docstring is and its text (an empty one too)."""
        body = self.module_node.body
        for token in raw_tokens(self.text, 0, body[0].span.start if body else None):
            if token.type in ("COMMENT", "NEWLINE"):
                continue
            if token.type == "STRING":
                return token.lexpos, token.value
            return None
        return None

    def block(self, stmts: Sequence[ast.Stmt], indent: int, top: bool = False) -> list[str]:
        out: list[str] = []
        previous: ast.Stmt | None = None
        outer = self.following
        for index, stmt in enumerate(stmts):
            start = stmt.span.start
            self.following = stmts[index + 1].span.start if index + 1 < len(stmts) else outer
            if previous is not None:
                # a blank line before a statement's comments or the statement itself
                # comes out above the comments (above those moved out of the previous
                # statement too: they count as lines between the two, as they will be
                # when the output is formatted again)
                moved = self.unprinted_before(self.end_of_line(previous.span.end))
                blank = self.blank_after(previous, stmt, moved)
                if (
                    top
                    and isinstance(previous, ast.ImportStmt)
                    and not isinstance(stmt, ast.ImportStmt)
                ):
                    blank = True
                if blank and out and out[-1] != "":
                    out.append("")
            out.extend(self.leading(start, indent))
            out.extend(self.stmt(stmt, indent))
            previous = stmt
        self.following = outer
        return out

    def blank_after(self, previous: ast.Stmt, stmt: ast.Stmt, displaced: int = 0) -> bool:
        """Whether a blank line separates two statements of a block (the reference's
        rule). One always follows a schema and an ``if`` without ``else``; none
        follows the statements whose extent, for the reference, runs up to the next
        statement (an ``if`` with ``else``, a rule, ``x: T {...}``, an optional,
        decorated or quoted attribute, or one with ``|=``). Otherwise two or more lines
        between them (blank or comments) give one, and so does a single blank one;
        ``displaced`` comment lines moved out of ``previous`` count among them."""
        if self.always_blank_after(previous):
            return True
        if self.runs_on(previous):
            return False
        end = self.line_of(previous.span.end)
        start = self.line_of(stmt.span.start)
        if isinstance(stmt, ast.SchemaStmt | ast.RuleStmt):  # after its decorators
            start = self.line_of(stmt.name_span.start)
        gap = start - end - 1 + displaced
        if gap != 1:
            return gap > 1
        if displaced:
            return False  # the one line between is a comment
        between = self.text[self.line_starts[end + 1] : self.line_starts[start]].strip()
        return not between.startswith("#")

    def end_of_line(self, offset: int) -> int:
        """Where the line after the one holding ``offset`` starts (the text's end)."""
        line = self.line_of(offset)
        return self.line_starts[line + 1] if line + 1 < len(self.line_starts) else len(self.text)

    def unprinted_before(self, end: int) -> int:
        """How many comments before ``end`` are not printed yet: those inside a statement
        whose code was laid out anew, and on its last line (they come out after it,
        before what follows)."""
        count = self.next
        while count < len(self.comments) and self.comments[count].span.start < end:
            count += 1
        return count - self.next

    @staticmethod
    def always_blank_after(stmt: ast.Stmt) -> bool:
        """A schema and an ``if`` without ``else`` (the reference ends them with one)."""
        return isinstance(stmt, ast.SchemaStmt) or open_if(stmt)

    def runs_on(self, stmt: ast.Stmt) -> bool:
        """Whether the reference's extent of ``stmt`` runs up to the next statement,
        over blank lines and comments (so that no blank line comes after it)."""
        if isinstance(stmt, ast.IfStmt | ast.RuleStmt | ast.UnificationStmt):
            return True
        if not isinstance(stmt, ast.SchemaAttr):
            return False
        quoted = self.text[stmt.name_span.start : stmt.name_span.start + 1] in ("'", '"')
        changed = stmt.value is not None and stmt.op != "="  # `a: T |= v`
        return stmt.optional or bool(stmt.decorators) or quoted or changed

    # ------------------------------------------------------------------ statements

    def stmt(self, stmt: ast.Stmt, indent: int) -> list[str]:
        pad = INDENT * indent
        if isinstance(stmt, ast.SchemaStmt):
            return self.schema(stmt, indent)
        if isinstance(stmt, ast.RuleStmt):
            return self.rule(stmt, indent)
        if isinstance(stmt, ast.IfStmt):
            return self.if_stmt(stmt, indent, "if")
        if isinstance(stmt, ast.SchemaAttr):
            return self.schema_attr(stmt, indent)
        text: str
        if isinstance(stmt, ast.ExprStmt):
            text = self.expr(stmt.expr, indent)
        elif isinstance(stmt, ast.AssignStmt):
            targets = [self.expr(t, indent) for t in stmt.targets]
            if stmt.type is not None:
                targets[0] += ": " + self.type(stmt.type)
            text = " = ".join([*targets, self.expr(stmt.value, indent)])
        elif isinstance(stmt, ast.AugAssignStmt):
            text = f"{self.expr(stmt.target, indent)} {stmt.op}= {self.expr(stmt.value, indent)}"
        elif isinstance(stmt, ast.UnificationStmt):
            text = f"{self.expr(stmt.target, indent)}: {self.expr(stmt.value, indent)}"
        elif isinstance(stmt, ast.TypeAliasStmt):
            text = f"type {self.expr(stmt.name, indent)} = {self.type(stmt.type)}"
        elif isinstance(stmt, ast.AssertStmt):
            text = "assert " + self.expr(stmt.test, indent)
            if stmt.cond is not None:
                text += " if " + self.expr(stmt.cond, indent)
            if stmt.msg is not None:
                text += ", " + self.expr(stmt.msg, indent)
        elif isinstance(stmt, ast.ImportStmt):
            text = "import " + self.import_path(stmt)
            if stmt.alias:
                as_at = self.keyword_before("as", stmt.span.start, stmt.span.end)
                text += " as " + self.written_name(as_at, stmt.span.end, stmt.alias)
        else:  # pragma: no cover - every statement kind is handled above
            text = self.src(stmt)
        lines = (pad + text).split("\n")
        return self.attach_trailing(lines, stmt.span.end)

    def if_stmt(self, stmt: ast.IfStmt, indent: int, keyword: str) -> list[str]:
        pad = INDENT * indent
        out = [f"{pad}{keyword} {self.expr(stmt.cond, indent)}:"]
        out[-1] += self.trailing(stmt.cond.span.end + 1)
        column = self.column(stmt.span.start)
        orelse = stmt.orelse
        word, word_at = ("", self.following)
        if orelse:
            word, word_at = self.else_keyword(stmt.body[-1], orelse[0])
        out.extend(self.block(stmt.body, indent + 1))
        # comments ending the body
        out.extend(self.dangling(word_at, column, indent + 1, stmt.body[-1].span.end))
        if not orelse:
            return out
        out.extend(self.leading(word_at, indent))
        if word == "elif":
            assert isinstance(orelse[0], ast.IfStmt)
            return out + self.if_stmt(orelse[0], indent, "elif")
        out.append(f"{pad}else:" + self.trailing(word_at + 5))
        out.extend(self.block(orelse, indent + 1))
        out.extend(self.dangling(self.following, column, indent + 1, orelse[-1].span.end))
        return out

    def else_keyword(self, body: ast.Stmt, first: ast.Stmt) -> tuple[str, int]:
        """``else`` or ``elif`` between the end of the ``if`` body (its last statement
        ``body``) and the first statement of the ``orelse``, and where."""
        if self.text.startswith("elif", first.span.start):
            return "elif", first.span.start
        for token in reversed(raw_tokens(self.text, body.span.end, first.span.start)):
            if token.type == "NAME" and token.value in ("else", "elif"):
                return str(token.value), int(token.lexpos)
        return "else", first.span.start  # pragma: no cover - the parser saw the keyword

    def decorators(self, decorators: list[ast.Decorator], indent: int) -> list[str]:
        lines: list[str] = []
        for decorator in decorators:
            lines.extend(self.leading(decorator.span.start, indent))
            name = self.written_name(decorator.span.start, decorator.span.end, decorator.name)
            span = (decorator.span.start + 1 + len(name), decorator.span.end)
            args = self.arguments(decorator.args, decorator.keywords, indent, span)
            line = f"{INDENT * indent}@{name}({args})"
            lines.extend(line.split("\n"))
            lines[-1] += self.trailing(decorator.span.end)
        return lines

    def import_path(self, stmt: ast.ImportStmt) -> str:
        """``a.$b`` or ``..pkg`` as written (without blanks or comments)."""
        parts: list[str] = []
        for token in raw_tokens(self.text, stmt.span.start, stmt.span.end)[1:]:  # after `import`
            if token.type == "NAME" and token.value == "as":
                break
            if token.type not in ("COMMENT", "NEWLINE"):
                parts.append(self.text[token.lexpos : token.end])
        return "".join(parts) or stmt.path

    def schema_attr(self, stmt: ast.SchemaAttr, indent: int) -> list[str]:
        out = self.decorators(stmt.decorators, indent)
        name_at = stmt.name_span.start
        out.extend(self.leading(name_at, indent))
        name = self.span_text(stmt.name_span)  # `$all`, `"a-b"`
        text = INDENT * indent + name + ("?" if stmt.optional else "")
        text += ": " + self.type(stmt.type)
        if stmt.value is not None:
            op = stmt.op if stmt.op.endswith("=") else stmt.op + "="
            text += f" {op} {self.expr(stmt.value, indent)}"
        return out + self.attach_trailing(text.split("\n"), stmt.span.end)

    def checks(self, checks: list[ast.CheckExpr], indent: int) -> list[str]:
        out: list[str] = []
        previous: ast.CheckExpr | None = None
        for check in checks:
            if previous is not None and self.blank_between(previous.span.end, check.span.start):
                out.append("")
            out.extend(self.leading(check.span.start, indent))
            text = self.expr(check.test, indent)
            if check.cond is not None:
                text += " if " + self.expr(check.cond, indent)
            if check.msg is not None:
                text += ", " + self.expr(check.msg, indent)
            out.extend(self.attach_trailing((INDENT * indent + text).split("\n"), check.span.end))
            previous = check
        return out

    def rule(self, stmt: ast.RuleStmt, indent: int) -> list[str]:
        out = self.decorators(stmt.decorators, indent)
        head = f"{INDENT * indent}rule {self.span_text(stmt.name_span)}"
        if stmt.params:
            head += f"[{self.params(stmt.params, indent)}]"
        if stmt.parents:
            head += "(" + ", ".join(self.expr(p, indent) for p in stmt.parents) + ")"
        if stmt.for_host is not None:
            head += f" for {self.expr(stmt.for_host, indent)}"
        out.append(head + ":" + self.trailing_on_line(stmt.name_span.end))
        doc = self.schema_doc(stmt)
        if doc is not None:
            out.extend(self.leading(doc[0], indent + 1))
            out.append(INDENT * (indent + 1) + doc[1] + self.trailing(doc[0] + len(doc[1])))
        out.extend(self.checks(stmt.checks, indent + 1))
        end = stmt.checks[-1].span.end if stmt.checks else stmt.name_span.end
        column = self.column(stmt.span.start)
        out.extend(self.dangling(self.following, column, indent + 1, end))
        return out

    # ------------------------------------------------------------------ schemas

    def schema(self, stmt: ast.SchemaStmt, indent: int) -> list[str]:
        out = self.decorators(stmt.decorators, indent)
        head = f"{INDENT * indent}{stmt.kind} {self.span_text(stmt.name_span)}"  # `$A` as written
        if stmt.params:
            head += f"[{self.params(stmt.params, indent)}]"
        if stmt.parent is not None:
            head += f"({self.expr(stmt.parent, indent)})"
        if stmt.for_host is not None:
            head += f" for {self.expr(stmt.for_host, indent)}"
        out.append(head + ":" + self.trailing_on_line(stmt.name_span.end))
        inner = indent + 1
        column = self.column(stmt.span.start)
        outer = self.following
        if not stmt.checks:
            body, end = self.schema_body(stmt, inner, outer)
            return out + body + self.dangling(outer, column, inner, end)
        check_at = self.keyword_before("check", stmt.name_span.end, stmt.checks[0].span.start)
        body, end = self.schema_body(stmt, inner, check_at)
        # comments before `check:` end the body, but those right above it (no blank
        # line between) go with it, below the blank line that always comes first
        attached = check_at
        index = self.next
        while index < len(self.comments) and self.comments[index].span.start < check_at:
            index += 1
        while index > self.next and not self.blank_between(
            self.comments[index - 1].span.end, attached
        ):
            index -= 1
            attached = self.comments[index].span.start
        body.extend(self.dangling(attached, -1, inner, end))
        if body:
            body.append("")
        body.extend(self.leading(check_at, inner))
        body.append(f"{INDENT * inner}check:" + self.trailing(check_at + 6))
        body.extend(self.checks(stmt.checks, inner + 1))
        end = stmt.checks[-1].span.end
        body.extend(self.dangling(outer, self.column(check_at), inner + 1, end))
        return out + body + self.dangling(outer, column, inner, end)

    def schema_body(self, stmt: ast.SchemaStmt, indent: int, end: int) -> tuple[list[str], int]:
        """The docstring, mixins, index signature and statements of a schema, in
        source order, and where the last of them ends; ``end``: where the check block
        or the next statement begins."""
        items: list[tuple[int, object]] = []
        if stmt.mixins:
            mixin_at = self.keyword_before("mixin", stmt.name_span.end, stmt.mixins[0].span.start)
            items.append((mixin_at, stmt.mixins))
        if stmt.index_signature is not None:
            items.append((stmt.index_signature.span.start, stmt.index_signature))
        items.extend((s.span.start, s) for s in stmt.body)
        items.sort(key=lambda item: item[0])
        body: list[str] = []
        previous_end = stmt.name_span.end
        tight = True  # no blank line after the docstring, mixins or index signature
        doc = self.schema_doc(stmt)
        if doc is not None:
            body.extend(self.leading(doc[0], indent))
            body.append(INDENT * indent + doc[1])
            previous_end = doc[0] + len(doc[1])
            body[-1] += self.trailing(previous_end)
        outer = self.following
        previous: object = None
        for index, (start, item) in enumerate(items):
            self.following = items[index + 1][0] if index + 1 < len(items) else end
            if isinstance(previous, ast.Stmt) and isinstance(item, ast.Stmt):
                blank = self.blank_after(previous, item)
            else:
                blank = not tight and self.blank_between(previous_end, start)
            if blank and body[-1] != "":
                body.append("")
            body.extend(self.leading(start, indent))
            if isinstance(item, list):
                previous_end = self.mixins(item, start, indent, body)
            elif isinstance(item, ast.IndexSignature):
                body.extend(self.index_signature(item, indent))
                previous_end = item.span.end
            else:
                assert isinstance(item, ast.Stmt)
                body.extend(self.stmt(item, indent))
                previous_end = item.span.end
            tight = not isinstance(item, ast.Stmt)
            previous = item
        self.following = outer
        return body, previous_end

    def mixins(self, mixins: list[ast.Expr], start: int, indent: int, body: list[str]) -> int:
        """``mixin [...]``, one name per line with its comma, added to ``body``;
        returns where it ends in the source."""
        body.append(f"{INDENT * indent}mixin [" + self.trailing_on_line(start))
        for index, mixin in enumerate(mixins):
            body.extend(self.leading(mixin.span.start, indent + 1))
            comma = "," if index < len(mixins) - 1 else ""
            body.append(f"{INDENT * (indent + 1)}{self.expr(mixin, indent + 1)}{comma}")
            body[-1] += self.trailing(mixin.span.end + 1)
        body.extend(self.leading(mixins[-1].span.end, indent + 1))
        body.append(f"{INDENT * indent}]")
        end = self.text.find("]", mixins[-1].span.end) + 1
        body[-1] += self.trailing(end)
        return end

    def schema_doc(self, stmt: ast.SchemaStmt | ast.RuleStmt) -> tuple[int, str] | None:
        """Where the docstring of a schema or rule is and its text (an empty one too:
        a string before the first item of the body)."""
        starts = [node.span.start for node in stmt.checks]
        if isinstance(stmt, ast.SchemaStmt):
            starts += [node.span.start for node in (*stmt.body, *stmt.mixins)]
            if stmt.index_signature is not None:
                starts.append(stmt.index_signature.span.start)
        tokens = raw_tokens(self.text, stmt.name_span.end, min(starts, default=stmt.span.end))
        index = 0
        depth = 0
        while index < len(tokens):  # the header's closing colon
            kind = tokens[index].type
            if kind in ("LPAREN", "LBRACKET", "LBRACE"):
                depth += 1
            elif kind in ("RPAREN", "RBRACKET", "RBRACE"):
                depth -= 1
            elif kind == "COLON" and depth == 0:
                break
            index += 1
        for token in tokens[index + 1 :]:
            if token.type == "STRING":
                return token.lexpos, token.value
            if token.type not in ("COMMENT", "NEWLINE"):
                break
        return None

    def index_signature(self, node: ast.IndexSignature, indent: int) -> list[str]:
        key = ""
        if node.key_name:
            key = self.written_name(node.span.start, node.span.end, node.key_name) + ": "
        if node.any_other:
            key += "..."
        text = f"{INDENT * indent}[{key}{self.type(node.key_type)}]: {self.type(node.value_type)}"
        if node.value is not None:
            text += " = " + self.expr(node.value, indent)
        return self.attach_trailing(text.split("\n"), node.span.end)


def open_if(stmt: ast.Stmt) -> bool:
    """Whether ``stmt`` is an ``if`` whose last branch is an ``if`` or ``elif``
    (no ``else``)."""
    while isinstance(stmt, ast.IfStmt):
        if not stmt.orelse:
            return True
        if len(stmt.orelse) != 1:
            return False
        stmt = stmt.orelse[0]
    return False
