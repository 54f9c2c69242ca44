"""Packages: ``kcl.mod`` / ``kcl.mod.lock``, dependency resolution, the package cache,
OCI registries (through ``oras``), git and path sources, and the ``kcl mod`` operations.

Takes module folders and package references; returns resolved package folders and
plain data. No compiler imports: the loader consumes :func:`resolve` results.

Modules: ``manifest`` (the two files), ``settings`` (cache folder, default registry,
credentials), ``archive`` (tar layout, checksums, atomic installs), ``oci`` and
``git`` (sources), ``resolution`` (resolve), ``operations`` (init, add, remove,
update, pull, push, package, graph, metadata, login, logout), ``entries`` (what
``kcl run`` runs), ``sources`` (what a package source names: git, OCI, archive),
``command`` (the ``kcl mod`` / ``kcl registry`` command lines).
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from kclpy.mod.errors import PackageError

_OPERATIONS = frozenset(
    [
        "add",
        "graph",
        "init",
        "login",
        "logout",
        "metadata",
        "package",
        "parse_spec",
        "pull",
        "push",
        "remove",
        "update",
        "vendor_dependencies",
    ]
)
_RESOLUTION = frozenset(["Resolved", "Resolver", "dependency_paths", "resolve"])
_MANIFEST = frozenset(["Dependency", "Locked", "ModFile", "read_lock", "read_mod"])


def __getattr__(name: str) -> Any:
    """The operations, imported on first use (``kcl run`` and the parser stay cheap:
    every command imports :mod:`kclpy.mod.progress`, so this package imports nothing)."""
    if name == "PackageError":
        from kclpy.mod.errors import PackageError

        return PackageError
    if name in _OPERATIONS:
        from kclpy.mod import operations

        return getattr(operations, name)
    if name in _RESOLUTION:
        from kclpy.mod import resolution

        return getattr(resolution, name)
    if name in _MANIFEST:
        from kclpy.mod import manifest

        return getattr(manifest, name)
    raise AttributeError(f"module 'kclpy.mod' has no attribute {name!r}")


__all__ = ["PackageError", *sorted(_OPERATIONS | _RESOLUTION | _MANIFEST)]
