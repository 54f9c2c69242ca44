"""The release's identity: kclpy's version, its distribution name, the KCL version it
implements, and the command that installs an optional part.

A leaf (it imports nothing), so every layer may read it: the compiled-module cache
keys its entries by :data:`__version__`, ``kcl version`` prints it, and a command
that lacks an optional dependency names the install command (:func:`install_hint`).
``kclpy`` re-exports these names; ``pyproject.toml`` reads the version here.
"""

from __future__ import annotations

__version__ = "0.1.0"  # the one version source (pyproject.toml reads it)
# the distribution's name on package indexes (`kclpy` there is an unrelated project)
DISTRIBUTION = "kclpy-toolchain"
# the version of the KCL language kclpy implements (that of the reference kcl-lib)
KCL_VERSION = "0.13.2"


def install_hint(extra: str) -> str:
    """The command that installs kclpy with its optional ``extra`` (``lsp``, ``kusion``...)."""
    return f"pip install '{DISTRIBUTION}[{extra}]'"
