"""Conformance of the parser on the real-world corpus in ``.corpus/`` (built
locally: the KCL test suite, the k8s 1.31 models, konfig; the ``bench``
workloads are left to benchmarks/parse_bench.py). Skipped when it is absent.

Every file the reference parses without an InvalidSyntax error must parse here
without one too. The reference's verdicts are cached in
``corpus_reference.json`` (by content hash); files missing from the cache are
asked of kcl-lib in one subprocess, and ``pytest --update-goldens`` rewrites
the cache. Files the reference rejects are recorded there, and the test reports how
many of them kclpy accepts (it does not fail on those).
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import pathlib

import pytest
from reference import call_reference

from kclpy.syntax import parse_bytes

ROOT = pathlib.Path(__file__).resolve().parents[2] / ".corpus"
CACHE = pathlib.Path(__file__).parent / "corpus_reference.json"
SKIPPED_DIRS = {"bench"}

pytestmark = pytest.mark.skipif(not ROOT.is_dir(), reason=".corpus/ is not present")

_ORACLE = r"""
import json, sys
import kcl_lib.api as api
a = api.API()
out = {}
root, sources = json.load(sys.stdin)
for path, source in sources.items():
    r = a.parse_file(api.ParseFileArgs(path=root + "/" + path, source=source))
    errors = [m for e in r.errors if e.code == "Error(InvalidSyntax)" for m in e.messages[:1]]
    out[path] = [f"{m.pos.line}:{m.pos.column + 1} {m.msg}" for m in errors][:3]
print(json.dumps(out))
"""


def _files() -> dict[str, bytes]:
    files: dict[str, bytes] = {}
    for folder, dirs, names in os.walk(ROOT):
        rel_folder = pathlib.Path(folder).relative_to(ROOT)
        dirs[:] = sorted(
            d for d in dirs if not (rel_folder == pathlib.Path(".") and d in SKIPPED_DIRS)
        )
        for name in sorted(names):
            if name.endswith(".k"):
                path = pathlib.Path(folder) / name
                files[str(path.relative_to(ROOT))] = path.read_bytes()
    return files


def _digest(data: bytes) -> str:
    return hashlib.sha1(data).hexdigest()


def _reference(files: dict[str, bytes], update: bool) -> dict[str, list[str]]:
    cache: dict[str, dict[str, object]] = {}
    if CACHE.exists() and not update:
        cache = json.loads(CACHE.read_text(encoding="utf-8"))
    verdicts = {
        rel: list(entry["errors"])  # type: ignore[call-overload]
        for rel, entry in cache.items()
        if rel in files and entry.get("sha1") == _digest(files[rel])
    }
    missing = {rel: data for rel, data in files.items() if rel not in verdicts}
    if missing and importlib.util.find_spec("kcl_lib") is not None:
        sources = {rel: data.decode("utf-8", "replace") for rel, data in missing.items()}
        verdicts.update(call_reference(_ORACLE, [str(ROOT), sources], timeout=1800))
        if update or not CACHE.exists():
            entries = {
                rel: {"sha1": _digest(files[rel]), "errors": verdicts[rel]}
                for rel in sorted(verdicts)
            }
            CACHE.write_text(json.dumps(entries, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    return verdicts


def test_corpus_parses_like_the_reference(update_goldens: bool) -> None:
    files = _files()
    verdicts = _reference(files, update_goldens)
    checked = wrongly_rejected = 0
    accepted_but_rejected: list[str] = []
    failures: list[str] = []
    for rel, data in files.items():
        if rel not in verdicts:
            continue
        _, diagnostics = parse_bytes(data, rel)
        ours = [d for d in diagnostics if d.code.kind in ("InvalidSyntax", "InternalError")]
        checked += 1
        if not verdicts[rel] and ours:
            wrongly_rejected += 1
            first = ours[0]
            failures.append(f"{rel}: {first.location()} {first.message}")
        elif verdicts[rel] and not ours:
            accepted_but_rejected.append(rel)
    rejected = sum(1 for rel in verdicts if verdicts[rel])
    print(
        f"\ncorpus: {checked} files, reference rejects {rejected}, "
        f"kclpy wrongly rejects {wrongly_rejected}, accepts {len(accepted_but_rejected)} "
        "that the reference rejects"
    )
    assert checked > 0
    assert failures == []
