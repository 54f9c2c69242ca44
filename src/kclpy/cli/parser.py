"""The argparse parser class of every ``kcl`` command: exit code 2 and a coded message
(with a ``did you mean`` suggestion) for usage errors, and a help width asked once.

Its own module so that the common ``kcl run`` command lines, read by
:mod:`kclpy.cli.fast_reader`, never import argparse; help, usage errors and
everything the fast reader leaves come here. Takes the parser's settings; returns
parsed arguments (or exits with code 2).
"""

from __future__ import annotations

import argparse
import functools
import os
import sys

from kclpy.cli.base import EXIT_USAGE, print_error
from kclpy.diag import Code


class Parser(argparse.ArgumentParser):
    """argparse with kclpy's exit code 2 and a coded message for usage errors."""

    def error(self, message: str) -> None:  # type: ignore[override]
        self.print_usage(sys.stderr)
        print_error(Code.USAGE_ERROR, message + self._suggestion(message))
        raise SystemExit(EXIT_USAGE)

    def _suggestion(self, message: str) -> str:
        """``; did you mean ...?`` for a mistyped command or option, else ''."""
        import difflib
        import re

        choice = re.search(r"invalid choice: '([^']*)' \(choose from (.*)\)$", message)
        if choice:
            word, known = choice[1], re.findall(r"'([^']*)'", choice[2])
        else:
            unknown = re.match(r"unrecognized arguments: (\S+)", message)
            if not unknown or not unknown[1].startswith("-"):
                return ""
            word, known = unknown[1].partition("=")[0], list(self._option_string_actions)
        close = difflib.get_close_matches(word, known, n=1, cutoff=0.6)
        return f"; did you mean '{close[0]}'?" if close else ""

    def _get_formatter(self) -> argparse.HelpFormatter:
        # with the width given, argparse does not import shutil to ask the terminal
        return argparse.RawDescriptionHelpFormatter(prog=self.prog, width=self.help_width)

    @functools.cached_property
    def help_width(self) -> int:
        """The help's width, asked once per parser (argparse makes a formatter for
        every argument added: some thirty terminal queries for ``kcl run``'s)."""
        return terminal_width() - 2


def terminal_width() -> int:
    """As ``shutil.get_terminal_size``: $COLUMNS, else the terminal's, else 80."""
    try:
        return int(os.environ["COLUMNS"])
    except (KeyError, ValueError):
        pass
    try:
        return os.get_terminal_size(sys.__stdout__.fileno()).columns or 80  # type: ignore[union-attr]
    except (AttributeError, ValueError, OSError):
        return 80
