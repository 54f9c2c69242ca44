"""``kcl kusion preview | apply | destroy | state | graph``: arguments and the command flow.

``add_arguments(parser)`` registers the sub-commands on the parser the main
``kcl`` CLI gives it, and ``main(args)`` runs one and returns the exit code:
0 success, 1 a user-facing error (bad spec, refused lock, failed resource,
state database unavailable, a cluster that did not answer within
``--cluster-timeout``), 2 a bad command line, 128 + signal when stopped by
SIGINT (130) or SIGTERM (143) - both stop cleanly: a preview at once, an
apply or destroy once its running resources have finished and are recorded;
the lock is released. Everything the commands print goes through one
``secrets.Masker`` (stdout and stderr are wrapped while a command runs), which
learns the secrets of the spec and state and, before a preview or apply, what
the runtimes declare sensitive (``sensitive.declare``).
Importing this module is cheap: the state backends, the runtimes and YAML are
imported only when a command runs.
"""

from __future__ import annotations

import argparse
import io
import signal
import sys
from collections.abc import Iterator
from contextlib import contextmanager, redirect_stdout
from pathlib import Path
from types import FrameType
from typing import TYPE_CHECKING, Any, TextIO

from kclpy.diag.console import note

if TYPE_CHECKING:
    from kclpy.kusion.engine import Options, Plan, StepOutcome
    from kclpy.kusion.model import KusionError, Resource, Spec
    from kclpy.kusion.operations import Context, Outcome
    from kclpy.kusion.secrets import MaskedStream, Masker
    from kclpy.kusion.sensitive import Declared
    from kclpy.kusion.state.base import Release

EXIT_OK = 0
EXIT_ERROR = 1
EXIT_INTERRUPTED = 130


_EXAMPLES = {
    "preview": "kcl kusion preview main.k\n"
    "kcl kusion preview --spec spec.yaml -o json\n"
    "kcl kusion preview -Y kcl.yaml --detail --state postgresql://kusion@db/kusion",
    "apply": "kcl kusion apply main.k --yes\n"
    "kcl kusion apply main.k --dry-run\n"
    "kcl kusion apply --spec spec.yaml --yes --no-watch",
    "destroy": "kcl kusion destroy --yes\nkcl kusion destroy --project demo --workspace dev --yes",
    "state": "kcl kusion state\n"
    "kcl kusion state history\n"
    "kcl kusion state show --revision 3 -o json\n"
    "kcl kusion state unlock --force",
    "graph": "kcl kusion graph main.k -o dot | dot -Tsvg > graph.svg\n"
    "kcl kusion graph                  # the graph of the recorded state",
}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Register preview / apply / destroy / state / graph on ``parser``."""
    from kclpy.diag.console import add_style_options

    commands = parser.add_subparsers(
        dest="kusion_command", metavar="COMMAND", help="what to do with the spec or the state"
    )
    commands.required = True

    def command(name: str, help: str) -> argparse.ArgumentParser:
        examples = "examples:\n" + "\n".join("  " + line for line in _EXAMPLES[name].splitlines())
        return commands.add_parser(name, help=help, epilog=examples)

    preview = command("preview", "show what apply would change")
    _spec_arguments(preview)
    preview.add_argument(
        "-o",
        "--output",
        choices=["table", "json"],
        default="table",
        help="the plan as a table or as JSON (default table)",
    )
    preview.add_argument("--detail", action="store_true", help="show a diff per resource")
    preview.add_argument("--all", action="store_true", help="with --detail, unchanged too")
    apply = command("apply", "apply the spec")
    _spec_arguments(apply)
    _confirm_arguments(apply)
    apply.add_argument("--dry-run", action="store_true", help="walk the plan, change nothing")
    apply.add_argument(
        "--no-watch",
        dest="watch",
        action="store_false",
        help="do not wait for Kubernetes workloads to become ready",
    )
    apply.add_argument(
        "--watch-timeout",
        type=float,
        default=600.0,
        metavar="SECONDS",
        help="wait at most this long for the workloads to become ready (default 600)",
    )
    destroy = command("destroy", "delete everything the state records")
    _state_arguments(destroy)
    _confirm_arguments(destroy)
    state = command("state", "show the recorded state, its history, or unlock")
    state.add_argument(
        "action",
        nargs="?",
        choices=["show", "history", "unlock"],
        default="show",
        help="show the latest release (default), list the releases, or release the lock",
    )
    state.add_argument("--revision", type=int, help="show this revision instead of the latest")
    state.add_argument(
        "-o",
        "--output",
        choices=["text", "json"],
        default="text",
        help="show the release as text or as JSON (default text)",
    )
    state.add_argument(
        "--force", action="store_true", help="unlock even while the lock's owner is running"
    )
    _state_arguments(state)
    graph = command(
        "graph", "the resource graph of the spec (or, without one, of the recorded state)"
    )
    _spec_arguments(graph)
    graph.add_argument(
        "-o",
        "--output",
        choices=["json", "dot"],
        default="json",
        help="the graph as JSON or as Graphviz dot (default json)",
    )
    for sub in commands.choices.values():
        add_style_options(
            sub,
            quiet="print only errors and what a confirmation needs: no plan, result, "
            "progress or success messages",
            verbose="say on stderr where the spec and the state are read and written",
        )


def _state_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--state",
        metavar="URL",
        help="sqlite path/URL or postgresql://... (default .kusion/state.db)",
    )
    parser.add_argument("--project", help="project name (default: the working directory name)")
    parser.add_argument("--workspace", default="default", help="workspace name")
    parser.add_argument("--workdir", default=".", help="working directory (default: current)")
    parser.add_argument(
        "--max-concurrent",
        type=_positive,
        default=10,
        metavar="N",
        help="resources processed in parallel (default 10)",
    )
    parser.add_argument(
        "--cluster-timeout",
        "--request-timeout",
        dest="cluster_timeout",
        type=_seconds,
        metavar="SECONDS",
        help="wait at most this long to connect to a Kubernetes cluster, for its API "
        "discovery and for each request (default $KCLPY_KUSION_CLUSTER_TIMEOUT, else 30)",
    )
    parser.add_argument(
        "--allow-local-path",
        action="append",
        default=[],
        metavar="DIR",
        help="a folder besides the working directory where Local resources may write and "
        "delete files (repeatable)",
    )


def _spec_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("files", nargs="*", metavar="FILE", help="KCL files to compile")
    parser.add_argument("--spec", metavar="FILE", help="a Kusion Spec or manifest YAML file")
    parser.add_argument(
        "-D",
        "--argument",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="top-level argument for kcl run",
    )
    parser.add_argument(
        "-Y",
        "--setting",
        action="append",
        default=[],
        metavar="FILE",
        help="settings file for kcl run",
    )
    parser.add_argument(
        "--ignore-fields",
        action="append",
        default=[],
        metavar="PATH",
        help="attribute path to ignore when comparing (repeatable)",
    )
    _state_arguments(parser)


def _confirm_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("-y", "--yes", action="store_true", help="do not ask for confirmation")
    parser.add_argument("--detail", action="store_true", help="show a diff per resource")


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not 0 < value <= 86400:
        raise argparse.ArgumentTypeError("must be a number of seconds between 0 and 86400")
    return value


def _positive(text: str) -> int:
    value = int(text)
    if not 1 <= value <= 100:
        raise argparse.ArgumentTypeError("must be between 1 and 100")
    return value


def main(args: argparse.Namespace) -> int:
    """Run one ``kcl kusion`` command; return its exit code."""
    from kclpy.kusion.model import KusionError
    from kclpy.kusion.secrets import Masker

    handlers = {
        "preview": _preview,
        "apply": _apply,
        "destroy": _destroy,
        "state": _state,
        "graph": _graph,
    }
    masker = Masker()
    with _masked_output(masker, args.quiet), _terminate_interrupts():
        try:
            return handlers[args.kusion_command](args, masker)
        except KusionError as error:
            _print_diagnostics(error)
            return EXIT_ERROR
        except KeyboardInterrupt:
            print("interrupted", file=sys.stderr)
            return _interrupted_code()


def _print_diagnostics(error: KusionError) -> None:
    """An error as the diagnostics it carries, with a code and a caret where it has a
    position, as every kcl command prints them."""
    from kclpy.diag.render import render_all, use_colour

    sys.stderr.write(render_all(error.diagnostics(), "human", use_colour(sys.stderr)))


def _interrupted_code() -> int:
    from kclpy.kusion import faults

    return 128 + faults.signals[-1] if faults.signals else EXIT_INTERRUPTED


class _Silent(io.TextIOBase):
    """Standard output under ``-q``: what is written goes nowhere, except what a
    confirmation shows, which is written to ``shown``."""

    def __init__(self, shown: MaskedStream) -> None:
        self.shown = shown

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        return len(text)


@contextmanager
def _masked_output(masker: Masker, quiet: bool = False) -> Iterator[None]:
    from kclpy.kusion.secrets import MaskedStream

    saved = sys.stdout, sys.stderr
    shown = MaskedStream(saved[0], masker)
    sys.stdout = _Silent(shown) if quiet else shown
    sys.stderr = MaskedStream(saved[1], masker)
    try:
        yield
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
        sys.stdout, sys.stderr = saved


@contextmanager
def _terminate_interrupts() -> Iterator[None]:
    """SIGTERM behaves like Ctrl-C: a KeyboardInterrupt, so cleanup runs and the lock is freed."""
    from kclpy.kusion import faults

    def handler(signum: int, frame: FrameType | None) -> None:
        faults.received(signum)
        raise KeyboardInterrupt

    try:
        previous = signal.signal(signal.SIGTERM, handler)
    except ValueError:  # not the main thread: leave signals alone
        yield
        return
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


# -- helpers -------------------------------------------------------------------------


def _context(args: argparse.Namespace, masker: Masker) -> Context:
    """Backend, runtimes, journal for the project/workspace; learns the state's secrets."""
    from kclpy.kusion.journal import Journal
    from kclpy.kusion.operations import Context
    from kclpy.kusion.runtimes.defaults import RuntimeSettings, default_runtimes
    from kclpy.kusion.runtimes.kubeclient import timeout_from_environment
    from kclpy.kusion.state import DEFAULT_DIRECTORY, open_state

    workdir = Path(args.workdir).resolve()
    project = args.project or workdir.name or "default"
    where = _location(args.state, workdir)
    note(args, f"state {where}, project {project!r}, workspace {args.workspace!r}")
    settings = RuntimeSettings(
        args.cluster_timeout or timeout_from_environment(),
        tuple(Path(folder) for folder in args.allow_local_path),
    )
    backend = open_state(args.state, workdir)
    journal = Journal(workdir / DEFAULT_DIRECTORY / "journal", project, args.workspace)
    context = Context(
        backend,
        default_runtimes(workdir, project, args.workspace, settings),
        project,
        args.workspace,
        journal,
        _notice,
    )
    try:
        latest = backend.latest(project, args.workspace)
    except BaseException:
        backend.close()
        raise
    if latest is not None:
        _learn_release(masker, latest)
    return context


def _location(url: str | None, workdir: Path) -> str:
    """Where the state is, for ``-v``: a file, or a database URL without its password."""
    from urllib.parse import urlsplit

    from kclpy.kusion.state import sqlite_path

    if not url or not url.startswith(("postgresql://", "postgres://")):
        return str(sqlite_path(url, workdir))
    parts = urlsplit(url)
    if parts.password is None:
        return url
    host = parts.netloc.rpartition("@")[2]
    return parts._replace(netloc=f"{parts.username or ''}:***@{host}").geturl()


def _learn_release(masker: Masker, release: Release) -> None:
    """The masker learns the secrets of a recorded release: its resources and its spec."""
    from kclpy.kusion.sensitive import recorded_in_spec

    declared = recorded_in_spec(release.spec)
    masker.add_resources(_resources_of(release.spec.get("resources")), declared)
    masker.add_resources(release.resources, declared)


def _resources_of(documents: Any) -> list[Resource]:
    from kclpy.kusion.model import Resource

    if not isinstance(documents, list):
        return []
    return [Resource.from_json(item) for item in documents if isinstance(item, dict)]


def _notice(message: str) -> None:
    print(f"note: {message}", file=sys.stderr, flush=True)


def _options(args: argparse.Namespace) -> Options:
    from kclpy.kusion.engine import Options

    return Options(
        max_concurrent=args.max_concurrent,
        ignore_fields=tuple(getattr(args, "ignore_fields", ())),
        watch=getattr(args, "watch", True),
        watch_timeout=getattr(args, "watch_timeout", 600.0),
        dry_run=getattr(args, "dry_run", False),
    )


RUN_SETTINGS = ("path_selector", "disable_none", "sort_keys", "show_hidden")


def _spec(args: argparse.Namespace) -> Spec:
    """The spec from --spec, or from KCL files (and -Y settings files) through kcl run."""
    from kclpy.kusion.spec import load_spec

    files = list(args.files)
    run_options: dict[str, Any] = {}
    if args.setting and not args.spec:
        settings = _load_settings(args.setting)
        files = files or list(settings.get("files") or [])
        run_options = {key: settings[key] for key in RUN_SETTINGS if settings.get(key)}
        run_options["options"] = list(settings.get("options") or [])
    if args.argument:
        run_options["options"] = [*run_options.get("options", []), *args.argument]
    note(args, f"reading the spec {args.spec}" if args.spec else "compiling " + " ".join(files))
    return load_spec(files, args.spec, run_options)


def _load_settings(paths: list[str]) -> dict[str, Any]:
    from kclpy.kusion.model import KusionError
    from kclpy.settings import SettingsError, load_settings

    try:
        settings: dict[str, Any] = load_settings(paths)
    except SettingsError as error:  # unreadable or malformed file
        raise KusionError(str(error)) from None
    return settings


def _print_plan(
    plan: Plan, detail: bool, show_unchanged: bool = False, declared: Declared | None = None
) -> None:
    from kclpy.kusion import render

    print(render.order_table(plan.order))
    if detail:
        print()
        print(render.order_detail(plan.order, show_unchanged, declared))


def _declare(spec: Spec, context: Context, args: argparse.Namespace, masker: Masker) -> Declared:
    """What the runtimes declare sensitive in ``spec`` (provider schemas); the masker learns it."""
    from kclpy.kusion.sensitive import declare
    from kclpy.kusion.validation import check

    check(spec, context.runtimes)  # what apply would refuse, before a runtime is asked
    declared = declare(spec.resources, context.runtimes, args.max_concurrent)
    masker.add_resources(spec.resources, declared)
    return declared


def _confirmer(args: argparse.Namespace, verb: str, declared: Declared | None = None) -> Any:
    def confirm(plan: Plan) -> bool:
        if args.yes or getattr(args, "dry_run", False):
            _print_plan(plan, args.detail, declared=declared)
            return True
        if not sys.stdin.isatty():
            from kclpy.kusion.model import KusionError

            _print_plan(plan, args.detail, declared=declared)
            raise KusionError(f"{verb} needs confirmation: run again with --yes")
        with redirect_stdout(getattr(sys.stdout, "shown", sys.stdout)):  # shown under -q
            _print_plan(plan, args.detail, declared=declared)
            answer = input(f"\nDo you want to {verb} these changes? [y/N] ")
        return answer.strip().lower() in ("y", "yes")

    return confirm


def _progress(dry_run: bool, stream: TextIO | None = None) -> Any:
    from kclpy.kusion import render

    def report(outcome: StepOutcome) -> None:
        print(render.progress_line(outcome, dry_run), file=stream or sys.stdout, flush=True)

    return report


# -- commands ------------------------------------------------------------------------


def _preview(args: argparse.Namespace, masker: Masker) -> int:
    from kclpy.kusion import operations, render

    spec = _spec(args)
    masker.add_resources(spec.resources)
    context = _context(args, masker)
    try:
        declared = _declare(spec, context, args, masker)
        plan = operations.preview(context, spec, _options(args))
    finally:
        context.backend.close()
    if args.output == "json":
        print(render.order_json(plan.order, declared))
    else:
        _print_plan(plan, args.detail, args.all, declared)
    return EXIT_OK


def _apply(args: argparse.Namespace, masker: Masker) -> int:
    from kclpy.kusion import operations

    spec = _spec(args)
    masker.add_resources(spec.resources)
    context = _context(args, masker)
    options = _options(args)
    try:
        declared = _declare(spec, context, args, masker)
        options.declared = declared
        confirm = _confirmer(args, "apply", declared)
        outcome = operations.apply(context, spec, options, confirm, _progress(options.dry_run))
    finally:
        context.backend.close()
    return _report(outcome, "Apply", declared)


def _destroy(args: argparse.Namespace, masker: Masker) -> int:
    from kclpy.kusion import operations

    context = _context(args, masker)
    options = _options(args)
    try:
        outcome = operations.destroy(
            context, options, _confirmer(args, "destroy"), _progress(False)
        )
    finally:
        context.backend.close()
    return _report(outcome, "Destroy")


def _graph(args: argparse.Namespace, masker: Masker) -> int:
    """The resource graph of the spec given, else of the latest recorded state."""
    from kclpy.kusion import render

    title: dict[str, Any]
    if args.files or args.spec or args.setting:
        spec = _spec(args)
        resources = spec.resources
        title = {"source": "spec"}
    else:
        context = _context(args, masker)
        try:
            latest = context.backend.latest(context.project, context.workspace)
        finally:
            context.backend.close()
        resources = latest.resources if latest else []
        title = {"source": "state", "project": context.project, "workspace": context.workspace}
        if latest is not None:
            title["revision"] = latest.revision
    if args.output == "dot":
        print(render.graph_dot(resources, title))
    else:
        print(render.graph_json(resources, title))
    return EXIT_OK


def _report(outcome: Outcome, verb: str, declared: Declared | None = None) -> int:
    from kclpy.kusion.model import Action

    if outcome.status == "nothing to do":
        if outcome.plan is None or not outcome.plan.order.steps:
            print("Nothing to do.")
        else:
            _print_plan(outcome.plan, False, declared=declared)
        return EXIT_OK
    if outcome.status == "declined":
        print(f"{verb} cancelled; nothing was changed.")
        return EXIT_OK
    if outcome.interrupted:
        print(f"{verb} interrupted; state records what was finished.", file=sys.stderr)
        return _interrupted_code()
    if outcome.errors:
        print(f"{verb} failed for {len(outcome.errors)} resource(s):", file=sys.stderr)
        for error in outcome.errors:
            print(f"  {error}", file=sys.stderr)
        print(
            "State records every resource that succeeded; run again to continue.", file=sys.stderr
        )
        return EXIT_ERROR
    assert outcome.plan is not None
    counts = outcome.plan.order.counts()
    prefix = "Dry run" if outcome.status == "dry run" else f"{verb} complete!"
    print(
        f"{prefix} Resources: {counts[Action.CREATE]} created, {counts[Action.UPDATE]} "
        f"updated, {counts[Action.DELETE]} deleted."
    )
    return EXIT_OK


def _state(args: argparse.Namespace, masker: Masker) -> int:
    from kclpy.kusion import render
    from kclpy.kusion.model import KusionError
    from kclpy.kusion.sensitive import recorded_in_spec

    context = _context(args, masker)
    backend = context.backend
    try:
        if args.action == "unlock":
            released = backend.unlock(context.project, context.workspace, args.force)
            if released is None:
                print("No release in progress; nothing to unlock.")
            else:
                print(
                    f"Release {released.revision} ({released.operation}) marked failed; "
                    "the lock is released."
                )
            return EXIT_OK
        if args.action == "history":
            releases = backend.history(context.project, context.workspace)
            for item in releases:
                _learn_release(masker, item)
            print(render.history_text(releases))
            return EXIT_OK
        if args.revision is not None:
            release = backend.get(context.project, context.workspace, args.revision)
        else:
            release = backend.latest(context.project, context.workspace)
        if release is None:
            if args.revision is not None:
                raise KusionError(f"no revision {args.revision} in project {context.project!r}")
            print(f"No state for project {context.project!r} workspace {context.workspace!r}.")
            return EXIT_OK
        _learn_release(masker, release)
        if args.output == "json":
            print(render.release_json(release, recorded_in_spec(release.spec)))
        else:
            print(render.release_text(release))
        return EXIT_OK
    finally:
        backend.close()
