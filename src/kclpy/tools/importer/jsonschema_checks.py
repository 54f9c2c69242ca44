"""The checks kcl-go's JSON Schema generator makes, keyword by keyword.

``own_check(keyword, value)`` is the ``Validation`` of one string, number or
collection keyword (``minimum``, ``maxLength``, ``pattern``, ``multipleOf`` when
whole, ``uniqueItems``, ``minItems``...), unnamed; ``all_of_checks`` the same for a
keyword of an ``allOf`` part, named, with whether it belongs to the schema itself
(``multipleOf``, ``uniqueItems``, the item counts) rather than to the ``allOf``
group; ``format_check`` the pattern of a known ``format``; ``negated`` the check of
``not``; for the converter's reading of ``anyOf``, ``required_fields`` (choices that
each only require one key), ``pattern_only`` (a choice that only checks a pattern or a
known format) and ``is_value`` (a value type).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from kclpy.tools.importer.kclgen import UnionType, Validation, ValueType

if TYPE_CHECKING:
    from kclpy.tools.importer.jsonschema_nodes import Node

__all__ = [
    "all_of_checks",
    "format_check",
    "is_value",
    "negated",
    "own_check",
    "pattern_only",
    "required_fields",
]

FORMATS = {
    "date-time": (r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$"),
    "email": (r"^[a-zA-Z0-9._%+-]+@[a-zA-Z0-9.-]+\.[a-zA-Z]{2,}$"),
    "hostname": (
        r"^([a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]{0,61}[a-zA-Z0-9])(\.([a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]{0,61}[a-zA-Z0-9]))*$"
    ),
    "ipv4": (
        r"^(?:(?:25[0-5]|2[0-4][0-9]|[01]?[0-9][0-9]?)\.){3}(?:25[0-5]|2[0-4][0-9]|[01]?[0-9][0-9]?)$"
    ),
    "ipv6": (
        r"^(([0-9a-fA-F]{1,4}:){7,7}[0-9a-fA-F]{1,4}|([0-9a-fA-F]{1,4}:){1,7}:|([0-9a-fA-F]{1,4}:){1,6}:[0-9a-fA-F]{1,4}|([0-9a-fA-F]{1,4}:){1,5}(:[0-9a-fA-F]{1,4}){1,2}|([0-9a-fA-F]{1,4}:){1,4}(:[0-9a-fA-F]{1,4}){1,3}|([0-9a-fA-F]{1,4}:){1,3}(:[0-9a-fA-F]{1,4}){1,4}|([0-9a-fA-F]{1,4}:){1,2}(:[0-9a-fA-F]{1,4}){1,5}|[0-9a-fA-F]{1,4}:((:[0-9a-fA-F]{1,4}){1,6})|:((:[0-9a-fA-F]{1,4}){1,7}|:)|fe80:(:[0-9a-fA-F]{0,4}){0,4}%[0-9a-zA-Z]{1,}|::(ffff(:0{1,4}){0,1}:){0,1}((25[0-5]|(2[0-4]|1{0,1}[0-9]){0,1}[0-9])\.){3,3}(25[0-5]|(2[0-4]|1{0,1}[0-9]){0,1}[0-9])|([0-9a-fA-F]{1,4}:){1,4}:((25[0-5]|(2[0-4]|1{0,1}[0-9])\.){3,3}(25[0-5]|(2[0-4]|1{0,1}[0-9]){0,1}[0-9])))$"
    ),
    "uri": (r"^[a-zA-Z][a-zA-Z0-9+-.]*://[^/?#]+(?:/[^?#]*)?(?:\?[^#]*)?(?:#.*)?$"),
    "uuid": (r"^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$"),
}

# the formats in an anyOf choice that stand for a pattern
_CHOICE_FORMATS = ("hostname", "f5ip")
_F5IP = r"^[a-fA-F0-9]{1,3}\.[a-fA-F0-9]{1,3}\.[a-fA-F0-9]{1,3}\.[a-fA-F0-9]{1,3}$"
_METADATA = ("description", "title", "$comment")
_GROUPED = frozenset(
    (
        "minimum",
        "maximum",
        "exclusiveMinimum",
        "exclusiveMaximum",
        "minLength",
        "maxLength",
        "pattern",
    )
)
_OWN = frozenset(["multipleOf", "uniqueItems", "minItems", "maxItems"])


def own_check(keyword: str, value: Any) -> Validation | None:
    """The check of one keyword, unnamed; None when it makes none."""
    if value is None:
        return None
    match keyword:
        case "minimum" | "exclusiveMinimum":
            return Validation(minimum=value, exclusive_minimum=keyword != "minimum")
        case "maximum" | "exclusiveMaximum":
            return Validation(maximum=value, exclusive_maximum=keyword != "maximum")
        case "minLength" | "minItems":
            return Validation(min_length=value)
        case "maxLength" | "maxItems":
            return Validation(max_length=value)
        case "pattern":
            return Validation(regex=value)
        case "multipleOf" if float(value).is_integer():
            return Validation(multiply_of=int(value))
        case "uniqueItems" if value is True:
            return Validation(unique=True)
    return None


def all_of_checks(
    keyword: str, value: Any, name: str, required: bool
) -> tuple[bool, Validation | None] | None:
    """For a keyword of an ``allOf`` part: None when it is merged into the schema,
    else whether its check is the schema's own and the check (None: nothing)."""
    if keyword not in _GROUPED and keyword not in _OWN:
        return None
    check = own_check(keyword, value)
    if check is not None:
        check.name, check.required = name, required
    return keyword in _OWN, check


def format_check(format_name: str, name: str, required: bool) -> Validation | None:
    """The pattern check of a known ``format``."""
    pattern = FORMATS.get(format_name)
    return None if pattern is None else Validation(name=name, required=required, regex=pattern)


def negated(node: Node, name: str, required: bool) -> Validation | None:
    """The check of ``not``: the last of its pattern, bound or length keywords."""
    inner: Validation | None = None
    for keyword in node.ordered:
        if keyword in _GROUPED:
            found = own_check(keyword, node.keywords[keyword])
            if found is not None:
                inner = found
    if inner is None:
        return None
    inner.name, inner.required = name, required
    return Validation(name=name, required=required, negated=inner)


def required_fields(choices: list[Node]) -> list[str]:
    """The keys of an ``anyOf`` whose every choice only requires one key."""
    fields: list[str] = []
    for choice in choices:
        found = False
        for keyword in choice.ordered:
            value = choice.keywords[keyword]
            if keyword == "required" and len(value) == 1:
                fields.append(value[0])
                found = True
            elif keyword not in _METADATA:
                return []
        if not found:
            return []
    return fields


def pattern_only(choice: Node) -> str | None:
    """The pattern of a choice that only checks a pattern or a known format."""
    only, pattern, typed = False, None, False
    for keyword in choice.ordered:
        if keyword in _METADATA:
            continue
        if keyword == "format" and not typed:
            only, pattern = True, ("format", choice.keywords[keyword])
        elif keyword == "pattern" and not typed:
            only, pattern = True, ("pattern", choice.keywords[keyword])
        elif keyword == "type":
            typed, only = True, False
        else:
            only = False
        if not only and pattern is None and not typed:
            break
    if not only or pattern is None:
        return None
    kind, value = pattern
    if kind == "pattern":
        return str(value)
    if value in _CHOICE_FORMATS:
        return FORMATS["hostname"] if value == "hostname" else _F5IP
    return None


def is_value(kind: Any) -> bool:
    if isinstance(kind, ValueType):
        return True
    return (
        isinstance(kind, UnionType)
        and len(kind.items) == 1
        and isinstance(kind.items[0], ValueType)
    )
