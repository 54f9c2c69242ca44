"""``kcl run``: compile KCL files and print (or ``-o`` write) the result.

Takes the run options (also read from ``-Y`` settings files or ``./kcl.yaml``),
hands the work to :func:`kclpy.pipeline.driver.run_files` (what ``kclpy.run_files``
runs, without importing the Python API); returns the exit code.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable

from kclpy.cli.base import (
    EXIT_OK,
    EXIT_PROGRAM_ERROR,
    Command,
    CommandError,
    add_runner_options,
    add_style_options,
    externals,
    note,
    read_text,
    report,
    write_output,
)
from kclpy.diag import Code
from kclpy.vm.limits import seconds_argument, size_argument

TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse
    from typing import Any, TypeVar

    from kclpy.pipeline.driver import Edit, RunResult

    Result = TypeVar("Result")

STDIN = "-"
STDIN_NAME = "<stdin>"

EXAMPLES = """examples:
  kcl run main.k                         # YAML on stdout
  kcl run main.k -D env=prod -D replicas=3 --format json
  kcl run -Y kcl.yaml ci-test/settings.yaml -o out.yaml
  kcl run base.k prod.k -S app -O app.replicas=5 -k
  echo 'a = 1' | kcl run -               # the program from standard input
  kcl run models/                        # every .k file of a package folder"""


# the on/off options of ``kcl run``: short name, long name, help
SWITCHES = (
    ("-n", "disable_none", "leave out attributes whose value is None"),
    ("-k", "sort_keys", "sort the keys of every mapping of the result"),
    ("-H", "show_hidden", "also print hidden attributes (names starting with _)"),
    ("-r", "strict_range_check", "check that numbers fit 32-bit ints and floats"),
    (
        "-d",
        "debug",
        "debug mode: -O overrides are also written into the source files, "
        "and a kclpy bug shows its Python traceback",
    ),
    ("-K", "fast_eval", "accepted for compatibility; kclpy has one evaluator"),
)


def override_spec(text: str) -> str:
    """The argparse type of ``-O``: a well-formed spec or a usage error (exit 2)."""
    from kclpy.tools.override import OverrideError, parse_override_spec

    try:
        parse_override_spec(text)
    except OverrideError as error:
        import argparse

        raise argparse.ArgumentTypeError(str(error)) from None
    return text


def configure(parser: argparse.ArgumentParser) -> None:
    """The options of ``kcl run`` (and of commands that compile programs the same way)."""
    repeat: dict[str, Any] = {"action": "append", "default": []}
    parser.add_argument(
        "files",
        nargs="*",
        help="entry .k files or package folders; - reads standard input; a .yaml/.yml"
        " file among them is a settings file (as -Y)",
    )
    parser.add_argument(
        "--tag", default="", help="the version of an oci:// or git package given as the input"
    )
    add_package_options(parser)
    parser.add_argument(
        "-S",
        "--path_selector",
        "--path-selector",
        dest="path_selector",
        metavar="PATH",
        **repeat,
        help="print only this part of the result, e.g. app.spec or pkg:app",
    )
    parser.add_argument(
        "-O",
        "--overrides",
        dest="overrides",
        metavar="SPEC",
        type=override_spec,
        **repeat,
        help="override a value before running: path=value, path:value (union), path+=list, or"
        ' path- to delete it; the path is a.b.c or a["dot.key"]',
    )
    parser.add_argument(
        "-o",
        "--output",
        metavar="FILE",
        help="write the result to FILE (atomically; through symlinks; into FIFOs and devices)",
    )
    parser.add_argument(
        "-f",
        "--format",
        choices=["yaml", "json", "toml", "xml"],
        default=None,
        help="the result's format (default yaml); json is indented by 4 spaces; xml as the"
        " real CLI's (<root>, <item> for list elements)",
    )
    for short, name, help_text in SWITCHES:
        dashed = [f"--{name.replace('_', '-')}"] if "_" in name else []
        parser.add_argument(
            short, f"--{name}", *dashed, dest=name, action="store_true", help=help_text
        )
    parser.add_argument(
        "--error-format",
        "--error_format",
        dest="error_format",
        choices=["human", "pretty", "short", "json"],
        default="human",
        help="how errors are printed (default human: rustc style with the source line)",
    )
    add_runner_options(parser)
    _add_limit_options(parser)
    add_style_options(parser)


def add_package_options(parser: argparse.ArgumentParser) -> None:
    """``--locked`` and ``-V/--vendor``: how a run may treat the module's packages."""
    parser.add_argument(
        "--locked",
        action="store_true",
        help="fail, changing nothing, if kcl.mod.lock would change (it is out of date)",
    )
    parser.add_argument(
        "-V",
        "--vendor",
        action="store_true",
        help="vendor mode: copy the module's packages into its vendor/ folder, run from there",
    )


def handle(args: argparse.Namespace) -> int:
    """``kcl run``, the garbage collector paused (see :func:`_without_gc`)."""
    exiting = getattr(args, "exiting", False)
    if not getattr(args, "locked", False):  # (kclpy.mod is imported only when needed)
        return _without_gc(lambda: _run(args), exiting=exiting)
    from kclpy.mod.settings import locked

    with locked():
        return _without_gc(lambda: _run(args), exiting=exiting)


def _vendor(files: list[str]) -> None:
    """``-V``: the packages of the module holding the entries copied into its vendor/."""
    from kclpy.mod.entries import module_root
    from kclpy.mod.operations import vendor_dependencies

    root = module_root(files)
    if root:
        vendor_dependencies(root)


def _without_gc(work: Any, exiting: bool) -> int:
    # A run builds large acyclic graphs (syntax trees, configs) and the process ends
    # right after: the cyclic collector only rescans them (40% of the CPU time on 10k
    # schema instances) while freeing almost nothing. Reference counting still frees.
    # At exit the interpreter collects once more whatever the setting; freezing the
    # heap first spares that last full scan (0.6 s of 3 s on 10k schema instances).
    import gc

    enabled = gc.isenabled()
    gc.disable()
    try:
        result: int = work()
        return result
    finally:
        if exiting:
            gc.freeze()
        elif enabled:
            gc.enable()


def load_settings(args: argparse.Namespace) -> dict[str, Any]:
    """The ``-Y`` settings files (or ./kcl.yaml) merged; command-line values win later.
    ``.yaml`` files among ``args.files`` (if the command has files) move to the settings."""
    from kclpy.settings import SettingsError
    from kclpy.settings import load_settings as load

    files = getattr(args, "files", [])
    paths = [*args.settings, *(item for item in files if _is_settings_file(item))]
    args.files = [item for item in files if not _is_settings_file(item)]
    if not paths and os.path.isfile("kcl.yaml"):
        paths = ["kcl.yaml"]
    for path in paths:
        note(args, f"settings file {path}")
    try:
        return load(paths)
    except SettingsError as error:
        # as the reference: a bad settings file is an EvaluationError of the run
        raise CommandError(str(error), Code.EVALUATION_ERROR, EXIT_PROGRAM_ERROR) from None


def _is_settings_file(path: str) -> bool:
    return path.endswith((".yaml", ".yml")) and not os.path.isdir(path)


def _inputs(files: list[str]) -> tuple[list[str], dict[str, str]]:
    """The entry files, ``-`` replaced by the standard input's program; a folder
    without ``.k`` files is an error (the reference refuses it too)."""
    from kclpy.loader import package_files

    sources: dict[str, str] = {}
    entries: list[str] = []
    for item in files:
        if item == STDIN:
            sources[STDIN_NAME] = _read_standard_input()
            entries.append(STDIN_NAME)
            continue
        if os.path.isdir(item) and not package_files(item):
            raise CommandError(
                f"no KCL files (*.k) in the folder {item}", Code.IO_ERROR, EXIT_PROGRAM_ERROR
            )
        entries.append(item)
    return entries, sources


def _read_standard_input() -> str:
    """The program on standard input, read in steps that the run's limits and signals
    can interrupt (a read blocked in the system could not be: a writer that never
    closes the pipe would hold the run for ever)."""
    import select

    from kclpy.vm.limits import check_allocation

    try:
        descriptor = sys.stdin.fileno()
        select.select([descriptor], [], [], 0)
    except (AttributeError, OSError, ValueError):  # no descriptor that select takes
        return read_text(STDIN)
    chunks: list[bytes] = []
    total = 0
    try:
        while True:
            if not select.select([descriptor], [], [], 0.05)[0]:
                continue
            chunk = os.read(descriptor, 1 << 20)
            if not chunk:
                return b"".join(chunks).decode("utf-8")
            total += len(chunk)
            check_allocation(total, 2)
            chunks.append(chunk)
    except (OSError, UnicodeDecodeError) as error:
        reason = getattr(error, "strerror", None) or str(error)
        raise CommandError(
            f"cannot read standard input: {reason}", Code.IO_ERROR, EXIT_PROGRAM_ERROR
        ) from None


def _add_limit_options(parser: argparse.ArgumentParser) -> None:
    """Resource limits and the file-system policy of a run (kclpy.vm.limits, fs_policy)."""
    parser.add_argument(
        "--max-memory",
        type=size_argument,
        metavar="SIZE",
        help="stop the run past this much memory (E3R01); default: the least of 8G, 3/4 of"
        " free memory and 3/4 of what ulimit -v/-d and the cgroup's memory limit leave",
    )
    parser.add_argument(
        "--timeout",
        type=seconds_argument,
        default=0.0,
        metavar="SECONDS",
        help="stop the run after this",
    )
    parser.add_argument(
        "--allow-fs-read",
        action="append",
        default=[],
        metavar="DIR",
        help="file builtins may also read here (default: the module root only)",
    )
    parser.add_argument(
        "--allow-fs-write",
        action="append",
        default=[],
        metavar="DIR",
        help="file builtins may also read and write here",
    )
    parser.add_argument(
        "--no-fs", action="store_true", help="no file or environment access for the program"
    )


def _run(args: argparse.Namespace) -> int:
    """The run under its limits (:func:`_limited`), then its result printed or written."""
    outcome = _limited(args, lambda: _produce(args))
    if isinstance(outcome, int):
        return outcome
    result, text, output = outcome
    if result.log and not args.quiet:
        sys.stdout.write(result.log)
    if not result.ok:
        return report(result.diagnostics, args.no_style, args.error_format)
    if output:
        write_output(output, text)
        note(args, f"wrote {len(text)} characters to {output}")
    elif not args.quiet:
        sys.stdout.write(text)
    return EXIT_OK


def _limited(args: argparse.Namespace, work: Callable[[], Result]) -> Result:
    """``work()`` under the run's ``--max-memory`` and ``--timeout``: all of a run
    (settings, standard input, the pipeline, the result's text) but the final write;
    a limit tripped or memory run out outside the VM is an E3R01 CommandError."""
    from kclpy.values.errors import KclRuntimeError
    from kclpy.vm.limits import (
        AUTO,
        KIND,
        ResourceLimits,
        limit_error,
        out_of_memory,
        within,
    )

    memory = AUTO if args.max_memory is None else args.max_memory
    try:
        return within(ResourceLimits(memory, args.timeout), work)
    except KclRuntimeError as error:  # (the VM's own errors come back in the result)
        if error.kind != KIND:
            raise
        message = error.message
    except Exception as error:
        if not out_of_memory(error):
            raise
        message = limit_error(error).message
    raise CommandError(message, Code.RESOURCE_LIMIT_ERROR, EXIT_PROGRAM_ERROR) from None


def _produce(args: argparse.Namespace) -> int | tuple[RunResult, str, str]:
    """Run the program: an exit code when it stops early, else its result, the text
    to print and where (``-o``; "" for standard output)."""
    from kclpy.pipeline.driver import run_files

    started = time.perf_counter()
    settings = load_settings(args)
    files = list(args.files) or list(settings.get("files", []))
    if not files or (len(files) == 1 and not files[0].endswith(".k") and files[0] != "-"):
        # no file: the module here (kcl.mod [profile] entries); oci://, a git URL, PKG.tar
        from kclpy.mod.entries import run_inputs
        from kclpy.mod.errors import PackageError

        try:
            files = run_inputs(files, args.tag)
        except PackageError as error:
            return report([error.diagnostic()], args.no_style, args.error_format)
    if not files:
        raise CommandError("no input file: give .k files, a package folder or -Y settings")
    if getattr(args, "vendor", False):
        from kclpy.mod.errors import PackageError

        try:
            _vendor(files)
        except PackageError as error:
            return report([error.diagnostic()], args.no_style, args.error_format)
    entries, sources = _inputs(files)
    note(args, "entry files " + " ".join(entries))

    def flag(name: str) -> bool:
        return bool(getattr(args, name) or settings.get(name))

    overrides = [*settings.get("overrides", []), *args.overrides]
    if overrides and flag("debug"):
        failed = _write_overrides(entries, overrides, args)
        if failed is not None:
            return failed
        overrides = []
    result_format = args.format or str(settings.get("format") or "yaml")
    result = run_files(
        entries,
        options=[*settings.get("options", []), *args.arguments],
        path_selector=[*settings.get("path_selector", []), *args.path_selector],
        disable_none=flag("disable_none"),
        sort_keys=flag("sort_keys"),
        show_hidden=flag("show_hidden"),
        strict_range_check=flag("strict_range_check"),
        edit=_override_edit(overrides),
        format="yaml" if result_format == "xml" else result_format,
        external_pkgs=externals([*settings.get("external", []), *args.external]),
        sources=sources or None,
        max_memory=args.max_memory,
        timeout=args.timeout,
        allow_fs_read=args.allow_fs_read,
        allow_fs_write=args.allow_fs_write,
        no_fs=args.no_fs,
    )
    note(args, f"compiled and ran in {time.perf_counter() - started:.3f} s")
    text = _formatted(result.text, result_format) if result.ok else ""
    return result, text, str(args.output or settings.get("output") or "")


def _override_edit(overrides: list[str]) -> Edit | None:
    """The ``-O`` specs as the pipeline's edit of the loaded program (None: no edit)."""
    if not overrides:
        return None
    from kclpy.tools.override import override_edit

    return override_edit(overrides)


def _write_overrides(
    entries: list[str], overrides: list[str], args: argparse.Namespace
) -> int | None:
    """``-d`` with ``-O``: write the overrides into the entry files (then the program
    has them); an exit code when they cannot be applied."""
    from kclpy.tools.override import OverrideError, override_files

    sources = [entry for entry in entries if entry.endswith(".k") and os.path.isfile(entry)]
    if not sources:
        return None
    try:
        override_files(sources, overrides)
    except OverrideError as error:
        return report(error.diagnostics, args.no_style, args.error_format)
    note(args, "overrides written into " + " ".join(sources))
    return None


def _formatted(text: str, result_format: str) -> str:
    """The text to print: JSON indented, XML made from the YAML."""
    if result_format == "json":
        return indent_json(text)
    if result_format != "xml":
        return text
    from kclpy.cli.xml_format import XmlError, to_xml

    try:
        return to_xml(text)
    except XmlError as error:
        raise CommandError(str(error), Code.EVALUATION_ERROR, EXIT_PROGRAM_ERROR) from None


def indent_json(text: str) -> str:
    """Each JSON document of ``text`` (one per line) indented by 4 spaces, keys in their
    order, as the real CLI prints ``--format json``."""
    import json

    documents = [line for line in text.split("\n") if line]
    indented = [json.dumps(json.loads(line), indent=4, ensure_ascii=False) for line in documents]
    return "".join(document + "\n" for document in indented)


COMMAND = Command(
    name="run",
    aliases=("r",),
    help="compile KCL files and print the result",
    description="Compile and run KCL programs; print the result as YAML, JSON, TOML or XML.\n"
    "Files and options may come in any order; every option may be repeated.",
    examples=EXAMPLES,
    configure=configure,
    handle=handle,
)
