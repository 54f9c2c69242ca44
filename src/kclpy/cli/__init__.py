"""The ``kcl`` command line: the table of subcommands, dispatch, exit codes and the
handling of failures and signals; each subcommand's work is in its own module.

Takes ``argv``; returns the exit code (see ``EXIT_CODES_HELP`` in :mod:`.base`:
0 ok, 1 program or user error, 2 usage, 3 a bug in kclpy, 128+N a signal).

Adding a subcommand is a local edit: write a module ``kclpy/cli/<name>.py`` that
defines ``configure(parser)`` (its arguments, each with a help line), ``handle(args)
-> int`` (imports of heavy modules inside it, to keep start-up fast) and
``COMMAND = Command(name=..., help=..., configure=..., handle=..., examples=...)``,
then add its names to ``_NAMES`` and its record to :func:`_load` below. Only the
chosen subcommand's module is imported and only its parser built (``kcl --help``, a
usage error and shell completion import them all). Positional arguments and options
may be interleaved (argparse's intermixed parsing) unless the command sets
``intermixed=False`` (needed for sub-subcommands). Raise
:class:`~kclpy.cli.base.CommandError` for user errors; anything else escaping
``handle`` is reported as an internal error.
"""

from __future__ import annotations

# (_signal: the C core of signal, whose module builds three enums at import, 0.3 ms a run)
import _signal as signal  # type: ignore[import-not-found]
import os
import sys
from collections.abc import Sequence
from types import FrameType

from kclpy.cli.base import (
    EXIT_CODES_HELP,
    EXIT_INTERNAL,
    EXIT_OK,
    EXIT_PROGRAM_ERROR,
    EXIT_USAGE,
    Command,
    CommandError,
    note,
    print_error,
)
from kclpy.cli.fast_reader import option_table, read_fast
from kclpy.depth import run_deep
from kclpy.diag import Code

TYPE_CHECKING = False
if TYPE_CHECKING:  # (argparse is imported when a parser is built: not for common runs)
    import argparse

# every subcommand, in the order of `kcl --help`: its name and aliases (tests check them
# against the records)
_NAMES: tuple[tuple[str, ...], ...] = (
    ("run", "r"),
    ("fmt",),
    ("lint",),
    ("test", "t"),
    ("vet",),
    ("doc", "d"),
    ("build",),
    ("import",),
    ("mod",),
    ("registry",),
    ("clean",),
    ("version",),
    ("lsp",),
    ("server",),
    ("completion",),
    ("kusion",),
)
_CANONICAL = {alias: names[0] for names in _NAMES for alias in names}

__all__ = [
    "EXIT_INTERNAL",
    "EXIT_OK",
    "EXIT_PROGRAM_ERROR",
    "EXIT_USAGE",
    "Command",
    "build_parser",
    "commands",
    "main",
]

_CAUGHT_SIGNALS = ("SIGTERM", "SIGHUP", "SIGQUIT")


class Terminated(BaseException):
    """Raised in the main thread when a caught signal arrives, so that ``finally``
    blocks (temporary files of ``-o``) run before the process ends."""

    def __init__(self, number: int) -> None:
        super().__init__(number)
        self.number = number


def commands() -> tuple[Command, ...]:
    """Every subcommand's record, in the order of ``kcl --help`` (imports every module)."""
    return tuple(_load(names[0]) for names in _NAMES)


def find_command(name: str) -> Command | None:
    """The record of the subcommand called ``name`` (or an alias), its module imported."""
    canonical = _CANONICAL.get(name)
    return None if canonical is None else _load(canonical)


def _load(name: str) -> Command:
    """The record of the subcommand ``name`` (a canonical name), imported now."""
    if name == "run":
        from kclpy.cli import run

        return run.COMMAND
    if name in ("mod", "registry"):
        from kclpy.cli import package

        return package.MOD if name == "mod" else package.REGISTRY
    if name in ("clean", "version", "lsp", "completion", "kusion"):
        from kclpy.cli import misc

        return {
            "clean": misc.CLEAN,
            "version": misc.VERSION,
            "lsp": misc.LSP,
            "completion": misc.COMPLETION,
            "kusion": misc.KUSION,
        }[name]
    return _load_tool(name)


def _load_tool(name: str) -> Command:
    """The record of a subcommand with a module of its own, other than ``run``."""
    if name == "fmt":
        from kclpy.cli import fmt

        return fmt.COMMAND
    if name == "lint":
        from kclpy.cli import lint

        return lint.COMMAND
    if name == "test":
        from kclpy.cli import testing

        return testing.COMMAND
    if name == "vet":
        from kclpy.cli import vet

        return vet.COMMAND
    if name == "doc":
        from kclpy.cli import doc

        return doc.COMMAND
    if name == "build":
        from kclpy.cli import build

        return build.COMMAND
    if name == "import":
        from kclpy.cli import import_command

        return import_command.COMMAND
    from kclpy.cli import server

    return server.COMMAND


def command_parser(command: Command) -> argparse.ArgumentParser:
    """The parser of one subcommand, its examples and the exit codes in its help."""
    from kclpy.cli.parser import Parser

    parser = Parser(
        prog=f"kcl {command.name}",
        description=command.description or command.help,
        epilog="\n\n".join(part for part in (command.examples, EXIT_CODES_HELP) if part),
    )
    command.configure(parser)
    _finish_subcommands(parser)
    return parser


def _finish_subcommands(parser: argparse.ArgumentParser) -> None:
    """Each nested subcommand (``kcl mod add``, ``kcl kusion apply``): its help line is
    its description when it has none, and the exit codes follow its examples."""
    import argparse

    for action in parser._actions:
        if not isinstance(action, argparse._SubParsersAction):
            continue
        helps = {choice.dest: choice.help for choice in action._choices_actions}
        for name, sub in action.choices.items():
            if sub.description is None:
                sub.description = helps.get(name)
            if EXIT_CODES_HELP not in (sub.epilog or ""):
                sub.epilog = "\n\n".join(part for part in (sub.epilog, EXIT_CODES_HELP) if part)
            _finish_subcommands(sub)


def build_parser(full: bool = False) -> argparse.ArgumentParser:
    """The top-level ``kcl`` parser; ``full=True`` also configures every subcommand
    (for shell completion), which imports what their options need."""
    from kclpy.cli.parser import Parser

    parser = Parser(
        prog="kcl",
        description="kclpy: the KCL configuration language toolchain",
        epilog="'kcl FILE.k ...' is 'kcl run FILE.k ...'; "
        "'kcl COMMAND --help' shows a command's options and examples.\n\n" + EXIT_CODES_HELP,
    )
    parser.add_argument("-V", "--version", action="store_true", help="print the version and exit")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=Parser)
    for command in commands():
        sub = subparsers.add_parser(command.name, aliases=list(command.aliases), help=command.help)
        if full:
            command.configure(sub)
    return parser


def _runs(first: str) -> bool:
    """Whether a command line starting with ``first`` is ``kcl run``'s."""
    if first.endswith(".k") or first == "-" or _is_run_option(first):
        return True
    return not first.startswith("-") and find_command(first) is None and os.path.isdir(first)


def _is_run_option(word: str) -> bool:
    """Whether ``word`` is an option of ``kcl run`` that the root command takes as the
    real CLI does (its root command has run's flags); not -h, -V, -v, --version."""
    if not word.startswith("-") or word in ("-", "-h", "--help", "-V", "-v", "--version"):
        return False
    name = word.partition("=")[0]
    table = option_table(_load("run").configure)
    options = (
        command_parser(_load("run"))._option_string_actions if table is None else table.options
    )
    return name in options or (len(name) > 2 and name[1] != "-" and name[:2] in options)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``kcl`` command; returns the exit code."""
    arguments = list(sys.argv[1:] if argv is None else argv)
    if "_ARGCOMPLETE" in os.environ:
        _complete()
    # `kcl main.k` is `kcl run main.k`, and the root command takes run's options
    # (`kcl -Y kcl.yaml`, `kcl -D a=1 x.k`), as in the reference CLI
    if arguments and _runs(arguments[0]):
        arguments.insert(0, "run")
    if arguments[:1] == ["help"] and len(arguments) > 1:  # `kcl help run`
        arguments = [arguments[1], "--help"]
    if not arguments or arguments[0] in ("-h", "--help", "help"):
        build_parser().print_help(sys.stdout if arguments else sys.stderr)
        return EXIT_OK if arguments else EXIT_USAGE
    if arguments[0] in ("-V", "-v", "--version"):  # -v as the real CLI (cobra)
        arguments[0] = "version"
    command = find_command(arguments[0])
    if command is None:
        build_parser().parse_args(arguments)  # the usage error, with the known commands
        return EXIT_USAGE
    args = _read(command, arguments[1:])
    args.exiting = argv is None
    verbose = getattr(args, "verbose", 0)
    if verbose or "kclpy.pipeline.cache" in sys.modules:
        from kclpy.pipeline.cache import report_to  # why it passes over a folder or an entry

        report_to((lambda message: note(args, message)) if verbose else None)
    from kclpy.mod.progress import Reporter, reporting  # package downloads, on stderr

    with reporting(Reporter(enabled=not getattr(args, "quiet", False))):
        return _guarded(command, args)


def _read(command: Command, words: list[str]) -> argparse.Namespace:
    """The command's arguments: from the fast reader where it is sure of them (the
    common lines of ``kcl run``), else from argparse (help, usage errors, the rest)."""
    if command.intermixed:
        known = read_fast(command.configure, words)
        if known is not None:
            return known
    parser = command_parser(command)
    parse = parser.parse_intermixed_args if command.intermixed else parser.parse_args
    return parse(words)


# commands that stay on the main thread: kusion handles SIGINT itself, lsp and server
# are servers (server handles SIGINT and SIGTERM itself)
_SHALLOW = frozenset({"kusion", "lsp", "server"})


def _guarded(command: Command, args: argparse.Namespace) -> int:
    """Run the command; user errors, memory exhaustion, signals and kclpy's own bugs
    become exit codes and coded messages, never tracebacks."""
    previous = _catch_signals()
    # --no_style is NO_COLOR for the command's duration: every colour decision
    # (kclpy.diag.render.use_colour), in this process and the workers it starts, sees it
    colourless = bool(getattr(args, "no_style", False)) and "NO_COLOR" not in os.environ
    if colourless:
        os.environ["NO_COLOR"] = "1"
    try:
        if command.name in _SHALLOW:
            return command.handle(args)
        return run_deep(command.handle, args)  # the language's depths (kclpy.depth)
    except CommandError as error:
        sys.stdout.flush()
        print_error(error.code, str(error))
        return error.exit_code
    except MemoryError as error:
        return _out_of_memory(error)
    except KeyboardInterrupt:
        sys.stderr.write("interrupted\n")
        return 128 + int(signal.SIGINT)
    except Terminated as stop:
        return 128 + stop.number
    except BrokenPipeError:
        _silence_stdout()
        return EXIT_OK
    except RecursionError:
        print_error(Code.EVALUATION_ERROR, "maximum recursion depth exceeded")
        return EXIT_PROGRAM_ERROR
    except Exception as error:  # a bug in kclpy: never a traceback for the user
        from kclpy.vm.limits import out_of_memory

        if out_of_memory(error):  # (C code failing to allocate: a SystemError)
            return _out_of_memory(error)
        if os.environ.get("KCLPY_DEBUG") or getattr(args, "debug", False):
            raise
        sys.stdout.flush()
        sys.stderr.write(
            f"error[E9999]: InternalError\n  kclpy failed unexpectedly: "
            f"{type(error).__name__}: {error}\n  (set KCLPY_DEBUG=1 for a traceback)\n"
        )
        return EXIT_INTERNAL
    finally:
        _restore_signals(previous)
        if colourless:
            os.environ.pop("NO_COLOR", None)


def _out_of_memory(error: BaseException) -> int:
    """Memory ran out outside the guarded run (E3R01, as inside it)."""
    from kclpy.vm.limits import limit_error

    message = limit_error(error).message
    sys.stdout.flush()
    print_error(Code.RESOURCE_LIMIT_ERROR, message)
    return EXIT_PROGRAM_ERROR


def _catch_signals() -> dict[int, object]:
    """Turn SIGTERM, SIGHUP and SIGQUIT into :class:`Terminated` (in the main thread;
    elsewhere Python refuses handlers and the signals keep theirs)."""
    previous: dict[int, object] = {}

    def stop(number: int, frame: FrameType | None) -> None:
        raise Terminated(number)

    for name in _CAUGHT_SIGNALS:
        number = getattr(signal, name, None)
        if number is None:
            continue
        try:
            previous[number] = signal.signal(number, stop)
        except ValueError:  # not the main thread
            break
    return previous


def _restore_signals(previous: dict[int, object]) -> None:
    for number, handler in previous.items():
        signal.signal(number, handler)


def _silence_stdout() -> None:
    """After a broken pipe: point stdout at /dev/null so the exit flush is quiet."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass


def _complete() -> None:
    """Answer a shell's completion request (argcomplete sets ``_ARGCOMPLETE``)."""
    import argcomplete

    argcomplete.autocomplete(build_parser(full=True))
