"""Reading the Kusion Spec: the input of every operation.

Takes either a spec file (``--spec FILE``) or the YAML text that ``kcl run``
emits for KCL FILES, and returns a validated ``Spec``. Accepted documents
(``SHAPES`` names them in errors):

- a Kusion Spec ``{resources: [...]}``; other top-level keys are ignored, so a
  KCL program may define helper variables (Kubernetes manifests among them),
- a YAML list of resources (what ``kusion compile`` used to write),
- a single resource ``{id, type, attributes, dependsOn, extensions}``,
- a plain Kubernetes manifest (``apiVersion``, ``kind``, ``metadata.name``), one
  per document as ``manifests.yaml_stream`` writes them, wrapped into a
  ``Kubernetes`` resource with the id ``apiVersion:Kind[:namespace]:name``
  (``kind: List`` is unpacked),
- a mapping of top-level variables (what ``kcl run`` emits for a program) whose
  values are Kubernetes manifests, or lists of them: each becomes a resource, in
  order; values that are not manifests are ignored.

A namespaced Kubernetes resource gets an implicit ``dependsOn`` on its
``v1:Namespace:<namespace>`` when the spec contains that namespace.

Every problem of the documents' shape is collected, together with those of
``validation`` (duplicate ids, unknown types, dangling ``dependsOn`` or
references, malformed ``extensions.sensitive`` marks, dependency cycles), and
reported at once, each at its line and column when the spec is a file.
"""

from __future__ import annotations

import sys
from collections.abc import Collection, Mapping, Sequence
from pathlib import Path
from typing import Any

import attrs

from kclpy.kusion.located import Located, Origin, load_documents
from kclpy.kusion.model import (
    BUILTIN_TYPES,
    KUBERNETES,
    Problem,
    Resource,
    Spec,
    SpecError,
    spec_error,
)
from kclpy.kusion.validation import spec_problems, validate

__all__ = ["SHAPES", "Reading", "load_spec", "parse_text", "read_text", "validate"]

RESOURCE_KEYS = frozenset({"id", "type", "attributes", "dependsOn", "extensions"})


def compile_documents(files: Sequence[str], run_options: Mapping[str, Any]) -> str:
    """Run KCL FILES through kclpy's own ``kcl run`` and return the emitted YAML text.

    ``run_options`` are keyword arguments of ``kclpy.api.run_files`` (``options``
    as ``k=v`` texts, ``path_selector``, ...). A failed run raises ``SpecError``
    with the rendered diagnostics; ``print`` output of the program goes to stderr.
    """
    from kclpy.api import run_files

    result = run_files(list(files), **dict(run_options))
    if isinstance(result, str):
        return result
    if getattr(result, "log", ""):
        sys.stderr.write(result.log)
    if not getattr(result, "ok", True):
        errors = list(result.diagnostics)
        raise SpecError("kcl run failed:\n" + _render_diagnostics(errors), diagnostics=errors)
    text = getattr(result, "text", None)
    if not isinstance(text, str):
        raise SpecError("kcl run did not return YAML text")
    return text


def _render_diagnostics(diagnostics: Sequence[Any]) -> str:
    from kclpy.diag.render import render_all

    return str(render_all(list(diagnostics), "human", False))


SHAPES = (
    "a Kusion Spec (`resources:` a list of {id, type, attributes, dependsOn, extensions}), "
    "a YAML stream of Kubernetes manifests (apiVersion, kind, metadata.name; "
    "`manifests.yaml_stream([...])` in KCL), or top-level variables that are "
    "Kubernetes manifests"
)


@attrs.define
class Reading:
    """The resources read from the documents, with the problems found in their shape;
    ``malformed`` are the ids of resources left out because of such a problem."""

    spec: Spec
    problems: list[Problem] = attrs.field(factory=list)
    malformed: set[str] = attrs.field(factory=set)

    def add(self, resource: Resource, origin: Origin) -> None:
        self.spec.origins[len(self.spec.resources)] = origin
        self.spec.resources.append(resource)

    def problem(self, message: str, where: Located) -> None:
        self.problems.append(Problem(message, where.span()))


def load_spec(
    files: Sequence[str] = (),
    spec_file: str | None = None,
    run_options: Mapping[str, Any] | None = None,
    known_types: Collection[str] = BUILTIN_TYPES,
) -> Spec:
    """The validated spec from ``--spec FILE`` or from compiling KCL FILES; every
    problem found is reported in one ``SpecError``."""
    if spec_file and files:
        raise SpecError("give either KCL files or --spec FILE, not both")
    if spec_file:
        path = Path(spec_file)
        try:
            text = path.read_text(encoding="utf-8")
        except OSError as error:
            raise SpecError(f"cannot read spec file {spec_file}: {error.strerror}") from None
        except UnicodeDecodeError as error:
            raise SpecError(f"cannot read spec file {spec_file}: not UTF-8 ({error})") from None
        source = str(path)
    elif files:
        text = compile_documents(files, run_options or {})
        source = "kcl run output"
    else:
        raise SpecError("nothing to do: give KCL files or --spec FILE")
    reading = read_text(text, source, str(path) if spec_file else None)
    problems = reading.problems + spec_problems(reading.spec, known_types, reading.malformed)
    if problems:
        raise spec_error("invalid spec", problems)
    return reading.spec


def parse_text(text: str, source: str = "<input>", path: str | None = None) -> Spec:
    """Parse YAML (one or more documents) into an unvalidated spec; raise ``SpecError``
    with every problem of the documents' shape (a YAML error in the file at ``path``
    points at its line and column)."""
    reading = read_text(text, source, path)
    if reading.problems:
        raise spec_error("invalid spec", reading.problems)
    return reading.spec


def read_text(text: str, source: str = "<input>", path: str | None = None) -> Reading:
    """The resources of every document and the problems of their shape."""
    documents = load_documents(text, source, path)
    reading = Reading(Spec())
    for index, document in enumerate(documents, start=1):
        where = f"{source}, document {index}" if len(documents) > 1 else source
        _read_document(reading, document, where)
    add_namespace_dependencies(reading.spec)
    return reading


def _read_document(reading: Reading, document: Located, where: str) -> None:
    value = document.value
    if isinstance(value, list):
        for index, item in enumerate(document.elements(), start=1):
            if is_manifest(item.value) and not {"id", "type"} <= set(item.value):
                _read_manifest(reading, item, f"{where}, item {index}")
            else:
                _read_resource(reading, item, f"{where}, item {index}")
    elif not isinstance(value, dict):
        reading.problem(f"{where}: expected {SHAPES}; got {type(value).__name__}", document)
    elif "resources" in value:
        _read_resources(reading, document.at("resources"), where)
    elif "id" in value and "type" in value:
        _read_resource(reading, document, where)
    elif "apiVersion" in value and "kind" in value:
        _read_manifest(reading, document, where)
    else:
        _read_top_level(reading, document, where)


def _read_resources(reading: Reading, items: Located, where: str) -> None:
    if items.value is None:
        return
    if not isinstance(items.value, list):
        reading.problem(f"{where}: 'resources' must be a list", items)
        return
    for index, item in enumerate(items.elements()):
        _read_resource(reading, item, f"{where}, resources[{index}]")


def _read_top_level(reading: Reading, document: Located, where: str) -> None:
    """Top-level variables: each manifest (or list of manifests) becomes resources."""
    found = False
    for name, value in document.items():
        items = list(value.elements()) if isinstance(value.value, list) else [value]
        manifests = [item for item in items if is_manifest(item.value)]
        if not manifests:
            continue
        found = True
        if len(manifests) < len(items):
            reading.problem(
                f"{where}: top-level variable {name!r} mixes Kubernetes manifests with other "
                "values; make it a list of manifests only",
                value,
            )
            continue
        for item in manifests:
            _read_manifest(reading, item, f"{where}, {name}")
    if not found:
        names = ", ".join(str(name) for name in list(document.value)[:5])
        reading.problem(
            f"{where}: no resources found in the top-level variables ({names}); expected {SHAPES}",
            document,
        )


def is_manifest(value: Any) -> bool:
    """Whether ``value`` looks like a Kubernetes manifest (``apiVersion`` and ``kind``)."""
    return isinstance(value, dict) and "apiVersion" in value and "kind" in value


def _read_manifest(reading: Reading, manifest: Located, where: str) -> None:
    if not isinstance(manifest.value, dict):
        reading.problem(f"{where}: a Kubernetes manifest must be a mapping", manifest)
        return
    items = manifest.at("items")
    if manifest.value.get("kind") == "List" and isinstance(items.value, list):
        for index, item in enumerate(items.elements()):
            _read_manifest(reading, item, f"{where}, items[{index}]")
        return
    metadata = manifest.value.get("metadata")
    if not isinstance(metadata, dict) or not metadata.get("name"):
        reading.problem(f"{where}: Kubernetes manifest without metadata.name", manifest)
        return
    reading.add(wrap_manifest(manifest.value, where), Origin(manifest, wrapped=True))


def _read_resource(reading: Reading, item: Located, where: str) -> None:
    problems = _resource_problems(item, where)
    if problems:
        reading.problems.extend(problems)
        if isinstance(item.value, dict) and isinstance(item.value.get("id"), str):
            reading.malformed.add(item.value["id"])
        return
    value = item.value
    resource = Resource(
        value["id"],
        value["type"],
        value.get("attributes") or {},
        list(value.get("dependsOn") or []),
        value.get("extensions") or {},
    )
    reading.add(resource, Origin(item))


def _resource_problems(item: Located, where: str) -> list[Problem]:
    value = item.value
    if not isinstance(value, dict):
        return [Problem(f"{where}: a resource must be a mapping", item.span())]
    problems = [
        Problem(f"{where}: unknown resource field {key!r}", item.key(key).span())
        for key in value
        if key not in RESOURCE_KEYS
    ]
    for key in ("id", "type"):
        if not isinstance(value.get(key), str) or not value[key]:
            at = item.at(key) if key in value else item
            problems.append(Problem(f"{where}: '{key}' must be a non-empty string", at.span()))
    if isinstance(value.get("id"), str):
        where = f"{where} ({value['id']})"
    shapes = (("attributes", dict, "a mapping"), ("extensions", dict, "a mapping"))
    for key, kind, text in shapes:
        if value.get(key) is not None and not isinstance(value[key], kind):
            problems.append(Problem(f"{where}: '{key}' must be {text}", item.at(key).span()))
    depends_on = value.get("dependsOn")
    if depends_on is not None and (
        not isinstance(depends_on, list) or not all(isinstance(d, str) for d in depends_on)
    ):
        message = f"{where}: 'dependsOn' must be a list of resource ids"
        problems.append(Problem(message, item.at("dependsOn").span()))
    return problems


def kubernetes_id(manifest: Mapping[str, Any]) -> str:
    """``apiVersion:Kind[:namespace]:name`` as Kusion builds it."""
    metadata = manifest.get("metadata") or {}
    parts = [str(manifest["apiVersion"]), str(manifest["kind"])]
    namespace = metadata.get("namespace")
    if namespace:
        parts.append(str(namespace))
    parts.append(str(metadata["name"]))
    return ":".join(parts)


def wrap_manifest(manifest: Any, where: str) -> Resource:
    """A plain Kubernetes manifest as a ``Kubernetes`` resource."""
    if not isinstance(manifest, dict):
        raise SpecError(f"{where}: a Kubernetes manifest must be a mapping")
    metadata = manifest.get("metadata")
    if not isinstance(metadata, dict) or not metadata.get("name"):
        raise SpecError(f"{where}: Kubernetes manifest without metadata.name")
    api_version = str(manifest["apiVersion"])
    group_version = api_version if "/" in api_version else f"/{api_version}"
    extensions = {"GVK": f"{group_version}, Kind={manifest['kind']}"}
    return Resource(kubernetes_id(manifest), KUBERNETES, manifest, [], extensions)


def add_namespace_dependencies(spec: Spec) -> None:
    """Namespaced Kubernetes resources depend on their Namespace when the spec has it."""
    ids = {resource.id for resource in spec.resources}
    for resource in spec.resources:
        if resource.type != KUBERNETES or resource.attributes.get("kind") == "Namespace":
            continue
        metadata = resource.attributes.get("metadata")
        namespace = metadata.get("namespace") if isinstance(metadata, dict) else None
        namespace_id = f"v1:Namespace:{namespace}"
        if namespace and namespace_id in ids and namespace_id not in resource.depends_on:
            resource.depends_on.append(namespace_id)
