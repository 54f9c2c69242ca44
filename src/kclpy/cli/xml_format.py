"""``kcl run --format xml``: the result as XML, shaped as the real CLI shapes it.

Takes the YAML text of a run (read back, as the real CLI does); returns the XML
text. A document is ``<root>`` holding one element per key (in the result's order,
where the real CLI's order is random), a list is one ``<item>`` per element,
``None`` is an empty element, scalars are written as Go's ``%v`` writes them. A
YAML stream becomes ``<results>`` holding one ``<root>`` per document. A key that
cannot be an XML element name is an error (the real CLI writes it as it is,
which gives XML no parser reads).
"""

from __future__ import annotations

import math
import re
from typing import Any

HEADER = '<?xml version="1.0" encoding="UTF-8"?>\n'
_NAME = re.compile(r"^[A-Za-z_][\w.\-]*$")
_ESCAPES = {
    '"': "&#34;",
    "'": "&#39;",
    "&": "&amp;",
    "<": "&lt;",
    ">": "&gt;",
    "\t": "&#x9;",
    "\n": "&#xA;",
    "\r": "&#xD;",
}


class XmlError(ValueError):
    """The result cannot be written as XML."""


def to_xml(yaml_text: str) -> str:
    """The XML text of a run's YAML output (one document or a stream)."""
    import yaml

    documents = list(yaml.safe_load_all(yaml_text)) or [None]
    if len(documents) == 1:
        return HEADER + _root(documents[0]) + "\n"
    roots = "".join(f"  {_root(document)}\n" for document in documents)
    return f"{HEADER}<results>\n{roots}</results>\n"


def _root(document: Any) -> str:
    parts: list[str] = ["<root>"]
    _encode(parts, document)
    parts.append("</root>")
    return "".join(parts)


def _encode(parts: list[str], value: Any) -> None:
    if isinstance(value, dict):
        for key, item in value.items():
            _element(parts, str(key), item)
    elif isinstance(value, list):
        for item in value:
            _element(parts, "item", item)
    elif value is not None:
        parts.append(escape(scalar_text(value)))


def _element(parts: list[str], name: str, value: Any) -> None:
    if not _NAME.match(name) or name.lower().startswith("xml"):
        raise XmlError(f"the key '{name}' cannot be an XML element name")
    parts.append(f"<{name}>")
    _encode(parts, value)
    parts.append(f"</{name}>")


def escape(text: str) -> str:
    """As Go's ``xml.Escape``."""
    return "".join(_ESCAPES.get(character, character) for character in text)


def scalar_text(value: Any) -> str:
    """A scalar as Go's ``%v`` prints it: ``true``, ``42``, ``3.14``, ``1e+06``."""
    if value is True or value is False:
        return "true" if value else "false"
    if isinstance(value, float):
        return _go_float(value)
    return str(value)


def _go_float(value: float) -> str:
    """``%v`` of a float64: the shortest digits, in exponent form when the exponent
    is below -4 or at least 6 (fmt's ``%g`` with the shortest precision)."""
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "+Inf" if value > 0 else "-Inf"
    from decimal import Decimal

    shortest = Decimal(repr(abs(value))).normalize().as_tuple()
    digits = "".join(str(digit) for digit in shortest.digits)
    exponent = len(digits) - 1 + int(shortest.exponent)
    sign = "-" if math.copysign(1.0, value) < 0 else ""
    if exponent < -4 or exponent >= 6:
        head = digits[0] + ("." + digits[1:] if len(digits) > 1 else "")
        return f"{sign}{head}e{'-' if exponent < 0 else '+'}{abs(exponent):02d}"
    if exponent < 0:
        return f"{sign}0.{'0' * (-exponent - 1)}{digits}"
    whole, fraction = digits[: exponent + 1], digits[exponent + 1 :]
    return sign + whole.ljust(exponent + 1, "0") + ("." + fraction if fraction else "")
