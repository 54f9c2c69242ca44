"""``kcl build`` on synthetic monorepos (benchmarks/monorepo.py) against the reference.

    python benchmarks/build_bench.py --sizes 300,1000 [--reference-sample 40]
        [--dask] [--work /tmp/kclpy-build-bench] [--json out.json]
    python benchmarks/build_bench.py --profile 60 --work DIR   # one process, cold stages

For each size (stacks; projects = size / 3) it generates the repository (seed 7),
then times, as whole processes:

* ``kcl build -j 1`` and ``-j 2`` with an empty compiled-module cache (cold) and
  again with the cache the first run filled (warm), stacks/s;
* an incremental ``kcl build --check --since HEAD`` after one shared add-on model
  changed (the repository is a git repository with goldens committed): the
  affected stacks, their count and the time;
* with ``--dask``, the same build through a ``LocalCluster`` of 2 worker processes;
* the reference (kcl-lib, ``benchmarks/ref_kcl.py``), one process per stack as a
  CI without kclpy would run it, on a seeded sample of ``--reference-sample``
  stacks, extrapolated to stacks/s.

Peak RSS is the largest of the process tree (``resource.getrusage`` of children).

``--profile N`` instead compiles the first N stacks of the 300-stack repository in
this process, as one build worker does (its in-memory tier, the on-disk cache off):
their CPU seconds, then the same under ``cProfile`` with the share of each stage
(load, check, compile, run, render) in the total.
Numbers are measurements, never test assertions.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from monorepo import generate  # noqa: E402

KCL = [sys.executable, "-m", "kclpy"]


def _timed(argv: list[str], cwd: Path, env: dict[str, str]) -> tuple[float, str]:
    start = time.perf_counter()
    done = subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True, check=False)
    seconds = time.perf_counter() - start
    if done.returncode not in (0, 1):
        raise SystemExit(f"{' '.join(argv)} failed ({done.returncode}):\n{done.stderr[-2000:]}")
    return seconds, done.stdout


def _git(repo: Path, *arguments: str) -> None:
    subprocess.run(["git", *arguments], cwd=repo, check=True, capture_output=True)


def _used_addon(repo: Path) -> str:
    """The add-on package imported by the most projects (the change to measure)."""
    counts: dict[str, int] = {}
    for base in repo.glob("projects/*/base/base.k"):
        for line in base.read_text(encoding="utf-8").splitlines():
            if line.startswith("import models.addons."):
                name = line.split()[1].split(".")[2]
                counts[name] = counts.get(name, 0) + 1
    return max(sorted(counts), key=lambda name: counts[name])


def _reference(repo: Path, sample: int) -> float:
    """Seconds per stack of the reference, one process per stack."""
    stacks = sorted(p.parent for p in repo.glob("projects/*/*/kcl.mod"))
    chosen = random.Random(7).sample(stacks, min(sample, len(stacks)))
    models = str(repo / "models")
    start = time.perf_counter()
    for stack in chosen:
        argv = [
            sys.executable,
            str(HERE / "ref_kcl.py"),
            "run",
            "../base/base.k",
            "main.k",
            "${models:KCL_MOD}/entry/render.k",
            "-E",
            f"models={models}",
        ]
        subprocess.run(argv, cwd=stack, capture_output=True, check=False)
    return (time.perf_counter() - start) / len(chosen)


def _dask(repo: Path, env: dict[str, str]) -> float:
    from distributed import LocalCluster

    with LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
    ) as cluster:
        seconds, _ = _timed(
            [*KCL, "build", "--no-progress", "--cluster", cluster.scheduler_address],
            repo,
            env,
        )
    return seconds


def bench(size: int, work: Path, sample: int, dask: bool) -> dict[str, object]:
    repo = work / f"mono-{size}"
    shutil.rmtree(repo, ignore_errors=True)
    summary = generate(repo, max(1, size // 3), ("dev", "staging", "prod"), 7, 12)
    stacks = summary["stacks"]
    row: dict[str, object] = {"stacks": stacks, "lines": summary["lines"]}
    for jobs in (1, 2):
        env = dict(os.environ, KCLPY_CACHE_DIR=tempfile.mkdtemp(prefix="kclpy-bench-"))
        argv = [*KCL, "build", "--no-progress", "-j", str(jobs)]
        cold, out = _timed(argv, repo, env)
        warm, _ = _timed(argv, repo, env)
        row[f"j{jobs}_cold_s"] = round(cold, 2)
        row[f"j{jobs}_warm_s"] = round(warm, 2)
        row[f"j{jobs}_cold_stacks_per_s"] = round(stacks / cold, 1)
        row[f"j{jobs}_warm_stacks_per_s"] = round(stacks / warm, 1)
        row["summary"] = out.strip().splitlines()[-1] if out.strip() else ""
    env = dict(os.environ, KCLPY_CACHE_DIR=tempfile.mkdtemp(prefix="kclpy-bench-"))
    _timed([*KCL, "build", "--no-progress", "--update", "-j", "2"], repo, env)
    _git(repo, "init", "-q")
    _git(repo, "-c", "user.email=b@invalid", "-c", "user.name=b", "add", "-A")
    _git(repo, "-c", "user.email=b@invalid", "-c", "user.name=b", "commit", "-qm", "goldens")
    addon = repo / "models/addons" / _used_addon(repo) / "addon.k"
    addon.write_text(addon.read_text().replace('"LEVEL"', '"TIER"'), encoding="utf-8")
    affected_s, listed = _timed([*KCL, "build", "--affected", "--since", "HEAD"], repo, env)
    check_s, _ = _timed(
        [*KCL, "build", "--no-progress", "--check", "--since", "HEAD", "-j", "2"], repo, env
    )
    row["incremental_affected"] = len(listed.split())
    row["incremental_list_s"] = round(affected_s, 2)
    row["incremental_check_s"] = round(check_s, 2)
    if dask:
        row["dask_2_workers_warm_s"] = round(_dask(repo, env), 2)
    if sample:
        per_stack = _reference(repo, sample)
        row["reference_s_per_stack"] = round(per_stack, 3)
        row["reference_stacks_per_s"] = round(1 / per_stack, 1)
    row["peak_rss_mb"] = round(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024)
    return row


STAGES = ("load", "check", "compile_program", "execute", "render")  # driver functions


def profile(work: Path, count: int) -> dict[str, object]:
    """CPU seconds of ``count`` cold stacks in one process (a build worker: its
    in-memory tier, the on-disk cache off), and of each driver stage; of the check,
    the packages' own checks (imported packages apart from the stack's ``__main__``)."""
    os.environ["KCLPY_NO_CACHE"] = "1"
    from kclpy.monorepo import pipeline, stacks
    from kclpy.monorepo.report import StackJob
    from kclpy.pipeline import driver
    from kclpy.sema.declare import DeclarationChecker

    repo = work / "mono-300"
    if not repo.is_dir():
        generate(repo, 100, ("dev", "staging", "prod"), 7, 12)
    found = stacks.discover([str(repo)], str(repo))[:count]
    spent: dict[str, float] = {}
    for stage in STAGES:
        setattr(driver, stage, _timer(getattr(driver, stage), spent, lambda *_, s=stage: s))
    nested: list[float] = []

    def package(_: object, pkgpath: str, *__: object) -> str:
        return "check: __main__" if pkgpath == "__main__" else "check: imported packages"

    check_package = DeclarationChecker.check_package
    DeclarationChecker.check_package = _timer(check_package, spent, package, nested)  # type: ignore[method-assign]
    start = time.process_time()
    for item in found:
        job = StackJob(item.name, item.path, item.files, item.options, item.externals, item.flags)
        pipeline.compile_stack(job)
    seconds = time.process_time() - start
    row: dict[str, object] = {"stacks": len(found), "cpu_s": round(seconds, 2)}
    for name, value in spent.items():
        row[name] = f"{value:.2f} s, {100 * value / seconds:.1f}%"
    return row


def _timer(
    function: Any, spent: dict[str, float], name: Any, nested: list[float] | None = None
) -> Any:
    """``function`` adding its CPU time to ``spent[name(*args)]`` (exclusive of nested
    calls that share ``nested``)."""

    def timed(*args: Any, **kwargs: Any) -> Any:
        start = time.process_time()
        if nested is not None:
            nested.append(0.0)
        try:
            return function(*args, **kwargs)
        finally:
            elapsed = time.process_time() - start
            inner = nested.pop() if nested is not None else 0.0
            if nested:
                nested[-1] += elapsed
            key = name(*args)
            spent[key] = spent.get(key, 0.0) + elapsed - inner

    return timed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="300,1000")
    parser.add_argument("--reference-sample", type=int, default=40)
    parser.add_argument("--dask", action="store_true")
    parser.add_argument("--work", type=Path, default=Path(tempfile.gettempdir()) / "kclpy-bench")
    parser.add_argument("--json", type=Path)
    parser.add_argument("--profile", type=int, default=0, metavar="N")
    args = parser.parse_args()
    if args.profile:
        print(json.dumps(profile(args.work, args.profile)), flush=True)
        return
    rows = []
    for size in (int(part) for part in args.sizes.split(",")):
        row = bench(size, args.work, args.reference_sample, args.dask)
        print(json.dumps(row), flush=True)
        rows.append(row)
    if args.json:
        args.json.write_text(json.dumps(rows, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
