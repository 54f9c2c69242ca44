"""Run the checker over the git-ignored corpora and report how it compares.

Run by hand (from the project root)::

    .venv/bin/python tests/sema/corpus_check.py [--filter RE] [--show N] [--no-k8s] [--no-konfig]

* conformance (``.corpus/kcl-conformance``, the valid ids of
  ``../shared/conformance/reference_pass.txt``): false errors on output cases
  and on runtime-error cases, and for the cases whose reference error is a
  compile-time one, whether the checker reports the same kind at the same line;
  per category and for the type categories;
* the k8s 1.31 models (every package imported from one entry file): false
  errors, and the checker's share of a load + check + compile run;
* the konfig stacks (``konfig-compat``; the unpatched ``konfig`` must give the
  private-member CompileError).

Skips (exit 0) when ``.corpus/`` is missing.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
import time
from collections import Counter, defaultdict
from collections.abc import Iterator
from dataclasses import dataclass, field

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tests"))  # run as a script: tests/reference.py

from reference import ReferenceFailed, call_reference  # noqa: E402

CORPUS = os.path.join(ROOT, ".corpus")
CONFORMANCE = os.path.join(CORPUS, "kcl-conformance")
PASS_LIST = os.path.join(os.path.dirname(ROOT), "shared", "conformance", "reference_pass.txt")
TYPE_CATEGORIES = ("grammar/types", "grammar/schema/type", "grammar/schema/union")
HEADER_RE = re.compile(r"error\[(\w+)\]: (\w+)")
ARROW_RE = re.compile(r"-->\s*(\S+?):(\d+)(?::\d+)?\s*$", re.M)
OPTIONS_WITH_VALUE = {
    "-D",
    "-Y",
    "-S",
    "-O",
    "-E",
    "-o",
    "--argument",
    "--setting",
    "--path_selector",
    "--overrides",
    "--external",
    "--output",
    "--format",
}

sys.path.insert(0, os.path.join(ROOT, "src"))

from kclpy.diag import Diagnostic  # noqa: E402
from kclpy.diag.render import render_short  # noqa: E402
from kclpy.loader import Loader  # noqa: E402
from kclpy.sema import check_program  # noqa: E402
from kclpy.syntax import ast  # noqa: E402


def _read(path: str) -> str:
    with open(path, encoding="utf-8") as handle:
        return handle.read()


@dataclass
class Outcome:
    case: str
    status: str  # ok | false-error | matched | mismatched | missed | load-error | crash
    detail: str = ""


@dataclass
class Report:
    outcomes: list[Outcome] = field(default_factory=list)

    def by_status(self) -> Counter[str]:
        return Counter(o.status for o in self.outcomes)


class PackageLoader(Loader):
    """The loader, plus imports inside an external package resolved from that package's
    root (as the reference does; ``kclpy.loader`` resolves them from the program root)."""

    def locate(self, pkgpath: str, module: ast.Module, path: str) -> tuple[str, list[str]] | None:
        found = super().locate(pkgpath, module, path)
        if found is not None or path.startswith("."):
            return found
        where = os.path.abspath(module.file.path)
        for root in self.externals.values():
            if where.startswith(root + os.sep):
                inner = self.candidate(os.path.join(root, *path.split(".")))
                if inner is not None:
                    return inner
        return None


# --------------------------------------------------------------------------- conformance


def case_ids() -> list[str]:
    with open(PASS_LIST, encoding="utf-8") as handle:
        return [line.strip() for line in handle if line.strip() and not line.startswith("#")]


def case_inputs(case_dir: str) -> list[str]:
    entry = "main.k" if os.path.isfile(os.path.join(case_dir, "main.k")) else "_main.k"
    files = [entry]
    settings = os.path.join(case_dir, "settings.yaml")
    if os.path.isfile(settings):
        text = _read(settings)
        match = re.search(r"kcl_options:\s*(.*)", text)
        tokens = match.group(1).split() if match else []
        skip = False
        for token in tokens:
            if skip:
                skip = False
            elif token in OPTIONS_WITH_VALUE:
                skip = True
            elif not token.startswith("-") and token.endswith(".k"):
                files.append(token.replace("${KCL_MOD}", case_dir))
    return files


def expected_error(case_dir: str) -> tuple[str, str, int] | None:
    """(code, kind, line) of the first error in stderr.golden, or None for output cases."""
    path = os.path.join(case_dir, "stderr.golden")
    if not os.path.isfile(path):
        return None
    text = _read(path)
    header = HEADER_RE.search(text)
    arrow = ARROW_RE.search(text)
    if header is None:
        return ("", "runtime", 0)
    line = int(arrow.group(2)) if arrow else 0
    return header.group(1), header.group(2), line


REF_CACHE = os.path.join(CORPUS, "sema-reference-kinds.json")
_REF_SCRIPT = r"""
import json, os, re, sys
import kcl_lib.api as api
ansi = re.compile(r"\x1b\[[0-9;]*m")
paths = json.load(sys.stdin)
os.chdir(os.path.dirname(paths[0]))
try:
    api.API().exec_program(api.ExecProgramArgs(k_filename_list=paths))
    print(json.dumps(["", "runtime", 0]))
except Exception as error:
    text = ansi.sub("", str(error))
    head = re.search(r"error\[(\w+)\]: (\w+)", text)
    arrow = re.search(r"-->\s*\S+?:(\d+)", text)
    line = int(arrow.group(1)) if arrow else 0
    print(json.dumps([head.group(1), head.group(2), line] if head else ["", "runtime", 0]))
"""


def _reference_case(case: str) -> list[object] | None:
    case_dir = os.path.join(CONFORMANCE, case)
    paths = [os.path.join(case_dir, f) for f in case_inputs(case_dir)]
    try:
        result: list[object] = call_reference(_REF_SCRIPT, paths, timeout=60)
    except ReferenceFailed:
        return None
    return result


def reference_kinds(cases: list[str]) -> dict[str, list[object]]:
    """The reference's actual first error of error cases: (code, kind, line), kind
    ``runtime`` when the program compiles (run once through kcl_lib, then cached).
    Goldens are upstream's and sometimes older than the reference build."""
    import json
    from concurrent.futures import ThreadPoolExecutor

    cache: dict[str, list[object]] = {}
    if os.path.isfile(REF_CACHE):
        with open(REF_CACHE, encoding="utf-8") as handle:
            cache = json.load(handle)
    todo = [c for c in cases if c not in cache]
    if not todo:
        return cache
    with ThreadPoolExecutor(max_workers=2) as pool:
        results = pool.map(_reference_case, todo)
        for case, result in zip(todo, results, strict=True):
            if result is not None:
                cache[case] = result
    with open(REF_CACHE, "w", encoding="utf-8") as handle:
        json.dump(cache, handle)
    return cache


_REF_KINDS: dict[str, list[object]] = {}


def check_case(case: str) -> Outcome:
    case_dir = os.path.join(CONFORMANCE, case)
    try:
        program = Loader(case_dir).load(case_inputs(case_dir))
    except Exception as error:
        return Outcome(case, "load-error", repr(error))
    if program.has_errors:
        return Outcome(case, "load-error", render_short(program.diagnostics[0]))
    try:
        model = check_program(program, keep_scopes=False)
    except Exception as error:
        return Outcome(case, "crash", repr(error))
    errors = model.errors
    expected = expected_error(case_dir)
    if expected is not None and case in _REF_KINDS:
        code, kind, line = _REF_KINDS[case]
        expected = (str(code), str(kind), int(str(line)))
    if expected is None or expected[1] in ("runtime", "EvaluationError"):
        if errors:
            return Outcome(case, "false-error", render_short(errors[0]))
        return Outcome(case, "ok")
    _, kind, line = expected
    if not errors:
        return Outcome(case, "missed", f"{kind} at line {line}")
    for diagnostic in errors:
        if diagnostic.code.kind == kind and _line(diagnostic) == line:
            return Outcome(case, "matched")
    return Outcome(case, "mismatched", f"want {kind}:{line}, got {render_short(errors[0])}")


def _line(diagnostic: Diagnostic) -> int:
    span = diagnostic.span
    return span.begin_pos.line if span is not None else 0


def category(case: str, depth: int = 2) -> str:
    parts = case.split("/")
    return "/".join(parts[: min(depth, len(parts) - 1)]) or parts[0]


def run_conformance(pattern: str | None, show: int) -> None:
    ids = [c for c in case_ids() if not pattern or re.search(pattern, c)]
    error_cases = [c for c in ids if expected_error(os.path.join(CONFORMANCE, c)) is not None]
    _REF_KINDS.update(reference_kinds(error_cases))
    report = Report([check_case(case) for case in ids])
    status = report.by_status()
    print(f"conformance: {len(ids)} valid cases: {dict(sorted(status.items()))}")
    compile_cases = [o for o in report.outcomes if o.status in ("matched", "mismatched", "missed")]
    by_kind: dict[str, Counter[str]] = defaultdict(Counter)
    for outcome in compile_cases:
        kind = expected_error(os.path.join(CONFORMANCE, outcome.case))
        if kind is not None and outcome.case in _REF_KINDS:
            kind = (str(_REF_KINDS[outcome.case][0]), str(_REF_KINDS[outcome.case][1]), 0)
        by_kind[kind[1] if kind else "?"][outcome.status] += 1
    for kind_name, counts in sorted(by_kind.items()):
        total = sum(counts.values())
        print(f"  compile-time {kind_name:24} matched {counts['matched']}/{total}")
    key_kinds = ("TypeError", "CompileError")
    matched = sum(by_kind[k]["matched"] for k in key_kinds)
    total = sum(sum(by_kind[k].values()) for k in key_kinds)
    print(f"  TypeError+CompileError cases matched: {matched}/{total}")
    print_type_categories(report)
    print_categories(report)
    bad = [o for o in report.outcomes if o.status not in ("ok", "matched")]
    for outcome in bad[:show]:
        print(f"  {outcome.status:11} {outcome.case}: {outcome.detail}")


def print_type_categories(report: Report) -> None:
    for prefix in TYPE_CATEGORIES:
        items = [o for o in report.outcomes if o.case.startswith(prefix)]
        good = sum(1 for o in items if o.status in ("ok", "matched"))
        print(f"  type category {prefix:22} {good}/{len(items)}")


def print_categories(report: Report) -> None:
    cats: dict[str, Counter[str]] = defaultdict(Counter)
    for outcome in report.outcomes:
        cats[category(outcome.case)][outcome.status] += 1
    for name, counts in sorted(cats.items()):
        problems = {k: v for k, v in counts.items() if k not in ("ok", "matched")}
        if problems:
            print(f"  category {name:40} {dict(problems)}")


# --------------------------------------------------------------------------- k8s


def k8s_packages(root: str) -> Iterator[str]:
    for directory, _, files in os.walk(root):
        if any(f.endswith(".k") and not f.endswith("_test.k") for f in files):
            relative = os.path.relpath(directory, root)
            if relative != "." and not relative.startswith("."):
                yield "k8s." + relative.replace(os.sep, ".")


def run_k8s(show: int) -> None:
    root = os.path.join(CORPUS, "k8s")
    if not os.path.isdir(root):
        print("k8s: missing, skipped")
        return
    packages = sorted(k8s_packages(root))
    lines = [f"import {pkg.removeprefix('k8s.')} as m{index}" for index, pkg in enumerate(packages)]
    lines.append("import api.apps.v1 as apps")
    lines.append("import api.core.v1 as core")
    for index in range(20):
        lines.append(
            f'd{index} = apps.Deployment {{metadata.name = "web{index}", spec = {{'
            f'selector.matchLabels.app = "web{index}", template.metadata.labels.app = '
            f'"web{index}", template.spec.containers = [{{name = "web", image = "nginx", '
            f"ports = [{{containerPort = 80}}]}}]}}}}"
        )
        lines.append(
            f's{index} = core.Service {{metadata.name = "web{index}", spec.ports = '
            f'[{{port = 80}}], spec.selector.app = "web{index}"}}'
        )
    main = os.path.join(root, "__sema_check_main.k")
    sources = {main: "\n".join(lines) + "\n"}
    timings: list[tuple[float, float, float]] = []
    for _ in range(3):  # the best of three runs: the machine is shared
        start = time.process_time()
        program = PackageLoader(root, {}, dict(sources)).load([main])
        loaded = time.process_time()
        model = check_program(program)
        checked = time.process_time()
        timings.append((loaded - start, checked - loaded, compile_program(program)))
    load_s, check_s, compile_seconds = (min(column) for column in zip(*timings, strict=True))
    files = sum(len(mods) for mods in program.packages.values())
    total = load_s + check_s + compile_seconds
    print(
        f"k8s: {len(packages)} packages, {files} files, load errors "
        f"{sum(1 for d in program.diagnostics if d.is_error)}, false errors {len(model.errors)}"
    )
    print(
        f"  best of 3 (CPU time): load {load_s:.2f}s, check {check_s:.2f}s, compile+run "
        f"{compile_seconds:.2f}s: checker share {100 * check_s / total:.1f}% of "
        "load+check+compile+run"
    )
    for diagnostic in model.errors[:show]:
        print("  ", render_short(diagnostic))


def compile_program(program: object) -> float:
    """Seconds to compile every package and run the main one (0 if that fails)."""
    try:
        from kclpy.compile.stmts import PackageCompiler
        from kclpy.sema import resolve_program
        from kclpy.vm.runner import Runner
    except ImportError:
        return 0.0
    start = time.process_time()
    try:
        model = resolve_program(program)  # type: ignore[arg-type]
        codes = {
            pkgpath: PackageCompiler(pkgpath, modules, model).compile()
            for pkgpath, modules in program.packages.items()  # type: ignore[attr-defined]
        }
        root = program.root  # type: ignore[attr-defined]
        Runner(codes, "__main__", {}, root, root).run()
    except Exception as error:
        print(f"  (compile/run failed: {error!r})")
    return time.process_time() - start


# --------------------------------------------------------------------------- konfig


def konfig_stacks(root: str) -> list[str]:
    """Stack folders: a ``kcl.mod`` with ``[profile] entries``."""
    stacks: list[str] = []
    for directory, _, files in os.walk(os.path.join(root, "examples")):
        if "kcl.mod" in files:
            text = _read(os.path.join(directory, "kcl.mod"))
            if re.search(r"^entries\s*=", text, re.M):
                stacks.append(directory)
    return sorted(stacks)


def stack_inputs(stack: str) -> list[str]:
    """The stack's profile entries, with ``${dep:KCL_MOD}`` replaced by the dependency path."""
    text = _read(os.path.join(stack, "kcl.mod"))
    match = re.search(r"^entries\s*=\s*\[(.*?)\]", text, re.M | re.S)
    entries = re.findall(r'"([^"]+)"', match.group(1)) if match else ["main.k"]
    deps = dict(re.findall(r'^(\w+)\s*=\s*\{\s*path\s*=\s*"([^"]+)"', text, re.M))
    files: list[str] = []
    for entry in entries:
        for name, path in deps.items():
            entry = entry.replace(f"${{{name}:KCL_MOD}}", os.path.join(stack, path))
        files.append(os.path.normpath(os.path.join(stack, entry)))
    return files


def run_konfig(name: str, show: int) -> None:
    root = os.path.join(CORPUS, name)
    if name == "konfig-compat":
        root = os.path.join(root, "konfig")
    if not os.path.isdir(root):
        print(f"{name}: missing, skipped")
        return
    stacks = konfig_stacks(root)
    counts: Counter[str] = Counter()
    examples: list[str] = []
    seconds = 0.0
    for stack in stacks:
        start = time.perf_counter()
        program = PackageLoader(stack, {"k8s": os.path.join(CORPUS, "k8s")}).load(
            stack_inputs(stack)
        )
        if program.has_errors:
            counts["load-error"] += 1
            examples.append(f"load {stack}: {render_short(program.diagnostics[0])}")
            continue
        model = check_program(program, keep_scopes=False)
        seconds += time.perf_counter() - start
        if model.errors:
            counts["with-errors"] += 1
            private = all("private member" in d.message for d in model.errors)
            counts["private-member-only" if private else "other-errors"] += 1
            examples.extend(
                f"{os.path.relpath(stack, root)}: {render_short(d)}" for d in model.errors[:2]
            )
        else:
            counts["clean"] += 1
    print(f"{name}: {len(stacks)} stacks {dict(counts)} ({seconds:.1f}s load+check)")
    for line in examples[:show]:
        print("  ", line)


def main() -> int:
    if not os.path.isdir(CORPUS):
        print("no .corpus/ folder: skipped")
        return 0
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--filter")
    parser.add_argument("--show", type=int, default=25)
    parser.add_argument("--no-conformance", action="store_true")
    parser.add_argument("--no-k8s", action="store_true")
    parser.add_argument("--no-konfig", action="store_true")
    args = parser.parse_args()
    sys.setrecursionlimit(10000)
    if not args.no_conformance and os.path.isdir(CONFORMANCE):
        run_conformance(args.filter, args.show)
    if not args.no_k8s:
        run_k8s(args.show)
    if not args.no_konfig:
        run_konfig("konfig-compat", args.show)
        run_konfig("konfig", args.show)
    return 0


if __name__ == "__main__":
    sys.exit(main())
