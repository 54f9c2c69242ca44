"""What a package source written on a command line names: a git repository, an OCI
reference, a package archive, or (none of these) a file or folder.

A leaf with ``os`` only: ``kcl run`` asks :func:`is_package_source` on every run, and
``kcl mod pull`` (:mod:`kclpy.mod.operations`) asks :func:`is_git_url`.
"""

from __future__ import annotations

import os


def is_git_url(source: str) -> bool:
    """Whether ``source`` names a git repository."""
    if source.startswith(("http://", "https://")):
        return not source.endswith((".tar", ".tgz"))
    return source.endswith(".git") or source.startswith(("git@", "git://", "file://", "ssh://"))


def is_package_source(item: str) -> bool:
    """Whether a ``kcl run`` input names a package rather than a file or folder."""
    if item.startswith("oci://") or item.endswith((".tar", ".tgz")):
        return True
    return is_git_url(item) and not os.path.exists(item)
