"""``kcl import``: other formats to KCL (the reference's ``kcl import``).

Modes: ``json`` / ``yaml`` / ``toml`` data to KCL configuration (``data``);
``jsonschema``, ``openapi`` (v2 and v3) and ``crd`` (Kubernetes CRDs) to KCL
schemas with ``check:`` blocks (``model`` translates, ``printer`` prints);
``auto`` picks one from the input (``inputs.detect_mode``). ``convert`` runs a
conversion and writes its files; ``command`` is the ``kcl import`` subcommand.
This module holds only the mode names, so the command line can declare its
options without loading the converters.
"""

from __future__ import annotations

DATA_MODES = ("json", "yaml", "toml")
SCHEMA_MODES = ("jsonschema", "openapi", "crd")
MODES = ("auto", *DATA_MODES, *SCHEMA_MODES)
