"""The dependency graph of an operation.

Takes a validated ``Spec`` and the prior state and returns a ``Graph`` whose
edge ``a -> b`` means "a must finish before b starts":

- apply/preview: ``dependsOn`` and ``$kusion_path`` references give
  dependency -> dependent; resources in state but no longer in the spec become
  deletion nodes, ordered so that dependents are deleted first;
- destroy: only what state records, in reverse dependency order.

Also finds cycles (for spec validation: one per strongly connected group of
resources, so that every independent cycle is reported) and gives a deterministic
topological order (used for stepKeys and for sequential walks).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

import attrs

from kclpy.kusion.model import Resource, Spec
from kclpy.kusion.references import reference_targets


@attrs.define
class Graph:
    """Nodes in insertion order; ``before[node]`` are the nodes that must finish first."""

    nodes: list[str] = attrs.field(factory=list)
    before: dict[str, set[str]] = attrs.field(factory=dict)

    def add_node(self, node: str) -> None:
        if node not in self.before:
            self.nodes.append(node)
            self.before[node] = set()

    def add_edge(self, first: str, then: str) -> None:
        self.add_node(first)
        self.add_node(then)
        if first != then:
            self.before[then].add(first)

    def after(self) -> dict[str, list[str]]:
        """The reverse adjacency: for each node, the nodes waiting on it."""
        waiting: dict[str, list[str]] = {node: [] for node in self.nodes}
        for node in self.nodes:
            for first in sorted(self.before[node], key=self.nodes.index):
                waiting[first].append(node)
        return waiting

    def descendants(self, node: str) -> set[str]:
        waiting = self.after()
        found: set[str] = set()
        stack = [node]
        while stack:
            for child in waiting[stack.pop()]:
                if child not in found:
                    found.add(child)
                    stack.append(child)
        return found

    def topological_order(self) -> list[str]:
        """Kahn's algorithm, always taking the earliest inserted ready node."""
        remaining = {node: len(self.before[node]) for node in self.nodes}
        waiting = self.after()
        order: list[str] = []
        ready = [node for node in self.nodes if remaining[node] == 0]
        while ready:
            node = ready.pop(0)
            order.append(node)
            for child in waiting[node]:
                remaining[child] -= 1
                if remaining[child] == 0:
                    ready.append(child)
            ready.sort(key=self.nodes.index)
        if len(order) != len(self.nodes):
            cycle = find_cycle(self)
            raise ValueError(f"circular dependency: {' -> '.join(cycle or [])}")
        return order


def find_cycle(graph: Graph) -> list[str] | None:
    """One cycle ``[a, b, ..., a]`` where each node depends on the next, or None."""
    color = dict.fromkeys(graph.nodes, 0)  # 0 new, 1 on stack, 2 done
    for start in graph.nodes:
        if color[start]:
            continue
        path: list[str] = []
        stack: list[tuple[str, list[str]]] = [(start, sorted(graph.before[start]))]
        color[start] = 1
        path.append(start)
        while stack:
            node, pending = stack[-1]
            if not pending:
                color[node] = 2
                stack.pop()
                path.pop()
                continue
            nxt = pending.pop(0)
            if color[nxt] == 1:
                return [*path[path.index(nxt) :], nxt]
            if color[nxt] == 0:
                color[nxt] = 1
                path.append(nxt)
                stack.append((nxt, sorted(graph.before[nxt])))
    return None


def cycles(graph: Graph) -> list[list[str]]:
    """One cycle (as ``find_cycle`` gives it) for every group of nodes that depend on
    each other, in the order of their first node."""
    found = []
    for group in strongly_connected(graph):
        if len(group) < 2:
            continue
        members = set(group)
        inner = Graph()
        for node in group:
            inner.add_node(node)
        for node in group:
            for first in graph.before[node] & members:
                inner.add_edge(first, node)
        cycle = find_cycle(inner)
        if cycle:
            found.append(cycle)
    return found


def strongly_connected(graph: Graph) -> list[list[str]]:
    """The strongly connected components (Tarjan, without recursion); each lists its
    nodes in insertion order, and the components are ordered by their first node."""
    position = {node: number for number, node in enumerate(graph.nodes)}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    groups: list[list[str]] = []
    for root in graph.nodes:
        if root in index:
            continue
        work: list[tuple[str, list[str]]] = [(root, sorted(graph.before[root]))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, pending = work[-1]
            if pending:
                nxt = pending.pop()
                if nxt not in index:
                    index[nxt] = low[nxt] = len(index)
                    stack.append(nxt)
                    on_stack.add(nxt)
                    work.append((nxt, sorted(graph.before[nxt])))
                elif nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                group: list[str] = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    group.append(member)
                    if member == node:
                        break
                groups.append(sorted(group, key=position.__getitem__))
    return sorted(groups, key=lambda group: position[group[0]])


def dependencies_of(resource: Resource, known_ids: Iterable[str]) -> list[str]:
    """Explicit ``dependsOn`` plus reference targets, without duplicates."""
    ids = list(known_ids)
    found: list[str] = []
    for target in [*resource.depends_on, *reference_targets(resource.attributes, ids)]:
        if target not in found and target != resource.id:
            found.append(target)
    return found


def spec_graph(spec: Spec) -> Graph:
    graph = Graph()
    ids = [resource.id for resource in spec.resources]
    for resource in spec.resources:
        graph.add_node(resource.id)
    for resource in spec.resources:
        for dependency in dependencies_of(resource, ids):
            graph.add_edge(dependency, resource.id)
    return graph


def apply_graph(spec: Spec, prior: Mapping[str, Resource]) -> tuple[Graph, list[str]]:
    """The spec graph plus deletion nodes for resources only in state."""
    graph = spec_graph(spec)
    planned = set(graph.nodes)
    deletions = [resource_id for resource_id in prior if resource_id not in planned]
    for resource_id in deletions:
        graph.add_node(resource_id)
    for resource_id in deletions:
        for dependency in prior[resource_id].depends_on:
            if dependency in deletions:
                graph.add_edge(resource_id, dependency)  # dependents first
    return graph, deletions


def destroy_graph(prior: Mapping[str, Resource]) -> Graph:
    """Every recorded resource; a dependent is deleted before what it depends on."""
    graph = Graph()
    for resource_id in prior:
        graph.add_node(resource_id)
    for resource_id, resource in prior.items():
        for dependency in resource.depends_on:
            if dependency in prior:
                graph.add_edge(resource_id, dependency)
    return graph
