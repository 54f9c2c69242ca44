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

from kclpy.source import write_atomically

EXIT_OK = 0
EXIT_PROGRAM_ERROR = 1
EXIT_USAGE = 2
EXIT_INTERNAL = 3


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        self.print_usage(sys.stderr)
        sys.stderr.write(f"error: {message}\n")
        raise SystemExit(EXIT_USAGE)

    def _get_formatter(self) -> argparse.HelpFormatter:
        # argparse builds a formatter for every add_argument; with the width given,
        # it does not import shutil to ask the terminal (~3 ms of start-up)
        return argparse.HelpFormatter(prog=self.prog, width=_terminal_width() - 2)


def _terminal_width() -> int:
    """As ``shutil.get_terminal_size``: $COLUMNS, else the terminal's, else 80."""
    try:
        return int(os.environ["COLUMNS"])
    except (KeyError, ValueError):
        pass
    try:
        return os.get_terminal_size(sys.__stdout__.fileno()).columns or 80  # type: ignore[union-attr]
    except (AttributeError, ValueError, OSError):
        return 80


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
    _add_limit_options(parser)
    parser.add_argument(
        "--error-format",
        "--error_format",
        dest="error_format",
        choices=["human", "pretty", "short", "json"],
        default="human",
    )


def _add_limit_options(parser: argparse.ArgumentParser) -> None:
    """Resource limits and the file-system policy of a run (kclpy.vm.limits, fs_policy)."""
    from kclpy.vm.limits import parse_size

    def size(text: str) -> int:
        try:
            return parse_size(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"invalid size '{text}' (e.g. 512M, 2G)") from None

    def seconds(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            value = -1.0
        if not value >= 0 or value == float("inf"):
            raise argparse.ArgumentTypeError(f"invalid number of seconds '{text}'")
        return value

    parser.add_argument("--max-memory", type=size, metavar="SIZE", help="default 8G or less")
    parser.add_argument("--timeout", type=seconds, default=0.0, metavar="SECONDS")
    parser.add_argument("--allow-fs-read", action="append", default=[], metavar="DIR")
    parser.add_argument("--allow-fs-write", action="append", default=[], metavar="DIR")
    parser.add_argument("--no-fs", action="store_true", help="no file or environment access")


def build_parser(kusion_arguments: bool = True) -> argparse.ArgumentParser:
    """The ``kcl`` argument parser; ``kusion_arguments=False`` leaves the arguments of
    ``kcl kusion`` out (importing them costs start-up time every other command saves)."""
    parser = _Parser(prog="kcl", description="kclpy: the KCL configuration language toolchain")
    parser.add_argument("--version", action="store_true", help="print the version and exit")
    # an explicit prog spares argparse a help formatter (and importing shutil) at start-up
    commands = parser.add_subparsers(dest="command", parser_class=_Parser, prog="kcl")
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
    _add_lint_parser(commands)
    commands.add_parser("lsp", help="run the language server over stdio")
    doc = commands.add_parser("doc", help="document the schemas of a package")
    doc.add_argument("path", nargs="?", default=".", help="a .k file or package folder")
    doc.add_argument("--format", choices=["md", "json-schema"], default="md")
    doc.add_argument("-o", "--output", help="write to this file (atomically)")
    doc.add_argument("--no_style", action="store_true")
    fmt = commands.add_parser("fmt", help="format KCL files in place")
    fmt.add_argument("paths", nargs="*", default=["."], help="files, folders, folder/..., -")
    fmt.add_argument(
        "--check",
        "--dry-run",
        dest="check",
        action="store_true",
        help="list the files that would change, write nothing; exit 1 if any",
    )
    fmt.add_argument("--diff", action="store_true", help="print the changes as a diff")
    fmt.add_argument("--no_style", action="store_true")
    kusion = commands.add_parser("kusion", help="preview, apply and destroy compiled resources")
    if kusion_arguments:
        from kclpy.kusion import cli as kusion_cli

        kusion_cli.add_arguments(kusion)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``kcl`` command; returns the exit code."""
    args_list = list(sys.argv[1:] if argv is None else argv)
    # `kcl main.k` is `kcl run main.k`, as in the reference CLI.
    if args_list and (args_list[0].endswith(".k") or os.path.isdir(args_list[0])):
        args_list.insert(0, "run")
    parser = build_parser(kusion_arguments=args_list[:1] == ["kusion"])
    args = parser.parse_args(args_list)
    try:
        if args.version or args.command == "version":
            from kclpy import __version__

            print(f"kclpy {__version__}")
            return EXIT_OK
        if args.command in ("run", "r"):
            return run_command(args, exiting=argv is None)
        if args.command == "test":
            return test_command(args)
        if args.command == "vet":
            return vet_command(args)
        if args.command == "lint":
            return lint_command(args)
        if args.command == "fmt":
            return fmt_command(args)
        if args.command == "lsp":
            return lsp_command()
        if args.command == "doc":
            return doc_command(args)
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


def run_command(args: argparse.Namespace, exiting: bool = False) -> int:
    """``kcl run``: compile, print the result or the diagnostics. ``exiting``: the
    process ends after this command (``kcl`` itself, not a caller of :func:`main`)."""
    import gc

    # A run builds large acyclic graphs (syntax trees, configs) and the process ends
    # right after: the cyclic collector only rescans them (40% of the CPU time on 10k
    # schema instances) while freeing almost nothing. Reference counting still frees.
    # At exit the interpreter collects once more whatever the setting; freezing the
    # heap first spares that last full scan (0.6 s of 3 s on 10k schema instances).
    enabled = gc.isenabled()
    gc.disable()
    try:
        return _run(args)
    finally:
        if exiting:
            gc.freeze()
        elif enabled:
            gc.enable()


def _run(args: argparse.Namespace) -> int:
    from kclpy.api import run_files

    settings = _load_settings(args)
    files = list(args.files) or list(settings.get("files", []))  # type: ignore[call-overload]
    if not files:
        sys.stderr.write("error: no input file\n")
        return EXIT_USAGE
    options: list[str] = [*settings.get("options", []), *args.arguments]  # type: ignore[misc]

    def flag(name: str) -> bool:
        return bool(getattr(args, name) or settings.get(name))

    overrides: list[str] = [*settings.get("overrides", []), *args.overrides]  # type: ignore[misc]
    if overrides and flag("debug"):
        # `-d` writes the overrides into the source files (then they are in the program)
        from kclpy.tools.override import OverrideError, override_files

        sources = [f for f in files if f.endswith(".k") and os.path.isfile(f)]
        try:
            if sources:
                override_files(sources, overrides)
                overrides = []
        except OverrideError as error:
            return _report(error.diagnostics, args)
    result = run_files(
        files,
        options=options,
        path_selector=[*settings.get("path_selector", []), *args.path_selector],  # type: ignore[misc]
        disable_none=flag("disable_none"),
        sort_keys=flag("sort_keys"),
        show_hidden=flag("show_hidden"),
        strict_range_check=flag("strict_range_check"),
        overrides=overrides,
        format=args.format or str(settings.get("format") or "yaml"),
        external_pkgs=_externals([*settings.get("external", []), *args.external]),  # type: ignore[misc]
        max_memory=args.max_memory,
        timeout=args.timeout,
        allow_fs_read=args.allow_fs_read,
        allow_fs_write=args.allow_fs_write,
        no_fs=args.no_fs,
    )
    if result.log:
        sys.stdout.write(result.log)
    if not result.ok:
        return _report(result.diagnostics, args)
    output = args.output or settings.get("output")
    if output:
        write_atomically(str(output), result.text)
    else:
        sys.stdout.write(result.text)
    return EXIT_OK


def _report(diagnostics: list[Any], args: argparse.Namespace) -> int:
    """Print a failed run's diagnostics on stderr; the exit code of a program error."""
    from kclpy.diag.render import render_all, use_colour

    sys.stdout.flush()
    style = "short" if args.error_format == "short" else args.error_format
    style = "human" if style == "pretty" else style
    colour = not args.no_style and use_colour(sys.stderr)
    sys.stderr.write(render_all(diagnostics, style, colour))
    return EXIT_PROGRAM_ERROR


def _externals(items: list[str]) -> dict[str, str]:
    externals: dict[str, str] = {}
    for item in items:
        name, sep, path = item.partition("=")
        if not sep:
            sys.stderr.write(f"error: invalid value for -E: '{item}', expect name=path\n")
            raise SystemExit(EXIT_USAGE)
        externals[name] = path
    return externals


def _add_lint_parser(commands: Any) -> None:
    lint = commands.add_parser("lint", help="report errors and lint warnings of KCL programs")
    lint.add_argument(
        "paths", nargs="*", default=["."], help="files, package folders, folder/... (default .)"
    )
    lint.add_argument("--select", help="only these codes, prefixes or rule names (comma list)")
    lint.add_argument("--ignore", help="not these codes, prefixes or rule names (comma list)")
    lint.add_argument(
        "--format", choices=["text", "concise", "json", "github", "sarif"], default="text"
    )
    lint.add_argument("--fix", action="store_true", help="remove unused and repeated imports")
    lint.add_argument("--max-line-length", type=int, help="for E0501 (default 200)")
    lint.add_argument("-E", "--external", metavar="NAME=PATH", action="append", default=[])
    lint.add_argument("--no_style", action="store_true", help="no colour")


def lint_command(args: argparse.Namespace) -> int:
    """``kcl lint``: print the findings; exit 1 when there are any, 0 when clean."""
    from kclpy.diag.render import use_colour
    from kclpy.tools.lint import (
        LintConfigError,
        fixed_texts,
        lint,
        render_report,
        split_selectors,
    )

    for path in args.paths:
        base = path[: -len("...")].rstrip("/") or "." if path.endswith("...") else path
        if not os.path.exists(base):
            sys.stderr.write(f"error: no such file or folder: {path}\n")
            return EXIT_USAGE
    options: dict[str, Any] = {
        "select": split_selectors(args.select),
        "ignore": split_selectors(args.ignore),
        "max_line_length": args.max_line_length,
        "external_pkgs": _externals(args.external),
    }
    try:
        report = lint(args.paths, **options)
        if args.fix:
            texts, fixed = fixed_texts(report)
            for path, text in texts.items():
                write_atomically(path, text)
            if texts:
                report = lint(args.paths, **options)
            sys.stderr.write(f"Fixed {fixed} finding{'s' if fixed != 1 else ''}.\n")
    except LintConfigError as error:
        sys.stderr.write(f"error: {error}\n")
        return EXIT_USAGE
    colour = args.format == "text" and not args.no_style and use_colour(sys.stdout)
    sys.stdout.write(render_report(report, args.format, colour))
    return EXIT_PROGRAM_ERROR if report.diagnostics else EXIT_OK


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
    problem = next(
        (f"'{item}' is not a package folder" for item in folders if not os.path.isdir(item)), ""
    )
    try:
        from kclpy.api import run_pattern

        if args.run:
            run_pattern(args.run)
    except ValueError as error:
        problem = str(error)
    if problem:
        sys.stderr.write(f"error: {problem}\n")
        return EXIT_USAGE
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


def fmt_command(args: argparse.Namespace) -> int:
    """``kcl fmt``: rewrite files in place and print the changed paths; ``--check``
    and ``--diff`` write nothing and exit 1 when a file would change; ``-`` formats
    standard input to standard output. A file with syntax errors is reported (exit
    1) and left as it is; the other files are formatted."""
    from kclpy.diag.render import render_all, use_colour
    from kclpy.tools.format import FormatError, format_code, kcl_files, read_verbatim, unified_diff

    would_change = failed = False
    for path in args.paths:
        try:
            files = ["-"] if path == "-" else kcl_files(path)
        except OSError as error:
            sys.stderr.write(f"error: {error}\n")
            failed = True
            continue
        for file in files:
            try:
                before = sys.stdin.read() if file == "-" else read_verbatim(file)
                after = format_code(before, filename="<stdin>" if file == "-" else file)
            except FormatError as error:
                colour = not args.no_style and use_colour(sys.stderr)
                sys.stderr.write(render_all(error.diagnostics, "human", colour))
                failed = True
                continue
            except (OSError, ValueError) as error:  # unreadable, not UTF-8
                sys.stderr.write(f"error: {file}: {error}\n")
                failed = True
                continue
            if file == "-":
                sys.stdout.write(after)
            elif after != before:
                would_change = True
                if args.diff:
                    sys.stdout.write(unified_diff(file, before, after))
                    continue
                if not args.check:
                    write_atomically(file, after)
                print(file)
    if failed:
        return EXIT_PROGRAM_ERROR
    return EXIT_PROGRAM_ERROR if would_change and (args.check or args.diff) else EXIT_OK


def lsp_command() -> int:
    """``kcl lsp``: the language server (package ``kclpy_lsp``, needs the ``lsp`` extra:
    pygls); imported only here, so no other command pays for it."""
    import importlib

    try:
        server = importlib.import_module("kclpy_lsp.server")
    except ImportError as error:
        sys.stderr.write(
            f"error: the language server needs pygls ({error}); pip install 'kclpy[lsp]'\n"
        )
        return EXIT_USAGE
    result: int = server.main()
    return result


def doc_command(args: argparse.Namespace) -> int:
    """``kcl doc``: the schemas of a package as Markdown or JSON Schema."""
    from kclpy.diag.render import render_all, use_colour
    from kclpy.tools.doc import DocError, generate_doc

    try:
        text = generate_doc(args.path, args.format)
    except DocError as error:
        if error.diagnostics:
            colour = not args.no_style and use_colour(sys.stderr)
            sys.stderr.write(render_all(error.diagnostics, "human", colour))
        else:
            sys.stderr.write(f"error: {error}\n")
        return EXIT_PROGRAM_ERROR
    if args.output:
        write_atomically(args.output, text)
    else:
        sys.stdout.write(text)
    return EXIT_OK
