"""The one interface every runtime implements, and the registry that picks them by type.

A runtime turns a resource into something real and reports what is really
there: ``read`` the live object, ``apply`` (with ``dry_run`` for preview), ``delete``
and ``watch`` until ready. A runtime may also have ``check(resource)``: the
``Rejection`` list of what its ``apply`` would refuse without asking anything
(attribute shapes, paths); its ``apply`` refuses exactly those, and preview
runs the same check on every resource (``rejections``), so a preview that says
Create means apply will try. Runtimes are created lazily, on the first
resource of their type, so a spec without Kubernetes resources never imports
the client.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Protocol

import attrs

from kclpy.kusion.model import KUBERNETES, LOCAL, TERRAFORM, KusionError, Resource, RuntimeFailure


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


@attrs.frozen
class RuntimeSettings:
    """What the command line tells the default runtimes.

    ``cluster_timeout``: seconds for connecting to a Kubernetes cluster, its API
    discovery and each request. ``local_roots``: folders besides the working
    directory where ``Local`` resources may write and delete files.
    """

    cluster_timeout: float = 30.0
    local_roots: tuple[Path, ...] = ()


def default_runtimes(
    workdir: Path,
    project: str = "default",
    workspace: str = "default",
    settings: RuntimeSettings | None = None,
) -> Runtimes:
    """Kubernetes (official client), Terraform (real CLI) and Local (files).

    Terraform's working directories are keyed by project and workspace; the
    caches (Kubernetes discovery, Terraform provider schemas) are in
    ``<workdir>/.kusion/cache``.
    """
    settings = settings or RuntimeSettings()
    cache = workdir / ".kusion" / "cache"

    def kubernetes() -> Runtime:
        from kclpy.kusion.runtimes.kubernetes import KubernetesRuntime

        return KubernetesRuntime(timeout=settings.cluster_timeout, cache_directory=cache)

    def terraform() -> Runtime:
        from kclpy.kusion.runtimes.terraform import TerraformRuntime, safe_name

        base = workdir / ".kusion" / "terraform" / safe_name(project) / safe_name(workspace)
        return TerraformRuntime(base, cache_directory=cache)

    def local() -> Runtime:
        from kclpy.kusion.runtimes.local import LocalRuntime

        return LocalRuntime(workdir, settings.local_roots)

    return Runtimes({KUBERNETES: kubernetes, TERRAFORM: terraform, LOCAL: local})
