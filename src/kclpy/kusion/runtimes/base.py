"""The one interface every runtime implements, and the registry that picks them by type
(:class:`Runtimes`; the default runtimes are :mod:`kclpy.kusion.runtimes.defaults`).

A runtime turns a resource into something real and reports what is really
there: ``read`` the live object, ``apply`` (with ``dry_run`` for preview), ``delete``
and ``watch`` until ready. A runtime may also have ``check(resource)``: the
``Rejection`` list of what its ``apply`` would refuse without asking anything
(attribute shapes, paths); its ``apply`` refuses exactly those, and preview
runs the same check on every resource (``rejections``), so a preview that says
Create means apply will try. Runtimes are created lazily, on the first
resource of their type.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping
from typing import Protocol

import attrs

from kclpy.kusion.model import KusionError, Resource, RuntimeFailure


@attrs.frozen
class Rejection:
    """Why a runtime refuses a resource; ``path`` is the part of the resource document
    at fault (``("attributes", "path")``, ``("id",)``, ``("extensions", "provider")``)."""

    message: str
    path: tuple[str | int, ...] = ()


def rejections(runtime: object, resource: Resource) -> list[Rejection]:
    """What ``runtime.check`` finds wrong with ``resource`` (nothing if it has no check)."""
    check = getattr(runtime, "check", None)
    return list(check(resource)) if callable(check) else []


def refuse(rejected: list[Rejection]) -> None:
    """Raise the rejections as one ``RuntimeFailure`` (how ``apply`` refuses)."""
    if rejected:
        raise RuntimeFailure("; ".join(rejection.message for rejection in rejected))


class Runtime(Protocol):
    """Operations on real resources of one type. Must be safe to call from several threads."""

    def read(self, prior: Resource | None, planned: Resource | None) -> Resource | None:
        """The live resource, or None when it does not exist."""

    def apply(self, prior: Resource | None, planned: Resource, dry_run: bool) -> Resource:
        """Create or update ``planned``; return the resource to record in state.

        With ``dry_run`` nothing changes: return what the result would be.
        """

    def delete(self, resource: Resource) -> None:
        """Delete a recorded resource; a resource already gone is not an error."""

    def watch(self, resource: Resource, timeout: float) -> None:
        """Return when the applied resource is ready; raise on timeout."""


RuntimeFactory = Callable[[], Runtime]


class Runtimes:
    """The runtimes of one operation, keyed by resource type and created on first use."""

    def __init__(self, factories: Mapping[str, RuntimeFactory]) -> None:
        self._factories = dict(factories)
        self._created: dict[str, Runtime] = {}
        self._lock = threading.Lock()

    def types(self) -> list[str]:
        return sorted(self._factories)

    def get(self, resource_type: str) -> Runtime:
        with self._lock:
            runtime = self._created.get(resource_type)
            if runtime is None:
                factory = self._factories.get(resource_type)
                if factory is None:
                    raise KusionError(f"no runtime for resource type {resource_type!r}")
                runtime = factory()
                self._created[resource_type] = runtime
            return runtime
