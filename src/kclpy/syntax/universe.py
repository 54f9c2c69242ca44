"""The names the language itself provides, declared once for every stage.

Owns the set of system modules (``import math``, ``import yaml``, ...): the loader
resolves imports against it, sema declares them, the VM registry loads their
implementations and the tools and language server list them. Takes nothing and
imports nothing from the project, so every stage may read it.
"""

from __future__ import annotations

SYSTEM_MODULES = frozenset(
    [
        "base64",
        "base32",
        "json",
        "yaml",
        "toml",
        "math",
        "regex",
        "datetime",
        "net",
        "units",
        "crypto",
        "file",
        "template",
        "runtime",
        "collection",
        "manifests",
    ]
)
