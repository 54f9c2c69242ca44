"""Our conformance cases: folders with ``main.k`` and ``stdout.golden`` or ``# E:`` lines.

An output case passes when kclpy prints exactly ``stdout.golden``. An error case
has ``# E: <code> <Kind>`` on the line where the error must be reported. The
goldens come from the reference (``pytest --update-goldens`` records them); a case whose folder has
a ``differs.md`` is one where kclpy deliberately differs from the reference
(listed in docs/differences.md), so its golden is kclpy's own.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).parent
EXPECT = re.compile(r"#\s*E:\s*(\S+)\s+(\S+)")


@dataclass
class Case:
    name: str
    folder: Path

    @property
    def source(self) -> str:
        return (self.folder / "main.k").read_text(encoding="utf-8")

    @property
    def golden(self) -> Path:
        return self.folder / "stdout.golden"

    @property
    def differs(self) -> bool:
        return (self.folder / "differs.md").exists()

    def expected_errors(self) -> list[tuple[int, str, str]]:
        """(line, code, kind) of every ``# E:`` expectation."""
        found = []
        for number, line in enumerate(self.source.splitlines(), 1):
            match = EXPECT.search(line)
            if match:
                found.append((number, match.group(1), match.group(2)))
        return found


def all_cases() -> list[Case]:
    return [
        Case(str(main.parent.relative_to(ROOT)), main.parent)
        for main in sorted(ROOT.glob("**/main.k"))
    ]
