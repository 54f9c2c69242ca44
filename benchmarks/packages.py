"""Package management costs: ``kcl run`` of a konfig stack from a local OCI registry.

Starts Debian's ``docker-registry`` on a free 127.0.0.1 port (storage in a temp
dir), pushes the corpus's k8s 1.31.2 and konfig with ``kcl mod push``, copies
konfig, and times ``kcl run`` in a stack folder:

- cold: an empty package cache (``$KCL_PKG_PATH``) and an empty compiled-program
  cache (``$KCLPY_CACHE_DIR``): download, unpack, hash, compile, run;
- download: ``kcl mod update`` into an empty package cache (pull, unpack, hash);
- warm: both caches filled;
- ``-E``: warm, the packages given with ``-E`` (no resolution at all);
- resolution: ``kclpy.mod.dependency_paths`` in-process on the warm cache.

    .venv/bin/python benchmarks/packages.py [--stack appops/guestbook/prod] [--reps 5]

Measurements only (never assertions); wall seconds, medians.
"""

from __future__ import annotations

import argparse
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path

CORPUS = Path(__file__).resolve().parents[1] / ".corpus"


def start_registry(folder: Path) -> tuple[subprocess.Popen[bytes], str]:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    config = folder / "config.yml"
    config.write_text(
        f"version: 0.1\nlog:\n  level: error\nstorage:\n  filesystem:\n"
        f"    rootdirectory: {folder / 'storage'}\nhttp:\n  addr: 127.0.0.1:{port}\n"
    )
    process = subprocess.Popen(
        ["docker-registry", "serve", str(config)],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    host = f"127.0.0.1:{port}"
    for _ in range(600):
        try:
            urllib.request.urlopen(f"http://{host}/v2/", timeout=2)
            return process, host
        except (urllib.error.URLError, OSError):
            time.sleep(0.1)
    process.kill()
    raise SystemExit("docker-registry did not start")


def timed(command: list[str], cwd: Path, env: dict[str, str]) -> tuple[float, float]:
    """Wall and CPU (user+sys) seconds of one process."""
    start = time.perf_counter()
    process = subprocess.Popen(
        command, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )
    _, status, usage = os.wait4(process.pid, 0)
    elapsed = time.perf_counter() - start
    errors = process.stderr.read().decode() if process.stderr else ""
    if status != 0:
        raise SystemExit(f"{' '.join(command)} failed:\n{errors}")
    return elapsed, usage.ru_utime + usage.ru_stime


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--stack", default="appops/guestbook/prod")
    parser.add_argument("--reps", type=int, default=5)
    options = parser.parse_args()
    if not (CORPUS / "k8s").is_dir() or shutil.which("docker-registry") is None:
        raise SystemExit("needs .corpus/ (benchmarks/prepare_corpus.py) and docker-registry")
    kcl = [sys.executable, "-m", "kclpy"]
    with tempfile.TemporaryDirectory(prefix="kclpy-packages-") as scratch:
        work = Path(scratch)
        process, host = start_registry(work)
        try:
            # as benchmarks/run.py: bytecode caches on, or the compiler is what gets timed
            os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
            env = dict(os.environ, KPM_REG=host, KPM_REPO="kcl-lang", KCL_PKG_PATH=str(work / "p"))
            for name, source in (
                ("k8s", CORPUS / "k8s"),
                ("konfig", CORPUS / "konfig-compat/konfig"),
            ):
                copy = work / "push" / name
                shutil.copytree(source, copy, ignore=shutil.ignore_patterns(".git", "examples"))
                timed([*kcl, "mod", "push", "--force"], copy, env)
            konfig = work / "konfig"
            shutil.copytree(CORPUS / "konfig-compat/konfig", konfig)
            stack = konfig / "examples" / options.stack
            rows = measure(kcl, stack, konfig, work, env, options.reps)
        finally:
            process.terminate()
            process.wait()
    for name, samples in rows.items():
        wall = statistics.median(sample[0] for sample in samples) * 1000
        cpu = statistics.median(sample[1] for sample in samples) * 1000
        print(f"{name:<40} wall {wall:8.1f} ms  cpu {cpu:8.1f} ms  (medians, n={len(samples)})")


def measure(
    kcl: list[str], stack: Path, konfig: Path, work: Path, env: dict[str, str], reps: int
) -> dict[str, list[tuple[float, float]]]:
    rows: dict[str, list[tuple[float, float]]] = {
        "cold (both caches empty)": [],
        "of which: kcl mod update (download)": [],
    }
    for rep in range(reps):
        fresh = dict(
            env, KCL_PKG_PATH=str(work / f"cold{rep}"), KCLPY_CACHE_DIR=str(work / f"c{rep}")
        )
        rows["cold (both caches empty)"].append(timed([*kcl, "run"], stack, fresh))
        again = dict(fresh, KCL_PKG_PATH=str(work / f"cold-again{rep}"))
        rows["of which: kcl mod update (download)"].append(
            timed([*kcl, "mod", "update"], stack, again)
        )
    warm = dict(env, KCL_PKG_PATH=str(work / "cold0"), KCLPY_CACHE_DIR=str(work / "c0"))
    rows["warm"] = [timed([*kcl, "run"], stack, warm) for _ in range(reps)]
    import tomllib

    entries = tomllib.loads((stack / "kcl.mod").read_text())["profile"]["entries"]
    given = ["-E", f"konfig={konfig}", "-E", f"k8s={work / 'cold0' / 'k8s_1.31.2'}"]
    rows["warm, -E (no resolution)"] = [
        timed([*kcl, "run", *entries, *given], stack, warm) for _ in range(reps)
    ]
    script = (  # CPU seconds: the import, the first resolution, then the mean of 20 more
        "import time,sys\nimport kclpy.api, tomllib\nclock=time.process_time\nstart=clock()\n"
        "from kclpy.mod.resolution import dependency_paths\nimported=clock()\n"
        "dependency_paths(sys.argv[1])\nfirst=clock()\n"
        "for _ in range(20): dependency_paths(sys.argv[1])\n"
        "print(imported-start, first-imported, (clock()-first)/20)"
    )
    samples = [
        subprocess.run(
            [sys.executable, "-c", script, str(stack)], env=warm, capture_output=True, text=True,
            check=True,
        ).stdout.split()
        for _ in range(reps)
    ]  # fmt: skip
    rows["resolution: import kclpy.mod.resolution"] = [(float(s[0]),) * 2 for s in samples]
    rows["resolution: first call, warm cache"] = [(float(s[1]),) * 2 for s in samples]
    rows["resolution: later calls, warm cache"] = [(float(s[2]),) * 2 for s in samples]
    return rows


if __name__ == "__main__":
    main()
