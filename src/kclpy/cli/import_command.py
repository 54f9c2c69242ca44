"""``kcl import``: data, JSON Schema, OpenAPI and CRDs to KCL (the work is in
:mod:`kclpy.tools.importer`, whose ``command`` module holds the arguments)."""

from __future__ import annotations

import argparse

from kclpy.cli.base import Command, add_style_options, note


def _configure(parser: argparse.ArgumentParser) -> None:
    from kclpy.tools.importer.command import add_arguments

    add_arguments(parser)
    add_style_options(parser)


def _handle(args: argparse.Namespace) -> int:
    import contextlib
    import os

    from kclpy.tools.importer.command import main

    where = {"-": "standard output", "": "the current folder"}.get(args.output, args.output)
    note(args, f"reading {' '.join(args.files)}; the KCL goes to {where}")
    if not args.quiet:
        return main(args)
    with open(os.devnull, "w") as nowhere, contextlib.redirect_stdout(nowhere):  # -q: no KCL
        return main(args)


COMMAND = Command(
    name="import",
    help="convert data, JSON Schema, OpenAPI and CRDs to KCL (docs/import.md)",
    description=(
        "Convert JSON, YAML or TOML data to KCL configuration, and JSON Schema, "
        "OpenAPI (v2, v3) or Kubernetes CRDs to KCL schemas with check blocks."
    ),
    examples=(
        "examples:\n"
        "  kcl import data.json                  # data.json -> data.k (KCL configuration)\n"
        "  kcl import -m yaml -o - values.yaml   # print the KCL of a YAML file\n"
        "  kcl import -m jsonschema schema.json  # JSON Schema -> schema.k\n"
        "  kcl import -m openapi swagger.json    # OpenAPI v2/v3 models -> models/*.k\n"
        "  kcl import -m crd -o src crd.yaml     # CRDs -> src/models/<version>/*.k\n"
        "  kcl import --max-input-size 2G --max-memory 4G big.json  # bounds (default 1G, auto)"
    ),
    configure=_configure,
    handle=_handle,
)
