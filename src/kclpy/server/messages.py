"""The request messages of the KCL API (kcl-lang's ``spec.proto``) and their decoding.

Takes a request's JSON body (or a GET request's query parameters) and the name of
its message; returns a dict with every field of the message, missing ones at their
zero value (``""``, ``False``, ``0``, ``[]``, ``{}``; a nested message as a dict of
its own zeroes). Decoding follows the JSON of kcl-go's REST server: field names are
the spec's snake_case names, matched without regard to case; unknown fields are
ignored; ``null`` is the zero value; a value of the wrong JSON type is a
:class:`RequestError`. Query parameters name fields by path (``exec_args.work_dir``),
by their snake_case or lowerCamelCase name; a repeated field is given once per value.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["MESSAGES", "RequestError", "decode_json", "decode_query"]


class RequestError(ValueError):
    """A request body or query that does not fit its message."""


# A field's kind: "string", "bool", "int", a message name, ("repeated", kind) or
# ("map", kind) (string keys).
Kind = Any

_EXTERNAL = ("repeated", "ExternalPkg")
_STRINGS = ("repeated", "string")

MESSAGES: dict[str, dict[str, Kind]] = {
    "ExternalPkg": {"pkg_name": "string", "pkg_path": "string"},
    "Argument": {"name": "string", "value": "string"},
    "PingArgs": {"value": "string"},
    "GetVersionArgs": {},
    "ListMethodArgs": {},
    "ParseFileArgs": {"path": "string", "source": "string", "external_pkgs": _EXTERNAL},
    "ParseProgramArgs": {"paths": _STRINGS, "sources": _STRINGS, "external_pkgs": _EXTERNAL},
    "LoadPackageArgs": {
        "parse_args": "ParseProgramArgs",
        "resolve_ast": "bool",
        "load_builtin": "bool",
        "with_ast_index": "bool",
    },
    "ExecProgramArgs": {
        "work_dir": "string",
        "k_filename_list": _STRINGS,
        "k_code_list": _STRINGS,
        "args": ("repeated", "Argument"),
        "overrides": _STRINGS,
        "disable_yaml_result": "bool",
        "print_override_ast": "bool",
        "strict_range_check": "bool",
        "disable_none": "bool",
        "verbose": "int",
        "debug": "int",
        "sort_keys": "bool",
        "external_pkgs": _EXTERNAL,
        "include_schema_type_path": "bool",
        "compile_only": "bool",
        "show_hidden": "bool",
        "path_selector": _STRINGS,
        "fast_eval": "bool",
    },
    "BuildProgramArgs": {"exec_args": "ExecProgramArgs", "output": "string"},
    "ExecArtifactArgs": {"path": "string", "exec_args": "ExecProgramArgs"},
    "FormatCodeArgs": {"source": "string"},
    "FormatPathArgs": {"path": "string", "dry_run": "bool"},
    "LintPathArgs": {"paths": _STRINGS},
    "OverrideFileArgs": {"file": "string", "specs": _STRINGS, "import_paths": _STRINGS},
    "ListVariablesOptions": {"merge_program": "bool"},
    "ListVariablesArgs": {"files": _STRINGS, "specs": _STRINGS, "options": "ListVariablesOptions"},
    "GetSchemaTypeMappingArgs": {"exec_args": "ExecProgramArgs", "schema_name": "string"},
    "ValidateCodeArgs": {
        "datafile": "string",
        "data": "string",
        "file": "string",
        "code": "string",
        "schema": "string",
        "attribute_name": "string",
        "format": "string",
        "external_pkgs": _EXTERNAL,
    },
    "ListDepFilesArgs": {
        "work_dir": "string",
        "use_abs_path": "bool",
        "include_all": "bool",
        "use_fast_parser": "bool",
    },
    "LoadSettingsFilesArgs": {"work_dir": "string", "files": _STRINGS},
    "RenameArgs": {
        "package_root": "string",
        "symbol_path": "string",
        "file_paths": _STRINGS,
        "new_name": "string",
    },
    "RenameCodeArgs": {
        "package_root": "string",
        "symbol_path": "string",
        "source_codes": ("map", "string"),
        "new_name": "string",
    },
    "TestArgs": {
        "exec_args": "ExecProgramArgs",
        "pkg_list": _STRINGS,
        "run_regexp": "string",
        "fail_fast": "bool",
    },
    "UpdateDependenciesArgs": {"manifest_path": "string", "vendor": "bool"},
}

_SCALARS: dict[str, tuple[type, ...]] = {"string": (str,), "bool": (bool,), "int": (int,)}
_JSON_TYPE = {str: "string", bool: "bool", int: "number", float: "number", list: "array"}
_INT32 = (-(1 << 31), (1 << 31) - 1)


def zero(kind: Kind) -> Any:
    """The zero value of a field of ``kind``."""
    if isinstance(kind, tuple):
        return [] if kind[0] == "repeated" else {}
    if kind in _SCALARS:
        return {"string": "", "bool": False, "int": 0}[kind]
    return {name: zero(field) for name, field in MESSAGES[kind].items()}


def _json_type(value: Any) -> str:
    return "object" if isinstance(value, dict) else _JSON_TYPE.get(type(value), "null")


def _mismatch(value: Any, where: str, kind: str) -> RequestError:
    return RequestError(f"cannot unmarshal {_json_type(value)} into field {where} of type {kind}")


def _value(value: Any, kind: Kind, where: str) -> Any:
    if value is None:
        return zero(kind)
    if isinstance(kind, tuple):
        container, item = kind
        expected = list if container == "repeated" else dict
        if not isinstance(value, expected):
            raise _mismatch(value, where, f"{container} {item}")
        if isinstance(value, list):
            return [_value(element, item, f"{where}[{i}]") for i, element in enumerate(value)]
        return {str(key): _value(element, item, f"{where}.{key}") for key, element in value.items()}
    if kind in _SCALARS:
        if not isinstance(value, _SCALARS[kind]) or (kind == "int" and isinstance(value, bool)):
            if kind == "int" and isinstance(value, float) and value.is_integer():
                value = int(value)
            else:
                raise _mismatch(value, where, kind)
        if kind == "int" and not _INT32[0] <= value <= _INT32[1]:
            raise RequestError(f"the number {value} of field {where} is out of range")
        return value
    if not isinstance(value, dict):
        raise _mismatch(value, where, kind)
    return _message(value, kind, where)


def _message(data: Mapping[str, Any], name: str, where: str) -> dict[str, Any]:
    fields = MESSAGES[name]
    decoded: dict[str, Any] = zero(name)
    by_folded = {field.casefold(): field for field in fields}
    for key, value in data.items():
        field = by_folded.get(key.casefold()) or by_folded.get(_snake(key))
        if field is None:
            continue  # unknown fields are ignored, as Go's decoder does
        path = f"{where}.{field}" if where else field
        decoded[field] = _value(value, fields[field], path)
    return decoded


def _snake(name: str) -> str:
    """``kFilenameList`` -> ``k_filename_list`` (the protobuf JSON name's field)."""
    return "".join(f"_{c.lower()}" if c.isupper() else c for c in name).casefold()


def decode_json(body: bytes, name: str) -> dict[str, Any]:
    """A JSON request body as the message ``name`` (an empty body: all zero values)."""
    import json

    empty: dict[str, Any] = zero(name)
    if not body.strip():
        return empty
    try:
        data = json.loads(body.decode("utf-8"))
    except UnicodeDecodeError:
        raise RequestError("the request body is not UTF-8 text") from None
    except ValueError as error:
        raise RequestError(f"the request body is not JSON: {error}") from None
    if data is None:
        return empty
    if not isinstance(data, dict):
        raise RequestError(f"cannot unmarshal {_json_type(data)} into message {name}")
    return _message(data, name, "")


def decode_query(query: Mapping[str, list[str]], name: str) -> dict[str, Any]:
    """GET query parameters (``urllib.parse.parse_qs``'s form) as the message ``name``."""
    decoded: dict[str, Any] = zero(name)
    for key, texts in query.items():
        fields, target, message = MESSAGES[name], decoded, name
        parts = key.split(".")
        for depth, part in enumerate(parts):
            folded = {field.casefold(): field for field in fields}
            field = folded.get(part.casefold()) or folded.get(_snake(part))
            if field is None:
                raise RequestError(f"no field '{part}' in message {message}")
            kind = fields[field]
            if depth < len(parts) - 1:
                if not (isinstance(kind, str) and kind in MESSAGES):
                    raise RequestError(f"field '{part}' of message {message} is not a message")
                fields, target, message = MESSAGES[kind], target[field], kind
                continue
            target[field] = _query_value(texts, kind, key)
    return decoded


def _query_value(texts: list[str], kind: Kind, key: str) -> Any:
    if isinstance(kind, tuple):
        if kind[0] != "repeated" or kind[1] not in _SCALARS:
            raise RequestError(f"field '{key}' cannot be given as a query parameter")
        return [_scalar_text(text, kind[1], key) for text in texts]
    if kind not in _SCALARS:
        raise RequestError(f"field '{key}' cannot be given as a query parameter")
    return _scalar_text(texts[-1], kind, key)


def _scalar_text(text: str, kind: str, key: str) -> Any:
    if kind == "string":
        return text
    if kind == "bool":
        if text.lower() in ("true", "1"):
            return True
        if text.lower() in ("false", "0", ""):
            return False
        raise RequestError(f"invalid bool '{text}' for field '{key}'")
    try:
        return _value(int(text), "int", key)
    except ValueError:
        raise RequestError(f"invalid number '{text}' for field '{key}'") from None
