"""``kcl build``: its arguments, and the report it prints.

Output: with ``--format text`` (the default) one line per stack that changed or
failed (with its diagnostics, and its diff under ``--diff``), then the summary line
``N built, N changed, N failed in T s``; ``--affected`` prints the affected stacks'
folders only; ``--format json`` prints the report as JSON. A progress bar is drawn
on a terminal's stderr, and a line per ``kcl.mod.lock`` written. ``-q`` keeps only
the stacks that failed or differ; ``-v`` says what is read and written. Exit
codes: 0 all built (and equal to their goldens under ``--check``), 1 a stack
failed or differs; a build that cannot start raises ``BuildError`` (bad paths or
options, git or cluster errors: a usage error).
"""

from __future__ import annotations

import argparse
import os
import sys

from kclpy.diag.console import add_style_options, note, say, tell
from kclpy.mod.settings import recording_lock_writes
from kclpy.monorepo.engine import BuildError, BuildOptions, build, select
from kclpy.monorepo.report import BuildReport, CompileStack, StackResult

EXIT_OK, EXIT_FAILED = 0, 1


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``kcl build``."""
    parser.add_argument("paths", nargs="*", default=["."], help="folders holding stacks")
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument(
        "--check",
        action="store_true",
        help="compare with ci-test/stdout.golden.yaml; exit 1 on a difference",
    )
    mode.add_argument(
        "--update",
        action="store_true",
        help="write each stack's output to ci-test/stdout.golden.yaml",
    )
    mode.add_argument(
        "--affected", action="store_true", help="only list the stacks the change reaches"
    )
    parser.add_argument(
        "--diff", action="store_true", help="with --check: a unified diff per stack"
    )
    parser.add_argument(
        "--since", metavar="GIT_REV", help="only stacks affected since this revision"
    )
    parser.add_argument(
        "--changed",
        metavar="FILE",
        action="append",
        help="only stacks affected by this file (repeatable)",
    )
    parser.add_argument(
        "-j",
        "--jobs",
        type=int,
        metavar="N",
        help="worker processes (default: the core count; 0: none)",
    )
    parser.add_argument("--cluster", metavar="ADDRESS", help="a Dask scheduler, tcp://HOST:PORT")
    parser.add_argument(
        "--batch-size", type=int, default=8, metavar="N", help="stacks per Dask task (default 8)"
    )
    parser.add_argument(
        "--ship", action="store_true", help="with --cluster: send the repository to the workers"
    )
    parser.add_argument(
        "--format", choices=["text", "json"], default="text", help="the report: text or JSON"
    )
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    add_style_options(
        parser,
        quiet="print only the stacks that failed or differ: no summary, progress bar, "
        "--affected list, JSON report, or kcl.mod.lock lines",
        verbose="say on stderr where it looks for stacks, each stack's result and time, "
        "and each golden written",
    )
    parser.add_argument(
        "--locked",
        action="store_true",
        help="a stack whose kcl.mod.lock would change fails, and the lock stays as it is",
    )


def main(args: argparse.Namespace, compile_stack: CompileStack) -> int:
    """Run ``kcl build`` with the parsed ``args``; returns the exit code."""
    options = _options(args)
    if args.affected:
        if args.since is None and args.changed is None:
            raise BuildError("--affected needs --since or --changed")
        with recording_lock_writes() as written:
            selected, _ = select(options)
        _locks_written(args, written)
        for stack in selected:
            say(args, stack.name)
        return EXIT_OK
    report = build(options, compile_stack)
    _locks_written(args, report.locks_written)
    if args.quiet:
        sys.stdout.write("" if args.format == "json" else render(report, quiet=True))
    else:
        sys.stdout.write(report.to_json() if args.format == "json" else render(report))
    return EXIT_OK if report.ok else EXIT_FAILED


def _options(args: argparse.Namespace) -> BuildOptions:
    if (args.jobs is not None and args.jobs < 0) or args.batch_size < 1:
        raise BuildError("--jobs must be >= 0 and --batch-size >= 1")
    note(args, "looking for stacks under " + " ".join(args.paths))

    def on_result(result: StackResult) -> None:
        note(args, f"{result.stack}: {result.status} in {result.seconds:.2f} s")
        if result.status == "updated":
            note(args, f"wrote {os.path.join(result.stack, 'ci-test', 'stdout.golden.yaml')}")

    return BuildOptions(
        paths=args.paths,
        mode="check" if args.check else "update" if args.update else "build",
        diff=args.diff,
        jobs=args.jobs,
        since=args.since,
        changed=args.changed,
        cluster=args.cluster,
        batch_size=args.batch_size,
        ship=args.ship,
        progress=not args.no_progress and args.format == "text" and not args.quiet,
        locked=args.locked,
        on_result=on_result if args.verbose else None,
    )


def _locks_written(args: argparse.Namespace, paths: list[str]) -> None:
    """A line on stderr per ``kcl.mod.lock`` the build wrote (silenced by ``-q``)."""
    for path in paths:
        shown = os.path.relpath(path)
        tell(args, f"wrote {path if shown.startswith('..') else shown}")


def render(report: BuildReport, quiet: bool = False) -> str:
    """The text report: the stacks that need attention, then the summary line;
    ``quiet``: only the stacks that failed or differ from their goldens."""
    shown = ("failed", "changed") if quiet else ("failed", "changed", "updated")
    lines = [_describe(result) for result in report.results if result.status in shown]
    if not quiet:
        lines.append(report.summary() + "\n")
    return "".join(lines)


def _describe(result: StackResult) -> str:
    text = f"{result.status.upper()}: {result.stack}\n"
    if result.diagnostics:
        text += (
            result.diagnostics if result.diagnostics.endswith("\n") else result.diagnostics + "\n"
        )
    return text + result.diff
