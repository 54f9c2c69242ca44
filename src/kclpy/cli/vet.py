"""``kcl vet DATA CODE``: validate JSON or YAML data against a schema of a KCL file.

Takes the data file (``-`` for stdin), the code file and the schema options;
prints "Validate success!" or diagnostics pointing into the data file.
"""

from __future__ import annotations

import argparse
import sys

from kclpy.cli.base import (
    EXIT_OK,
    EXIT_PROGRAM_ERROR,
    Command,
    add_style_options,
    externals,
    note,
    read_text,
    report,
    say,
)
from kclpy.diag import Diagnostic

EXAMPLES = """examples:
  kcl vet data.json schema.k               # the first schema of schema.k
  kcl vet data.yaml schema.k -s User       # YAML by its extension
  cat data.yaml | kcl vet - schema.k --format yaml"""


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("data", help="the data file, .json, .yaml or .yml (- for stdin)")
    parser.add_argument("code", help="the .k file with the schema")
    parser.add_argument("-s", "--schema", help="the schema name (default: the first schema)")
    parser.add_argument(
        "-a",
        "--attribute_name",
        "--attribute-name",
        dest="attribute_name",
        default="value",
        help="the name the data gets in the validation program (default value)",
    )
    parser.add_argument(
        "--format",
        choices=["json", "yaml"],
        default=None,
        help="the data's format (default: by the file's extension, else json)",
    )
    parser.add_argument(
        "--output",
        choices=["text", "json"],
        default="text",
        help="text, or a JSON report {success, errCount, errors, message} on stdout",
    )
    parser.add_argument(
        "-E",
        "--external",
        metavar="NAME=PATH",
        action="append",
        default=[],
        help="where the external package NAME the schema imports is (a folder)",
    )
    add_style_options(parser)


def handle(args: argparse.Namespace) -> int:
    from kclpy.api import validate_code

    data = read_text(args.data)
    code = read_text(args.code)
    data_format = args.format or ("yaml" if args.data.endswith((".yaml", ".yml")) else "json")
    note(
        args,
        f"{args.data} read as {data_format}, validated against {args.schema or 'the first schema'}",
    )
    diagnostics = validate_code(
        code,
        data,
        format=data_format,
        schema=args.schema,
        attribute_name=args.attribute_name,
        filename=args.code,
        data_filename="<stdin>" if args.data == "-" else args.data,
        external_pkgs=externals(args.external),
    )
    if args.output == "json":
        _print_json(diagnostics)
        return EXIT_PROGRAM_ERROR if diagnostics else EXIT_OK
    if diagnostics:
        return report(diagnostics, args.no_style)
    say(args, "Validate success!")
    return EXIT_OK


def _print_json(diagnostics: list[Diagnostic]) -> None:
    from kclpy.diag.render import to_json

    errors = [to_json(diagnostic) for diagnostic in diagnostics]
    document = {
        "success": not errors,
        "errCount": len(errors),
        "errors": errors,
        "message": "Validate success!" if not errors else "Validate failed",
    }
    import json  # (not at import: every command imports this module)

    sys.stdout.write(json.dumps(document, indent=4, ensure_ascii=False) + "\n")


COMMAND = Command(
    name="vet",
    help="validate JSON or YAML data against a KCL schema",
    description="Validate data against a schema: types, defaults, check blocks and\n"
    "strictness apply as in KCL; errors point at the data file's line and column.",
    examples=EXAMPLES,
    configure=configure,
    handle=handle,
)
