"""What every ``kcl`` subcommand shares: the :class:`Command` record a subcommand
module exports, the argument parser class, exit codes, and the helpers that turn
failures into coded messages (diagnostics on stderr) and write ``-o`` files.

Takes parsed arguments from the subcommand modules; returns exit codes.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Sequence

from kclpy.diag import Code, Diagnostic, make_error
from kclpy.diag.console import add_style_options as add_style_options  # (for the commands)
from kclpy.diag.console import note as note
from kclpy.diag.console import say as say
from kclpy.diag.console import tell as tell
from kclpy.records import Record

TYPE_CHECKING = False
if TYPE_CHECKING:  # (argparse is imported where a parser is built: kclpy.cli.parser)
    import argparse
    from typing import Any

EXIT_OK = 0
EXIT_PROGRAM_ERROR = 1
EXIT_USAGE = 2
EXIT_INTERNAL = 3

EXIT_CODES_HELP = """exit codes:
  0  success
  1  the KCL program, its data or its files are wrong (diagnostics on stderr),
     lint findings, failed tests, files fmt --check would change, out of memory
  2  bad command line (usage)
  3  a bug in kclpy (reported without a traceback unless -d or KCLPY_DEBUG=1)
  128+N  ended by signal N (130: Ctrl-C)"""


class Command(Record):
    """One ``kcl`` subcommand: ``configure`` adds its arguments to its own parser,
    ``handle`` runs it and returns the exit code. ``intermixed``: positional
    arguments and options may come in any order (False for commands with
    sub-subcommands, which argparse cannot intermix)."""

    name: str
    help: str
    configure: Callable[[argparse.ArgumentParser], None]
    handle: Callable[[argparse.Namespace], int]
    aliases: tuple[str, ...] = ()
    description: str = ""
    examples: str = ""
    intermixed: bool = True


class CommandError(Exception):
    """A user-facing failure of a command: a coded message and an exit code."""

    def __init__(
        self, message: str, code: Code = Code.USAGE_ERROR, exit_code: int = EXIT_USAGE
    ) -> None:
        super().__init__(message)
        self.code = code
        self.exit_code = exit_code


def print_error(code: Code, message: str) -> None:
    """A failure without a source position, as a coded diagnostic on stderr."""
    from kclpy.diag.render import render_all

    sys.stderr.write(render_all([make_error(code, message, None)], "human", False))


def report(
    diagnostics: Sequence[Diagnostic], no_style: bool = False, error_format: str = "human"
) -> int:
    """Print diagnostics on stderr (after flushing stdout); the program-error exit code."""
    from kclpy.diag.render import render_all, use_colour

    sys.stdout.flush()
    style = {"pretty": "human"}.get(error_format, error_format)
    colour = not no_style and style == "human" and use_colour(sys.stderr)
    sys.stderr.write(render_all(list(diagnostics), style, colour))
    return EXIT_PROGRAM_ERROR


def externals(items: Sequence[str]) -> dict[str, str]:
    """``-E name=path`` values as a mapping; a value without ``=`` is a usage error."""
    found: dict[str, str] = {}
    for item in items:
        name, sep, path = item.partition("=")
        if not sep or not name:
            raise CommandError(f"invalid value for -E: '{item}', expected name=path")
        found[name] = path
    return found


def read_text(path: str) -> str:
    """A UTF-8 file's text, or standard input for ``-``; a CommandError if unreadable."""
    try:
        if path == "-":
            return sys.stdin.read()
        with open(path, encoding="utf-8") as handle:
            return handle.read()
    except (OSError, UnicodeDecodeError) as error:
        reason = getattr(error, "strerror", None) or str(error)
        name = "standard input" if path == "-" else path
        raise CommandError(
            f"cannot read {name}: {reason}", Code.IO_ERROR, EXIT_PROGRAM_ERROR
        ) from None


def write_output(path: str, text: str) -> None:
    """Write a command's result to ``path`` (``-o``), atomically for regular files:
    through a symlink to its target, into a FIFO or character device as a stream;
    a folder, a missing parent folder or an unwritable place is a CommandError."""
    from kclpy.source import write_atomically

    try:
        write_atomically(path, text)
    except OSError as error:
        reason = error.strerror or str(error)
        if isinstance(error, IsADirectoryError) or os.path.isdir(path):
            reason = "it is a folder"
        elif not os.path.isdir(os.path.dirname(os.path.abspath(path))):
            reason = "its folder does not exist"
        raise CommandError(
            f"cannot write {path}: {reason}", Code.IO_ERROR, EXIT_PROGRAM_ERROR
        ) from None


def top_level_argument(text: str) -> str:
    """The argparse type of ``-D``: ``NAME=VALUE`` or a usage error (exit 2)."""
    from kclpy.pipeline.driver import parse_option

    try:
        parse_option(text)
    except ValueError:
        import argparse

        raise argparse.ArgumentTypeError(
            f"invalid value '{text}': expected NAME=VALUE with a name and a value"
        ) from None
    return text


def add_runner_options(parser: argparse.ArgumentParser) -> None:
    """``-D``, ``-E`` and ``-Y``, repeatable: the real CLI's options for commands that
    run a program (``run``, ``test``)."""
    repeat: dict[str, Any] = {"action": "append", "default": []}
    parser.add_argument(
        "-D",
        "--argument",
        dest="arguments",
        metavar="NAME=VALUE",
        type=top_level_argument,
        **repeat,
        help="a top-level argument for option('NAME'); VALUE is JSON or a plain string",
    )
    parser.add_argument(
        "-E",
        "--external",
        dest="external",
        metavar="NAME=PATH",
        **repeat,
        help="where the external package NAME is (a folder)",
    )
    parser.add_argument(
        "-Y",
        "--setting",
        dest="settings",
        metavar="FILE",
        **repeat,
        help="a settings file (kcl_cli_configs, kcl_options); default ./kcl.yaml if present",
    )
