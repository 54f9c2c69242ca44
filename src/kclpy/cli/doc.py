"""``kcl doc`` (and the real CLI's spelling ``kcl doc generate``): the schemas of a
package as Markdown or JSON Schema.

Takes a file or package folder; prints the document or writes it (``-o``,
``--target``); returns the exit code.
"""

from __future__ import annotations

import argparse
import os
import sys

from kclpy.cli.base import (
    EXIT_OK,
    EXIT_PROGRAM_ERROR,
    Command,
    CommandError,
    add_style_options,
    note,
    report,
    say,
)
from kclpy.cli.base import write_output as write_file
from kclpy.diag import Code

GENERATE_WORDS = ("generate", "gen", "g")
EXAMPLES = """examples:
  kcl doc models                      # Markdown on stdout
  kcl doc generate --file-path models --target .   # writes ./docs/models.md
  kcl doc models --format json-schema -o schemas.json"""


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "words",
        nargs="*",
        metavar="[generate] PATH",
        help="a .k file or package folder (default .); 'generate' may come first",
    )
    parser.add_argument("--file-path", dest="file_path", help="the package (as PATH)")
    parser.add_argument(
        "--format",
        choices=["md", "markdown", "json-schema"],
        default="md",
        help="md (default) or json-schema",
    )
    parser.add_argument("-o", "--output", help="write to this file (atomically)")
    parser.add_argument(
        "--target", help="write into TARGET/docs/ (created), named after the package"
    )
    add_style_options(parser)


def handle(args: argparse.Namespace) -> int:
    from kclpy.tools.doc import DocError, generate_doc

    words = list(args.words)
    if words and words[0] in GENERATE_WORDS and not os.path.exists(words[0]):
        words.pop(0)
    paths = [*words, *([args.file_path] if args.file_path else [])]
    if len(paths) > 1:
        raise CommandError(f"one package at a time, got {len(paths)}: {' '.join(paths)}")
    path = paths[0] if paths else "."
    doc_format = "md" if args.format == "markdown" else args.format
    note(args, f"documenting the package {path}")
    try:
        text = generate_doc(path, doc_format)
    except DocError as error:
        if error.diagnostics:
            return report(error.diagnostics, args.no_style)
        raise CommandError(str(error), Code.IO_ERROR, EXIT_PROGRAM_ERROR) from None
    output = args.output or (_target_file(args.target, path, doc_format) if args.target else "")
    if output:
        write_file(output, text)
        say(args, f"wrote {output}")
    elif not args.quiet:
        sys.stdout.write(text)
    return EXIT_OK


def _target_file(target: str, path: str, doc_format: str) -> str:
    folder = os.path.join(target, "docs")
    os.makedirs(folder, exist_ok=True)
    name = os.path.basename(os.path.abspath(path if os.path.isdir(path) else os.path.dirname(path)))
    return os.path.join(folder, name + (".md" if doc_format == "md" else ".schema.json"))


COMMAND = Command(
    name="doc",
    aliases=("d",),
    help="document the schemas of a package (doc generate)",
    description="Generate the documentation of a package's schemas from their docstrings.",
    examples=EXAMPLES,
    configure=configure,
    handle=handle,
)
