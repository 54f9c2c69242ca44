"""KCL spellings of imported things: literals, attribute names and schema names.

``literal(value)`` is the KCL expression of a JSON-shaped value (written on one
line; ``data`` lays out big values itself). ``attribute_name(key)`` is a key as a
schema attribute or config key (``$``-escaped keywords, quoted when it is not a
name), ``schema_name(text)`` a CamelCase schema name, ``file_stem(name)`` a
snake_case file name. Strings are escaped so that no ``${`` interpolates.
"""

from __future__ import annotations

import math
import re
from decimal import Decimal
from typing import Any

from kclpy.syntax.tokens import KEYWORDS as TOKEN_KEYWORDS

# Words that cannot be names in KCL (written with a `$` prefix when used as one);
# the soft keywords (`type`, `schema`, ...) too, so no context can misread them.
KEYWORDS = frozenset(TOKEN_KEYWORDS)

# the integers the reference reads from data (an i64 or a u64)
_MIN_INT = -(1 << 63)
_MAX_INT = (1 << 64) - 1
_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
# what a string literal escapes: quotes, backslashes, control characters, `$` before `{`
_SPECIAL = re.compile(r'[\\"\x00-\x1f\x7f]|\$(?=\{)')
_ESCAPES = {"\\": "\\\\", '"': '\\"', "\n": "\\n", "\r": "\\r", "\t": "\\t"}


class NotRepresentable(ValueError):
    """A value KCL has no literal for (a non-finite float, an integer past 64 bits)."""


def is_identifier(text: str) -> bool:
    """True when ``text`` is an identifier (perhaps a keyword, then written ``$text``)."""
    return bool(_NAME.match(text))


def is_name(text: str) -> bool:
    """True when ``text`` is usable as a KCL identifier without escaping."""
    return is_identifier(text) and text not in KEYWORDS


def attribute_name(key: str) -> str:
    """A key as a schema attribute or config key: itself, ``$key`` for a keyword,
    else a string literal."""
    if is_name(key):
        return key
    if is_identifier(key):
        return "$" + key
    return string_literal(key)


def string_literal(text: str) -> str:
    """A double-quoted KCL string with ``text``'s value."""
    if _SPECIAL.search(text) is None:
        return '"' + text + '"'
    last_brace = text.rfind("}")

    def escape(found: re.Match[str]) -> str:
        char = found.group()
        if char == "$":  # `\${` is only valid when a `}` closes it; `\u0024` always is
            return "\\$" if last_brace > found.start() + 1 else "\\u0024"
        return _ESCAPES.get(char) or f"\\x{ord(char):02x}"

    return '"' + _SPECIAL.sub(escape, text) + '"'


def number_literal(value: int | float) -> str:
    """An int or a float as KCL writes it (floats always with a dot or exponent)."""
    if isinstance(value, bool):
        return "True" if value else "False"
    if isinstance(value, int):
        if not _MIN_INT <= value <= _MAX_INT:
            raise NotRepresentable(f"KCL has no literal for the integer {value} (out of range)")
        return str(value)
    if not math.isfinite(value):
        raise NotRepresentable(f"KCL has no literal for the number {value}")
    # positional digits, as the reference writes floats: 1.5e-07 -> 0.00000015
    text = format(Decimal(repr(value)), "f")
    return text if "." in text else text + ".0"


def literal(value: Any) -> str:
    """The one-line KCL expression of a JSON-shaped value."""
    if value is None:
        return "None"
    if isinstance(value, bool):
        return "True" if value else "False"
    if isinstance(value, int | float):
        return number_literal(value)
    if isinstance(value, str):
        return string_literal(value)
    if isinstance(value, list | tuple):
        return "[" + ", ".join(literal(item) for item in value) + "]"
    if isinstance(value, dict):
        items = (f"{attribute_name(str(k))} = {literal(v)}" for k, v in value.items())
        return "{" + ", ".join(items) + "}"
    isoformat = getattr(value, "isoformat", None)  # the dates and times of TOML
    text = isoformat() if callable(isoformat) else str(value)
    return string_literal(re.sub(r"\+00:00$", "Z", text))


def schema_name(text: str) -> str:
    """``text`` as a CamelCase schema name: ``io.k8s.api.core.v1.Pod`` -> ``Pod``
    is done by callers; here ``ingress-class_name`` -> ``IngressClassName``."""
    words = re.split(r"[^A-Za-z0-9]+", text)
    name = "".join(word[:1].upper() + word[1:] for word in words if word)
    if not name or name[0].isdigit():
        name = "Schema" + name
    return name if name not in KEYWORDS else name + "Schema"


def file_stem(name: str) -> str:
    """A CamelCase or dotted name as a snake_case file stem."""
    text = re.sub(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])", "_", name)
    return re.sub(r"[^A-Za-z0-9]+", "_", text).strip("_").lower() or "schema"
