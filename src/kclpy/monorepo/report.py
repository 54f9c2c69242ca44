"""The data a build passes around: a stack's job, its compiled output, its result,
and the report of the whole build (summary line and JSON).

Jobs and outputs are plain picklable records: they travel to worker processes and
to Dask workers and back.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any, Literal, Protocol

import attrs

Status = Literal["ok", "unchanged", "changed", "updated", "failed"]


@attrs.frozen
class StackJob:
    """What a worker needs to compile one stack."""

    name: str
    path: str
    files: tuple[str, ...]
    options: tuple[str, ...] = ()
    externals: tuple[tuple[str, str], ...] = ()
    flags: tuple[str, ...] = ()


@attrs.frozen
class StackOutput:
    """A compiled stack: its YAML text, or its rendered diagnostics."""

    name: str
    ok: bool
    text: str
    errors: str
    seconds: float
    locks: tuple[str, ...] = ()  # the kcl.mod.lock files compiling it wrote


class CompileStack(Protocol):
    """The function that compiles one stack (kclpy's pipeline, handed in by the API)."""

    def __call__(self, job: StackJob) -> StackOutput: ...


@attrs.frozen
class StackResult:
    """The outcome of one stack in a build."""

    stack: str
    status: Status
    seconds: float
    output_sha256: str | None = None
    diagnostics: str = ""
    diff: str = ""

    def to_json(self) -> dict[str, Any]:
        data = attrs.asdict(self)
        if not self.diff:
            data.pop("diff")
        return data


@attrs.define
class BuildReport:
    """Every stack's result, in stack order, and the build's wall time."""

    results: list[StackResult] = attrs.field(factory=list)
    seconds: float = 0.0
    affected_only: bool = False
    locks_written: list[str] = attrs.field(factory=list)  # kcl.mod.lock files, in order

    def count(self, *statuses: Status) -> int:
        return sum(1 for result in self.results if result.status in statuses)

    @property
    def failed(self) -> int:
        return self.count("failed")

    @property
    def changed(self) -> int:
        return self.count("changed", "updated")

    @property
    def ok(self) -> bool:
        return not self.failed and not self.count("changed")

    def summary(self) -> str:
        built = len(self.results) - self.failed
        return (
            f"{built} built, {self.changed} changed, {self.failed} failed in {self.seconds:.1f} s"
        )

    def to_json(self) -> str:
        document = {
            "summary": {
                "stacks": len(self.results),
                "built": len(self.results) - self.failed,
                "changed": self.changed,
                "failed": self.failed,
                "seconds": round(self.seconds, 3),
            },
            "stacks": [result.to_json() for result in self.results],
            "locks_written": self.locks_written,
        }
        return json.dumps(document, indent=2, ensure_ascii=False) + "\n"


def output_digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def crashed(job: StackJob, detail: str) -> StackOutput:
    """The output of a stack whose worker died (after its retry)."""
    return StackOutput(job.name, False, "", f"error: the worker crashed ({detail})\n", 0.0)
