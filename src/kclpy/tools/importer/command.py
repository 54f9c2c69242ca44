"""The ``kcl import`` subcommand: its options and its handler.

``add_arguments(parser)`` declares the reference CLI's options (``-m/--mode``,
``-o/--output``, ``-p/--package``, ``-f/--force``, ``-s/--skip-validation``,
``-r/--recursive``) plus ``--single`` and the bounds: ``--max-input-size`` (per
input, ``bounds``) and ``--max-memory`` / ``--timeout``, the resource limits of
``kcl run`` (``kclpy.vm.limits``), over the whole command. ``main(args)`` converts
each input and writes the files, returning the exit code (0 ok, 1 an input or
output error, a limit passed included). Its help texts and examples are in the
command table (``kclpy.cli.import_command``).

Outputs, as the reference: data and JSON Schema go to ``<stem>.k`` in the current
folder, or to the file ``-o`` names (``-o -``: standard output); OpenAPI and CRD
models go under the folder ``-o`` (default ``.``) in the package ``-p`` (default
``models``). An existing file is never replaced without ``--force``.
"""

from __future__ import annotations

import argparse
import os
import sys

from kclpy.tools.importer import MODES
from kclpy.vm.limits import seconds_argument, size_argument

_SLICE = 1 << 20  # characters written to standard output at once


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Declare the options of ``kcl import`` on its subparser."""
    parser.add_argument("files", nargs="+", help="input files (folders with -r)")
    parser.add_argument(
        "-m",
        "--mode",
        default="auto",
        choices=MODES,
        metavar="MODE",
        help=f"the input's kind: {', '.join(MODES)} (default: auto)",
    )
    parser.add_argument(
        "-o",
        "--output",
        default="",
        help="data/jsonschema: the output file (- for standard output); "
        "openapi/crd: the target folder (default: .)",
    )
    parser.add_argument(
        "-p", "--package", default="models", help="openapi/crd: the package of the models"
    )
    parser.add_argument(
        "-f", "--force", action="store_true", help="overwrite output files that exist"
    )
    parser.add_argument(
        "-s",
        "--skip-validation",
        action="store_true",
        help="openapi: read the models without checking the document's version",
    )
    parser.add_argument(
        "-r", "--recursive", action="store_true", help="import the files of folders recursively"
    )
    parser.add_argument(
        "--single", action="store_true", help="openapi/crd: write all schemas to one <stem>.k"
    )
    _add_limit_arguments(parser)


def _add_limit_arguments(parser: argparse.ArgumentParser) -> None:
    from kclpy.tools.importer.bounds import MAX_INPUT_SIZE

    parser.add_argument(
        "--max-input-size",
        type=size_argument,
        default=MAX_INPUT_SIZE,
        metavar="SIZE",
        help="refuse an input longer than this (0: no limit; default: 1G)",
    )
    parser.add_argument(
        "--max-memory",
        type=size_argument,
        metavar="SIZE",
        help="stop past this much memory, as kcl run (E3R01); default: min(8G, 3/4 of free memory)",
    )
    parser.add_argument(
        "--timeout", type=seconds_argument, default=0.0, metavar="SECONDS", help="stop after this"
    )


def main(args: argparse.Namespace) -> int:
    """Run ``kcl import``; returns the exit code."""
    from kclpy.diag import Code, make_error
    from kclpy.diag.render import render_all, use_colour
    from kclpy.tools.importer.failures import ImportFailure
    from kclpy.values.errors import KclRuntimeError
    from kclpy.vm.limits import AUTO, ResourceLimits, within

    memory = AUTO if args.max_memory is None else args.max_memory
    paths: list[str] = []
    try:
        paths = _input_files(args.files, args.recursive)
        within(ResourceLimits(memory, args.timeout), lambda: _import(paths, args))
    except ImportFailure as failure:
        diagnostics = failure.diagnostics
    except KclRuntimeError as error:  # a resource limit (the only runtime error here)
        note = "while importing " + ", ".join(paths or args.files)
        diagnostics = [make_error(Code.RESOURCE_LIMIT_ERROR, error.message, None, note)]
    else:
        return 0
    sys.stderr.write(render_all(diagnostics, "human", use_colour(sys.stderr)))
    return 1


def _import(paths: list[str], args: argparse.Namespace) -> None:
    from kclpy.tools.importer.bounds import ImportLimits
    from kclpy.tools.importer.convert import ImportOptions, import_all, write_outputs
    from kclpy.tools.importer.failures import ImportFailure

    limits = ImportLimits(max_input_size=args.max_input_size)
    options = ImportOptions(args.mode, args.package, not args.skip_validation, args.single, limits)
    files = import_all(paths, options)
    if args.output == "-":
        for text in files.values():
            for start in range(0, len(text), _SLICE):  # encoded a slice at a time
                sys.stdout.write(text[start : start + _SLICE])
        return
    one_file = len(files) == 1 and os.path.dirname(next(iter(files))) == ""
    if one_file and args.output and not os.path.isdir(args.output):
        files = {os.path.basename(args.output): next(iter(files.values()))}
        target = os.path.dirname(args.output)
        if target and not os.path.isdir(target):  # -o names a file: make no folders
            from kclpy.diag import Code, make_error

            message = f"cannot write {args.output}: the folder {target} does not exist"
            raise ImportFailure([make_error(Code.IO_ERROR, message, None)])
    else:
        target = args.output or "."
    write_outputs(files, target, args.force)


def _input_files(paths: list[str], recursive: bool) -> list[str]:
    """The files named, and with ``recursive`` those inside named folders."""
    found: list[str] = []
    for path in paths:
        if not os.path.isdir(path):
            found.append(path)
        elif recursive:
            for folder, folders, names in os.walk(path):
                folders.sort()
                found.extend(os.path.join(folder, name) for name in sorted(names))
        else:
            from kclpy.diag import Code, make_error
            from kclpy.tools.importer.failures import ImportFailure

            message = f"{path} is a folder; name files, or use -r to import its files"
            raise ImportFailure([make_error(Code.USAGE_ERROR, message, None)])
    return found
