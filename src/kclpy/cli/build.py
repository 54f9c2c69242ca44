"""``kcl build``: every stack of a repository compiled, checked against its golden,
narrowed to what a change reaches (the work is in :mod:`kclpy.monorepo`)."""

from __future__ import annotations

import argparse

from kclpy.cli.base import Command, CommandError


def _configure(parser: argparse.ArgumentParser) -> None:
    from kclpy.monorepo.command import add_arguments

    add_arguments(parser)


def _handle(args: argparse.Namespace) -> int:
    from kclpy.monorepo import BuildError
    from kclpy.monorepo.command import main
    from kclpy.monorepo.pipeline import compile_stack

    try:
        return main(args, compile_stack)
    except BuildError as error:
        raise CommandError(str(error)) from None


COMMAND = Command(
    name="build",
    help="compile every stack under the paths; check or update their golden outputs",
    configure=_configure,
    handle=_handle,
    description=(
        "A stack is a folder with a kcl.yaml (kcl_cli_configs.files), a kcl.mod with\n"
        "[profile] entries, or a main.k; its golden output is ci-test/stdout.golden.yaml."
    ),
    examples=(
        "examples:\n"
        "  kcl build                           # every stack under .\n"
        "  kcl build projects --update         # write the goldens\n"
        "  kcl build --check --diff            # exit 1 listing the stacks that differ\n"
        "  kcl build --check --since origin/main -j 2\n"
        "  kcl build --affected --since HEAD~1 # list the stacks a change reaches\n"
        "  kcl build --cluster tcp://scheduler:8786 --ship"
    ),
)
