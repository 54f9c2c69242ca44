"""What is declared sensitive: paths into a resource's attributes whose values are secrets.

A ``SensitivePath`` is a tuple of keys from ``attributes`` down to a value;
``"*"`` stands for every item of a list or every value of a map. Lists that a
path does not mention are looked through (a Terraform block written as a list
of one object is found either way). Everything under a path is secret.

Where the paths come from (``declared_paths``):

- the spec: ``extensions.sensitive``, a list of paths, each a dotted text
  (``"auth.value"``, ``"containers.*.args"``) or a list of keys (for keys that
  hold dots: ``["metadata", "annotations", "example.com/token"]``). A KCL
  program marks what it knows to be secret there (``validate_marks`` checks the
  form when the spec is read);
- Kubernetes ``Secret`` resources: ``data`` and ``stringData``;
- the runtime: ``Runtime.sensitive_paths(resource)`` when a runtime has it -
  the Terraform runtime answers from the provider's schema
  (``terraform providers schema -json``: every attribute marked ``sensitive``).

``declare(resources, runtimes, max_concurrent)`` asks the runtimes for every
resource (in parallel; on Ctrl-C or SIGTERM it stops at once) and returns
``{id: paths}``. ``values_at`` yields the values at a path, ``mask_paths``
returns a display copy with them replaced by ``MASK``.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any

from kclpy.kusion.diff import MASK
from kclpy.kusion.graph import Graph
from kclpy.kusion.model import KUBERNETES, KusionError, Resource
from kclpy.kusion.runtimes.base import Runtimes
from kclpy.kusion.walker import walk

SensitivePath = tuple[str, ...]
Declared = Mapping[str, Sequence[SensitivePath]]
EXTENSION = "sensitive"
RECORDED = "declaredSensitive"  # the runtimeData key under which state keeps them
ANY = "*"
SECRET_SECTIONS: tuple[SensitivePath, ...] = (("data",), ("stringData",))


def parse_path(item: Any) -> SensitivePath | None:
    """A path from its spec form (dotted text or list of keys); None if malformed."""
    if isinstance(item, str) and item.strip("."):
        return tuple(part for part in item.split(".") if part)
    if isinstance(item, list) and item and all(isinstance(key, str) and key for key in item):
        return tuple(item)
    return None


def validate_marks(resource: Resource) -> list[tuple[str, tuple[str | int, ...]]]:
    """Problems with ``extensions.sensitive`` (for spec validation), each with the path
    of the faulty part in the resource document."""
    marks = resource.extensions.get(EXTENSION)
    if marks is None:
        return []
    if not isinstance(marks, list):
        message = f"resource {resource.id!r}: extensions.{EXTENSION} must be a list of paths"
        return [(message, ("extensions", EXTENSION))]
    return [
        (
            f"resource {resource.id!r}: extensions.{EXTENSION}[{index}] is not a path "
            "(a dotted text or a list of keys)",
            ("extensions", EXTENSION, index),
        )
        for index, item in enumerate(marks)
        if parse_path(item) is None
    ]


def marked_paths(resource: Resource) -> list[SensitivePath]:
    """What the spec itself declares: ``extensions.sensitive`` and Secret data."""
    marks = resource.extensions.get(EXTENSION)
    found = (
        [path for item in marks if (path := parse_path(item))] if isinstance(marks, list) else []
    )
    attributes = resource.attributes
    kubernetes = resource.type == KUBERNETES or "apiVersion" in attributes
    if kubernetes and attributes.get("kind") == "Secret":
        found.extend(SECRET_SECTIONS)
    return found


def declared_paths(resource: Resource, declared: Declared | None = None) -> list[SensitivePath]:
    """The spec's own marks, what the runtime declared for ``resource.id`` (``declared``)
    and what was recorded with it in state (``remember``)."""
    recorded = resource.runtime_data.get(RECORDED)
    remembered = (
        [path for item in recorded if (path := parse_path(item))]
        if isinstance(recorded, list)
        else []
    )
    return [*marked_paths(resource), *((declared or {}).get(resource.id) or ()), *remembered]


def spec_record(declared: Declared) -> dict[str, Any]:
    """What a release's recorded spec keeps of ``declared`` (``recorded_in_spec`` reads it)."""
    paths = {key: [list(path) for path in value] for key, value in declared.items() if value}
    return {RECORDED: paths} if paths else {}


def recorded_in_spec(spec_document: Any) -> Declared:
    """The declared paths a release's spec recorded (see ``spec_record``)."""
    recorded = spec_document.get(RECORDED) if isinstance(spec_document, dict) else None
    if not isinstance(recorded, dict):
        return {}
    return {
        str(key): [path for item in value if (path := parse_path(item))]
        for key, value in recorded.items()
        if isinstance(value, list)
    }


def remember(resource: Resource, declared: Declared) -> Resource:
    """``resource`` with the paths a runtime declared for it kept in its ``runtimeData``."""
    paths = declared.get(resource.id)
    if paths:
        resource.runtime_data = {**resource.runtime_data, RECORDED: [list(p) for p in paths]}
    return resource


def declare(resources: Iterable[Resource], runtimes: Runtimes, max_concurrent: int) -> Declared:
    """``{id: paths}`` from each resource's runtime (those without ``sensitive_paths`` add none)."""
    by_id = {resource.id: resource for resource in resources}
    graph = Graph()
    for resource_id in by_id:
        graph.add_node(resource_id)
    found: dict[str, list[SensitivePath]] = {}
    lock = threading.Lock()

    def visit(resource_id: str) -> None:
        resource = by_id[resource_id]
        runtime = runtimes.get(resource.type)
        method = getattr(runtime, "sensitive_paths", None)
        paths = list(method(resource)) if callable(method) else []
        with lock:
            found[resource_id] = paths

    result = walk(graph, visit, max_concurrent, lambda node, outcome: None, abandon=True)
    if result.interrupted:
        raise KeyboardInterrupt
    problems = [
        f"{node}: {outcome.error}" for node, outcome in result.results.items() if outcome.error
    ]
    if problems:
        raise KusionError("cannot tell which attributes are sensitive:\n  " + "\n  ".join(problems))
    return found


def values_at(tree: Any, path: SensitivePath) -> Iterator[Any]:
    """Every value of ``tree`` at ``path`` (see the module docstring for ``*`` and lists)."""
    if not path:
        yield tree
        return
    head, rest = path[0], path[1:]
    if isinstance(tree, list):
        for item in tree:
            yield from values_at(item, rest if head == ANY else path)
    elif isinstance(tree, dict):
        if head == ANY:
            yield from values_at(tree, rest)  # a single block written as an object
            for item in tree.values():
                yield from values_at(item, rest)
        elif head in tree:
            yield from values_at(tree[head], rest)


def mask_paths(tree: Any, paths: Sequence[SensitivePath]) -> Any:
    """A copy of ``tree`` with everything at ``paths`` replaced by ``MASK``."""
    for path in paths:
        tree = _masked(tree, path)
    return tree


def _masked(tree: Any, path: SensitivePath) -> Any:
    if not path:
        return mask_all(tree)
    head, rest = path[0], path[1:]
    if isinstance(tree, list):
        return [_masked(item, rest if head == ANY else path) for item in tree]
    if isinstance(tree, dict):
        if head == ANY:
            return {key: _masked(item, rest) for key, item in _masked(tree, rest).items()}
        if head in tree:
            return {**tree, head: _masked(tree[head], rest)}
    return tree


def mask_all(value: Any) -> Any:
    """Every scalar inside ``value`` (but ``None`` and booleans) replaced by ``MASK``."""
    if isinstance(value, dict):
        return {key: mask_all(item) for key, item in value.items()}
    if isinstance(value, list):
        return [mask_all(item) for item in value]
    if value is None or isinstance(value, bool):
        return value
    return MASK
