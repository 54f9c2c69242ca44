"""``kcl lint``: type errors and lint rules of KCL programs, with ``--fix``.

Takes paths and rule selections; returns 1 when there are findings, else 0.
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import Any

from kclpy.cli.base import (
    EXIT_OK,
    EXIT_PROGRAM_ERROR,
    Command,
    CommandError,
    add_style_options,
    externals,
    note,
    write_output,
)

EXAMPLES = """examples:
  kcl lint ./...                          # the current folder and below
  kcl lint main.k --format concise        # path:line:col lines
  kcl lint . --select W0411 --fix         # remove unused imports
  kcl lint . --format sarif > lint.sarif  # for code-scanning tools"""


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "paths", nargs="*", default=["."], help="files, package folders, folder/... (default .)"
    )
    parser.add_argument("--select", help="only these codes, prefixes or rule names (comma list)")
    parser.add_argument("--ignore", help="not these codes, prefixes or rule names (comma list)")
    parser.add_argument(
        "--format",
        choices=["text", "concise", "json", "github", "sarif"],
        default="text",
        help="the report's format (default text)",
    )
    parser.add_argument("--fix", action="store_true", help="remove unused and repeated imports")
    parser.add_argument("--max-line-length", type=int, help="for E0501 (default 200)")
    parser.add_argument(
        "-E",
        "--external",
        metavar="NAME=PATH",
        action="append",
        default=[],
        help="where the external package NAME is (a folder)",
    )
    add_style_options(parser)


def handle(args: argparse.Namespace) -> int:
    """Print the findings; exit 1 when there are any, 0 when clean."""
    from kclpy.diag.render import use_colour
    from kclpy.tools.lint import LintConfigError, fixed_texts, lint, render_report, split_selectors

    for path in args.paths:
        base = path[: -len("...")].rstrip("/") or "." if path.endswith("...") else path
        if not os.path.exists(base):
            raise CommandError(f"no such file or folder: {path}")
    options: dict[str, Any] = {
        "select": split_selectors(args.select),
        "ignore": split_selectors(args.ignore),
        "max_line_length": args.max_line_length,
        "external_pkgs": externals(args.external),
    }
    try:
        note(args, "linting " + " ".join(args.paths))
        report = lint(args.paths, **options)
        if args.fix:
            texts, fixed = fixed_texts(report)
            for path, text in texts.items():
                write_output(path, text)
            if texts:
                report = lint(args.paths, **options)
            if not args.quiet:
                sys.stderr.write(f"Fixed {fixed} finding{'s' if fixed != 1 else ''}.\n")
    except LintConfigError as error:
        raise CommandError(str(error)) from None
    colour = args.format == "text" and not args.no_style and use_colour(sys.stdout)
    if report.diagnostics or not args.quiet:  # -q: not "All checks passed!"
        sys.stdout.write(render_report(report, args.format, colour))
    return EXIT_PROGRAM_ERROR if report.diagnostics else EXIT_OK


COMMAND = Command(
    name="lint",
    help="report errors and lint warnings of KCL programs",
    description="Type-check KCL programs and apply the lint rules (see docs/lint.md).",
    examples=EXAMPLES,
    configure=configure,
    handle=handle,
)
