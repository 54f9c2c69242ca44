"""Snippet completions: attribute lines in config blocks, docstrings in schema bodies.

* **Attribute lines.** At the start of an entry of a config block whose type is a
  schema (``Person {``, ``name: Name {``, ``config = {`` typed by its key, an item
  of a ``[Person]`` list), each attribute not yet set in the block is offered as
  ``name = $1`` with the placeholder its type suggests: ``{$1}`` for schemas and
  dicts, ``[$1]`` for lists, ``"$1"`` for strings, a choice for literal unions and
  bools. Required attributes sort first.
* **Docstrings.** On the first line of a schema body, or inside its empty
  docstring, the docstring skeleton ``kcl doc`` reads: a summary, then an
  ``Attributes`` section with a ``name : type, default is X, required|optional``
  line and a description placeholder per attribute of the schema.

Takes the semantic model of the latest analysis and what ``blocks`` read from the
text; returns LSP completion items.
"""

from __future__ import annotations

import re

from lsprotocol import types

from kclpy.sema.model import Model
from kclpy.sema.symbols import SchemaInfo, Symbol
from kclpy.sema.types import (
    BOOL,
    DICT,
    LIST,
    LITERAL,
    NONE_F,
    SCHEMA,
    STR,
    LitType,
    Type,
    UnionType,
)
from kclpy.syntax import ast
from kclpy_lsp.blocks import statement_bounds, string_at

_SCHEMA_HEAD = re.compile(r"^(?:schema|mixin|protocol)\s+([A-Za-z_$][\w$]*)", re.MULTILINE)
_SNIPPET_SPECIAL = re.compile(r"([$}\\])")
_CHOICE_SPECIAL = re.compile(r"([$}\\,|])")


def attribute_items(
    model: Model, members: dict[str, Symbol], written: set[str]
) -> list[types.CompletionItem]:
    """``name = <placeholder>`` for each member not yet ``written`` in the block."""
    items = []
    for name, member in members.items():
        if name in written or name.startswith("_"):
            continue
        required = not member.optional and not member.has_default
        items.append(
            types.CompletionItem(
                label=name,
                kind=types.CompletionItemKind.Field,
                detail=f"{name}{'' if required else '?'}: {annotation_text(member)}",
                documentation=model.doc(member) or None,
                sort_text=f"{0 if required else 1}{name}",
                filter_text=name,
                insert_text=f"{name} = {placeholder(member.type)}",
                insert_text_format=types.InsertTextFormat.Snippet,
            )
        )
    return items


def annotation_text(member: Symbol) -> str:
    """An attribute's type as its declaration spells it (``"A" | "B"``), else its type."""
    node = member.node
    annotation = node.type if isinstance(node, ast.SchemaAttr) else None
    if annotation is not None and annotation.span is not None:
        return annotation.span.file.text[annotation.span.start : annotation.span.end]
    return member.type.ty_str()


def placeholder(kind: Type) -> str:
    """The snippet a value of this type starts as."""
    options = [
        option
        for option in (kind.types if isinstance(kind, UnionType) else (kind,))
        if not option.flags & NONE_F
    ]
    if options and all(isinstance(option, LitType) for option in options):
        values = [_literal(option) for option in options if isinstance(option, LitType)]
        if len(values) == 1:
            return "${1:" + _SNIPPET_SPECIAL.sub(r"\\\1", values[0]) + "}"
        return "${1|" + ",".join(_CHOICE_SPECIAL.sub(r"\\\1", v) for v in values) + "|}"
    flags = 0
    for option in options:
        flags |= option.flags & ~LITERAL
    if flags == STR:
        return '"$1"'
    if flags == BOOL:
        return "${1|True,False|}"
    if flags and not flags & ~(SCHEMA | DICT):
        return "{$1}"
    if flags == LIST:
        return "[$1]"
    return "$1"


def _literal(option: LitType) -> str:
    text = option.value_text()
    return f'"{text}"' if isinstance(option.value, str) else text


# --------------------------------------------------------------------------- docstrings


def docstring_items(
    model: Model, text: str, offset: int, pkgpath: str
) -> list[types.CompletionItem]:
    """The docstring skeleton of the schema whose body the cursor opens (on its first
    body line, quotes included) or whose empty docstring holds the cursor."""
    header = _SCHEMA_HEAD.search(text, statement_bounds(text, offset)[0], offset)
    if header is None:
        return []
    start = header.start()  # after the decorators
    literal = string_at(text, offset)
    line_start = text.rfind("\n", 0, offset) + 1
    if literal is not None:
        contents = text[literal[0] : literal[1]]
        if contents.strip() or not _first_in_body(text, start, literal[0] - len(literal[2])):
            return []
        quoted = False
    elif (
        not text[line_start:offset].strip()
        and _first_in_body(text, start, line_start)
        and not text[offset:].lstrip().startswith(('"', "'"))  # a docstring follows
    ):
        quoted = True
    else:
        return []
    info = model.schema(header.group(1), pkgpath)
    body = _skeleton(info)
    snippet = f'"""{body}\n"""' if quoted else body + "\n"
    return [
        types.CompletionItem(
            label='"""docstring"""' if quoted else "docstring",
            kind=types.CompletionItemKind.Snippet,
            detail="generate docstring",
            documentation=f"docstring for {header.group(1)}",
            insert_text=snippet,
            insert_text_format=types.InsertTextFormat.Snippet,
            insert_text_mode=types.InsertTextMode.AdjustIndentation,
        )
    ]


def _first_in_body(text: str, start: int, offset: int) -> bool:
    """Whether only the schema's header line (and blank lines) precede ``offset``."""
    header_end = text.find("\n", start)
    return header_end != -1 and header_end < offset and not text[header_end:offset].strip()


def _skeleton(info: SchemaInfo | None) -> str:
    """Summary, then one ``Attributes`` entry per attribute of the schema itself."""
    lines = ["${1:Summary}"]
    attributes = list(info.attrs.values()) if info is not None else []
    if attributes:
        lines += ["", "Attributes", "----------"]
    for number, member in enumerate(attributes, start=2):
        facts = [annotation_text(member)]
        default = _default_text(member)
        if default:
            facts.append(f"default is {default}")
        facts.append("optional" if member.optional else "required")
        lines.append(_SNIPPET_SPECIAL.sub(r"\\\1", f"{member.name} : {', '.join(facts)}"))
        lines.append(f"    ${{{number}:description}}")
    return "\n".join(lines)


def _default_text(member: Symbol) -> str:
    node = member.node
    value = node.value if isinstance(node, ast.SchemaAttr) else None
    if value is None or value.span is None:
        return ""
    return value.span.file.text[value.span.start : value.span.end]
