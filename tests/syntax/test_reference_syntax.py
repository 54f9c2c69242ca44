"""Differential check against the reference parser (kcl-lib, a test dependency):
every chunk of ``reference_accepts.k`` and ``errors/*.k`` is accepted or rejected
(with InvalidSyntax) by kclpy exactly as by the reference. Runs the reference in
one subprocess; skipped when kcl-lib is not installed."""

from __future__ import annotations

import importlib.util
import pathlib
import re

import pytest
from reference import call_reference

from kclpy.syntax import parse_source

HERE = pathlib.Path(__file__).parent

pytestmark = pytest.mark.skipif(
    importlib.util.find_spec("kcl_lib") is None, reason="kcl-lib (the reference) not installed"
)

_ORACLE = r"""
import json, sys
import kcl_lib.api as api
a = api.API()
out = []
for source in json.load(sys.stdin):
    r = a.parse_file(api.ParseFileArgs(path="main.k", source=source))
    out.append(any(e.code == "Error(InvalidSyntax)" for e in r.errors))
print(json.dumps(out))
"""


def _chunks() -> list[str]:
    chunks = []
    for path in [HERE / "reference_accepts.k", *sorted((HERE / "errors").glob("*.k"))]:
        chunks.extend(re.split(r"\n# ---\n", path.read_text(encoding="utf-8")))
    return chunks


@pytest.fixture(scope="module")
def verdicts() -> dict[str, bool]:
    chunks = _chunks()
    answers = call_reference(_ORACLE, chunks, timeout=300)
    return dict(zip(chunks, answers, strict=True))


def test_same_verdicts_as_the_reference(verdicts: dict[str, bool]) -> None:
    different = []
    for chunk, rejected in verdicts.items():
        _, diagnostics = parse_source(chunk, "main.k")
        mine = any(d.code.kind == "InvalidSyntax" for d in diagnostics)
        if mine != rejected:
            different.append((chunk[:60], "reference rejects" if rejected else "reference accepts"))
    assert different == []
