"""The ``kcl`` command line: argument parsing and exit codes; the work is in :mod:`kclpy.api`.

Exit codes: 0 success, 1 errors in the KCL program (diagnostics on stderr),
2 usage errors, 3 internal errors (a bug in kclpy, reported without a traceback
unless ``KCLPY_DEBUG`` is set).
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from typing import Any

EXIT_OK = 0
EXIT_PROGRAM_ERROR = 1
EXIT_USAGE = 2
EXIT_INTERNAL = 3


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        self.print_usage(sys.stderr)
        sys.stderr.write(f"error: {message}\n")
        raise SystemExit(EXIT_USAGE)


def _add_run_options(parser: argparse.ArgumentParser) -> None:
    """The options shared by ``run`` and the commands that compile programs first."""
    many: dict[str, Any] = {"action": "extend", "nargs": "+", "default": []}
    parser.add_argument("files", nargs="*", help="entry .k files or package folders")
    parser.add_argument("-D", "--argument", dest="arguments", metavar="KEY=VALUE", **many)
    parser.add_argument("-Y", "--setting", dest="settings", metavar="FILE", **many)
    parser.add_argument("-S", "--path_selector", dest="path_selector", metavar="PATH", **many)
    parser.add_argument("-O", "--overrides", dest="overrides", metavar="SPEC", **many)
    parser.add_argument("-E", "--external", dest="external", metavar="NAME=PATH", **many)
    parser.add_argument("-o", "--output", help="write the result to FILE (atomically)")
    parser.add_argument("-f", "--format", choices=["yaml", "json", "toml"], default=None)
    parser.add_argument("-n", "--disable_none", action="store_true")
    parser.add_argument("-k", "--sort_keys", action="store_true")
    parser.add_argument("-H", "--show_hidden", action="store_true")
    parser.add_argument("-r", "--strict_range_check", action="store_true")
    parser.add_argument("-d", "--debug", action="store_true")
    parser.add_argument("-K", "--fast_eval", action="store_true", help="accepted, no effect")
    parser.add_argument("-q", "--quiet", action="store_true")
    parser.add_argument("-v", "--verbose", action="count", default=0)
    parser.add_argument("--no_style", action="store_true", help="no colour in diagnostics")
    parser.add_argument(
        "--error-format",
        "--error_format",
        dest="error_format",
        choices=["human", "pretty", "short", "json"],
        default="human",
    )


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="kcl", description="kclpy: the KCL configuration language toolchain")
    parser.add_argument("--version", action="store_true", help="print the version and exit")
    commands = parser.add_subparsers(dest="command", parser_class=_Parser)
    run = commands.add_parser("run", aliases=["r"], help="compile KCL files and print the result")
    _add_run_options(run)
    commands.add_parser("version", help="print the version")
    test = commands.add_parser("test", help="run the test_* lambdas of KCL packages")
    test.add_argument("packages", nargs="*", default=["."], help="package folders; ./... recurses")
    test.add_argument("--run", default="", help="only tests whose name matches this regexp")
    test.add_argument("--fail-fast", action="store_true")
    vet = commands.add_parser("vet", help="validate JSON or YAML data against a KCL schema")
    vet.add_argument("data", help="the data file (- for standard input)")
    vet.add_argument("code", help="the .k file with the schema")
    vet.add_argument("-s", "--schema", help="the schema name (default: the first schema)")
    vet.add_argument("-a", "--attribute_name", default="value")
    vet.add_argument("--format", choices=["json", "yaml"], default="json")
    vet.add_argument("--no_style", action="store_true")
    kusion = commands.add_parser("kusion", help="preview, apply and destroy compiled resources")
    try:
        from kclpy.kusion import cli as kusion_cli
    except ImportError:
        kusion_cli = None  # type: ignore[assignment]
    if kusion_cli is not None:
        kusion_cli.add_arguments(kusion)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``kcl`` command; returns the exit code."""
    args_list = list(sys.argv[1:] if argv is None else argv)
    # `kcl main.k` is `kcl run main.k`, as in the reference CLI.
    if args_list and (args_list[0].endswith(".k") or os.path.isdir(args_list[0])):
        args_list.insert(0, "run")
    parser = build_parser()
    args = parser.parse_args(args_list)
    try:
        if args.version or args.command == "version":
            from kclpy import __version__

            print(f"kclpy {__version__}")
            return EXIT_OK
        if args.command in ("run", "r"):
            return run_command(args)
        if args.command == "test":
            return test_command(args)
        if args.command == "vet":
            return vet_command(args)
        if args.command == "kusion":
            from kclpy.kusion import cli as kusion_cli

            return kusion_cli.main(args)
        parser.print_help()
        return EXIT_USAGE
    except KeyboardInterrupt:
        sys.stderr.write("interrupted\n")
        return 130
    except BrokenPipeError:
        return EXIT_OK
    except Exception as error:  # a bug in kclpy: never a traceback for the user
        if os.environ.get("KCLPY_DEBUG"):
            raise
        sys.stderr.write(
            f"error[E9999]: InternalError\n  kclpy failed unexpectedly: "
            f"{type(error).__name__}: {error}\n  (set KCLPY_DEBUG=1 for a traceback)\n"
        )
        return EXIT_INTERNAL


def _load_settings(args: argparse.Namespace) -> dict[str, object]:
    """Merge ``-Y`` settings files (or ./kcl.yaml) under the command-line values."""
    from kclpy.settings import SettingsError, load_settings

    paths = list(args.settings)
    if not paths and os.path.isfile("kcl.yaml"):
        paths = ["kcl.yaml"]
    try:
        return load_settings(paths)
    except SettingsError as error:
        # as the reference: a bad settings file is an EvaluationError of the run
        sys.stderr.write(f"error[E3M38]: EvaluationError\n{error}\n")
        raise SystemExit(EXIT_PROGRAM_ERROR) from None


def write_atomically(path: str, text: str) -> None:
    """Write ``text`` to ``path`` through a temporary file and a rename."""
    import tempfile

    directory = os.path.dirname(os.path.abspath(path))
    handle, temporary = tempfile.mkstemp(prefix=".kclpy-", dir=directory)
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as stream:
            stream.write(text)
        os.replace(temporary, path)
    except BaseException:
        if os.path.exists(temporary):
            os.unlink(temporary)
        raise


def run_command(args: argparse.Namespace) -> int:
    """``kcl run``: compile, print the result or the diagnostics."""
    import gc

    from kclpy.api import run_files

    # A run builds large acyclic graphs (syntax trees, configs) and the process ends
    # right after: the cyclic collector only rescans them (40% of the CPU time on 10k
    # schema instances) while freeing almost nothing. Reference counting still frees.
    gc.disable()
    from kclpy.diag.render import render_all, use_colour

    settings = _load_settings(args)
    files = list(args.files) or list(settings.get("files", []))  # type: ignore[call-overload]
    if not files:
        sys.stderr.write("error: no input file\n")
        return EXIT_USAGE
    options: list[str] = [*settings.get("options", []), *args.arguments]  # type: ignore[misc]

    def flag(name: str) -> bool:
        return bool(getattr(args, name) or settings.get(name))

    result = run_files(
        files,
        options=options,
        path_selector=[*settings.get("path_selector", []), *args.path_selector],  # type: ignore[misc]
        disable_none=flag("disable_none"),
        sort_keys=flag("sort_keys"),
        show_hidden=flag("show_hidden"),
        strict_range_check=flag("strict_range_check"),
        overrides=[*settings.get("overrides", []), *args.overrides],  # type: ignore[misc]
        format=args.format or str(settings.get("format") or "yaml"),
        external_pkgs=_externals([*settings.get("external", []), *args.external]),  # type: ignore[misc]
    )
    if result.log:
        sys.stdout.write(result.log)
    if not result.ok:
        sys.stdout.flush()
        style = "short" if args.error_format == "short" else args.error_format
        style = "human" if style == "pretty" else style
        colour = not args.no_style and use_colour(sys.stderr)
        sys.stderr.write(render_all(result.diagnostics, style, colour))
        return EXIT_PROGRAM_ERROR
    output = args.output or settings.get("output")
    if output:
        write_atomically(str(output), result.text)
    else:
        sys.stdout.write(result.text)
    return EXIT_OK


def _externals(items: list[str]) -> dict[str, str]:
    externals: dict[str, str] = {}
    for item in items:
        name, sep, path = item.partition("=")
        if not sep:
            sys.stderr.write(f"error: invalid value for -E: '{item}', expect name=path\n")
            raise SystemExit(EXIT_USAGE)
        externals[name] = path
    return externals


def vet_command(args: argparse.Namespace) -> int:
    """``kcl vet DATA CODE``: print "Validate success!" or the diagnostics."""
    from kclpy.api import validate_code
    from kclpy.diag.render import render_all, use_colour

    try:
        data = sys.stdin.read() if args.data == "-" else _read_text(args.data)
        code = _read_text(args.code)
    except OSError as error:
        sys.stderr.write(f"error: {error}\n")
        return EXIT_USAGE
    diagnostics = validate_code(
        code,
        data,
        format=args.format,
        schema=args.schema,
        attribute_name=args.attribute_name,
        filename=args.code,
    )
    if diagnostics:
        colour = not args.no_style and use_colour(sys.stderr)
        sys.stderr.write(render_all(diagnostics, "human", colour))
        return EXIT_PROGRAM_ERROR
    print("Validate success!")
    return EXIT_OK


def _read_text(path: str) -> str:
    with open(path, encoding="utf-8") as handle:
        return handle.read()


def test_command(args: argparse.Namespace) -> int:
    """``kcl test``: ``name: PASS (2ms)`` / ``FAIL`` lines and a summary."""
    from kclpy.api import test
    from kclpy.diag.render import render

    folders: list[str] = []
    for item in args.packages:
        if item.endswith("/..."):
            base = item[: -len("/...")] or "."
            for current, _, names in sorted(os.walk(base)):
                if any(name.endswith("_test.k") for name in names):
                    folders.append(current)
        else:
            folders.append(item)
    total = failed = 0
    for folder in folders:
        for case in test(folder, args.run, args.fail_fast):
            total += 1
            millis = round(case.seconds * 1000)
            if case.passed:
                print(f"{case.name}: PASS ({millis}ms)")
            else:
                failed += 1
                print(f"{case.name}: FAIL ({millis}ms)")
                assert case.error is not None
                print(render(case.error))
            if failed and args.fail_fast:
                break
    print(f"FAIL: {failed}/{total}" if failed else f"PASS: {total}/{total}")
    return EXIT_PROGRAM_ERROR if failed else EXIT_OK
