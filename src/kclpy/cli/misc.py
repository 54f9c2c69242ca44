"""The small ``kcl`` subcommands: ``version``, ``lsp``, ``clean``, ``completion``
and ``kusion`` (whose own arguments live in :mod:`kclpy.kusion.cli`).

Each takes its parsed arguments and returns the exit code.
"""

from __future__ import annotations

import argparse
import errno
import os
import sys

from kclpy.cli.base import (
    EXIT_OK,
    Command,
    CommandError,
    add_style_options,
    note,
    say,
)
from kclpy.diag import Code
from kclpy.release import KCL_VERSION, __version__


def version_text() -> str:
    """``kclpy X.Y.Z (KCL A.B.C)``: kclpy's version and the KCL language it implements."""
    return f"kclpy {__version__} (KCL {KCL_VERSION})"


def _no_arguments(parser: argparse.ArgumentParser) -> None:
    del parser


def _version(args: argparse.Namespace) -> int:
    print(version_text())
    return EXIT_OK


def _lsp(args: argparse.Namespace) -> int:
    """The language server: this process becomes ``python -m kclpy_lsp`` (os.execv).

    The product never imports the editor layer (package ``kclpy_lsp``, which needs
    the ``lsp`` extra: pygls); it runs its entry point, which reports a missing pygls."""
    sys.stdout.flush()
    sys.stderr.flush()
    os.execv(sys.executable, [sys.executable, "-m", "kclpy_lsp"])


def _configure_clean(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "-y", "--yes", action="store_true", help="do not ask before removing the cache"
    )
    add_style_options(parser)


def _clean(args: argparse.Namespace) -> int:
    """Remove the compiled-module cache (``kclpy.pipeline.cache.cache_dir``)."""
    from kclpy.pipeline.cache import CACHE_CONTENTS, cache_dir

    folder = cache_dir()
    if folder is None:
        say(args, "the cache is disabled (KCLPY_NO_CACHE); nothing to clean")
        return EXIT_OK
    if not os.path.isdir(folder):
        say(args, f"no cache at {folder}; nothing to clean")
        return EXIT_OK
    if os.path.islink(folder):  # renaming it aside would move the link, not the cache
        raise CommandError(
            f"not removing {folder}: it is a symbolic link (remove the link or its target)",
            Code.IO_ERROR,
            1,
        )
    owner = os.lstat(folder).st_uid
    if owner != os.geteuid():  # (a shared folder another user made: not ours to remove)
        raise CommandError(
            f"not removing {folder}: it is owned by uid {owner}, not by this user",
            Code.IO_ERROR,
            1,
        )
    strangers = sorted(set(os.listdir(folder)) - CACHE_CONTENTS)
    if strangers:  # (KCLPY_CACHE_DIR naming a folder of the user's: not ours to remove)
        raise CommandError(
            f"not removing {folder}: it holds {strangers[0]!r}, which the cache does not "
            "write (is KCLPY_CACHE_DIR the right folder?)",
            Code.IO_ERROR,
            1,
        )
    if not args.yes:
        sys.stdout.write(f"Remove the compiled-module cache {folder}? [y/N] ")
        sys.stdout.flush()
        if sys.stdin.readline().strip().lower() not in ("y", "yes"):
            say(args, "Aborted.")
            return EXIT_OK
    note(args, f"removing {folder}")
    try:
        _remove_cache(folder)
    except OSError as error:
        raise CommandError(
            f"cannot remove {folder}: {error.strerror or error}", Code.IO_ERROR, 1
        ) from None
    say(args, f"{folder} removed")
    return EXIT_OK


def _remove_cache(folder: str) -> None:
    """Remove the cache ``folder`` while other kcl processes may be writing to it: it is
    first renamed aside in one step (a writer then starts a new cache), then removed,
    tolerating files that writers still add or remove there (a few passes)."""
    import shutil

    aside = f"{folder}.removing-{os.getpid()}"
    try:
        os.rename(folder, aside)
    except FileNotFoundError:
        return  # another `kcl clean` removed it first

    def vanished(function: object, path: str, info: tuple[type, BaseException, object]) -> None:
        if not isinstance(info[1], FileNotFoundError):  # (removed meanwhile: fine)
            raise info[1]

    for attempt in range(5):
        try:
            shutil.rmtree(aside, onerror=vanished)
        except OSError:  # a writer added a file after its folder was listed
            if attempt == 4:
                raise
        if not os.path.lexists(aside):
            return
    raise OSError(errno.ENOTEMPTY, "files keep appearing in it", aside)


def _configure_completion(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "shell",
        choices=["bash", "zsh", "fish", "tcsh", "powershell"],
        default="bash",
        nargs="?",
        help="the shell (default bash)",
    )


def _completion(args: argparse.Namespace) -> int:
    """Print the shell code that completes ``kcl`` (through argcomplete)."""
    from argcomplete.shell_integration import shellcode

    sys.stdout.write(shellcode(["kcl"], shell=args.shell))
    return EXIT_OK


def _configure_kusion(parser: argparse.ArgumentParser) -> None:
    from kclpy.kusion import cli as kusion_cli

    kusion_cli.add_arguments(parser)


def _kusion(args: argparse.Namespace) -> int:
    from kclpy.kusion import cli as kusion_cli

    return kusion_cli.main(args)


VERSION = Command(
    name="version",
    help="print kclpy's version and the KCL version it implements",
    examples="examples:\n  kcl version                           # kclpy 0.1.0 (KCL 0.13.2)\n"
    "  kcl -V",
    configure=_no_arguments,
    handle=_version,
)
LSP = Command(
    name="lsp",
    help="run the language server over stdio (needs the lsp extra)",
    description="Run the KCL language server, speaking LSP on standard input and output;\n"
    "an editor starts it (install with: pip install 'kclpy-toolchain[lsp]').",
    examples="examples:\n"
    "  kcl lsp                               # as an editor's server command\n"
    '  {"kcl.server.command": ".venv/bin/kcl", "kcl.server.args": ["lsp"]}  # VS Code',
    configure=_no_arguments,
    handle=_lsp,
)
CLEAN = Command(
    name="clean",
    help="remove the compiled-module cache",
    description="Remove kclpy's compiled-module cache: $KCLPY_CACHE_DIR, else\n"
    "$XDG_CACHE_HOME/kclpy, else ~/.cache/kclpy (KCLPY_NO_CACHE=1 disables it).",
    examples="examples:\n  kcl clean -y",
    configure=_configure_clean,
    handle=_clean,
)
COMPLETION = Command(
    name="completion",
    help="print the shell code that completes kcl commands and options",
    description="Tab completion for kcl. Load it in the current shell:",
    examples='examples:\n  eval "$(kcl completion bash)"         # bash; add it to ~/.bashrc\n'
    '  eval "$(kcl completion zsh)"          # zsh\n'
    "  kcl completion fish | source          # fish",
    configure=_configure_completion,
    handle=_completion,
)
KUSION = Command(
    name="kusion",
    help="preview, apply and destroy compiled resources (docs/kusion.md)",
    examples="examples:\n"
    "  kcl kusion preview main.k\n"
    "  kcl kusion apply main.k --yes\n"
    "  kcl kusion state history\n"
    "  kcl kusion destroy --yes",
    configure=_configure_kusion,
    handle=_kusion,
    intermixed=False,
)
