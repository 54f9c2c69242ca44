"""Chunked error files: each ``errors/*.k`` holds programs separated by ``# ---``
lines; ``# E: CODE fragment`` on a line (or ``# E^: ...`` alone on the next line,
for lines that cannot carry a comment) expects a diagnostic on that line with
that code and a message containing the fragment. Every diagnostic must be
expected, and every expectation met."""

from __future__ import annotations

import pathlib
import re

import pytest

from kclpy.syntax import parse_source

ERRORS = pathlib.Path(__file__).parent / "errors"
_EXPECT = re.compile(r"#\s*E(\^?):\s*(\S+)\s+(.*?)\s*$")


def _chunks() -> list[tuple[str, int, str]]:
    result = []
    for path in sorted(ERRORS.glob("*.k")):
        text = path.read_text(encoding="utf-8")
        for index, chunk in enumerate(re.split(r"\n# ---\n", text)):
            result.append((path.stem, index, chunk))
    return result


def _expectations(chunk: str) -> list[tuple[int, str, str]]:
    expected = []
    for number, line in enumerate(chunk.split("\n"), 1):
        match = _EXPECT.search(line)
        if match:
            target = number - 1 if match.group(1) else number
            expected.append((target, match.group(2), match.group(3)))
    return expected


@pytest.mark.parametrize(("name", "index", "chunk"), _chunks(), ids=lambda v: str(v)[:40])
def test_error_chunk(name: str, index: int, chunk: str) -> None:
    module, diagnostics = parse_source(chunk, f"{name}.k")
    assert module is not None
    found = [(d.span.begin_pos[0] if d.span else 0, d.code.id, d.message) for d in diagnostics]
    expected = _expectations(chunk)
    assert expected, "a chunk must expect at least one error"
    unmatched = list(found)
    for line, code, fragment in expected:
        hits = [f for f in unmatched if f[0] == line and f[1] == code and fragment in f[2]]
        assert hits, f"line {line}: no {code} containing {fragment!r}; got {found}"
        unmatched.remove(hits[0])
    assert not unmatched, f"unexpected diagnostics: {unmatched}"
