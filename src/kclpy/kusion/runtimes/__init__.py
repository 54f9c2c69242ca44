"""Runtimes: Kubernetes (official client), Terraform (real CLI) and Local (plain files).

See ``base.Runtime`` for the interface and ``defaults.default_runtimes`` for the registry.
"""

from __future__ import annotations

from kclpy.kusion.runtimes.base import Runtime, RuntimeFactory, Runtimes
from kclpy.kusion.runtimes.defaults import default_runtimes

__all__ = ["Runtime", "RuntimeFactory", "Runtimes", "default_runtimes"]
