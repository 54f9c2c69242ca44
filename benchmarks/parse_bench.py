"""Parse throughput: kclpy's syntax stage over a folder of ``.k`` files.

    python benchmarks/parse_bench.py [FOLDER ...] [--repeat N] [--reference] [--profile]
    python benchmarks/parse_bench.py [FOLDER ...] --report {kclpy,file,program}

Reads every ``.k`` file under the folders (default: ``.corpus/k8s``), parses
them all ``--repeat`` times and prints the number of files and lines, the time
and lines per second (best run, CPU time of the process). ``--reference`` also
times the real KCL (``kcl_lib``'s ``parse_file``, in a subprocess, CPU time as
well) on the same sources and prints the ratio; ``--profile`` prints the top of
a cProfile run.

``--report SIDE`` (what ``run.py``'s ``parse`` workload runs, one process per side)
times one parse loop of one side in this process and prints one JSON line: ``lines``,
``files``, ``cpu_seconds`` (the loop's ``process_time``), ``errors``. Sides:
``kclpy``, ``file`` (the reference's ``parse_file`` per file) and ``program`` (one
``parse_program`` call on all files).
"""

from __future__ import annotations

import argparse
import cProfile
import json
import os
import pstats
import subprocess
import sys
import time

_REFERENCE = r"""
import json, sys, time
import kcl_lib.api as api
a = api.API()
sources = json.load(sys.stdin)
a.parse_file(api.ParseFileArgs(path="warmup.k", source="a = 1"))
best = None
for _ in range(int(sys.argv[1])):
    start = time.process_time()
    for path, text in sources:
        a.parse_file(api.ParseFileArgs(path=path, source=text))
    elapsed = time.process_time() - start
    best = elapsed if best is None else min(best, elapsed)
print(best)
"""


def collect(folders: list[str]) -> list[tuple[str, str]]:
    sources = []
    for folder in folders:
        for root, dirs, names in os.walk(folder):
            dirs.sort()
            for name in sorted(names):
                if name.endswith(".k"):
                    path = os.path.join(root, name)
                    with open(path, encoding="utf-8", errors="replace") as handle:
                        sources.append((path, handle.read()))
    return sources


def run_kclpy(sources: list[tuple[str, str]], repeat: int) -> tuple[float, int]:
    from kclpy.syntax import parse_source

    parse_source("a = 1\n")  # load the tables
    best = float("inf")
    errors = 0
    for _ in range(repeat):
        start = time.process_time()
        errors = 0
        for path, text in sources:
            _, diagnostics = parse_source(text, path)
            errors += any(d.is_error for d in diagnostics)
        best = min(best, time.process_time() - start)
    return best, errors


def run_reference(sources: list[tuple[str, str]], repeat: int) -> float | None:
    try:
        result = subprocess.run(
            [sys.executable, "-c", _REFERENCE, str(repeat)],
            input=json.dumps(sources),
            capture_output=True,
            text=True,
            check=True,
            timeout=3600,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return float(result.stdout.strip())


def report(sources: list[tuple[str, str]], side: str) -> dict[str, object]:
    """One timed parse loop of ``side`` over ``sources``, in this process."""
    lines = sum(text.count("\n") + 1 for _, text in sources)
    if side == "kclpy":
        seconds, errors = run_kclpy(sources, 1)
        return {"lines": lines, "files": len(sources), "cpu_seconds": seconds, "errors": errors}
    import kcl_lib.api as api  # the reference, in this benchmark process only

    reference = api.API()
    reference.parse_file(api.ParseFileArgs(path="warmup.k", source="a = 1"))
    start = time.process_time()
    if side == "program":
        paths = [path for path, _ in sources]
        texts = [text for _, text in sources]
        reference.parse_program(api.ParseProgramArgs(paths=paths, sources=texts))
    else:
        for path, text in sources:
            reference.parse_file(api.ParseFileArgs(path=path, source=text))
    seconds = time.process_time() - start
    return {"lines": lines, "files": len(sources), "cpu_seconds": seconds, "errors": 0}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("folders", nargs="*", default=[".corpus/k8s"])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--reference", action="store_true", help="also time kcl_lib")
    parser.add_argument("--profile", action="store_true", help="print a cProfile summary")
    parser.add_argument(
        "--report", choices=("kclpy", "file", "program"), help="time one side, print JSON"
    )
    args = parser.parse_args(argv)
    sources = collect(args.folders)
    if not sources:
        print("no .k files found", file=sys.stderr)
        return 1
    if args.report:
        print(json.dumps(report(sources, args.report)))
        return 0
    lines = sum(text.count("\n") + 1 for _, text in sources)
    size = sum(len(text) for _, text in sources)
    print(f"{len(sources)} files, {lines} lines, {size / 1e6:.2f} M characters")
    seconds, errors = run_kclpy(sources, args.repeat)
    rate = lines / seconds
    print(f"kclpy     {seconds:8.3f} s  {rate:10.0f} lines/s  ({errors} files with errors)")
    if args.reference:
        reference = run_reference(sources, args.repeat)
        if reference is None:
            print("reference unavailable (kcl_lib not installed?)")
        else:
            rate = lines / reference
            print(f"reference {reference:8.3f} s  {rate:10.0f} lines/s  (parse_file API)")
            print(f"kclpy / reference time ratio: {seconds / reference:.2f}")
    if args.profile:
        from kclpy.syntax import parse_source

        profiler = cProfile.Profile()
        profiler.enable()
        for path, text in sources:
            parse_source(text, path)
        profiler.disable()
        pstats.Stats(profiler).sort_stats("tottime").print_stats(15)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
