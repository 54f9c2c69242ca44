"""Value-to-text rules and type names shared by every part of the runtime.

Owns ``str()`` and ``${}`` interpolation (:func:`to_str`), the quoting used inside
dict text (:func:`quote`), type names for error messages (:func:`type_name`),
``typeof`` (:func:`typeof`) and truthiness (:func:`truthy`). Takes runtime values
(see :mod:`kclpy.values`), returns Python ``str`` / ``bool``.

Values that are not data (functions, schema types, modules) are recognised by
duck typing: an object with a ``kcl_type_name`` attribute (``"function"``,
``"type"`` or ``"module"``) reports that name, and any other Python callable is a
``"function"``. Every such value prints as ``function``, as in the reference.

Text rules, as the reference (kcl-lib 0.13.2) prints them:

* floats always show a fraction and never an exponent: ``1.0``, ``1e20`` ->
  ``100000000000000000000.0``, ``1e-7`` -> ``0.0000001``; ``inf.0``, ``-inf.0``,
  ``NaN.0``;
* lists print their items with :func:`to_str` (strings unquoted);
* dicts and schema instances print Python-like, keys and string values quoted by
  :func:`quote` (lists inside them still print unquoted items);
* a unit literal keeps its suffix (``1Ki``).
"""

from __future__ import annotations

from kclpy.values import UNDEFINED, NumberMultiplier, SchemaInstance, Value

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Final

FUNCTION_TEXT: Final = "function"


def float_to_str(value: float) -> str:
    """A float as KCL prints it: positional digits of the shortest round-trip form."""
    text = repr(value)
    if "e" not in text:
        if text[-1] == "f":  # inf / -inf
            return text + ".0"
        if text == "nan":
            return "NaN.0"
        return text
    from decimal import Decimal

    text = format(Decimal(text), "f")
    return text if "." in text else text + ".0"


def quote(text: str) -> str:
    """How a string is quoted inside dict text: ``'x'``, or ``"x"`` when it holds ``"``."""
    if '"' in text:
        if "'" in text:
            return '"' + text.replace('"', '\\"') + '"'
        return '"' + text + '"'
    return "'" + text + "'"


def to_str(value: object) -> str:
    """``str(value)``: the text ``str()``, ``print`` and ``${}`` produce."""
    if isinstance(value, str):
        return value
    kind = type(value)
    if kind is int:
        return str(value)
    if type(value) is float:
        return float_to_str(value)
    if kind is bool:
        return "True" if value else "False"
    if value is None:
        return "None"
    if value is UNDEFINED:
        return "Undefined"
    if type(value) is list:
        return list_to_str(value)
    if isinstance(value, dict):
        return dict_to_str(value)
    if type(value) is NumberMultiplier:
        return to_str(value.number) + value.suffix
    return FUNCTION_TEXT


def list_to_str(items: list[Value]) -> str:
    """``[a, 1, {'k': 'v'}]``: items by :func:`to_str`, so strings are unquoted."""
    return "[" + ", ".join([to_str(item) for item in items]) + "]"


def dict_to_str(mapping: dict[str, Value]) -> str:
    """``{'a': 1, 'b': 'x'}``: keys and string values quoted, other values by :func:`to_str`."""
    parts = []
    for key, item in mapping.items():
        text = quote(item) if isinstance(item, str) else to_str(item)
        parts.append(quote(key) + ": " + text)
    return "{" + ", ".join(parts) + "}"


def type_name(value: object) -> str:
    """The type as runtime errors name it: ``int``, ``NoneType``, ``UndefinedType``, ``P``..."""
    kind = type(value)
    if kind is int:
        return "int"
    if kind is str:
        return "str"
    if kind is float:
        return "float"
    if kind is bool:
        return "bool"
    if value is None:
        return "NoneType"
    if value is UNDEFINED:
        return "UndefinedType"
    if kind is list:
        return "list"
    if isinstance(value, SchemaInstance):
        return value.schema.name
    if isinstance(value, dict):
        return "dict"
    if kind is NumberMultiplier:
        return f"number_multiplier({to_str(value)})"
    return _object_type_name(value)


def _object_type_name(value: object) -> str:
    name = getattr(value, "kcl_type_name", None)
    if isinstance(name, str):
        return name
    return FUNCTION_TEXT if callable(value) else kind_name(value)


def kind_name(value: object) -> str:
    """The Python class name: the last resort for objects the runtime does not know."""
    return type(value).__name__


def typeof(x: Value, full_name: Value = False) -> str:
    """KCL ``typeof``: like :func:`type_name` but ``None`` for None; schema types are ``type``.

    With ``full_name`` a schema instance of another package is ``pkg.Name``; one of the
    main package stays ``Name`` (what the reference prints).
    """
    if x is None:
        return "None"
    if isinstance(x, SchemaInstance) and truthy(full_name):
        pkgpath = x.schema.pkgpath
        if pkgpath and pkgpath != "__main__":
            return f"{pkgpath}.{x.schema.name}"
    return type_name(x)


def is_function(value: object) -> bool:
    """True for values that can be called: lambdas, builtins, schema types."""
    name = getattr(value, "kcl_type_name", None)
    if name is not None:
        return name in ("function", "type")
    return callable(value) and not isinstance(value, type)


def truthy(value: object) -> bool:
    """KCL truthiness: False, None, Undefined, 0, 0.0, "", [], {} (and a zero unit) are false."""
    if type(value) is NumberMultiplier:
        return value.value != 0
    return bool(value)
