"""Validating a spec before anything is touched: every problem, each where it is.

``spec_problems(spec, known_types)`` returns every problem of a spec that can
be seen without asking a runtime: duplicate ids, unknown types, ``dependsOn``
entries and ``$kusion_path`` references that name no resource of the spec,
malformed ``extensions.sensitive`` marks and dependency cycles (one per group
of resources that depend on each other, a resource depending on itself
included). ``validate`` raises them together as one ``SpecError``.

``runtime_problems(spec, runtimes)`` adds what the runtimes would refuse at
apply time (``Runtime.check``: a Local path outside the allowed folders, a
Terraform id without a resource type, a Kubernetes manifest without a name,
...), so that preview reports it instead of promising a Create; ``check``
raises them. Each problem points at its place in the spec file when the spec
was read from one (``Spec.origins``).
"""

from __future__ import annotations

from collections.abc import Collection

from kclpy.kusion.graph import Graph, cycles
from kclpy.kusion.located import NOWHERE, Origin
from kclpy.kusion.model import BUILTIN_TYPES, Problem, Resource, Spec, SpecError, spec_error
from kclpy.kusion.references import iter_references, parse_reference
from kclpy.kusion.runtimes.base import Runtimes, rejections
from kclpy.kusion.sensitive import validate_marks

Path = tuple[str | int, ...]


def validate(spec: Spec, known_types: Collection[str] = BUILTIN_TYPES) -> None:
    """Raise ``SpecError`` listing every problem found, or return."""
    problems = spec_problems(spec, known_types)
    if problems:
        raise spec_error("invalid spec", problems)


def spec_problems(
    spec: Spec, known_types: Collection[str] = BUILTIN_TYPES, malformed: Collection[str] = ()
) -> list[Problem]:
    """Every problem of ``spec``; ``malformed`` are ids of resources already reported
    and left out (references to them are not reported again)."""
    problems: list[Problem] = []
    seen: set[str] = set()
    expected = ", ".join(sorted(known_types))
    for index, resource in enumerate(spec.resources):
        origin = spec.origins.get(index, NOWHERE)
        if resource.id in seen:
            message = f"duplicate resource id {resource.id!r}"
            problems.append(_at(origin, ("id",), message))
        seen.add(resource.id)
        if resource.type not in known_types:
            message = (
                f"resource {resource.id!r} has unknown type {resource.type!r} (expected {expected})"
            )
            problems.append(_at(origin, ("type",), message))
    known = seen | set(malformed)
    graph = Graph()
    edges: dict[tuple[str, str], Problem] = {}
    for resource in spec.resources:
        graph.add_node(resource.id)
    for index, resource in enumerate(spec.resources):
        origin = spec.origins.get(index, NOWHERE)
        problems += _dependency_problems(resource, origin, known, graph, edges)
        problems += [_at(origin, path, message) for message, path in validate_marks(resource)]
    problems += _cycle_problems(graph, edges)
    return problems


def _dependency_problems(
    resource: Resource,
    origin: Origin,
    known: set[str],
    graph: Graph,
    edges: dict[tuple[str, str], Problem],
) -> list[Problem]:
    """Dangling ``dependsOn`` and references; the others become edges of ``graph``,
    each with where it is written (``edges``), for the cycle check."""
    problems: list[Problem] = []
    found: list[tuple[str, Path]] = []
    for position, dependency in enumerate(resource.depends_on):
        where: Path = ("dependsOn", position)
        if dependency in known:
            found.append((dependency, where))
        else:
            message = f"resource {resource.id!r} depends on unknown resource {dependency!r}"
            problems.append(_at(origin, where, message))
    for path, text in iter_references(resource.attributes):
        where = ("attributes", *path)
        try:
            found.append((parse_reference(text, known).target, where))
        except SpecError as error:
            problems.append(_at(origin, where, f"resource {resource.id!r}: {error.message}"))
    for dependency, where in found:
        if dependency not in graph.before:
            continue  # a resource left out as malformed
        edge = (resource.id, dependency)
        edges.setdefault(edge, _at(origin, where, ""))
        if dependency == resource.id:
            graph.before[resource.id].add(resource.id)
        else:
            graph.add_edge(dependency, resource.id)
    return problems


def _cycle_problems(graph: Graph, edges: dict[tuple[str, str], Problem]) -> list[Problem]:
    found = [[node, node] for node in graph.nodes if node in graph.before[node]]
    found += cycles(graph)
    found.sort(key=lambda cycle: graph.nodes.index(cycle[0]))
    problems = []
    for cycle in found:
        where = edges.get((cycle[0], cycle[1]))
        message = "circular dependency: " + " -> ".join(cycle)
        problems.append(Problem(message, where.span if where else None))
    return problems


def _at(origin: Origin, path: Path, message: str) -> Problem:
    return Problem(message, origin.locate(path).span())


def runtime_problems(spec: Spec, runtimes: Runtimes) -> list[Problem]:
    """What each resource's runtime would refuse to apply (``Runtime.check``)."""
    problems: list[Problem] = []
    for index, resource in enumerate(spec.resources):
        origin = spec.origins.get(index, NOWHERE)
        for rejection in rejections(runtimes.get(resource.type), resource):
            message = f"resource {resource.id!r}: {rejection.message}"
            problems.append(_at(origin, rejection.path, message))
    return problems


def check(spec: Spec, runtimes: Runtimes) -> None:
    """Raise ``SpecError`` with everything the runtimes would refuse to apply."""
    problems = runtime_problems(spec, runtimes)
    if problems:
        raise spec_error("apply would refuse these resources", problems)
