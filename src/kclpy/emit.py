"""Program results to the text ``kcl run`` prints (layer: emit, above the VM).

Takes the output documents the VM produced and the run options; returns text. The
writers themselves are in :mod:`kclpy.values` (``yaml_writer``, ``json_writer``,
``toml_writer``; the JSON and TOML writers are imported when a run asks for them,
which keeps them out of the start-up of a plain ``kcl run``); this module applies the
output "plan" of the reference and joins documents.

Documents. Normally there is one: the dict of the main package's top-level variables.
A bare top-level list whose elements are all dicts is a stream of documents instead
(:func:`stream_documents`); an empty such list prints nothing at all. Any other value
is a single document.

Plan (:func:`plan`), applied to every document, as the reference does:

* keys starting with ``_`` are dropped unless ``show_hidden`` (in every dict and schema
  instance below the document, schema private attributes included);
* Undefined values, functions, schema types and modules are never written;
* ``disable_none`` drops None dict values and None list elements at every depth;
* ``include_schema_type_path`` adds ``_type: <Name>`` (``pkg.Name`` outside the main
  package) as the last key of every schema instance *below* the document root (a
  document that is itself a schema instance gets none), even when ``show_hidden`` is
  off; ``sort_keys`` sorts it with the other keys;
* a document that is a list (not a stream) is planned only partly, a reference quirk:
  its dict elements are planned as documents, its other elements (nested lists and
  what they hold) are written as they are, None and ``_`` keys included.

Text (:func:`render`), what ``kcl run`` writes to stdout:

* YAML: each document as :func:`kclpy.values.yaml_writer.yaml_document` gives it, joined by
  ``\\n---\\n``, then ``\\n``. An empty program prints ``{}\\n``.
* JSON (``--format json``): each document as one line of compact JSON (``", "`` and
  ``": "``), joined by ``\\n``, then ``\\n`` (the reference's ``json_result`` plus the
  newline its CLI adds).
* TOML (``--format toml``): the single document as TOML; several documents are an
  error, as in the reference.

``manifests.yaml_stream`` replaces the whole output; :func:`render_stream` prints it.
Its own options (``sort_keys``, ``ignore_private``, ``ignore_none``, ``sep``) apply, not
the run options; ``ignore_private`` defaults to True when an options argument is given
(even ``{}``) and to False without one. YAML: every value as ``yaml.encode`` writes it
(with its final newline), joined by ``sep + "\\n"``. JSON (a reference quirk: it reads
its YAML back): the data as the YAML reads back (floats as printed, inf/nan null, which
``ignore_none`` then drops); no value gives ``null``, one value is written whatever it
is, several values are a list, and of a list only the dicts are written (those in
nested lists too), one line each.
"""

from __future__ import annotations

from collections.abc import Mapping

from kclpy.records import Record
from kclpy.values import NumberMultiplier, SchemaInstance
from kclpy.values.errors import KclRuntimeError
from kclpy.values.scalars import DATA
from kclpy.values.yaml_writer import is_literal_block, to_yaml, yaml_document, yaml_roundtrip

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Final

FORMATS: Final = ("yaml", "json", "toml")


class EmitError(KclRuntimeError):
    """Output that cannot be produced in the requested format (an EvaluationError,
    as in the reference)."""


class EmitOptions(Record):
    """How ``kcl run`` prints its result (``--format``, ``-k``, ``-n``, ``-H``, and the
    ``include_schema_type_path`` setting)."""

    format: str = "yaml"
    sort_keys: bool = False
    disable_none: bool = False
    show_hidden: bool = False
    include_schema_type_path: bool = False


def stream_documents(value: list[Any]) -> list[Any] | None:
    """The documents of a bare top-level list when it is a stream (all elements
    dicts or schema instances, or no element at all), else None."""
    if all(isinstance(element, dict) for element in value):
        return list(value)
    return None


def schema_type_path(instance: SchemaInstance) -> str:
    """The ``_type`` value: the schema name, prefixed by its package outside main."""
    package = instance.schema.pkgpath
    name = instance.schema.name
    if not package or package == "__main__":
        return name
    return f"{package}.{name}"


class _Planner:
    __slots__ = ("disable_none", "show_hidden", "type_path")

    def __init__(self, options: EmitOptions) -> None:
        self.show_hidden = options.show_hidden
        self.disable_none = options.disable_none
        self.type_path = options.include_schema_type_path

    def mapping(self, value: dict[str, Any], root: bool) -> dict[str, Any]:
        result: dict[str, Any] = {}
        for key, item in value.items():
            if item is None:
                if self.disable_none:
                    continue
            elif not isinstance(item, DATA):
                continue
            if not self.show_hidden and key[:1] == "_":
                continue
            result[key] = self.value(item)
        if self.type_path and not root and isinstance(value, SchemaInstance):
            result["_type"] = schema_type_path(value)
        return result

    def value(self, value: Any) -> Any:
        if isinstance(value, dict):
            return self.mapping(value, False)
        if isinstance(value, list):
            return [
                self.value(element)
                for element in value
                if (element is not None or not self.disable_none)
                and (element is None or isinstance(element, DATA))
            ]
        return value


def plan(value: Any, options: EmitOptions) -> Any:
    """One output document filtered as the reference does before writing it."""
    planner = _Planner(options)
    if isinstance(value, dict):
        return planner.mapping(value, True)
    if isinstance(value, list):
        return [
            planner.mapping(element, True) if isinstance(element, dict) else element
            for element in value
        ]
    return value


def plain_documents(
    documents: list[Any],
    options: EmitOptions,
    stream_options: Mapping[str, Any] | None = None,
) -> list[Any]:
    """The documents as plain Python data (dict, list, str, int, float, bool, None):
    what the output holds, filtered as it is (Undefined values, functions, hidden keys
    and, with ``-n``, None left out), unit numbers as the floats the output prints."""
    if stream_options is not None:
        options = options._replace(
            show_hidden=not stream_options.get("ignore_private", False),
            disable_none=bool(stream_options.get("ignore_none", False)),
        )
    return [_plain(plan(document, options)) for document in documents]


def _plain(value: Any) -> Any:
    if isinstance(value, dict):
        return {key: _plain(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_plain(item) for item in value if item is None or isinstance(item, DATA)]
    if isinstance(value, NumberMultiplier):
        return value.value
    return value


def _fast(document: Any, options: EmitOptions) -> bool:
    """Whether the writers' own filters do the whole plan for ``document``."""
    return isinstance(document, dict) and not options.include_schema_type_path


def _yaml(document: Any, options: EmitOptions) -> str:
    if _fast(document, options):
        return yaml_document(
            document,
            sort_keys=options.sort_keys,
            ignore_private=not options.show_hidden,
            ignore_none=options.disable_none,
        )
    return yaml_document(plan(document, options), sort_keys=options.sort_keys)


def _json(document: Any, options: EmitOptions) -> str:
    from kclpy.values.json_writer import to_json

    if _fast(document, options):
        return to_json(
            document,
            sort_keys=options.sort_keys,
            ignore_private=not options.show_hidden,
            ignore_none=options.disable_none,
        )
    return to_json(plan(document, options), sort_keys=options.sort_keys)


def _drop_final_break(data: Any) -> Any:
    """``data`` (read back from YAML text) with one newline less at the end of its last
    string, when that string is the literal block ending the text: what reading the
    text gives once its final newline is cut."""
    if isinstance(data, dict):
        if data:
            key = next(reversed(data))
            data[key] = _drop_final_break(data[key])
    elif isinstance(data, list):
        if data:
            data[-1] = _drop_final_break(data[-1])
    elif isinstance(data, str) and data.endswith("\n") and is_literal_block(data):
        return data[:-1]
    return data


def _toml_data(document: Any, options: EmitOptions) -> Any:
    """The document as the reference's TOML writer gets it: its YAML output read back
    (so a final newline cut from that text is missing from the last string too)."""
    planned = plan(document, options)
    data = yaml_roundtrip(planned, sort_keys=options.sort_keys)
    text = to_yaml(planned, sort_keys=options.sort_keys)
    if len(yaml_document(planned, sort_keys=options.sort_keys)) < len(text):
        data = _drop_final_break(data)
    return data


def render(
    documents: list[Any],
    options: EmitOptions,
    stream_options: Mapping[str, Any] | None = None,
) -> str:
    """The full text ``kcl run`` prints for ``documents``, final newline included
    (nothing at all for an empty stream).

    With ``stream_options`` (the normalised options of ``manifests.yaml_stream``:
    ``sort_keys``, ``ignore_private``, ``ignore_none``, ``sep``) the documents are the
    values given to it and :func:`render_stream` writes them.
    """
    if stream_options is not None:
        return render_stream(
            documents,
            format=options.format,
            sep=str(stream_options.get("sep", "---")),
            sort_keys=bool(stream_options.get("sort_keys", False)),
            ignore_private=bool(stream_options.get("ignore_private", False)),
            ignore_none=bool(stream_options.get("ignore_none", False)),
        )
    if not documents:
        return ""
    if options.format == "yaml":
        return "\n---\n".join([_yaml(document, options) for document in documents]) + "\n"
    if options.format == "json":
        return "\n".join([_json(document, options) for document in documents]) + "\n"
    if options.format == "toml":
        if len(documents) > 1:
            raise EmitError(
                "deserializing from YAML containing more than one document is not supported"
            )
        from kclpy.values.toml_writer import to_toml

        try:
            return to_toml(_toml_data(documents[0], options), sort_keys=options.sort_keys)
        except ValueError as error:
            raise EmitError(str(error)) from None
    raise EmitError(f"invalid format '{options.format}', expected one of yaml, json, toml")


def _dicts_in(values: list[Any]) -> list[Any]:
    """The dicts of ``values`` and of the lists in it, at any depth, in order."""
    found: list[Any] = []
    for value in values:
        if isinstance(value, dict):
            found.append(value)
        elif isinstance(value, list):
            found.extend(_dicts_in(value))
    return found


def render_stream(
    values: list[Any],
    *,
    format: str = "yaml",
    sep: str = "---",
    sort_keys: bool = False,
    ignore_private: bool = False,
    ignore_none: bool = False,
) -> str:
    """The text ``kcl run`` prints after ``manifests.yaml_stream(values, opts)``."""
    if format == "json":
        from kclpy.values.json_writer import to_json

        # The reference reads its YAML stream back: one document stands for itself,
        # none for null, several for a list; of a list only the dicts are written.
        data = [
            yaml_roundtrip(
                value, sort_keys=sort_keys, ignore_private=ignore_private, ignore_none=ignore_none
            )
            for value in values
        ]
        if data:
            # The stream text loses its final newline before it is read back.
            data[-1] = _drop_final_break(data[-1])
        stream: Any = data[0] if len(data) == 1 else (data or None)
        chosen = _dicts_in(stream) if isinstance(stream, list) else [stream]
        text = "\n".join(
            to_json(
                value,
                sort_keys=sort_keys,
                ignore_private=ignore_private,
                ignore_none=ignore_none,
            )
            for value in chosen
        )
        return text + "\n" if text else ""
    if format != "yaml":
        raise EmitError(f"invalid format '{format}' for a YAML stream")
    text = (sep + "\n").join(
        to_yaml(value, sort_keys=sort_keys, ignore_private=ignore_private, ignore_none=ignore_none)
        for value in values
    )
    text = text.removesuffix("\n")
    return text + "\n" if text else ""
