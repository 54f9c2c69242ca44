"""``kcl fmt``: format KCL files in place, or check / diff them, or format stdin.

Takes paths (files, folders, ``folder/...``, ``-``); returns the exit code.
"""

from __future__ import annotations

import argparse
import sys

from kclpy.cli.base import (
    EXIT_OK,
    EXIT_PROGRAM_ERROR,
    Command,
    add_style_options,
    note,
    report,
    say,
    write_output,
)

EXAMPLES = """examples:
  kcl fmt                  # every .k file of the current folder
  kcl fmt ./...            # and of its sub-folders
  kcl fmt main.k --diff    # show the changes, write nothing
  kcl fmt --check models/  # exit 1 if a file would change (CI)
  cat main.k | kcl fmt -   # standard input to standard output"""


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "paths", nargs="*", default=["."], help="files, folders, folder/... or - (default .)"
    )
    parser.add_argument(
        "--check",
        "--dry-run",
        dest="check",
        action="store_true",
        help="list the files that would change, write nothing; exit 1 if any",
    )
    parser.add_argument("--diff", action="store_true", help="print the changes as a diff")
    add_style_options(parser)


def handle(args: argparse.Namespace) -> int:
    """Rewrite files in place and print the changed paths; ``--check`` and ``--diff``
    write nothing and exit 1 when a file would change; ``-`` formats standard input
    to standard output. A file with syntax errors is reported (exit 1) and left as it
    is; the other files are formatted. A symlinked file is formatted in its target."""
    from kclpy.tools.format import kcl_files

    would_change = failed = False
    for path in args.paths:
        try:
            files = ["-"] if path == "-" else kcl_files(path)
        except OSError as error:
            sys.stderr.write(f"error[E9001]: IOError\n{error}\n")
            failed = True
            continue
        note(args, f"{path}: {len(files)} file{'s' if len(files) != 1 else ''}")
        for file in files:
            outcome = _format_one(file, args)
            failed = failed or outcome is None
            would_change = would_change or bool(outcome)
    if failed:
        return EXIT_PROGRAM_ERROR
    return EXIT_PROGRAM_ERROR if would_change and (args.check or args.diff) else EXIT_OK


def _format_one(file: str, args: argparse.Namespace) -> bool | None:
    """Format one file (or ``-``): whether it changed; None when it failed."""
    from kclpy.tools.format import FormatError, format_code, read_verbatim, unified_diff

    try:
        before = sys.stdin.read() if file == "-" else read_verbatim(file)
        after = format_code(before, filename="<stdin>" if file == "-" else file)
    except FormatError as error:
        report(error.diagnostics, args.no_style)
        return None
    except (OSError, ValueError) as error:  # unreadable, not UTF-8
        sys.stderr.write(f"error[E9001]: IOError\n{file}: {error}\n")
        return None
    if file == "-":
        sys.stdout.write(after)
        return False
    if after == before:
        return False
    if args.diff:
        sys.stdout.write(unified_diff(file, before, after))
    else:
        if not args.check:
            write_output(file, after)
        say(args, file)
    return True


COMMAND = Command(
    name="fmt",
    help="format KCL files in place",
    description="Format KCL files as the reference formatter does.",
    examples=EXAMPLES,
    configure=configure,
    handle=handle,
)
