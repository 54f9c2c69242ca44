"""What a command says to its user besides diagnostics, and the three options that
govern it on every ``kcl`` command: ``--no_style`` (no colour), ``-q`` (only errors)
and ``-v`` (what the command reads and writes, on stderr).

Here, below every command layer, so that the commands of ``kclpy.cli`` and those
whose arguments live with their work (``kcl mod``, ``kcl kusion``, ``kcl build``)
share them. Takes the parsed arguments; writes to stdout (:func:`say`) or stderr
(:func:`note`).
"""

from __future__ import annotations

import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse


def add_style_options(
    parser: argparse.ArgumentParser,
    quiet: str = "print only errors: no result, no progress or success messages",
    verbose: str = "say on stderr what the command reads, writes and how long it takes",
) -> None:
    """``--no_style`` (no colour), ``-q`` and ``-v``; ``quiet`` and ``verbose`` are their
    help lines, for a command that gives them a narrower meaning."""
    parser.add_argument(
        "--no_style",
        "--no-style",
        dest="no_style",
        action="store_true",
        help="no colours in messages (NO_COLOR does the same)",
    )
    parser.add_argument("-q", "--quiet", action="store_true", help=quiet)
    parser.add_argument("-v", "--verbose", action="count", default=0, help=verbose)


def note(args: argparse.Namespace, message: str) -> None:
    """A ``-v`` message on stderr."""
    if getattr(args, "verbose", 0):
        sys.stderr.write(f"kcl: {message}\n")


def say(args: argparse.Namespace, message: str) -> None:
    """An informational line on stdout, silenced by ``-q``."""
    if not getattr(args, "quiet", False):
        print(message)


def tell(args: argparse.Namespace, message: str) -> None:
    """An informational line on stderr (what a command did besides its result, such
    as a file it wrote), silenced by ``-q``."""
    if not getattr(args, "quiet", False):
        sys.stderr.write(f"{message}\n")
