"""``kcl test``: run the ``test_*`` lambdas of KCL packages.

Takes package folders (``folder/...`` recurses); prints one line per test and a
summary; returns 1 when a test fails.
"""

from __future__ import annotations

import argparse
import os

from kclpy.cli.base import (
    EXIT_OK,
    EXIT_PROGRAM_ERROR,
    Command,
    CommandError,
    add_runner_options,
    add_style_options,
    externals,
    note,
    say,
)
from kclpy.diag import Code

EXAMPLES = """examples:
  kcl test                  # the package in the current folder
  kcl test ./...            # every package with *_test.k files below
  kcl test models --run 'test_app.*' --fail-fast"""

_SKIPPED_FOLDERS = (".", "__")


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "packages", nargs="*", default=["."], help="package folders; folder/... recurses"
    )
    parser.add_argument("--run", default="", help="only tests whose name matches this regexp")
    parser.add_argument(
        "--fail-fast",
        "--fail_fast",
        dest="fail_fast",
        action="store_true",
        help="stop at the first failing test",
    )
    add_runner_options(parser)
    add_style_options(parser)


def package_folders(items: list[str]) -> list[str]:
    """The package folders to test: ``folder/...`` is every folder at or below
    ``folder`` holding ``*_test.k`` files (hidden folders skipped), in name order."""
    folders: list[str] = []
    for item in items:
        if item == "..." or item.endswith("/..."):
            base = item[: -len("...")].rstrip("/") or "."
            if not os.path.isdir(base):
                raise CommandError(f"no such folder: {base}")
            for current, subfolders, names in os.walk(base):
                subfolders[:] = sorted(
                    name for name in subfolders if not name.startswith(_SKIPPED_FOLDERS)
                )
                if any(name.endswith("_test.k") for name in names):
                    folders.append(os.path.normpath(current))
        elif os.path.isdir(item):
            folders.append(os.path.normpath(item))
        else:
            raise CommandError(f"no such folder: {item}")
    return folders


def handle(args: argparse.Namespace) -> int:
    """``name: PASS (2ms)`` / ``FAIL`` lines and a summary; "no test files" if none."""
    from kclpy.api import run_pattern, test
    from kclpy.cli.run import load_settings
    from kclpy.diag.render import render

    try:
        run_pattern(args.run)  # RE2, as the test runner matches
    except ValueError as error:
        raise CommandError(str(error)) from None
    settings = load_settings(args)
    options = [*settings.get("options", []), *args.arguments]
    packages = externals([*settings.get("external", []), *args.external])
    total = failed = 0
    for folder in package_folders(args.packages):
        note(args, f"testing the package {folder}")
        try:
            cases = test(folder, args.run, args.fail_fast, options=options, external_pkgs=packages)
        except ValueError as error:  # a bad -D value
            raise CommandError(str(error), Code.EVALUATION_ERROR, EXIT_PROGRAM_ERROR) from None
        for case in cases:
            total += 1
            millis = round(case.seconds * 1000)
            if case.error is None:
                if not args.quiet:
                    print(f"{case.name}: PASS ({millis}ms)")
                continue
            failed += 1
            print(f"{case.name}: FAIL ({millis}ms)")
            print(render(case.error))
            if args.fail_fast:
                break
        if failed and args.fail_fast:
            break
    if not total:
        say(args, "no test files")
        return EXIT_OK
    if failed:
        print(f"FAIL: {failed}/{total}")
    else:
        say(args, f"PASS: {total}/{total}")
    return EXIT_PROGRAM_ERROR if failed else EXIT_OK


COMMAND = Command(
    name="test",
    aliases=("t",),
    help="run the test_* lambdas of KCL packages",
    description="Run every top-level lambda named test_* of a package's .k and *_test.k\n"
    "files; a test passes when calling it raises no error.",
    examples=EXAMPLES,
    configure=configure,
    handle=handle,
)
