"""``kcl doc generate`` (also ``kcl doc PATH``): the documentation of a package's
schemas, as the real CLI writes it.

Takes the package (``--file-path`` or PATH: its root folder, or one ``.k`` file) and
writes ``TARGET/docs/NAME.md|html|json`` (``--format md|html|openapi``; TARGET: the
current folder), replacing ``docs/`` as the real tool does; ``-o FILE`` (``-`` for
stdout) writes the one document there instead. ``--format json-schema`` (kclpy's)
writes the JSON Schema of ``kclpy.generate_doc``. Returns the exit code.
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
  kcl doc generate                    # writes ./docs/main.md (NAME.md: kcl.mod's name)
  kcl doc generate --file-path models --target out --format html   # out/docs/NAME.html
  kcl doc generate --format openapi --escape-html
  kcl doc models -o -                 # the Markdown on stdout"""


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
        default="md",
        type=str.lower,
        help="md (default, also markdown), html, openapi; or json-schema",
    )
    parser.add_argument(
        "-o", "--output", help="write the document to this file instead ('-': stdout)"
    )
    parser.add_argument(
        "--target", default="", help="write into TARGET/docs/ (replaced), named after the package"
    )
    parser.add_argument(
        "--escape-html",
        dest="escape_html",
        action="store_true",
        help="escape HTML symbols in Markdown descriptions and defaults",
    )
    parser.add_argument(
        "--ignore-deprecated",
        dest="ignore_deprecated",
        action="store_true",
        help="leave out schemas decorated @deprecated",
    )
    parser.add_argument(
        "--template",
        default="",
        help="custom template folder (relative to the package): not supported by kclpy",
    )
    add_style_options(parser)


def handle(args: argparse.Namespace) -> int:
    words = list(args.words)
    if words and words[0] in GENERATE_WORDS and not os.path.exists(words[0]):
        words.pop(0)
    paths = [*words, *([args.file_path] if args.file_path else [])]
    if len(paths) > 1:
        raise CommandError(f"one package at a time, got {len(paths)}: {' '.join(paths)}")
    path = paths[0] if paths else "."
    doc_format = "md" if args.format == "markdown" else args.format
    note(args, f"documenting the package {path}")
    if doc_format == "json-schema":
        return _json_schema(args, path)
    from kclpy.tools.gendoc import FORMATS, DocError, Options, collect, generate, render

    if doc_format not in FORMATS:
        raise CommandError(f"invalid generate format. Allow values: [{' '.join(FORMATS)}]")
    if args.template:
        raise CommandError("--template: custom Go templates are not supported by kclpy")
    options = Options(doc_format, args.escape_html, args.ignore_deprecated)
    try:
        if args.output:
            _, text = render(collect(path), options)
            return _write(args, args.output, text)
        written = generate(path, args.target, options, lambda line: say(args, line))
    except DocError as error:
        raise CommandError(str(error), Code.IO_ERROR, EXIT_PROGRAM_ERROR) from None
    except OSError as error:
        message = f"doc generate failed: {error.strerror or error}"
        raise CommandError(message, Code.IO_ERROR, EXIT_PROGRAM_ERROR) from None
    say(args, f"doc generate complete and check generated docs in {os.path.dirname(written)}")
    return EXIT_OK


def _json_schema(args: argparse.Namespace, path: str) -> int:
    """kclpy's own format: the JSON Schema of ``kclpy.generate_doc``."""
    from kclpy.tools.doc import DocError, generate_doc

    try:
        text = generate_doc(path, "json-schema")
    except DocError as error:
        if error.diagnostics:
            return report(error.diagnostics, args.no_style)
        raise CommandError(str(error), Code.IO_ERROR, EXIT_PROGRAM_ERROR) from None
    if args.output:
        return _write(args, args.output, text)
    name = os.path.basename(os.path.abspath(path if os.path.isdir(path) else os.path.dirname(path)))
    folder = os.path.join(args.target or ".", "docs")
    os.makedirs(folder, exist_ok=True)
    return _write(args, os.path.join(folder, name + ".schema.json"), text)


def _write(args: argparse.Namespace, output: str, text: str) -> int:
    if output == "-":
        sys.stdout.write(text)
        return EXIT_OK
    write_file(output, text)
    say(args, f"wrote {output}")
    return EXIT_OK


COMMAND = Command(
    name="doc",
    aliases=("d",),
    help="document the schemas of a package (doc generate)",
    description="Generate the documentation of a package's schemas from their docstrings.",
    examples=EXAMPLES,
    configure=configure,
    handle=handle,
)
