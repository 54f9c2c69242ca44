"""kclpy: a Python implementation of the KCL configuration language and its toolchain.

The public Python API lives in :mod:`kclpy.api`; it is imported lazily so that
``import kclpy`` stays cheap for the command line.
"""

from __future__ import annotations

from typing import Any

__version__ = "0.1.0"

__all__ = ["__version__"]


def __getattr__(name: str) -> Any:
    if name.startswith("__") or name == "api":
        raise AttributeError(name)
    import importlib

    api = importlib.import_module("kclpy.api")
    try:
        return getattr(api, name)
    except AttributeError:
        raise AttributeError(f"module 'kclpy' has no attribute {name!r}") from None
