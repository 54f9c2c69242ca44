"""Benchmark runner: kclpy against the reference KCL, whole processes side by side.

For every workload the runner starts `kcl run` processes of both sides in
turn (kclpy first on even repetitions, the reference first on odd ones) and
records, per process, user+sys CPU seconds and maximum RSS (from ``wait4``,
the child's own share of ``getrusage(RUSAGE_CHILDREN)``) and wall time.  It
prints a table of medians and the CPU ratio kclpy/reference, and with
``--json FILE`` writes every sample.

Sides:
* kclpy: ``<python> -m kclpy run ARGS`` with ``src/`` on ``PYTHONPATH``
  (``--kclpy-cmd`` replaces the command), with a warm compiled-module cache
  (a private ``KCLPY_CACHE_DIR`` for the run, filled by the warm-up runs).
* kclpy-cold: the same with ``KCLPY_NO_CACHE=1`` (what a first run pays).
* ref: ``<ref-python> benchmarks/ref_kcl.py run ARGS`` (the reference
  ``kcl_lib``; its process includes importing the native library).

A side that fails (non-zero exit, crash, timeout) is marked failed with the
first line of its error and not run again; the other side still runs.

Workloads (see README.md): ``startup``, ``k8s_models``, ``konfig``, the
synthetic families ``schemas``, ``unify``, ``compute``, ``merge`` at ``--sizes`` (or one
size: ``schemas-10000``; ``synthetic`` = all four), the front-end families
``assign`` and ``list`` (``source-10mb`` = 700k assignments, ``list-1m`` = a
1M-element list on one line), and ``parse`` (parse throughput over the k8s
models, in lines/s, one process per side).

    python benchmarks/run.py [WORKLOAD...] [--reps 5] [--warmup 1]
        [--sizes 1k,10k] [--sides kclpy,ref] [--json out.json] [--list]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import platform
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import tomllib
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))

import generate  # noqa: E402

SIDES = ("kclpy", "kclpy-cold", "ref")
# Named large inputs of the front-end families: (family, size).
BIG = {"source-10mb": ("assign", 700_000), "list-1m": ("list", 1_000_000)}
BASIC = ("startup", "k8s_models", "konfig")
DEFAULT_KONFIG_STACK = "examples/appops/guestbook/prod"


@dataclass
class Workload:
    """One benchmark: `kcl run ARGV` in CWD, or a parse-throughput run."""

    name: str
    cwd: Path
    argv: list[str]
    kind: str = "run"  # "run" or "parse"
    missing: str = ""  # why the workload cannot run (absent corpus), or ""


@dataclass
class Sample:
    """One measured process."""

    ok: bool
    returncode: int
    cpu: float
    wall: float
    max_rss_mb: float
    error: str = ""
    digest: str = ""
    parse: dict[str, Any] | None = None


@dataclass
class SideResult:
    """All samples of one side on one workload."""

    command: list[str]
    samples: list[Sample] = field(default_factory=list)
    failed: str = ""

    def summary(self) -> dict[str, Any]:
        good = [s for s in self.samples if s.ok]
        out: dict[str, Any] = {"status": "failed" if self.failed else "ok", "error": self.failed}
        if good:
            cpus = [s.cpu for s in good]
            out.update(
                runs=len(good),
                cpu_median=statistics.median(cpus),
                cpu_min=min(cpus),
                wall_median=statistics.median(s.wall for s in good),
                max_rss_mb=max(s.max_rss_mb for s in good),
            )
            parse = [s.parse for s in good if s.parse]
            if parse:
                loop = [float(p["cpu_seconds"]) for p in parse]
                out["parse_cpu_median"] = statistics.median(loop)
                out["lines"] = parse[0]["lines"]
                out["lines_per_second"] = parse[0]["lines"] / statistics.median(loop)
        return out


# --------------------------------------------------------------------------- workloads


def konfig_workload(corpus: Path, stack: str) -> Workload:
    root = corpus / "konfig-compat" / "konfig"
    cwd = root / stack
    k8s = corpus / "k8s"
    if not (cwd / "kcl.mod").is_file() or not k8s.is_dir():
        return Workload("konfig", cwd, [], missing=f"no konfig stack at {cwd} (prepare_corpus.py)")
    with open(cwd / "kcl.mod", "rb") as handle:
        entries = tomllib.load(handle).get("profile", {}).get("entries", ["main.k"])
    argv = [*entries, "-E", f"konfig={root}", "-E", f"k8s={k8s}"]
    return Workload("konfig", cwd, argv)


def synthetic_workload(bench_dir: Path, family: str, size: int) -> Workload:
    folder = bench_dir / f"{family}-{size}"
    if not (folder / "workload.json").is_file():
        generate.generate(bench_dir, family, size)
    meta = json.loads((folder / "workload.json").read_text(encoding="utf-8"))
    return Workload(folder.name, folder, list(meta["argv"]))


def basic_workload(name: str, corpus: Path, konfig_stack: str) -> Workload:
    k8s = corpus / "k8s"
    if name == "startup":
        return Workload(name, HERE / "workloads" / "startup", ["main.k"])
    if name == "k8s_models":
        missing = "" if k8s.is_dir() else f"no k8s models at {k8s} (prepare_corpus.py)"
        return Workload(
            name, HERE / "workloads" / "k8s_models", ["main.k", "-E", f"k8s={k8s}"], missing=missing
        )
    if name == "konfig":
        return konfig_workload(corpus, konfig_stack)
    missing = "" if k8s.is_dir() else f"no k8s models at {k8s} (prepare_corpus.py)"
    return Workload("parse", k8s, [str(k8s)], kind="parse", missing=missing)


def select_workloads(
    names: list[str], sizes: list[int], corpus: Path, bench_dir: Path, konfig_stack: str
) -> list[Workload]:
    """Expand workload names (``all``, ``synthetic``, a family, ``family-N``)."""
    expanded: list[str] = []
    for name in names or ["all"]:
        if name == "all":
            expanded += [*BASIC, *generate.FAMILIES, "parse"]
        elif name == "synthetic":
            expanded += list(generate.FAMILIES)
        else:
            expanded.append(name)
    workloads: list[Workload] = []
    for name in dict.fromkeys(expanded):
        family, _, size = name.partition("-")
        if name in (*BASIC, "parse"):
            workloads.append(basic_workload(name, corpus, konfig_stack))
        elif name in BIG:
            workloads.append(synthetic_workload(bench_dir, *BIG[name]))
        elif name in (*generate.FAMILIES, *generate.BIG_FAMILIES):
            workloads += [synthetic_workload(bench_dir, name, n) for n in sizes]
        elif family in (*generate.FAMILIES, *generate.BIG_FAMILIES) and size:
            workloads.append(synthetic_workload(bench_dir, family, generate.parse_size(size)))
        else:
            raise SystemExit(f"unknown workload {name!r}")
    return workloads


# --------------------------------------------------------------------------- processes


def first_error_line(text: str) -> str:
    """The first non-empty line; for a bare ``error[CODE]: Kind`` header, also the next."""
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    if not lines:
        return ""
    summary = lines[0]
    if summary.startswith(("error[", "warning[")) and len(lines) > 1:
        summary += " | " + lines[1]
    return summary[:240]


def available_gb() -> float | None:
    """MemAvailable from /proc/meminfo in GB, or None off Linux."""
    try:
        with open("/proc/meminfo", encoding="ascii") as handle:
            for line in handle:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) / 1024.0 / 1024.0
    except OSError:
        return None
    return None


def wait_for_memory(min_gb: float, patience: float) -> str:
    """Wait until MIN_GB are available (at most PATIENCE seconds); "" or a reason."""
    deadline = time.monotonic() + patience
    while min_gb > 0:
        free = available_gb()
        if free is None or free >= min_gb:
            return ""
        if time.monotonic() >= deadline:
            return f"skipped: only {free:.1f} GB available, --min-available-gb {min_gb:g}"
        time.sleep(5)
    return ""


def measure(cmd: list[str], cwd: Path, env: dict[str, str], timeout: float) -> Sample:
    """Run CMD to completion; its rusage comes from ``wait4`` on its pid."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        start = time.perf_counter()
        proc = subprocess.Popen(
            cmd, cwd=cwd, env=env, stdin=subprocess.DEVNULL, stdout=out, stderr=err
        )
        timed_out = threading.Event()
        done = threading.Event()

        def kill() -> None:
            if not done.is_set():
                timed_out.set()
                proc.kill()

        timer = threading.Timer(timeout, kill)
        timer.start()
        try:
            _pid, status, usage = os.wait4(proc.pid, 0)
        finally:
            done.set()
            timer.cancel()
        wall = time.perf_counter() - start
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        stdout, stderr = out.read(), err.read().decode("utf-8", "replace")
    cpu = usage.ru_utime + usage.ru_stime
    rss_mb = usage.ru_maxrss / 1024.0  # Linux reports kilobytes
    code = proc.returncode
    if timed_out.is_set():
        return Sample(False, code, cpu, wall, rss_mb, error=f"timeout after {timeout:g}s")
    if code != 0:
        report = _parse_report(stdout)
        reason = (
            str(report["error"])
            if report and report.get("error")
            else first_error_line(stderr) or first_error_line(stdout.decode("utf-8", "replace"))
        )
        if code < 0:
            reason = f"killed by signal {-code}: {reason}"
        return Sample(False, code, cpu, wall, rss_mb, error=reason or f"exit status {code}")
    return Sample(
        True,
        code,
        cpu,
        wall,
        rss_mb,
        digest=hashlib.sha256(stdout).hexdigest(),
        parse=_parse_report(stdout),
    )


def _parse_report(stdout: bytes) -> dict[str, Any] | None:
    text = stdout.decode("utf-8", "replace").strip()
    if not text.startswith("{"):
        return None
    try:
        report = json.loads(text.splitlines()[-1])
    except ValueError:
        return None
    return report if isinstance(report, dict) and "lines" in report else None


@dataclass
class Commands:
    """How to start each side."""

    kclpy: list[str]
    ref: list[str]
    kclpy_python: str
    ref_python: str
    env: dict[str, str]
    ref_parse_api: str
    cold_env: dict[str, str] = field(default_factory=dict)
    min_available_gb: float = 0.0
    memory_patience: float = 600.0

    def for_side(self, side: str, workload: Workload) -> list[str]:
        if workload.kind == "parse":
            python = self.ref_python if side == "ref" else self.kclpy_python
            api = self.ref_parse_api if side == "ref" else "kclpy"
            return [python, str(HERE / "parse_bench.py"), "--report", api, *workload.argv]
        base = self.ref if side == "ref" else self.kclpy
        return base + workload.argv

    def env_for(self, side: str) -> dict[str, str]:
        return self.cold_env if side == "kclpy-cold" else self.env


def run_workload(
    workload: Workload, commands: Commands, sides: list[str], reps: int, warmup: int, timeout: float
) -> dict[str, SideResult]:
    results = {side: SideResult(commands.for_side(side, workload)) for side in sides}
    for rep in range(warmup + reps):
        order = sides if rep % 2 == 0 else list(reversed(sides))
        for side in order:
            result = results[side]
            if result.failed:
                continue
            low_memory = wait_for_memory(commands.min_available_gb, commands.memory_patience)
            if low_memory:
                result.failed = low_memory
                print(f"  {workload.name} {side}: {low_memory}", file=sys.stderr, flush=True)
                continue
            sample = measure(result.command, workload.cwd, commands.env_for(side), timeout)
            if not sample.ok:
                result.failed = sample.error
            elif workload.kind == "parse" and sample.parse is None:
                result.failed = "parse benchmark printed no report"
            if rep >= warmup or result.failed:
                result.samples.append(sample)
            state = "FAILED: " + result.failed if result.failed else f"cpu {sample.cpu:.3f}s"
            label = "warmup" if rep < warmup else f"rep {rep - warmup + 1}/{reps}"
            print(f"  {workload.name} {side} {label}: {state}", file=sys.stderr, flush=True)
    return results


# --------------------------------------------------------------------------- report


def compare(results: dict[str, SideResult], kind: str) -> dict[str, Any]:
    summaries = {side: result.summary() for side, result in results.items()}
    row: dict[str, Any] = {"sides": summaries}
    kclpy, ref = summaries.get("kclpy", {}), summaries.get("ref", {})
    for side in ("kclpy", "kclpy-cold"):
        mine = summaries.get(side, {})
        if mine.get("cpu_median") and ref.get("cpu_median"):
            row[f"{side}_ratio"] = mine["cpu_median"] / ref["cpu_median"]
            mine["cpu_ratio"] = row[f"{side}_ratio"]
            if mine.get("max_rss_mb") and ref.get("max_rss_mb"):
                mine["rss_ratio"] = mine["max_rss_mb"] / ref["max_rss_mb"]
    if "kclpy_ratio" in row:
        row["cpu_ratio"] = row["kclpy_ratio"]
    if kind == "parse" and kclpy.get("parse_cpu_median") and ref.get("parse_cpu_median"):
        row["parse_ratio"] = kclpy["parse_cpu_median"] / ref["parse_cpu_median"]
    if kind == "run" and all(s.get("status") == "ok" for s in summaries.values()):
        digests = {s.digest for r in results.values() for s in r.samples}
        row["same_output"] = len(digests) == 1
    return row


def _fmt(value: Any, spec: str) -> str:
    width = int(spec.split(".")[0])
    return format(value, spec) if isinstance(value, int | float) else "-".rjust(width)


_BUILD_PROBE = """
import json, os, platform, sys
maps = "/proc/self/maps"
shared = None
if os.path.exists(maps):
    with open(maps, encoding="utf-8") as lines:
        shared = any("libpython" in line for line in lines)
print(json.dumps({
    "version": platform.python_version(),
    "executable": os.path.realpath(sys.executable),
    "shared": shared,
}))
"""


def interpreter_build(python: str) -> dict[str, Any]:
    """Which CPython a side runs on: kclpy's speed depends on the build (on 2026-11-27
    this machine's pyenv 3.11.7, built without PGO and LTO and with a shared libpython,
    ran konfig and assign-100000 12-15% slower than Debian's python3.11). Whether PGO
    and LTO were used is not reliably recorded (distributions strip it from sysconfig);
    a shared libpython (position-independent calls) is read from the process's maps."""
    try:
        probe = subprocess.run(
            [python, "-c", _BUILD_PROBE], capture_output=True, text=True, timeout=60, check=True
        )
        build: dict[str, Any] = json.loads(probe.stdout)
    except (OSError, subprocess.SubprocessError, ValueError):
        return {"python": python}
    build["python"] = python
    return build


def build_text(build: dict[str, Any]) -> str:
    if "version" not in build:
        return f"{build['python']} (unknown build)"
    linked = {True: "shared libpython", False: "libpython linked in", None: "libpython: ?"}
    return f"{build['python']} (CPython {build['version']} at {build['executable']}, " + (
        f"{linked[build['shared']]})"
    )


def print_table(rows: list[dict[str, Any]]) -> None:
    header = (
        f"{'workload':<16} {'side':<10} {'status':<7} {'cpu med':>9} {'cpu min':>9} "
        f"{'wall med':>9} {'maxRSS MB':>10} {'ratio':>8} {'RSS ratio':>9}  note"
    )
    print(header)
    print("-" * len(header))
    for row in rows:
        for index, (side, summary) in enumerate(row["sides"].items()):
            ratio = row.get("parse_ratio") if index == 0 else None
            ratio = ratio or summary.get("cpu_ratio")
            note = summary.get("error", "")
            if "lines_per_second" in summary:
                note = f"{summary['lines_per_second']:,.0f} lines/s ({summary['lines']} lines)"
            if index == 0 and "same_output" in row and not note:
                note = "same output" if row["same_output"] else "OUTPUT DIFFERS"
            print(
                f"{row['name'] if index == 0 else '':<16} {side:<10} {summary['status']:<7} "
                f"{_fmt(summary.get('cpu_median'), '9.3f')} "
                f"{_fmt(summary.get('cpu_min'), '9.3f')} "
                f"{_fmt(summary.get('wall_median'), '9.3f')} "
                f"{_fmt(summary.get('max_rss_mb'), '10.1f')} "
                f"{_fmt(ratio, '8.2f')} {_fmt(summary.get('rss_ratio'), '9.2f')}  {note}"
            )


def make_commands(ns: argparse.Namespace) -> Commands:
    env = dict(os.environ)
    src = str(ROOT / "src")
    env["PYTHONPATH"] = src + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    kclpy = shlex.split(ns.kclpy_cmd) if ns.kclpy_cmd else [ns.kclpy_python, "-m", "kclpy", "run"]
    ref = [ns.ref_python, str(HERE / "ref_kcl.py"), "run"]
    env["KCLPY_CACHE_DIR"] = tempfile.mkdtemp(prefix="kclpy-bench-cache-")
    env.pop("KCLPY_NO_CACHE", None)
    cold_env = {**env, "KCLPY_NO_CACHE": "1"}
    return Commands(
        kclpy,
        ref,
        ns.kclpy_python,
        ns.ref_python,
        env,
        ns.ref_parse_api,
        cold_env,
        ns.min_available_gb,
        ns.memory_patience,
    )


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "workloads",
        nargs="*",
        help="startup, k8s_models, konfig, schemas, unify, compute, merge, synthetic, "
        "assign, list, FAMILY-N, source-10mb, list-1m, parse, "
        "all (default: all)",
    )
    parser.add_argument("--reps", type=int, default=5, help="measured runs per side (5)")
    parser.add_argument("--warmup", type=int, default=1, help="unmeasured runs per side first (1)")
    parser.add_argument(
        "--sizes",
        default="1k,10k",
        help="sizes of the synthetic families (1k,10k; 100k is slow: the "
        "reference needs minutes and GBs)",
    )
    parser.add_argument(
        "--sides",
        default="kclpy,kclpy-cold,ref",
        help="kclpy (warm cache), kclpy-cold (KCLPY_NO_CACHE=1), ref (default all three)",
    )
    parser.add_argument(
        "--corpus",
        type=Path,
        default=ROOT / ".corpus",
        help="folder built by prepare_corpus.py (default .corpus)",
    )
    parser.add_argument(
        "--bench-dir",
        type=Path,
        default=None,
        help="synthetic workloads folder (default CORPUS/bench)",
    )
    parser.add_argument(
        "--konfig-stack",
        default=DEFAULT_KONFIG_STACK,
        help=f"konfig stack folder (default {DEFAULT_KONFIG_STACK})",
    )
    parser.add_argument("--kclpy-python", default=sys.executable)
    parser.add_argument(
        "--kclpy-cmd",
        default="",
        help="command for the kclpy side instead of '<python> -m kclpy run'",
    )
    parser.add_argument(
        "--ref-python",
        default=os.environ.get("KCL_REF_PYTHON", sys.executable),
        help="python with kcl_lib (default $KCL_REF_PYTHON or this python)",
    )
    parser.add_argument(
        "--ref-parse-api",
        choices=("file", "program"),
        default="file",
        help="reference parse API for the parse workload (file)",
    )
    parser.add_argument("--timeout", type=float, default=1800.0, help="seconds per process")
    parser.add_argument(
        "--min-available-gb",
        type=float,
        default=0.0,
        help="before each process, wait until this much memory is available "
        "(MemAvailable); give up after --memory-patience (off by default)",
    )
    parser.add_argument(
        "--memory-patience",
        type=float,
        default=600.0,
        help="seconds to wait for --min-available-gb (600)",
    )
    parser.add_argument("--json", type=Path, help="write all results to this file")
    parser.add_argument("--list", action="store_true", help="list the workloads and exit")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    ns = parse_args(argv)
    sides = [s for s in ns.sides.split(",") if s]
    if any(s not in SIDES for s in sides):
        raise SystemExit(f"--sides takes kclpy, kclpy-cold and/or ref, not {ns.sides!r}")
    corpus = ns.corpus.resolve()
    bench_dir = (ns.bench_dir or corpus / "bench").resolve()
    workloads = select_workloads(
        ns.workloads, generate.parse_sizes(ns.sizes), corpus, bench_dir, ns.konfig_stack
    )
    commands = make_commands(ns)
    # Byte-compile kclpy first: an installed package has its .pyc files, and this
    # machine sets PYTHONDONTWRITEBYTECODE, which would otherwise time the compiler.
    subprocess.run(
        [ns.kclpy_python, "-m", "compileall", "-q", str(HERE.parent / "src")],
        check=False,
        stdout=subprocess.DEVNULL,
    )
    if ns.list:
        for w in workloads:
            state = f"  [missing: {w.missing}]" if w.missing else ""
            print(f"{w.name:<16} {w.kind:<5} cwd={w.cwd} argv={shlex.join(w.argv)}{state}")
        return 0
    try:
        rows = run_all(workloads, commands, sides, ns)
    finally:
        shutil.rmtree(commands.env["KCLPY_CACHE_DIR"], ignore_errors=True)
    builds = {"kclpy": interpreter_build(ns.kclpy_python), "ref": interpreter_build(ns.ref_python)}
    for side, build in builds.items():
        print(f"{side} interpreter: {build_text(build)}")
    print_table(rows)
    if ns.json:
        meta = {
            "date": time.strftime("%Y-%m-%dT%H:%M:%S"),
            "host": platform.node(),
            "python": sys.version.split()[0],
            "interpreters": builds,
            "reps": ns.reps,
            "warmup": ns.warmup,
            "cpu_count": os.cpu_count(),
        }
        ns.json.write_text(
            json.dumps({"meta": meta, "workloads": rows}, indent=1) + "\n", encoding="utf-8"
        )
    return 0


def run_all(
    workloads: list[Workload], commands: Commands, sides: list[str], ns: argparse.Namespace
) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    for workload in workloads:
        row: dict[str, Any] = {
            "name": workload.name,
            "kind": workload.kind,
            "cwd": str(workload.cwd),
            "argv": workload.argv,
        }
        if workload.missing:
            row["sides"] = {s: {"status": "skipped", "error": workload.missing} for s in sides}
            rows.append(row)
            continue
        results = run_workload(workload, commands, sides, ns.reps, ns.warmup, ns.timeout)
        row.update(compare(results, workload.kind))
        row["samples"] = {s: [asdict(x) for x in r.samples] for s, r in results.items()}
        row["commands"] = {s: r.command for s, r in results.items()}
        rows.append(row)
    return rows


if __name__ == "__main__":
    sys.exit(main())
