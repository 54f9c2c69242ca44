"""The Kusion data model shared by every part of the backend.

Owns the plain values that flow between spec parsing, the graph, the engine,
the state backends and the runtimes: ``Resource`` (one entry of a Kusion Spec
or of the recorded state), ``Spec``, the ``Action`` of a change step, the
``ChangeStep`` / ``ChangeOrder`` that preview produces, and the error types.
Nothing here performs I/O.
"""

from __future__ import annotations

import copy
import enum
import json
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

import attrs

from kclpy.diag import Code, Diagnostic, make_error
from kclpy.source import Span

JsonObject = dict[str, Any]

KUBERNETES = "Kubernetes"
TERRAFORM = "Terraform"
LOCAL = "Local"
BUILTIN_TYPES = (KUBERNETES, TERRAFORM, LOCAL)

REFERENCE_PREFIX = "$kusion_path."

# Marks a value that a runtime can only know after the real apply.
UNKNOWN = "(known after apply)"


class KusionError(Exception):
    """A user-facing error: bad input, refused operation, failed runtime call.

    Each class names its diagnostic ``code``; ``span`` points into the file at fault
    when there is one; ``diagnostics`` are those of a failed ``kcl run`` of the
    program, printed as they are instead of this error's own diagnostic.
    """

    code: ClassVar[Code] = Code.KUSION_ERROR

    def __init__(
        self, message: str, span: Span | None = None, diagnostics: Sequence[Diagnostic] = ()
    ) -> None:
        super().__init__(message)
        self.message = message
        self.span = span
        self.kcl_diagnostics = list(diagnostics)

    def diagnostics(self) -> list[Diagnostic]:
        """What the command prints: the program's diagnostics, or this error's own."""
        return self.kcl_diagnostics or [make_error(self.code, self.message, self.span)]


class SpecError(KusionError):
    """The spec is invalid (duplicate ids, unknown types, cycles, ...)."""

    code = Code.SPEC_ERROR


@attrs.frozen
class Problem:
    """One thing wrong with a spec, where the spec file shows it (``span``) if known."""

    message: str
    span: Span | None = None


def spec_error(title: str, problems: Sequence[Problem]) -> SpecError:
    """All ``problems`` in one error: its text lists them under ``title``; it prints
    as one located diagnostic per problem."""
    message = title + ":\n  " + "\n  ".join(problem.message for problem in problems)
    diagnostics = [
        make_error(Code.SPEC_ERROR, problem.message, problem.span) for problem in problems
    ]
    return SpecError(message, diagnostics=diagnostics)


class StateLockedError(KusionError):
    """Another apply or destroy holds the release lock of this project."""

    code = Code.STATE_LOCKED


class RuntimeFailure(KusionError):
    """A runtime could not read, apply or delete a resource."""

    code = Code.RUNTIME_FAILURE


class StateUnavailableError(KusionError):
    """The state backend cannot be reached (a database outage); outcomes go to the journal."""

    code = Code.STATE_UNAVAILABLE


class LockLostError(KusionError):
    """This operation's release was unlocked by someone else (``state unlock --force``)."""

    code = Code.LOCK_LOST


class Action(enum.Enum):
    """What preview decided for one resource."""

    CREATE = "Create"
    UPDATE = "Update"
    DELETE = "Delete"
    UNCHANGED = "UnChanged"

    def __str__(self) -> str:
        return self.value


@attrs.define
class Resource:
    """One Kusion resource; ``runtime_data`` is private runtime bookkeeping in state."""

    id: str
    type: str
    attributes: JsonObject = attrs.field(factory=dict)
    depends_on: list[str] = attrs.field(factory=list)
    extensions: JsonObject = attrs.field(factory=dict)
    runtime_data: JsonObject = attrs.field(factory=dict)

    def to_json(self, with_runtime_data: bool = True) -> JsonObject:
        document: JsonObject = {"id": self.id, "type": self.type, "attributes": self.attributes}
        if self.depends_on:
            document["dependsOn"] = list(self.depends_on)
        if self.extensions:
            document["extensions"] = self.extensions
        if with_runtime_data and self.runtime_data:
            document["runtimeData"] = self.runtime_data
        return document

    @classmethod
    def from_json(cls, document: Mapping[str, Any]) -> Resource:
        return cls(
            id=str(document["id"]),
            type=str(document["type"]),
            attributes=dict(document.get("attributes") or {}),
            depends_on=[str(item) for item in document.get("dependsOn") or []],
            extensions=dict(document.get("extensions") or {}),
            runtime_data=dict(document.get("runtimeData") or {}),
        )

    def copy(self) -> Resource:
        return copy.deepcopy(self)


@attrs.define
class Spec:
    """An ordered list of resources with unique ids.

    ``origins[i]`` is where ``resources[i]`` was read (a ``located.Located``), so that
    problems found later point into the spec file; absent for a spec built in code.
    """

    resources: list[Resource] = attrs.field(factory=list)
    origins: dict[int, Any] = attrs.field(factory=dict, repr=False, eq=False)

    def by_id(self) -> dict[str, Resource]:
        return {resource.id: resource for resource in self.resources}

    def to_json(self) -> JsonObject:
        return {"resources": [item.to_json(with_runtime_data=False) for item in self.resources]}

    @classmethod
    def from_json(cls, document: Mapping[str, Any]) -> Spec:
        return cls([Resource.from_json(item) for item in document.get("resources") or []])


@attrs.define
class ChangeStep:
    """The decision for one resource: ``before`` is live (or prior), ``after`` the dry run."""

    id: str
    action: Action
    before: JsonObject | None
    after: JsonObject | None
    resource_type: str = ""
    # The planned resource (refs unresolved) for Create/Update/UnChanged, the prior for Delete.
    planned: Resource | None = None
    prior: Resource | None = None
    live: Resource | None = None
    # Runtime-reported sensitive paths of (before, after), for masking.
    sensitive: tuple[Any, Any] = (None, None)

    def to_json(self) -> JsonObject:
        return {"id": self.id, "action": self.action.value, "from": self.before, "to": self.after}


@attrs.define
class ChangeOrder:
    """Change steps in graph-walk order."""

    step_keys: list[str] = attrs.field(factory=list)
    steps: dict[str, ChangeStep] = attrs.field(factory=dict)

    def add(self, step: ChangeStep) -> None:
        self.step_keys.append(step.id)
        self.steps[step.id] = step

    def ordered(self) -> list[ChangeStep]:
        return [self.steps[key] for key in self.step_keys]

    def counts(self) -> dict[Action, int]:
        counts = dict.fromkeys(Action, 0)
        for step in self.steps.values():
            counts[step.action] += 1
        return counts

    def has_changes(self) -> bool:
        return any(step.action is not Action.UNCHANGED for step in self.steps.values())


def canonical(value: Any) -> str:
    """A stable text form of a JSON value, for equality checks and hashing."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), default=str)
