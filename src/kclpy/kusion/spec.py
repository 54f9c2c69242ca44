"""Reading and validating the Kusion Spec: the input of every operation.

Takes either a spec file (``--spec FILE``) or the YAML text that ``kcl run``
emits for KCL FILES, and returns a validated ``Spec``. Accepted documents:

- a Kusion Spec ``{resources: [...]}`` (other top-level keys are ignored, so a
  KCL program may define helper variables),
- a YAML list of resources (what ``kusion compile`` used to write),
- a single resource ``{id, type, attributes, dependsOn, extensions}``,
- a plain Kubernetes manifest, wrapped into a ``Kubernetes`` resource with the
  id ``apiVersion:Kind[:namespace]:name`` (``kind: List`` is unpacked).

A namespaced Kubernetes resource gets an implicit ``dependsOn`` on its
``v1:Namespace:<namespace>`` when the spec contains that namespace.

Validation (duplicate ids, unknown types, dangling ``dependsOn`` or
references, malformed ``extensions.sensitive`` marks, dependency cycles)
happens here, before anything is touched.
"""

from __future__ import annotations

import sys
from collections.abc import Collection, Mapping, Sequence
from pathlib import Path
from typing import Any

from kclpy.kusion.graph import find_cycle, spec_graph
from kclpy.kusion.model import BUILTIN_TYPES, KUBERNETES, Resource, Spec, SpecError
from kclpy.kusion.references import iter_reference_texts, parse_reference
from kclpy.kusion.sensitive import validate_marks
from kclpy.source import SourceFile, Span

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


def _yaml_span(error: Exception, path: str | None, text: str) -> Span | None:
    mark = getattr(error, "problem_mark", None) or getattr(error, "context_mark", None)
    if path is None or mark is None:
        return None
    start = min(mark.index, len(text))
    return Span(SourceFile(path, text), start, min(start + 1, len(text)))


def load_spec(
    files: Sequence[str] = (),
    spec_file: str | None = None,
    run_options: Mapping[str, Any] | None = None,
    known_types: Collection[str] = BUILTIN_TYPES,
) -> Spec:
    """The validated spec from ``--spec FILE`` or from compiling KCL FILES."""
    if spec_file and files:
        raise SpecError("give either KCL files or --spec FILE, not both")
    if spec_file:
        path = Path(spec_file)
        try:
            text = path.read_text(encoding="utf-8")
        except OSError as error:
            raise SpecError(f"cannot read spec file {spec_file}: {error.strerror}") from None
        source = str(path)
    elif files:
        text = compile_documents(files, run_options or {})
        source = "kcl run output"
    else:
        raise SpecError("nothing to do: give KCL files or --spec FILE")
    spec = parse_text(text, source, str(path) if spec_file else None)
    validate(spec, known_types)
    return spec


def parse_text(text: str, source: str = "<input>", path: str | None = None) -> Spec:
    """Parse YAML (one or more documents) into an unvalidated spec; a YAML error in the
    file at ``path`` points at its line and column."""
    import yaml

    try:
        documents = [doc for doc in yaml.safe_load_all(text) if doc is not None]
    except yaml.YAMLError as error:
        span = _yaml_span(error, path, text)
        problem = getattr(error, "problem", None) if span else None
        message = f"invalid YAML: {problem}" if problem else f"{source}: invalid YAML: {error}"
        raise SpecError(message, span) from None
    resources: list[Resource] = []
    for index, document in enumerate(documents, start=1):
        where = f"{source}, document {index}" if len(documents) > 1 else source
        resources.extend(_document_resources(document, where))
    spec = Spec(resources)
    add_namespace_dependencies(spec)
    return spec


def _document_resources(document: Any, where: str) -> list[Resource]:
    if isinstance(document, list):
        return [_resource(item, f"{where}, item {i}") for i, item in enumerate(document, start=1)]
    if not isinstance(document, dict):
        raise SpecError(f"{where}: expected a mapping or a list, got {type(document).__name__}")
    if "resources" in document:
        items = document["resources"]
        if items is None:
            return []
        if not isinstance(items, list):
            raise SpecError(f"{where}: 'resources' must be a list")
        return [_resource(item, f"{where}, resources[{i}]") for i, item in enumerate(items)]
    if "id" in document and "type" in document:
        return [_resource(document, where)]
    if "apiVersion" in document and "kind" in document:
        if document["kind"] == "List" and isinstance(document.get("items"), list):
            return [wrap_manifest(item, where) for item in document["items"]]
        return [wrap_manifest(document, where)]
    raise SpecError(
        f"{where}: neither a Kusion Spec (resources: [...]), a resource (id, type) "
        "nor a Kubernetes manifest (apiVersion, kind)"
    )


def _resource(item: Any, where: str) -> Resource:
    if not isinstance(item, dict):
        raise SpecError(f"{where}: a resource must be a mapping")
    unknown = sorted(set(item) - RESOURCE_KEYS)
    if unknown:
        raise SpecError(f"{where}: unknown resource field(s) {', '.join(unknown)}")
    for key in ("id", "type"):
        if not isinstance(item.get(key), str) or not item[key]:
            raise SpecError(f"{where}: '{key}' must be a non-empty string")
    where = f"{where} ({item['id']})"
    attributes = item.get("attributes") or {}
    extensions = item.get("extensions") or {}
    depends_on = item.get("dependsOn") or []
    if not isinstance(attributes, dict):
        raise SpecError(f"{where}: 'attributes' must be a mapping")
    if not isinstance(extensions, dict):
        raise SpecError(f"{where}: 'extensions' must be a mapping")
    if not isinstance(depends_on, list) or not all(isinstance(d, str) for d in depends_on):
        raise SpecError(f"{where}: 'dependsOn' must be a list of resource ids")
    return Resource(item["id"], item["type"], attributes, list(depends_on), extensions)


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
        namespace = (resource.attributes.get("metadata") or {}).get("namespace")
        namespace_id = f"v1:Namespace:{namespace}"
        if namespace and namespace_id in ids and namespace_id not in resource.depends_on:
            resource.depends_on.append(namespace_id)


def validate(spec: Spec, known_types: Collection[str] = BUILTIN_TYPES) -> None:
    """Raise ``SpecError`` listing every problem found, or return."""
    problems: list[str] = []
    seen: set[str] = set()
    for resource in spec.resources:
        if resource.id in seen:
            problems.append(f"duplicate resource id {resource.id!r}")
        seen.add(resource.id)
        if resource.type not in known_types:
            expected = ", ".join(sorted(known_types))
            problems.append(
                f"resource {resource.id!r} has unknown type {resource.type!r} (expected {expected})"
            )
    for resource in spec.resources:
        problems.extend(_dangling(resource, seen))
        problems.extend(validate_marks(resource))
    if not problems:
        cycle = find_cycle(spec_graph(spec))
        if cycle:
            problems.append("circular dependency: " + " -> ".join(cycle))
    if problems:
        raise SpecError("invalid spec:\n  " + "\n  ".join(problems))


def _dangling(resource: Resource, known: set[str]) -> list[str]:
    problems = [
        f"resource {resource.id!r} depends on unknown resource {dependency!r}"
        for dependency in resource.depends_on
        if dependency not in known
    ]
    for text in iter_reference_texts(resource.attributes):
        try:
            parse_reference(text, known)
        except SpecError as error:
            problems.append(f"resource {resource.id!r}: {error}")
    return problems
