"""Regenerate ``stdout.golden`` of every output case from the reference KCL.

    python tests/conformance/update_goldens.py [name-filter]

Cases with ``# E:`` expectations get no golden; the script prints the reference's
error header for them so the expectation can be checked by eye. Cases with a
``differs.md`` are skipped (their golden is kclpy's own).
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from reference import reference_available, run_reference

from conformance.cases import all_cases


def main() -> int:
    if not reference_available():
        print("kcl_lib is not installed", file=sys.stderr)
        return 2
    pattern = sys.argv[1] if len(sys.argv) > 1 else ""
    for case in all_cases():
        if pattern not in case.name or case.differs:
            continue
        result = run_reference(files=["main.k"], cwd=str(case.folder))
        if case.expected_errors():
            header = (result.stderr.splitlines() or ["<no error>"])[0]
            print(f"{case.name}: exit {result.returncode} {header}")
            continue
        if result.returncode != 0:
            print(f"{case.name}: reference failed: {result.stderr.strip()[:200]}")
            continue
        case.golden.write_text(result.stdout, encoding="utf-8")
        print(f"{case.name}: ok")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
