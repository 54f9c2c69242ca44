"""The ``template`` system module: ``execute(template, data={})`` and ``html_escape(data)``.

``execute`` renders a Handlebars template (the reference uses handlebars-rust) with a
subset that covers what configuration templates use:

* ``{{path}}`` (HTML-escaped), ``{{{path}}}`` and ``{{&path}}`` (raw); paths ``a.b``,
  ``a.[0]``, ``a.0``, ``a.[key with spaces]``, ``this``, ``this.x``, ``../x``,
  ``@index``, ``@key``, ``@first``, ``@last``, ``@root.x``, ``@../index``;
* blocks ``#if``, ``#unless``, ``#each`` (lists and dicts), ``#with``, each with
  ``{{else}}``, and ``{{else if ...}}`` chains;
* helpers ``eq ne gt gte lt lte and or not len lookup raw``, also as ``(sub expressions)``;
  literals ``"text"``, ``'text'``, numbers, ``true``, ``false``, ``null``;
* comments ``{{! ...}}`` / ``{{!-- ... --}}``, whitespace control ``{{~`` / ``~}}``,
  ``\\{{`` for a literal ``{{``, and Handlebars' standalone rule (a line holding only a
  block tag or a comment, and ending in a line break, disappears with that break).

Values print as handlebars-rust prints JSON: None and missing values as ``""``, booleans
``true``/``false``, numbers as KCL's JSON writes them, lists as ``[a, b]`` and dicts as
``[object]``. Truthiness for ``if``: False, None, ``""``, 0, ``[]`` and ``{}`` are false.
Escaping turns ``& < > " ' ` =`` into entities; ``html_escape`` does the same.
Error texts imitate the reference's (``render template failed: RenderError {...
reason: HelperNotFound("json") ...}``) but the syntax-error details differ.
"""

from __future__ import annotations

from typing import Final

from kclpy.values import UNDEFINED, NumberMultiplier, Value
from kclpy.values.errors import KclRuntimeError
from kclpy.vm.builtins.marks import Fail, on_mismatch

_ESCAPES: Final = {
    "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#x27;", "`": "&#x60;",
    "=": "&#x3D;",
}  # fmt: skip
_BLOCKS: Final = frozenset(["if", "unless", "each", "with"])
_HELPERS: Final = frozenset(
    ["eq", "ne", "gt", "gte", "lt", "lte", "and", "or", "not", "len", "lookup", "raw"]
)


# a template or text that is not a string (the adapter's check): the reference's words
_NOT_TEXT: Final = Fail("{function}() expected str, got {kcl}")


@on_mismatch(_NOT_TEXT)
def html_escape(data: str) -> str:
    """``data`` with ``& < > " ' ` =`` replaced by HTML entities."""
    return "".join(_ESCAPES.get(char, char) for char in data)


def _escape(text: str) -> str:
    return "".join(_ESCAPES.get(char, char) for char in text)


class TemplateError(Exception):
    pass


def _register_error(reason: str, line: int, column: int) -> TemplateError:
    return TemplateError(
        f"register template failed: TemplateError {{ reason: {reason}, "
        f'template_name: Some("template"), line_no: Some({line}), column_no: Some({column}) }}'
    )


def _render_error(reason: str, line: int, column: int) -> TemplateError:
    return TemplateError(
        f'render template failed: RenderError {{ template_name: Some("template"), '
        f"line_no: Some({line}), column_no: Some({column}), reason: {reason}, "
        "unimplemented: false }"
    )


# ---------------------------------------------------------------------------------------
# Tokens


class _Tag:
    __slots__ = ("body", "column", "kind", "line", "strip_after", "strip_before")

    def __init__(self, kind: str, body: str, line: int, column: int, before: bool, after: bool):
        self.kind = kind  # "open", "close", "else", "comment", "raw", "escaped"
        self.body = body
        self.line = line
        self.column = column
        self.strip_before = before
        self.strip_after = after


def _position(text: str, index: int) -> tuple[int, int]:
    line = text.count("\n", 0, index) + 1
    return line, index - (text.rfind("\n", 0, index) + 1) + 1


def _tokenize(text: str) -> list[str | _Tag]:
    tokens: list[str | _Tag] = []
    index = 0
    literal: list[str] = []
    while index < len(text):
        start = text.find("{{", index)
        if start < 0:
            literal.append(text[index:])
            break
        if start > 0 and text[start - 1] == "\\":
            literal.append(text[index : start - 1] + "{{")
            index = start + 2
            continue
        literal.append(text[index:start])
        tokens.append("".join(literal))
        literal = []
        tag, index = _read_tag(text, start)
        tokens.append(tag)
    tokens.append("".join(literal))
    return tokens


def _read_tag(text: str, start: int) -> tuple[_Tag, int]:
    line, column = _position(text, start)
    if text.startswith("{{!--", start) or text.startswith("{{~!--", start):
        end = text.find("--}}", start)
        close = end + 4
        if end < 0:
            raise _register_error('InvalidSyntax("unterminated comment")', line, column)
        return _Tag("comment", "", line, column, text[start + 2] == "~", False), close
    triple = text.startswith("{{{", start)
    opener = 3 if triple else 2
    closer = "}}}" if triple else "}}"
    end = text.find(closer, start + opener)
    if end < 0:
        raise _register_error('InvalidSyntax("expected identifier")', line, column)
    body = text[start + opener : end]
    before = body.startswith("~")
    after = body.endswith("~")
    body = body[1 if before else 0 : len(body) - (1 if after else 0)].strip()
    if triple:
        return _Tag("raw", body, line, column, before, after), end + 3
    kind = "escaped"
    if body.startswith("!"):
        kind, body = "comment", ""
    elif body.startswith("#"):
        kind, body = "open", body[1:].strip()
    elif body.startswith("/"):
        kind, body = "close", body[1:].strip()
    elif body == "else" or body.startswith("else "):
        kind, body = "else", body[4:].strip()
    elif body.startswith("&"):
        kind, body = "raw", body[1:].strip()
    if not body and kind in ("escaped", "raw", "open", "close"):
        raise _register_error('InvalidSyntax("expected identifier")', line, column + 2)
    return _Tag(kind, body, line, column, before, after), end + 2


def _standalone(tokens: list[str | _Tag]) -> None:
    """Drop the lines that hold only a block tag or a comment (Handlebars' rule).

    Lines are judged on the original text, then cut; a tag counts only when a line
    break follows it (as in the reference, a tag on the last line is kept).
    """
    starts = [0] * len(tokens)
    ends = [len(token) if isinstance(token, str) else 0 for token in tokens]
    for index in range(1, len(tokens) - 1, 2):
        tag = tokens[index]
        assert isinstance(tag, _Tag)
        if tag.kind not in ("open", "close", "else", "comment"):
            continue
        before = tokens[index - 1]
        after = tokens[index + 1]
        assert isinstance(before, str) and isinstance(after, str)
        line_start = before.rfind("\n") + 1
        if before[line_start:].strip(" \t") or (line_start == 0 and index > 1):
            continue
        rest = after.lstrip(" \t")
        if rest.startswith("\r\n"):
            skip = len(after) - len(rest) + 2
        elif rest.startswith("\n"):
            skip = len(after) - len(rest) + 1
        else:
            continue
        ends[index - 1] = min(ends[index - 1], line_start)
        starts[index + 1] = skip
    for index in range(0, len(tokens), 2):
        token = tokens[index]
        assert isinstance(token, str)
        tokens[index] = token[starts[index] : max(ends[index], starts[index])]


def _apply_tildes(tokens: list[str | _Tag]) -> None:
    for index in range(1, len(tokens) - 1, 2):
        tag = tokens[index]
        assert isinstance(tag, _Tag)
        if tag.strip_before:
            tokens[index - 1] = str(tokens[index - 1]).rstrip()
        if tag.strip_after:
            tokens[index + 1] = str(tokens[index + 1]).lstrip()


# ---------------------------------------------------------------------------------------
# Tree


class _Block:
    __slots__ = ("body", "inverse", "tag")

    def __init__(self, tag: _Tag) -> None:
        self.tag = tag
        self.body: list[_Node] = []
        self.inverse: list[_Node] | None = None


_Node = str | _Tag | _Block
"""A node of a parsed template: literal text, a tag to render, or a block."""


def _parse(text: str) -> list[_Node]:
    tokens = _tokenize(text)
    _standalone(tokens)
    _apply_tildes(tokens)
    root: list[_Node] = []
    stack: list[tuple[_Block, list[_Node]]] = []
    current = root
    for token in tokens:
        if isinstance(token, str):
            if token:
                current.append(token)
            continue
        if token.kind == "comment":
            continue
        if token.kind == "open":
            block = _Block(token)
            current.append(block)
            stack.append((block, current))
            current = block.body
        elif token.kind == "else":
            if not stack:
                raise _register_error('InvalidSyntax("unexpected else")', token.line, token.column)
            block = stack[-1][0]
            block.inverse = []
            if token.body.startswith("if ") or token.body.startswith("unless "):
                chained = _Block(_Tag("open", token.body, token.line, token.column, False, False))
                block.inverse.append(chained)
                stack.append((chained, current))
                current = chained.body
                chained.tag.kind = "chained"
            else:
                current = block.inverse
        elif token.kind == "close":
            current = _close(stack, token)
        else:
            current.append(token)
    if stack:
        tag = stack[-1][0].tag
        raise _register_error('InvalidSyntax("unclosed block")', tag.line, tag.column)
    return root


def _close(stack: list[tuple[_Block, list[_Node]]], token: _Tag) -> list[_Node]:
    while stack:
        block, parent = stack.pop()
        name = block.tag.body.split()[0] if block.tag.body else ""
        if block.tag.kind == "chained":
            continue
        if name != token.body:
            reason = f'MismatchingClosedHelper("{name}", "{token.body}")'
            raise _register_error(reason, token.line, token.column)
        return parent
    raise _register_error('InvalidSyntax("unexpected close")', token.line, token.column)


# ---------------------------------------------------------------------------------------
# Rendering


class _Frame:
    __slots__ = ("data", "parent", "value")

    def __init__(self, value: Value, parent: _Frame | None, data: dict[str, Value] | None = None):
        self.value = value
        self.parent = parent
        self.data = data or {}


def _words(body: str) -> list[str]:
    """Split a tag body into arguments, keeping strings, ``[...]`` and ``(...)`` whole."""
    words: list[str] = []
    index = 0
    while index < len(body):
        char = body[index]
        if char.isspace():
            index += 1
            continue
        start = index
        depth = 0
        quote = ""
        while index < len(body):
            char = body[index]
            if quote:
                if char == quote:
                    quote = ""
            elif char in "\"'":
                quote = char
            elif char == "[":
                close = body.find("]", index)
                index = close if close > 0 else len(body) - 1
            elif char == "(":
                depth += 1
            elif char == ")":
                depth -= 1
            elif char.isspace() and depth == 0:
                break
            index += 1
        words.append(body[start:index])
    return words


def _plain(value: Value) -> Value:
    """A runtime value as JSON-like data (Undefined dropped, units as floats)."""
    if isinstance(value, dict):
        return {key: _plain(item) for key, item in value.items() if item is not UNDEFINED}
    if isinstance(value, list):
        return [_plain(item) for item in value if item is not UNDEFINED]
    if isinstance(value, NumberMultiplier):
        return value.value
    return value


def _truthy(value: Value) -> bool:
    if value is None or value is UNDEFINED or value is False:
        return False
    if isinstance(value, bool):
        return True
    if isinstance(value, int | float):
        return value != 0
    if isinstance(value, str | list | dict):
        return len(value) > 0
    return True


def _display(value: Value, nested: bool = False) -> str:
    if value is None or value is UNDEFINED:
        return "" if not nested else "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        from kclpy.values.scalars import format_json_float

        return format_json_float(value)
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        return "[" + ", ".join(_display(item, True) for item in value) + "]"
    return "[object]"


class _Renderer:
    def __init__(self, root: Value) -> None:
        self.root = root

    def render(self, nodes: list[_Node], frame: _Frame) -> str:
        out: list[str] = []
        for node in nodes:
            if isinstance(node, str):
                out.append(node)
            elif isinstance(node, _Block):
                out.append(self.block(node, frame))
            else:
                value = self.expression(node.body, frame, node)
                text = _display(value)
                escape = node.kind == "escaped" and _words(node.body)[0] != "raw"
                out.append(_escape(text) if escape else text)
        return "".join(out)

    def block(self, block: _Block, frame: _Frame) -> str:
        words = _words(block.tag.body)
        name, args = words[0], words[1:]
        if name not in _BLOCKS:
            reason = f'HelperNotFound("{name}")'
            raise _render_error(reason, block.tag.line, block.tag.column)
        value = self.argument(args[0], frame, block.tag) if args else None
        inverse = block.inverse or []
        if name in ("if", "unless"):
            chosen = _truthy(value) == (name == "if")
            return self.render(block.body if chosen else inverse, frame)
        if name == "with":
            if not _truthy(value):
                return self.render(inverse, frame)
            return self.render(block.body, _Frame(value, frame, frame.data))
        return self.each(block, value, frame, inverse)

    def each(self, block: _Block, value: Value, frame: _Frame, inverse: list[_Node]) -> str:
        items: list[tuple[str | int, Value]]
        if isinstance(value, dict):
            items = list(value.items())
            key_name = "key"
        elif isinstance(value, list):
            items = list(enumerate(value))
            key_name = "index"
        else:
            items = []
            key_name = "index"
        if not items:
            return self.render(inverse, frame)
        out: list[str] = []
        for position, (key, item) in enumerate(items):
            data: dict[str, Value] = {
                key_name: key, "index": position, "first": position == 0,
                "last": position == len(items) - 1, "..": frame.data,
            }  # fmt: skip
            out.append(self.render(block.body, _Frame(item, frame, data)))
        return "".join(out)

    def expression(self, body: str, frame: _Frame, tag: _Tag) -> Value:
        words = _words(body)
        if len(words) == 1 and words[0] not in _HELPERS:
            return self.argument(words[0], frame, tag)
        return self.helper(words[0], words[1:], frame, tag)

    def helper(self, name: str, args: list[str], frame: _Frame, tag: _Tag) -> Value:
        if name not in _HELPERS:
            raise _render_error(f'HelperNotFound("{name}")', tag.line, tag.column)
        values = [self.argument(arg, frame, tag) for arg in args]
        if name == "eq":
            return len(values) == 2 and _same(values[0], values[1])
        if name == "ne":
            return not (len(values) == 2 and _same(values[0], values[1]))
        if name in ("gt", "gte", "lt", "lte"):
            return _compare(name, values, tag)
        if name == "and":
            return all(_truthy(value) for value in values)
        if name == "or":
            return any(_truthy(value) for value in values)
        if name == "not":
            return not (values and _truthy(values[0]))
        if name == "raw":
            return values[0] if values else None
        if name == "len":
            target = values[0] if values else None
            if isinstance(target, str):
                return len(target.encode("utf-8"))
            return len(target) if isinstance(target, list | dict) else 0
        container = values[0] if values else None
        key = values[1] if len(values) > 1 else None
        if isinstance(container, list) and isinstance(key, int):
            return container[key] if 0 <= key < len(container) else None
        if isinstance(container, dict):
            return container.get(str(key) if not isinstance(key, str) else key)
        return None

    def argument(self, word: str, frame: _Frame, tag: _Tag) -> Value:
        if word.startswith("(") and word.endswith(")"):
            return self.expression(word[1:-1].strip(), frame, tag)
        if word[:1] in "\"'" and len(word) >= 2 and word[-1] == word[0]:
            return word[1:-1]
        literal = _literal(word)
        if literal is not UNDEFINED:
            return literal
        return self.path(word, frame, tag)

    def path(self, word: str, frame: _Frame, tag: _Tag) -> Value:
        if word.startswith("@"):
            return self.data_path(word[1:], frame, tag)
        while word.startswith("../"):
            frame = frame.parent or frame
            word = word[3:]
        segments = _segments(word)
        if segments and segments[0] == "this":
            segments = segments[1:]
        return self.walk(frame.value, segments, tag)

    def data_path(self, word: str, frame: _Frame, tag: _Tag) -> Value:
        data = frame.data
        while word.startswith("../"):
            parent = data.get("..")
            data = parent if isinstance(parent, dict) else {}
            word = word[3:]
        segments = _segments(word)
        if segments[0] == "root":
            return self.walk(self.root, segments[1:], tag)
        return self.walk(data.get(segments[0]), segments[1:], tag)

    def walk(self, value: Value, segments: list[str], tag: _Tag) -> Value:
        for segment in segments:
            if isinstance(value, dict):
                value = value.get(segment)
            elif isinstance(value, list):
                if not segment.isdigit():
                    reason = f'InvalidJsonIndex("{segment}")'
                    raise _render_error(reason, tag.line, tag.column)
                index = int(segment)
                value = value[index] if index < len(value) else None
            else:
                return None
        return value


def _literal(word: str) -> Value:
    """The value of a literal word (Undefined: the word is not a literal)."""
    if word == "true":
        return True
    if word == "false":
        return False
    if word == "null":
        return None
    try:
        return int(word)
    except ValueError:
        pass
    try:
        return float(word) if word[:1].isdigit() or word[:1] == "-" else UNDEFINED
    except ValueError:
        return UNDEFINED


def _segments(word: str) -> list[str]:
    segments: list[str] = []
    index = 0
    current = ""
    while index < len(word):
        char = word[index]
        if char == "[":
            close = word.find("]", index)
            close = len(word) if close < 0 else close
            current += word[index + 1 : close]
            index = close + 1
            continue
        if char in "./":
            if current:
                segments.append(current)
            current = ""
        else:
            current += char
        index += 1
    if current:
        segments.append(current)
    return segments


def _same(left: Value, right: Value) -> bool:
    if type(left) is not type(right):
        return False
    return bool(left == right)


def _compare(name: str, values: list[Value], tag: _Tag) -> bool:
    numbers: list[int | float] = []
    for value, param in zip(values, ("x", "y"), strict=False):
        if not isinstance(value, int | float) or isinstance(value, bool):
            reason = f'ParamTypeMismatchForName("{name}", "{param}", "i64")'
            raise _render_error(reason, tag.line, tag.column)
        numbers.append(value)
    if len(values) != 2:
        return False
    left, right = numbers
    if name == "gt":
        return bool(left > right)
    if name == "gte":
        return bool(left >= right)
    if name == "lt":
        return bool(left < right)
    return bool(left <= right)


_NO_DATA: Final[dict[str, Value]] = {}


@on_mismatch(_NOT_TEXT, data=Fail("invalid dict value"))
def execute(template: str, data: dict[str, Value] = _NO_DATA) -> str:
    """``template`` rendered with ``data``."""
    context = _plain(data)
    try:
        tree = _parse(template)
        return _Renderer(context).render(tree, _Frame(context, None))
    except TemplateError as error:
        raise KclRuntimeError(str(error)) from None


MEMBERS: Final[dict[str, object]] = {"execute": execute, "html_escape": html_escape}
