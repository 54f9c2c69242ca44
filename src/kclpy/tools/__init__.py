"""Tools built on the front end: overrides (``-O``), variable and option listing,
schema type mappings (and later fmt, lint, doc, test, vet).

Tools may import ``syntax``, ``loader``, ``sema`` and ``diag``; never the
compiler or the VM.
"""
