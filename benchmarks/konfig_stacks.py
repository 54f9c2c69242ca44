"""Every konfig example stack through kclpy and the reference: equal output or not.

A stack is a folder under ``konfig/examples`` holding ``main.k`` and ``kcl.mod``;
its inputs are the ``[profile] entries`` of that ``kcl.mod`` (``${konfig:KCL_MOD}``
passed literally, both sides resolve it against ``-E konfig=``). Both sides run
on ``.corpus/konfig-compat`` (the reference rejects konfig's ``__META_`` names,
see README.md) with ``-E konfig=... -E k8s=...``; kclpy with its compiled-module
cache off. Prints one line per stack and the total; exit 1 when any differs.

    python benchmarks/konfig_stacks.py [--corpus .corpus] [-j 2]
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tomllib
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
REFERENCE = ROOT / "benchmarks" / "ref_kcl.py"


def stacks(konfig: Path) -> list[Path]:
    return sorted(
        main.parent
        for main in (konfig / "examples").rglob("main.k")
        if (main.parent / "kcl.mod").is_file()
    )


def entries(stack: Path) -> list[str]:
    manifest = tomllib.loads((stack / "kcl.mod").read_text(encoding="utf-8"))
    return list(manifest.get("profile", {}).get("entries", ["main.k"]))


def run(command: list[str], stack: Path) -> tuple[int, str, str]:
    env = {"KCLPY_NO_CACHE": "1", "PATH": "/usr/bin:/bin"}
    done = subprocess.run(
        command, cwd=stack, capture_output=True, text=True, env=env, timeout=600, check=False
    )
    return done.returncode, done.stdout, done.stderr


def compare(stack: Path, corpus: Path) -> tuple[str, bool, str]:
    externals = [
        "-E",
        f"konfig={corpus / 'konfig-compat' / 'konfig'}",
        "-E",
        f"k8s={corpus / 'k8s'}",
    ]
    files = entries(stack)
    mine = run([sys.executable, "-m", "kclpy", "run", *files, *externals], stack)
    theirs = run([sys.executable, str(REFERENCE), "run", *files, *externals], stack)
    same = mine[0] == theirs[0] == 0 and mine[1] == theirs[1]
    detail = ""
    if not same:
        detail = f"kclpy exit {mine[0]} {mine[2][-300:]!r}; "
        detail += f"reference exit {theirs[0]} {theirs[2][-300:]!r}"
    return str(stack.relative_to(corpus)), same, detail


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", type=Path, default=ROOT / ".corpus")
    parser.add_argument("-j", type=int, default=2)
    options = parser.parse_args()
    corpus = options.corpus.resolve()
    found = stacks(corpus / "konfig-compat" / "konfig")
    with ThreadPoolExecutor(options.j) as pool:
        results = list(pool.map(lambda stack: compare(stack, corpus), found))
    for name, same, detail in results:
        print(f"{'equal' if same else 'DIFFERENT'}  {name}  {detail}")
    equal = sum(same for _, same, _ in results)
    print(f"{equal}/{len(results)} konfig stacks equal to the reference")
    return 0 if equal == len(results) else 1


if __name__ == "__main__":
    sys.exit(main())
