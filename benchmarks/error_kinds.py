"""Error cases of the conformance corpus: does kclpy report the reference's error kind?

    python benchmarks/error_kinds.py [--corpus .corpus/kcl-conformance] [-j 2]

The upstream ``stderr.golden`` files are partly older than kcl-lib 0.13.2, so the
reference's real kind comes from ``.corpus/sema-reference-kinds.json`` (written by
``tests/sema/corpus_check.py``, one kcl-lib run per case; "runtime" there means an
EvaluationError). Prints matched/total and the mismatches.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

HEADER = re.compile(r"error\[(\w+)\]: (\w+)")
ROOT = Path(__file__).resolve().parents[1]


def first_kind(case: Path) -> str:
    settings = case / "settings.yaml"
    options: list[str] = []
    if settings.exists():
        text = settings.read_text(encoding="utf-8")
        match = re.search(r"kcl_options:(.*)", text)
        if match:
            options = match.group(1).split()
    entry = "main.k" if (case / "main.k").exists() else "_main.k"
    result = subprocess.run(
        [sys.executable, "-m", "kclpy", "run", entry, *options],
        cwd=case,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    found = HEADER.search(result.stderr)
    return found.group(2) if found else ("<none>" if result.returncode else "<ok>")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", type=Path, default=ROOT / ".corpus" / "kcl-conformance")
    parser.add_argument(
        "--kinds", type=Path, default=ROOT / ".corpus" / "sema-reference-kinds.json"
    )
    parser.add_argument("-j", type=int, default=2)
    ns = parser.parse_args()
    kinds: dict[str, list[object]] = json.loads(ns.kinds.read_text(encoding="utf-8"))
    names = sorted(kinds)
    with ThreadPoolExecutor(ns.j) as pool:
        ours = list(pool.map(lambda name: first_kind(ns.corpus / name), names))
    mismatches = []
    for name, kind in zip(names, ours, strict=True):
        expected = str(kinds[name][1])
        expected = "EvaluationError" if expected == "runtime" else expected
        if kind != expected:
            mismatches.append((name, expected, kind))
    print(f"error kind matches the reference: {len(names) - len(mismatches)}/{len(names)}")
    for name, expected, kind in mismatches:
        print(f"  {name}: reference {expected}, kclpy {kind}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
