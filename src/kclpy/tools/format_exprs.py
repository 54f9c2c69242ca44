"""Types and expressions for the ``kcl fmt`` printer (:mod:`kclpy.tools.format_printer`).

Names, numbers and strings are copied from the source (their spelling is kept);
the rest is laid out afresh: one space around binary operators, ``{str:str}`` dict
types, lists and configs on one line or one item per line as they were written
(or as the reference decides: a lone entry whose value is a config, a comment
inside), lambda bodies as blocks, long lambda signatures one parameter per line.
"""

from __future__ import annotations

from collections.abc import Sequence

from kclpy.syntax import ast
from kclpy.syntax.lexer import raw_tokens
from kclpy.tools.format_base import INDENT, PrinterBase

LAMBDA_WIDTH = 80  # a longer `lambda params -> type` gets one parameter per line


class ExprPrinter(PrinterBase):
    """Types and expressions as text (several lines for blocks, at ``indent``)."""

    # ------------------------------------------------------------------ types

    def type(self, node: ast.TypeNode | None) -> str:
        if node is None:  # `{str:}`: the value type left out
            return ""
        if isinstance(node, ast.NamedType):  # `pkg.Name`, `$if` as written
            return "".join(self.src(node).split()) or node.name
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
        if isinstance(node, ast.LiteralType) and isinstance(node.value, str):
            return double_quoted(self.src(node))
        return self.src(node)  # literal types keep their spelling

    def params(self, params: list[ast.Param], indent: int) -> str:
        parts = []
        for param in params:
            text = self.written_name(param.span.start, param.span.end, param.name)
            if param.type is not None:
                text += ": " + self.type(param.type)
            if param.default is not None:
                text += " = " + self.expr(param.default, indent)
            parts.append(text)
        return ", ".join(parts)

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
            func = self.expr(node.func, indent)
            span = (node.func.span.end, node.span.end)
            return f"{func}({self.arguments(node.args, node.keywords, indent, span)})"
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
        if isinstance(node, ast.ListExpr | ast.ConfigExpr | ast.SchemaExpr):
            return "\n".join(self.expr_lines(node, indent))
        if isinstance(node, ast.ListCompExpr):
            return f"[{self.expr(node.elt, indent)}{self.clauses(node.generators, indent)}]"
        if isinstance(node, ast.DictCompExpr):
            entry = self.entry(node.entry, indent)
            return f"{{{entry}{self.clauses(node.generators, indent)}}}"
        if isinstance(node, ast.QuantExpr):
            return self.quant_expr(node, indent)
        if isinstance(node, ast.LambdaExpr):
            return self.lambda_expr(node, indent)
        if isinstance(node, ast.ListIfItem):
            return self.list_if_inline(node, indent)
        return self.src(node)  # pragma: no cover - every expression kind is handled above

    def expr_lines(self, node: ast.Expr, indent: int) -> list[str]:
        """An expression as its lines. Lists, configs and schema expressions build
        their lines without joining and splitting the text of what they contain,
        so deep nesting costs the size of the output, not that size per level."""
        if isinstance(node, ast.ListExpr):
            return self.list_lines(node, indent)
        if isinstance(node, ast.ConfigExpr):
            return self.config_lines(node, indent)
        if isinstance(node, ast.SchemaExpr):
            text = self.expr(node.name, indent)
            if node.args or node.keywords or self.has_call_parens(node):
                span = (node.name.span.end, node.config.span.start)
                text += f"({self.arguments(node.args, node.keywords, indent, span)})"
            # the parser also takes a dict comprehension there: `S {k: v for k, v in d}`
            return prefixed(text + " ", self.expr_lines(node.config, indent))
        return self.expr(node, indent).split("\n")

    def quant_expr(self, node: ast.QuantExpr, indent: int) -> str:
        names = ", ".join(self.expr(v, indent) for v in node.variables)
        head = f"{node.op} {names} in {self.expr(node.target, indent)} {{"
        block = self.line_of(node.test.span.start) != self.line_of(node.target.span.end)
        lines = [head + (self.trailing_on_line(node.target.span.end) if block else "")]
        if block:  # written as a block: kept as one (the reference keeps it too)
            lines.extend(self.leading(node.test.span.start, indent + 1))
        test = self.expr(node.test, indent + int(block))
        if node.cond is not None:
            test += " if " + self.expr(node.cond, indent + int(block))
        if not block:
            return f"{head}{test}}}"
        end = node.cond.span.end if node.cond is not None else node.test.span.end
        lines.append(INDENT * (indent + 1) + test + self.trailing(end))
        lines.extend(self.leading(node.span.end - 1, indent + 1))
        lines.append(INDENT * indent + "}")
        return "\n".join(lines)

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
        elif self.slice_colons(node) == 2:
            text += ":"  # `a[1::]` as written (the reference writes every slice so)
        return f"{value}{bracket}{text}]"

    def slice_colons(self, node: ast.SubscriptExpr) -> int:
        """How many colons the slice's brackets hold (not counting nested ones)."""
        depth = colons = 0
        for token in raw_tokens(self.text, node.value.span.end, node.span.end):
            if token.type in ("LBRACKET", "QLBRACKET", "LPAREN", "LBRACE"):
                depth += 1
            elif token.type in ("RBRACKET", "RPAREN", "RBRACE"):
                depth -= 1
            elif token.type == "COLON" and depth == 1:
                colons += 1
        return colons

    def clauses(self, generators: list[ast.CompClause], indent: int) -> str:
        text = ""
        for clause in generators:
            targets = ", ".join(self.expr(t, indent) for t in clause.targets)
            text += f" for {targets} in {self.expr(clause.iter, indent)}"
            for condition in clause.ifs:
                text += f" if {self.expr(condition, indent)}"
        return text

    # ------------------------------------------------------------------ calls

    def has_call_parens(self, node: ast.SchemaExpr) -> bool:
        between = self.text[node.name.span.end : node.config.span.start]
        return "(" in between

    def arguments(
        self,
        args: list[ast.Expr],
        keywords: list[ast.Keyword],
        indent: int,
        span: tuple[int, int],
    ) -> str:
        """Call arguments: on one line, or one per line when a comment is between
        them (within ``span``, from the opening to the closing parenthesis)."""
        members: list[ast.Node] = [*args, *keywords]
        if not self.loose_comment(members, span[1]):
            return ", ".join(self.argument(member, indent) for member in members)
        lines = [self.trailing_on_line(span[0], self.first_start(members))]
        for index, member in enumerate(members):
            last = index + 1 == len(members)
            limit = span[1] if last else members[index + 1].span.start
            lines.extend(self.leading(member.span.start, indent + 1))
            text = INDENT * (indent + 1) + self.argument(member, indent + 1)
            lines.append(text + ("" if last else ",") + self.trailing(member.span.end, limit))
        lines.extend(self.leading(span[1] - 1, indent + 1))
        lines.append(INDENT * indent)
        return "\n".join(lines)

    def argument(self, member: ast.Node, indent: int) -> str:
        if isinstance(member, ast.Keyword):
            return self.keyword(member, indent)
        assert isinstance(member, ast.Expr)
        return self.expr(member, indent)

    def keyword(self, keyword: ast.Keyword, indent: int) -> str:
        name = self.written_name(keyword.span.start, keyword.span.end, keyword.name)
        return f"{name}={self.expr(keyword.value, indent)}"

    # ------------------------------------------------------------------ lambdas

    def lambda_expr(self, node: ast.LambdaExpr, indent: int) -> str:
        body_start = node.body[0].span.start if node.body else node.span.end - 1
        ret = "" if node.return_type is None else " -> " + self.type(node.return_type)
        # A signature longer than 80 columns (the reference counts neither the indent
        # nor what comes before) or with comments gets one parameter per line. Without
        # a return type the reference adds `-> any`, which changes the tree, so kclpy
        # keeps that signature on one line: `lambda {` with parameters but no `->`
        # does not parse in the reference.
        brace = self.body_brace(node)
        long = bool(ret and node.params and self.loose_comment(node.params, brace))
        if not long:
            mark = self.next
            params = " " + self.params(node.params, indent) if node.params else ""
            head = f"lambda{params}{ret}"
            long = bool(ret and node.params and len(head) > LAMBDA_WIDTH)
            self.next = mark if long else self.next
        if long:
            head = self.long_signature(node, indent, brace) + ret
        lines = [head + " {" + self.trailing_on_line(brace, body_start)]
        outer = self.limit, self.following
        self.limit = self.following = node.span.end - 1
        lines.extend(self.block(node.body, indent + 1))
        self.limit, self.following = outer
        lines.extend(self.leading(node.span.end - 1, indent + 1))
        lines.append(INDENT * indent + "}")
        return "\n".join(lines)

    def body_brace(self, node: ast.LambdaExpr) -> int:
        """Where the ``{`` opening a lambda's body is."""
        if node.return_type is not None:
            after = node.return_type.span.end
        elif node.params:
            after = node.params[-1].span.end
        else:
            after = node.span.start
        return max(self.text.find("{", after), 0)

    def long_signature(self, node: ast.LambdaExpr, indent: int, end: int) -> str:
        """``lambda {`` and one parameter per line (with a comma), up to ``}``."""
        params = node.params
        brace = self.text.find("{", node.span.start, params[0].span.start)
        lines = ["lambda {" + self.trailing_on_line(max(brace, 0), params[0].span.start)]
        for index, param in enumerate(params):
            limit = params[index + 1].span.start if index + 1 < len(params) else end
            lines.extend(self.leading(param.span.start, indent + 1))
            text = INDENT * (indent + 1) + self.params([param], indent + 1) + ","
            lines.append(text + self.trailing(param.span.end, limit))
        lines.extend(self.leading(self.text.rfind("}", 0, end), indent + 1))
        return "\n".join([*lines, INDENT * indent + "}"])

    # ------------------------------------------------------------------ lists and configs

    def list_lines(self, node: ast.ListExpr, indent: int) -> list[str]:
        items = node.items
        if not items and not self.comment_before(node.span.end):
            return ["[]"]
        return self.bracketed(node, items, indent, "[]", self.multiline(node, items))

    def config_lines(self, node: ast.ConfigExpr, indent: int) -> list[str]:
        entries = node.entries
        if not entries and not self.comment_before(node.span.end):
            return ["{}"]
        block = self.multiline(node, entries) or any(
            isinstance(e, ast.ConfigIfEntry) for e in entries
        )
        if len(entries) == 1 and isinstance(entries[0], ast.ConfigEntry):
            # the reference's rule: a lone entry whose value is a config gets a block
            block = block or isinstance(entries[0].value, ast.ConfigExpr | ast.SchemaExpr)
        return self.bracketed(node, entries, indent, "{}", block)

    def multiline(self, node: ast.Node, items: Sequence[ast.Node]) -> bool:
        """Whether a list or config gets one item per line: an item was written on
        a later line than the opening bracket, or a comment is inside (as the
        reference decides)."""
        line = self.line_of(node.span.start)
        if any(self.line_of(item.span.start) != line for item in items):
            return True
        return self.comment_before(node.span.end)

    def bracketed(
        self, node: ast.Node, members: Sequence[ast.Node], indent: int, pair: str, block: bool
    ) -> list[str]:
        """A list or config: on one line, or one member per line (``block``, or when a
        member but the last would span lines: the next run would see a member on
        a later line and break it up, so this keeps formatting idempotent)."""
        if not block:
            mark = self.next
            texts = [self.member(member, indent) for member in members[:-1]]
            if all("\n" not in text for text in texts):
                last = self.member_lines(members[-1], indent)
                lines = prefixed(pair[0] + "".join(text + ", " for text in texts), last)
                lines[-1] += pair[1]
                return lines
            self.next = mark  # print again, as a block
        lines = [pair[0] + self.trailing_on_line(node.span.start, self.first_start(members))]
        lines.extend(self.members_block(members, indent + 1, node.span.end))
        lines.append(INDENT * indent + pair[1])
        return lines

    def member(self, member: ast.Node, indent: int) -> str:
        return "\n".join(self.member_lines(member, indent))

    def member_lines(self, member: ast.Node, indent: int) -> list[str]:
        if isinstance(member, ast.ConfigEntry):
            return self.entry_lines(member, indent)
        assert isinstance(member, ast.Expr)
        return self.expr_lines(member, indent)

    def members_block(
        self, members: Sequence[ast.Node], indent: int, end: int, last: int | None = None
    ) -> list[str]:
        """The items of a multi-line list or the entries of a multi-line config, one per
        line (``if`` items and entries as blocks), with their comments (those before
        ``end`` in the block; the last member's trailing one before ``last``, the
        next member of an enclosing block, when it is given)."""
        lines: list[str] = []
        previous: ast.Node | None = None
        for index, member in enumerate(members):
            following = members[index + 1].span.start if index + 1 < len(members) else None
            limit = following if following is not None else (end if last is None else last)
            if previous is not None and self.blank_between(previous.span.end, member.span.start):
                lines.append("")
            lines.extend(self.leading(member.span.start, indent))
            if isinstance(member, ast.ListIfItem | ast.ConfigIfEntry):
                lines.extend(self.if_member(member, indent, "if", limit))
            else:
                lines.extend(prefixed(INDENT * indent, self.member_lines(member, indent)))
                lines[-1] += self.trailing(member.span.end, limit)
            previous = member
        lines.extend(self.leading(end - 1, indent))
        return lines

    def if_member(
        self, node: ast.ListIfItem | ast.ConfigIfEntry, indent: int, keyword: str, limit: int
    ) -> list[str]:
        """``if c: ...`` inside a list or config, as a block (with elif/else); ``limit``:
        where the next member begins (the end of a trailing comment's search)."""
        lines = [f"{INDENT * indent}{keyword} {self.expr(node.cond, indent)}:"]
        lines[-1] += self.trailing(node.cond.span.end + 1)
        body = node.items if isinstance(node, ast.ListIfItem) else node.entries
        orelse = node.orelse
        last = None if orelse else limit
        lines.extend(self.members_block(body, indent + 1, self.orelse_start(node), last))
        if isinstance(orelse, ast.ListIfItem | ast.ConfigIfEntry):
            lines.extend(self.if_member(orelse, indent, "elif", limit))
        elif orelse:
            else_at = self.text.rfind("else", 0, orelse[0].span.start)
            lines.extend(self.leading(else_at, indent))
            lines.append(f"{INDENT * indent}else:" + self.trailing(else_at + 5))
            lines.extend(self.members_block(orelse, indent + 1, node.span.end + 1, limit))
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

    def entry(self, entry: ast.ConfigEntry, indent: int) -> str:
        return "\n".join(self.entry_lines(entry, indent))

    def entry_lines(self, entry: ast.ConfigEntry, indent: int) -> list[str]:
        value = self.expr_lines(entry.value, indent)
        if entry.key is None:
            return value if value[0].startswith("**") else prefixed("**", value)
        key = self.expr(entry.key, indent)
        return prefixed(f"{key}: " if entry.op == ":" else f"{key} {entry.op} ", value)


def prefixed(prefix: str, lines: list[str]) -> list[str]:
    """``lines`` with ``prefix`` put before the first (the list itself, changed)."""
    lines[0] = prefix + lines[0]
    return lines


def double_quoted(literal: str) -> str:
    """A string literal type in double quotes, as the reference writes it: ``'a'`` ->
    ``"a"``. One with a prefix, triple quotes or a backslash is kept as written (the
    reference writes ``r'a\\n'`` as ``"a\\n"``, another value)."""
    if len(literal) < 2 or literal[0] != "'" or literal.startswith("'''") or "\\" in literal:
        return literal
    return '"' + literal[1:-1].replace('"', '\\"') + '"'
