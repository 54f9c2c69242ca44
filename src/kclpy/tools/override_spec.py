"""Override specs (``kcl run -O``, ``override_file``): their grammar and their values.

``parse_override_spec(text)`` reads one spec as the reference does: the text is cut
at the first ``=``, ``:`` or ``+=`` outside brackets and quoted strings (``path op
value``, both sides trimmed and non-empty), else a trailing ``-`` makes it a delete
(``path-``). The path is split at ``.`` outside brackets; a ``["key"]`` or
``['key']`` part is a literal key (``a.b['c.d']``, ``a.["b"]``); any other character,
``-`` included, belongs to the part (``a.b-c.d`` is ``a``, ``b-c``, ``d``); empty parts
are skipped. A spec that cannot be read raises :class:`OverrideError`.

``value_source(spec)`` is the KCL source the value stands for: the value itself, or
the value as a string literal when it reads as a unary or binary expression
(``image/image``, ``nginx-latest``, ``not x``: unquoted strings, as the reference
takes them), a negative number excepted (``-1`` stays a number). A value that does
not parse is an error, except for unmatched closing brackets at its end, which are
dropped with a warning.
"""

from __future__ import annotations

import json
import re

import attrs

from kclpy.diag import Code, Diagnostic, make_error
from kclpy.diag.diagnostic import Label
from kclpy.syntax import ast, parse_expr

__all__ = [
    "OP_DELETE",
    "OverrideError",
    "OverrideSpec",
    "key_text",
    "parse_override_spec",
    "value_source",
]

OP_DELETE = "-"
_IDENT = re.compile(r"[^\W\d]\w*")
_KEYWORDS = frozenset(
    {"True", "False", "None", "Undefined", "and", "or", "not", "in", "is", "if", "elif"}
    | {"else", "for", "import", "as", "schema", "mixin", "protocol", "rule", "check"}
    | {"assert", "lambda", "type", "all", "any", "map", "filter"}
)
_SPEC_FORMAT = (
    "Invalid spec format '{}', expected <field_path>=<filed_value>, "
    "<field_path>:<filed_value>, <field_path>+=<filed_value> or <field_path>-"
)
# a quoted string as the reference skips it in a spec (not a triple quote; escapes kept)
_QUOTED = {
    '"': re.compile(r'"(?!"").*?(?<!\\)(\\\\)*?"'),
    "'": re.compile(r"'(?!'').*?(?<!\\)(\\\\)*?'"),
}
_CLOSERS = ")]}"


@attrs.frozen
class OverrideSpec:
    """One parsed spec; ``op`` is ``=``, ``:``, ``+=`` or ``-`` (delete)."""

    text: str
    path: tuple[str, ...]
    op: str
    value: str = ""

    @property
    def is_delete(self) -> bool:
        return self.op == OP_DELETE


class OverrideError(Exception):
    """A spec that cannot be applied (bad format, bad value, unparsable result)."""

    def __init__(self, diagnostics: list[Diagnostic]) -> None:
        super().__init__("; ".join(d.message for d in diagnostics))
        self.diagnostics = diagnostics


def _error(message: str) -> OverrideError:
    return OverrideError([make_error(Code.INVALID_SYNTAX, message, None)])


def parse_override_spec(text: str) -> OverrideSpec:
    """Read ``a.b["c.d"]=value`` / ``a:v`` / ``a+=v`` / ``a.b-``; raises OverrideError."""
    split = _split_operator(text)
    if split is not None:
        path_text, op, value = split[0].strip(), split[1], split[2].strip()
        if not path_text or not value:
            raise _error(_SPEC_FORMAT.format(text))
    elif text.endswith(OP_DELETE) and text[:-1].strip():
        path_text, op, value = text[:-1].strip(), OP_DELETE, ""
    else:
        raise _error(_SPEC_FORMAT.format(text))
    path = _parse_path(path_text)
    if not path:
        raise _error(_SPEC_FORMAT.format(text))
    return OverrideSpec(text, path, op, value)


def _split_operator(text: str) -> tuple[str, str, str] | None:
    """``(path, op, value)`` at the first operator outside brackets and strings."""
    depth = 0
    index = 0
    while index < len(text):
        char = text[index]
        if depth == 0 and char in "=:":
            return text[:index], ast.OP_OVERRIDE if char == "=" else ast.OP_UNION, text[index + 1 :]
        if depth == 0 and text.startswith("+=", index):
            return text[:index], ast.OP_INSERT, text[index + 2 :]
        if char in "[{":
            depth += 1
        elif char in "]}":
            depth = max(depth - 1, 0)
        elif char in _QUOTED:
            found = _QUOTED[char].search(text, index)
            if found is not None:
                index = found.end() - 1
        index += 1
    return None


def _parse_path(text: str) -> tuple[str, ...]:
    """The parts of ``a.b["c.d"].e`` (``a.["b"]`` too); raises OverrideError."""
    parts: list[str] = []
    current: list[str] = []
    index = 0
    while index < len(text):
        char = text[index]
        if char in ".[" and current:
            parts.append(_unescape("".join(current)))
            current = []
        if char == "[":
            if text[index + 1 : index + 2] not in ('"', "'"):
                raise _error("Expected opening quote after '['")
            close = re.compile(r"""["']\]""").search(text, index + 2)
            inner = text[index + 2 : close.start() if close else len(text)]
            if close is None or re.search("[\"']", inner):
                raise _error("Expected closing bracket")
            parts.append(inner)  # an empty key "" is skipped, as an empty part
            index = close.end()
            continue
        if char == "]":
            raise _error("Unmatched closing bracket")
        if char != ".":
            current.append(char)
        index += 1
    if current:
        parts.append(_unescape("".join(current)))
    return tuple(part for part in parts if part)


def _unescape(part: str) -> str:
    """``$if`` names the key ``if``, as in KCL source."""
    if part.startswith("$") and _IDENT.fullmatch(part, 1):
        return part[1:]
    return part


def key_text(name: str) -> str:
    """A config key or variable name as KCL source: the bare name or a string."""
    if _IDENT.fullmatch(name) and name not in _KEYWORDS:
        return name
    return json.dumps(name, ensure_ascii=False)


def value_source(spec: OverrideSpec) -> tuple[str, list[Diagnostic]]:
    """The KCL source of the spec's value and warnings; raises OverrideError."""
    text = spec.value
    warnings: list[Diagnostic] = []
    expr, diagnostics = parse_expr(text, "<override>")
    trimmed = text
    while expr is None and trimmed and trimmed[-1] in _CLOSERS:
        trimmed = trimmed[:-1].rstrip()
        expr, _ = parse_expr(trimmed, "<override>")
    if expr is None:
        detail = diagnostics[0].message if diagnostics else "invalid expression"
        raise _error(f"invalid value in override '{spec.text}': {detail}")
    if trimmed != text:
        message = (
            f"the override '{spec.text}' ends with unmatched '{text[len(trimmed) :].strip()}',"
            " which is ignored"
        )
        warnings.append(Diagnostic(Code.COMPILER_WARNING, message, [Label(None, message)]))
        text = trimmed
    if _reads_as_string(expr):
        return json.dumps(text, ensure_ascii=False), warnings
    return text, warnings


def _reads_as_string(expr: ast.Expr) -> bool:
    """A unary or binary expression is taken as an unquoted string, as the reference
    does (``image/image``, ``app-v1``); a negative number stays a number."""
    if isinstance(expr, ast.UnaryExpr):
        return not (expr.op in ("+", "-") and isinstance(expr.operand, ast.NumberExpr))
    return isinstance(expr, ast.BinaryExpr)
