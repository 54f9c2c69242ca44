"""The printer behind ``kcl fmt`` (:mod:`kclpy.tools.format`): a module's syntax tree
back to text, with its comments put back by position.

Names, numbers and strings are copied from the source (their spelling is kept);
everything else is laid out afresh. The comments before an item are printed above
it, the one on an item's last source line after it; a comment the printer passes
without a place for it comes out above the next item, so none is lost and their
order never changes.
"""

from __future__ import annotations

import bisect
from collections.abc import Sequence

from kclpy.source import SourceFile
from kclpy.syntax import ast
from kclpy.syntax.lexer import raw_tokens
from kclpy.syntax.tokens import Token

INDENT = "    "
LAMBDA_WIDTH = 80  # a longer lambda signature gets one parameter per line


class Printer:
    """Prints one module; comments are consumed in source order."""

    def __init__(self, module: ast.Module) -> None:
        self.module_node = module
        self.file: SourceFile = module.file
        self.text = module.file.text
        self.comments = sorted(module.comments, key=lambda c: c.span.start)
        self.next = 0  # the first comment not printed yet
        self.line_starts = [0]
        for index, char in enumerate(self.text):
            if char == "\n":
                self.line_starts.append(index + 1)
        self._tokens: list[Token] | None = None
        self.token_starts: list[int] = []

    # ------------------------------------------------------------------ positions

    def line_of(self, offset: int) -> int:
        return bisect.bisect_right(self.line_starts, offset) - 1

    def src(self, node: ast.Node) -> str:
        return self.text[node.span.start : node.span.end]

    def blank_between(self, start: int, end: int) -> bool:
        """Whether the source has an empty line between offsets start and end."""
        first = self.line_of(start) + 1
        last = self.line_of(end)
        for line in range(first, last):
            begin = self.line_starts[line]
            stop = (
                self.line_starts[line + 1] if line + 1 < len(self.line_starts) else len(self.text)
            )
            if not self.text[begin:stop].strip():
                return True
        return False

    # ------------------------------------------------------------------ comments

    def leading(self, pos: int, indent: int) -> list[str]:
        """The unprinted comments before ``pos``, as full lines."""
        lines: list[str] = []
        while self.next < len(self.comments) and self.comments[self.next].span.start < pos:
            comment = self.comments[self.next]
            if lines and self.blank_between(
                self.comments[self.next - 1].span.end, comment.span.start
            ):
                lines.append("")
            lines.append(INDENT * indent + comment.text)
            self.next += 1
        return lines

    def trailing(self, end: int) -> str:
        """The comment on the source line where ``end`` is, if it is the next one."""
        if self.next < len(self.comments):
            comment = self.comments[self.next]
            if comment.span.start >= end - 1 and self.line_of(comment.span.start) == self.line_of(
                max(end - 1, 0)
            ):
                self.next += 1
                return " " + comment.text
        return ""

    def dangling(self, limit: int, column: int, indent: int) -> list[str]:
        """Comments after a block's last item, before ``limit``, indented deeper than
        ``column``: they stay in the block."""
        lines: list[str] = []
        while self.next < len(self.comments):
            comment = self.comments[self.next]
            start = comment.span.start
            line_start = self.line_starts[self.line_of(start)]
            if start >= limit or start - line_start <= column:
                break
            if lines and self.blank_between(self.comments[self.next - 1].span.end, start):
                lines.append("")
            lines.append(INDENT * indent + comment.text)
            self.next += 1
        return lines

    # ------------------------------------------------------------------ module and blocks

    def module(self) -> str:
        module = self.module_node
        out: list[str] = []
        doc = self.module_doc()
        body_start = module.body[0].span.start if module.body else len(self.text)
        if doc is not None:
            out.extend(self.leading(doc[0], 0))
            out.append(doc[1] + self.trailing(doc[0] + len(doc[1])))
            if module.body:
                out.append("")
        out.extend(self.block(module.body, 0, top=True))
        rest = self.leading(len(self.text) + 1, 0)
        if rest:
            if out and self.comments and body_start < len(self.text):
                last_end = module.body[-1].span.end if module.body else 0
                first = self.comments[self.next - len(rest)].span.start
                if out[-1] != "" and self.blank_between(last_end, first):
                    out.append("")
            out.extend(rest)
        while out and out[-1] == "":
            out.pop()
        return "\n".join(out) + "\n"

    def module_doc(self) -> tuple[int, str] | None:
        if not self.module_node.doc:
            return None
        for token in raw_tokens(self.text):
            if token.type in ("COMMENT", "NEWLINE"):
                continue
            if token.type == "STRING":
                return token.lexpos, token.value
            return None
        return None

    def block(self, stmts: Sequence[ast.Stmt], indent: int, top: bool = False) -> list[str]:
        out: list[str] = []
        previous: ast.Stmt | None = None
        for stmt in stmts:
            start = stmt.span.start
            if previous is not None:
                # a blank line before a statement's comments or the statement itself
                # comes out above the comments
                blank = self.blank_between(previous.span.end, start)
                if (
                    top
                    and isinstance(previous, ast.ImportStmt)
                    and not isinstance(stmt, ast.ImportStmt)
                ):
                    blank = True
                if isinstance(previous, ast.SchemaStmt):
                    blank = True
                if blank and out and out[-1] != "":
                    out.append("")
            comments = self.leading(start, indent)
            out.extend(comments)
            header = previous is None and comments  # a header comment keeps its blank line
            if header and self.blank_between(self.comments[self.next - 1].span.end, start):
                out.append("")
            out.extend(self.stmt(stmt, indent))
            previous = stmt
        return out

    def attach_trailing(self, lines: list[str], end: int) -> list[str]:
        if lines:
            lines[-1] += self.trailing(end)
        return lines

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
            text = "import " + stmt.path + (f" as {stmt.alias}" if stmt.alias else "")
        else:  # pragma: no cover - every statement kind is handled above
            text = self.src(stmt)
        lines = (pad + text).split("\n")
        return self.attach_trailing(lines, stmt.span.end)

    def if_stmt(self, stmt: ast.IfStmt, indent: int, keyword: str) -> list[str]:
        pad = INDENT * indent
        out = [f"{pad}{keyword} {self.expr(stmt.cond, indent)}:"]
        out[-1] += self.trailing(stmt.cond.span.end + 1)
        body_end = stmt.orelse[0].span.start if stmt.orelse else stmt.span.end + 1
        out.extend(self.block(stmt.body, indent + 1))
        out.extend(self.dangling(body_end, self.column(stmt.span.start), indent + 1))
        orelse = stmt.orelse
        if not orelse:
            return out
        first = orelse[0]
        if len(orelse) == 1 and isinstance(first, ast.IfStmt) and self.is_elif(first):
            out.extend(self.leading(first.span.start, indent))
            out.extend(self.if_stmt(first, indent, "elif"))
            return out
        else_at = self.text.rfind("else", 0, first.span.start)
        out.extend(self.leading(else_at, indent))
        out.append(f"{pad}else:" + self.trailing(else_at + 5))
        out.extend(self.block(orelse, indent + 1))
        return out

    def is_elif(self, stmt: ast.IfStmt) -> bool:
        before = self.text[: stmt.span.start].rstrip()
        return self.text.startswith("elif", stmt.span.start) or before.endswith("elif")

    def column(self, offset: int) -> int:
        return offset - self.line_starts[self.line_of(offset)]

    def decorators(self, decorators: list[ast.Decorator], indent: int) -> list[str]:
        lines: list[str] = []
        for decorator in decorators:
            args = [self.expr(a, indent) for a in decorator.args]
            args += [f"{k.name}={self.expr(k.value, indent)}" for k in decorator.keywords]
            line = f"{INDENT * indent}@{decorator.name}({', '.join(args)})"
            lines.extend(self.leading(decorator.span.start, indent))
            lines.append(line + self.trailing(decorator.span.end))
        return lines

    def params(self, params: list[ast.Param], indent: int) -> str:
        parts = []
        for param in params:
            text = param.name
            if param.type is not None:
                text += ": " + self.type(param.type)
            if param.default is not None:
                text += " = " + self.expr(param.default, indent)
            parts.append(text)
        return ", ".join(parts)

    def schema(self, stmt: ast.SchemaStmt, indent: int) -> list[str]:
        pad = INDENT * indent
        out = self.decorators(stmt.decorators, indent)
        head = f"{pad}{stmt.kind} {stmt.name}"
        if stmt.params:
            head += f"[{self.params(stmt.params, indent)}]"
        if stmt.parent is not None:
            head += f"({self.expr(stmt.parent, indent)})"
        if stmt.for_host is not None:
            head += f" for {self.expr(stmt.for_host, indent)}"
        head += ":"
        header_end = stmt.name_span.end
        out.append(head + self.trailing_on_line(header_end))
        inner = indent + 1
        ipad = INDENT * inner
        items: list[tuple[int, object]] = []
        doc = self.schema_doc(stmt)
        if stmt.mixins:
            items.append((self.keyword_before("mixin", stmt.mixins[0].span.start), stmt.mixins))
        if stmt.index_signature is not None:
            items.append((stmt.index_signature.span.start, stmt.index_signature))
        items.extend((s.span.start, s) for s in stmt.body)
        items.sort(key=lambda item: item[0])
        body: list[str] = []
        previous_end = -1
        if doc is not None:
            body.extend(self.leading(doc[0], inner))
            body.append(ipad + doc[1].replace("\n", "\n"))
            previous_end = doc[0] + len(doc[1])
            body[-1] += self.trailing(previous_end)
        for start, item in items:
            blank = previous_end >= 0 and self.blank_between(previous_end, start)
            if blank and body and body[-1] != "":
                body.append("")
            body.extend(self.leading(start, inner))
            if isinstance(item, list):
                body.append(f"{ipad}mixin [" + self.trailing_on_line(start))
                for index, mixin in enumerate(item):
                    body.extend(self.leading(mixin.span.start, inner + 1))
                    comma = "," if index < len(item) - 1 else ""
                    body.append(f"{INDENT * (inner + 1)}{self.expr(mixin, inner + 1)}{comma}")
                    body[-1] += self.trailing(mixin.span.end + 1)
                body.extend(self.leading(item[-1].span.end, inner + 1))
                body.append(f"{ipad}]")
                previous_end = self.text.find("]", item[-1].span.end) + 1
                body[-1] += self.trailing(previous_end)
            elif isinstance(item, ast.IndexSignature):
                body.extend(self.index_signature(item, inner))
                previous_end = item.span.end
            else:
                assert isinstance(item, ast.Stmt)
                body.extend(self.stmt(item, inner))
                previous_end = item.span.end
        if stmt.checks:
            check_at = self.keyword_before("check", stmt.checks[0].span.start)
            body.extend(self.dangling(check_at, self.column(stmt.span.start), inner))
            if body:
                while body and body[-1] == "":
                    body.pop()
                body.append("")
            body.extend(self.leading(check_at, inner))
            body.append(f"{ipad}check:" + self.trailing(check_at + 6))
            body.extend(self.checks(stmt.checks, inner + 1))
        body.extend(self.dangling(self.next_top_start(stmt), self.column(stmt.span.start), inner))
        out.extend(body)
        return out

    def next_top_start(self, stmt: ast.Stmt) -> int:
        """Where the statement after ``stmt`` (in any enclosing block) begins."""
        best = len(self.text) + 1
        for other in self.module_node.body:
            if other.span.start > stmt.span.start:
                best = min(best, other.span.start)
        return best

    def trailing_on_line(self, offset: int) -> str:
        """The comment on the line of ``offset`` (a block header's line)."""
        if self.next < len(self.comments):
            comment = self.comments[self.next]
            if comment.span.start >= offset and self.line_of(comment.span.start) == self.line_of(
                offset
            ):
                self.next += 1
                return " " + comment.text
        return ""

    def schema_doc(self, stmt: ast.SchemaStmt | ast.RuleStmt) -> tuple[int, str] | None:
        if not stmt.doc:
            return None
        tokens = self.tokens()
        index = bisect.bisect_left(self.token_starts, stmt.name_span.end)
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
        return None  # pragma: no cover - the parser found the docstring

    def tokens(self) -> list[Token]:
        if self._tokens is None:
            self._tokens = raw_tokens(self.text)
            self.token_starts = [t.lexpos for t in self._tokens]
        return self._tokens

    def keyword_before(self, word: str, pos: int) -> int:
        """The offset of the last name token ``word`` before ``pos``."""
        tokens = self.tokens()
        index = bisect.bisect_left(self.token_starts, pos) - 1
        while index >= 0:
            token = tokens[index]
            if token.type == "NAME" and token.value == word:
                return int(token.lexpos)
            index -= 1
        return pos  # pragma: no cover - the parser saw the keyword

    def index_signature(self, node: ast.IndexSignature, indent: int) -> list[str]:
        key = ""
        if node.key_name:
            key = node.key_name + ": "
        if node.any_other:
            key += "..."
        text = f"{INDENT * indent}[{key}{self.type(node.key_type)}]: {self.type(node.value_type)}"
        if node.value is not None:
            text += " = " + self.expr(node.value, indent)
        return self.attach_trailing(text.split("\n"), node.span.end)

    def schema_attr(self, stmt: ast.SchemaAttr, indent: int) -> list[str]:
        out = self.decorators(stmt.decorators, indent)
        name_at = stmt.name_span.start
        out.extend(self.leading(name_at, indent))
        name = self.text[stmt.name_span.start : stmt.name_span.end]  # `$all`, `"a-b"`
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
        head = f"{INDENT * indent}rule {stmt.name}"
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
        out.extend(
            self.dangling(self.next_top_start(stmt), self.column(stmt.span.start), indent + 1)
        )
        return out

    # ------------------------------------------------------------------ types

    def type(self, node: ast.TypeNode | None) -> str:
        if node is None:  # `{str:}`: the value type left out
            return ""
        if isinstance(node, ast.NamedType):
            return node.name
        if isinstance(node, ast.AnyType):
            return self.src(node) or ""
        if isinstance(node, ast.ListType):
            return f"[{self.type(node.elem)}]"
        if isinstance(node, ast.DictType):
            return f"{{{self.type(node.key)}:{self.type(node.value)}}}"
        if isinstance(node, ast.UnionType):
            return " | ".join(self.type(t) for t in node.types)
        if isinstance(node, ast.FunctionType):
            params = ", ".join(self.type(t) for t in node.params)
            ret = f" -> {self.type(node.ret)}" if node.ret is not None else ""
            return f"({params}){ret}"
        return self.src(node)  # literal types keep their spelling

    # ------------------------------------------------------------------ expressions

    def expr(self, node: ast.Expr, indent: int) -> str:
        if isinstance(node, ast.NameExpr | ast.NumberExpr | ast.StringExpr | ast.ConstExpr):
            return self.src(node)
        if isinstance(node, ast.JoinedStringExpr):
            return self.src(node)
        if isinstance(node, ast.BinaryExpr):
            return f"{self.expr(node.left, indent)} {node.op} {self.expr(node.right, indent)}"
        if isinstance(node, ast.CompareExpr):
            parts = [self.expr(node.left, indent)]
            for op, right in zip(node.ops, node.comparators, strict=True):
                parts.append(f"{op} {self.expr(right, indent)}")
            return " ".join(parts)
        if isinstance(node, ast.UnaryExpr):
            operand = self.expr(node.operand, indent)
            return f"not {operand}" if node.op == "not" else f"{node.op}{operand}"
        if isinstance(node, ast.SelectorExpr):
            dot = "?." if node.optional else "."
            written = self.text[node.value.span.end : node.span.end]
            attr = written.split(".", 1)[1].strip() if "." in written else node.attr
            return f"{self.expr(node.value, indent)}{dot}{attr}"
        if isinstance(node, ast.SubscriptExpr):
            return self.subscript(node, indent)
        if isinstance(node, ast.CallExpr):
            arguments = self.arguments(node.args, node.keywords, indent)
            return f"{self.expr(node.func, indent)}({arguments})"
        if isinstance(node, ast.ParenExpr):
            return f"({self.expr(node.value, indent)})"
        if isinstance(node, ast.IfExpr):
            body = self.expr(node.body, indent)
            return f"{body} if {self.expr(node.cond, indent)} else {self.expr(node.orelse, indent)}"
        if isinstance(node, ast.AsExpr):
            return f"{self.expr(node.value, indent)} as {self.type(node.type)}"
        if isinstance(node, ast.StarredExpr):
            return "*" + self.expr(node.value, indent)
        if isinstance(node, ast.DoubleStarredExpr):
            return "**" + self.expr(node.value, indent)
        if isinstance(node, ast.ListExpr):
            return self.list_expr(node, indent)
        if isinstance(node, ast.ConfigExpr):
            return self.config_expr(node, indent)
        if isinstance(node, ast.SchemaExpr):
            text = self.expr(node.name, indent)
            if node.args or node.keywords or self.has_call_parens(node):
                text += f"({self.arguments(node.args, node.keywords, indent)})"
            return f"{text} {self.config_expr(node.config, indent)}"
        if isinstance(node, ast.ListCompExpr):
            return f"[{self.expr(node.elt, indent)}{self.clauses(node.generators, indent)}]"
        if isinstance(node, ast.DictCompExpr):
            entry = self.entry(node.entry, indent)
            return f"{{{entry}{self.clauses(node.generators, indent)}}}"
        if isinstance(node, ast.QuantExpr):
            names = ", ".join(self.expr(v, indent) for v in node.variables)
            test = self.expr(node.test, indent)
            if node.cond is not None:
                test += " if " + self.expr(node.cond, indent)
            return f"{node.op} {names} in {self.expr(node.target, indent)} {{{test}}}"
        if isinstance(node, ast.LambdaExpr):
            return self.lambda_expr(node, indent)
        if isinstance(node, ast.ListIfItem):
            return self.list_if_inline(node, indent)
        return self.src(node)  # pragma: no cover - every expression kind is handled above

    def has_call_parens(self, node: ast.SchemaExpr) -> bool:
        between = self.text[node.name.span.end : node.config.span.start]
        return "(" in between

    def arguments(self, args: list[ast.Expr], keywords: list[ast.Keyword], indent: int) -> str:
        parts = [self.expr(a, indent) for a in args]
        parts += [f"{k.name}={self.expr(k.value, indent)}" for k in keywords]
        return ", ".join(parts)

    def subscript(self, node: ast.SubscriptExpr, indent: int) -> str:
        value = self.expr(node.value, indent)
        bracket = "?[" if node.optional else "["
        if not node.is_slice:
            assert node.index is not None
            return f"{value}{bracket}{self.expr(node.index, indent)}]"
        lower = self.expr(node.lower, indent) if node.lower is not None else ""
        upper = self.expr(node.upper, indent) if node.upper is not None else ""
        text = f"{lower}:{upper}"
        if node.step is not None:
            text += ":" + self.expr(node.step, indent)
        return f"{value}{bracket}{text}]"

    def clauses(self, generators: list[ast.CompClause], indent: int) -> str:
        text = ""
        for clause in generators:
            targets = ", ".join(self.expr(t, indent) for t in clause.targets)
            text += f" for {targets} in {self.expr(clause.iter, indent)}"
            for condition in clause.ifs:
                text += f" if {self.expr(condition, indent)}"
        return text

    def lambda_expr(self, node: ast.LambdaExpr, indent: int) -> str:
        head = "lambda"
        if node.params:
            head += " " + self.params(node.params, indent)
        if node.return_type is not None:
            head += " -> " + self.type(node.return_type)
        if len(INDENT * indent) + len(head) + 2 > LAMBDA_WIDTH and node.params:
            # a long signature: one parameter per line, as the reference writes it
            params = [
                INDENT * (indent + 1) + self.params([param], indent + 1) + ","
                for param in node.params
            ]
            ret = " -> " + self.type(node.return_type) if node.return_type is not None else ""
            head = "\n".join(["lambda {", *params, INDENT * indent + "}" + ret])
        lines = [head + " {" + self.trailing_on_line(node.span.start)]
        lines.extend(self.block(node.body, indent + 1))
        lines.extend(self.leading(node.span.end - 1, indent + 1))
        lines.append(INDENT * indent + "}")
        return "\n".join(lines)

    def multiline(self, node: ast.Node, items: Sequence[ast.Node]) -> bool:
        """Whether a list or config was written over several lines."""
        if not items:
            return self.line_of(node.span.start) != self.line_of(max(node.span.end - 1, 0))
        end = node.span.start
        for item in items:  # an item starting on a later line than the last one ended
            if self.line_of(item.span.start) != self.line_of(end):
                return True
            end = max(item.span.end - 1, item.span.start)
        return False

    def list_expr(self, node: ast.ListExpr, indent: int) -> str:
        items = node.items
        if not items:
            return "[]"
        if not self.multiline(node, items):
            return "[" + ", ".join(self.expr(item, indent) for item in items) + "]"
        lines = ["[" + self.trailing_on_line(node.span.start)]
        lines.extend(self.members_block(items, indent + 1, node.span.end))
        lines.append(INDENT * indent + "]")
        return "\n".join(lines)

    def members_block(self, members: Sequence[ast.Node], indent: int, end: int) -> list[str]:
        """The items of a multi-line list or the entries of a multi-line config, one per
        line (``if`` items and entries as blocks), with their comments."""
        lines: list[str] = []
        previous: ast.Node | None = None
        for member in members:
            if previous is not None and self.blank_between(previous.span.end, member.span.start):
                lines.append("")
            lines.extend(self.leading(member.span.start, indent))
            if isinstance(member, ast.ListIfItem | ast.ConfigIfEntry):
                lines.extend(self.if_member(member, indent))
            else:
                if isinstance(member, ast.ConfigEntry):
                    text = self.entry(member, indent)
                else:
                    assert isinstance(member, ast.Expr)
                    text = self.expr(member, indent)
                lines.extend(
                    self.attach_trailing((INDENT * indent + text).split("\n"), member.span.end)
                )
            previous = member
        lines.extend(self.leading(end - 1, indent))
        return lines

    def if_member(
        self, node: ast.ListIfItem | ast.ConfigIfEntry, indent: int, keyword: str = "if"
    ) -> list[str]:
        """``if c: ...`` inside a list or config, as a block (with elif/else)."""
        lines = [f"{INDENT * indent}{keyword} {self.expr(node.cond, indent)}:"]
        lines[-1] += self.trailing(node.cond.span.end + 1)
        body = node.items if isinstance(node, ast.ListIfItem) else node.entries
        lines.extend(self.members_block(body, indent + 1, self.orelse_start(node)))
        orelse = node.orelse
        if isinstance(orelse, ast.ListIfItem | ast.ConfigIfEntry):
            lines.extend(self.if_member(orelse, indent, "elif"))
        elif orelse:
            else_at = self.text.rfind("else", 0, orelse[0].span.start)
            lines.extend(self.leading(else_at, indent))
            lines.append(f"{INDENT * indent}else:" + self.trailing(else_at + 5))
            lines.extend(self.members_block(orelse, indent + 1, node.span.end + 1))
        return lines

    def orelse_start(self, item: ast.ListIfItem | ast.ConfigIfEntry) -> int:
        orelse = item.orelse
        if isinstance(orelse, ast.ListIfItem | ast.ConfigIfEntry):
            return self.text.rfind("el", 0, orelse.cond.span.start)
        if orelse:
            return self.text.rfind("else", 0, orelse[0].span.start)
        return item.span.end + 1

    def list_if_inline(self, item: ast.ListIfItem, indent: int) -> str:
        text = f"if {self.expr(item.cond, indent)}: " + ", ".join(
            self.expr(i, indent) for i in item.items
        )
        orelse = item.orelse
        while isinstance(orelse, ast.ListIfItem):
            text += f" elif {self.expr(orelse.cond, indent)}: " + ", ".join(
                self.expr(i, indent) for i in orelse.items
            )
            orelse = orelse.orelse
        if orelse:
            text += " else: " + ", ".join(self.expr(i, indent) for i in orelse)
        return text

    def config_expr(self, node: ast.ConfigExpr, indent: int) -> str:
        entries = node.entries
        if not entries:
            return "{}"
        block = self.multiline(node, entries) or any(
            isinstance(e, ast.ConfigIfEntry) for e in entries
        )
        if not block:
            return "{" + ", ".join(self.entry(e, indent) for e in entries) + "}"  # type: ignore[arg-type]
        lines = ["{" + self.trailing_on_line(node.span.start)]
        lines.extend(self.members_block(entries, indent + 1, node.span.end))
        lines.append(INDENT * indent + "}")
        return "\n".join(lines)

    def entry(self, entry: ast.ConfigEntry, indent: int) -> str:
        value = self.expr(entry.value, indent)
        if entry.key is None:
            return value if value.startswith("**") else "**" + value
        key = self.expr(entry.key, indent)
        if entry.op == ":":
            return f"{key}: {value}"
        return f"{key} {entry.op} {value}"
