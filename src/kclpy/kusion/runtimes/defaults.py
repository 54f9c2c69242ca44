"""The default runtimes of a Kusion operation: Kubernetes (official client), Terraform
(real CLI) and Local (files), each created on the first resource of its type.

``default_runtimes(workdir, project, workspace, settings)`` returns the registry
(:class:`~kclpy.kusion.runtimes.base.Runtimes`) of their factories. Each runtime's
module is imported in its factory, so a spec without Kubernetes resources never
imports the client (nor a Terraform one the Terraform runtime).
"""

from __future__ import annotations

from pathlib import Path

import attrs

from kclpy.kusion.model import KUBERNETES, LOCAL, TERRAFORM
from kclpy.kusion.private import safe_name
from kclpy.kusion.runtimes.base import Runtime, Runtimes


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
        from kclpy.kusion.runtimes.terraform import TerraformRuntime

        base = workdir / ".kusion" / "terraform" / safe_name(project) / safe_name(workspace)
        return TerraformRuntime(base, cache_directory=cache)

    def local() -> Runtime:
        from kclpy.kusion.runtimes.local import LocalRuntime

        return LocalRuntime(workdir, settings.local_roots)

    return Runtimes({KUBERNETES: kubernetes, TERRAFORM: terraform, LOCAL: local})
