"""Text for people and JSON for programs: preview tables, diffs, progress lines, state.

Every value shown passes through ``display`` first - ``diff.mask_secrets``
(secret-looking keys, Secret data, what the runtime reported sensitive) and
``sensitive.mask_paths`` (what the spec or the provider schema declares
sensitive: ``declared``, by resource id) - so secrets in attributes never reach
the terminal or the JSON output.
"""

from __future__ import annotations

import json
from typing import Any

from kclpy.kusion.diff import ADDED, CHANGED, REMOVED, differences, mask_secrets, value_at
from kclpy.kusion.engine import StepOutcome
from kclpy.kusion.graph import dependencies_of
from kclpy.kusion.model import Action, ChangeOrder, ChangeStep, JsonObject, Resource
from kclpy.kusion.sensitive import Declared, declared_paths, mask_paths
from kclpy.kusion.state.base import Release

SYMBOLS = {Action.CREATE: "+", Action.UPDATE: "~", Action.DELETE: "-", Action.UNCHANGED: " "}


def display(attributes: Any, resource: Resource | None, sensitive: Any, declared: Declared) -> Any:
    """``attributes`` of ``resource`` safe to print (see the module docstring)."""
    masked = mask_secrets(attributes, sensitive)
    if resource is None:
        return masked
    return mask_paths(masked, declared_paths(resource, declared))


def _step_sides(step: ChangeStep, declared: Declared) -> tuple[Any, Any]:
    resource = step.planned or step.prior
    before = display(step.before, resource, step.sensitive[0], declared)
    return before, display(step.after, resource, step.sensitive[1], declared)


def masked_step(step: ChangeStep, declared: Declared | None = None) -> JsonObject:
    document = step.to_json()
    document["from"], document["to"] = _step_sides(step, declared or {})
    return document


def order_json(order: ChangeOrder, declared: Declared | None = None) -> str:
    """``{"stepKeys": [...], "changeSteps": {id: {id, action, from, to}}}`` with secrets masked."""
    document = {
        "stepKeys": list(order.step_keys),
        "changeSteps": {step.id: masked_step(step, declared) for step in order.ordered()},
    }
    return json.dumps(document, indent=2, default=str)


def order_table(order: ChangeOrder) -> str:
    steps = order.ordered()
    if not steps:
        return "No resources."
    width = max(len("ID"), *(len(step.id) for step in steps))
    lines = [f"  {'ID':<{width}}  ACTION"]
    for step in steps:
        lines.append(f"{SYMBOLS[step.action]} {step.id:<{width}}  {step.action.value}")
    lines.append("")
    lines.append(summary_line(order))
    return "\n".join(lines)


def summary_line(order: ChangeOrder) -> str:
    if not order.has_changes():
        return "All resources are reconciled. No diff found."
    counts = order.counts()
    return (
        f"Plan: {counts[Action.CREATE]} to create, {counts[Action.UPDATE]} to update, "
        f"{counts[Action.DELETE]} to delete, {counts[Action.UNCHANGED]} unchanged."
    )


def order_detail(
    order: ChangeOrder, show_unchanged: bool = False, declared: Declared | None = None
) -> str:
    """A per-resource diff of live (or prior) against the planned result."""
    blocks = [
        step_detail(step, declared)
        for step in order.ordered()
        if show_unchanged or step.action is not Action.UNCHANGED
    ]
    return "\n\n".join(blocks) if blocks else "No changes."


def step_detail(step: ChangeStep, declared: Declared | None = None) -> str:
    header = f"{SYMBOLS[step.action]} {step.id} ({step.action.value})"
    before_mask, after_mask = _step_sides(step, declared or {})
    if step.action is Action.CREATE:
        return header + "\n" + _tree(after_mask, "+ ")
    if step.action is Action.DELETE:
        return header + "\n" + _tree(before_mask, "- ")
    lines = [header]
    for item in differences(step.before or {}, step.after or {}):
        old = _short(value_at(before_mask, item.path))
        new = _short(value_at(after_mask, item.path))
        if item.kind == ADDED:
            lines.append(f"    + {item.dotted()}: {new}")
        elif item.kind == REMOVED:
            lines.append(f"    - {item.dotted()}: {old}")
        elif item.kind == CHANGED:
            lines.append(f"    ~ {item.dotted()}: {old} -> {new}")
    if len(lines) == 1:
        lines.append("    (no differences)")
    return "\n".join(lines)


def _tree(value: Any, prefix: str) -> str:
    text = json.dumps(value, indent=2, sort_keys=False, default=str)
    return "\n".join(f"    {prefix}{line}" for line in text.splitlines())


def _short(value: Any) -> str:
    text = json.dumps(value, sort_keys=True, default=str)
    return text if len(text) <= 120 else text[:117] + "..."


def progress_line(outcome: StepOutcome, dry_run: bool = False) -> str:
    width = len(str(outcome.total))
    counter = f"[{outcome.done:>{width}}/{outcome.total}]"
    status = outcome.status + (" (dry run)" if dry_run and outcome.status == "succeeded" else "")
    line = f"{counter} {outcome.action.value:<9} {outcome.id}  {status}"
    if outcome.seconds >= 0.05:
        line += f" in {outcome.seconds:.1f}s"
    if outcome.error:
        line += f": {outcome.error}"
    return line


def release_text(release: Release) -> str:
    lines = [
        f"Project:   {release.project}",
        f"Workspace: {release.workspace}",
        f"Revision:  {release.revision} ({release.operation}, {release.phase})",
        f"Owner:     {release.owner}",
        f"Created:   {release.created_at}   Modified: {release.modified_at}",
    ]
    if release.error:
        lines.append(f"Error:     {release.error}")
    lines.append(f"Resources: {len(release.resources)}")
    for resource in release.resources:
        lines.append(f"  {resource.id}  ({resource.type})")
    return "\n".join(lines)


def release_json(release: Release, declared: Declared | None = None) -> str:
    document = release.to_json()
    declared = declared or {}
    for item in document["resources"]:
        resource = Resource.from_json(item)
        sensitive = resource.runtime_data.get("sensitive")
        item["attributes"] = display(item["attributes"], resource, sensitive, declared)
        if "extensions" in item:
            item["extensions"] = mask_secrets(item["extensions"])
        item.pop("runtimeData", None)
    document["spec"] = {
        "resources": [
            {
                **item,
                "attributes": display(
                    item.get("attributes"), _resource_or_none(item), None, declared
                ),
                "extensions": mask_secrets(item.get("extensions") or {}),
            }
            for item in (release.spec.get("resources") or [])
            if isinstance(item, dict)
        ]
    }
    return json.dumps(document, indent=2, default=str)


def _resource_or_none(item: JsonObject) -> Resource | None:
    try:
        return Resource.from_json(item)
    except (KeyError, TypeError, ValueError):
        return None


def graph_document(resources: list[Resource], title: JsonObject) -> JsonObject:
    """Kusion's ``resource graph``: each resource with what it depends on and its dependents."""
    known = [resource.id for resource in resources]
    dependencies = {resource.id: dependencies_of(resource, known) for resource in resources}
    nodes: JsonObject = {}
    for resource in resources:
        nodes[resource.id] = {
            "id": resource.id,
            "type": resource.type,
            "dependencies": dependencies[resource.id],
            "dependents": [other for other in known if resource.id in dependencies[other]],
        }
    return {**title, "resources": nodes}


def graph_json(resources: list[Resource], title: JsonObject) -> str:
    return json.dumps(graph_document(resources, title), indent=2)


def graph_dot(resources: list[Resource], title: JsonObject) -> str:
    """The graph in Graphviz DOT; an edge points from a dependency to its dependent."""
    document = graph_document(resources, title)
    name = json.dumps(f"{title.get('project', 'kusion')}/{title.get('workspace', 'default')}")
    lines = [f"digraph {name} {{", "  rankdir=LR;"]
    for node in document["resources"].values():
        label = json.dumps(node["id"])[1:-1] + "\\n" + json.dumps(node["type"])[1:-1]
        lines.append(f'  {json.dumps(node["id"])} [label="{label}"];')
    for node in document["resources"].values():
        for dependency in node["dependencies"]:
            lines.append(f"  {json.dumps(dependency)} -> {json.dumps(node['id'])};")
    lines.append("}")
    return "\n".join(lines)


def history_text(releases: list[Release]) -> str:
    if not releases:
        return "No releases."
    lines = ["REVISION  OPERATION  PHASE       RESOURCES  MODIFIED"]
    for release in releases:
        lines.append(
            f"{release.revision:<9} {release.operation:<10} {release.phase:<11} "
            f"{len(release.resources):<10} {release.modified_at}"
        )
    return "\n".join(lines)
