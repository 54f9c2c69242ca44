"""Differential tests of ``kcl doc generate`` on kcl-go's own doc cases (corpus mode).

kcl-go's ``pkg/tools/gen`` tests document four packages (``testdata/doc/*``) as
Markdown with ``EscapeHtml`` and compare the ``docs/`` folder with ``md/``; its
OpenAPI test exports ``testdata/openapi/app`` and compares one schema's JSON text.
Here ``kcl doc generate`` runs on the same packages, as a user would, and must write
the same files byte for byte. Skipped without the git-ignored corpus
(``benchmarks/prepare_corpus.py`` writes ``.corpus/kcl-doc``).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from kclpy.cli import main

CORPUS = Path(__file__).resolve().parents[2] / ".corpus" / "kcl-doc"

pytestmark = pytest.mark.skipif(
    not CORPUS.is_dir(), reason=".corpus/kcl-doc is not present (benchmarks/prepare_corpus.py)"
)

MARKDOWN_CASES = sorted(p.parent.name for p in CORPUS.glob("doc/*/md")) if CORPUS.is_dir() else []
OPENAPI_CASES = (
    sorted(str(p.relative_to(CORPUS / "openapi-expect")) for p in CORPUS.glob("openapi-expect/*/*"))
    if CORPUS.is_dir()
    else []
)


def _package(case: str, tmp_path: Path) -> Path:
    """A copy of the upstream package without its goldens (nothing of ours lands in
    the corpus)."""
    copy = tmp_path / case
    shutil.copytree(CORPUS / "doc" / case, copy, ignore=shutil.ignore_patterns("md"))
    return copy


def test_the_corpus_holds_every_upstream_case() -> None:
    assert MARKDOWN_CASES == ["index_func", "k8s", "pkg", "reimport"]
    assert OPENAPI_CASES == ["app/models.schema.v1.AppConfiguration.json"]


@pytest.mark.parametrize("case", MARKDOWN_CASES)
def test_markdown_is_the_upstream_golden(
    case: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    package, target = _package(case, tmp_path), tmp_path / "out"
    target.mkdir()
    argv = ["doc", "generate", "--file-path", str(package), "--target", str(target)]
    assert main([*argv, "--escape-html"]) == 0
    expected = CORPUS / "doc" / case / "md"
    written = target / "docs"
    assert sorted(p.name for p in written.iterdir()) == sorted(p.name for p in expected.iterdir())
    for golden in expected.iterdir():
        assert (written / golden.name).read_bytes() == golden.read_bytes(), golden.name
    out = capsys.readouterr().out
    assert out.splitlines() == [
        "generating doc for package main",
        f"doc generate complete and check generated docs in {written}",
    ]


@pytest.mark.parametrize("case", OPENAPI_CASES)
def test_openapi_schema_is_the_upstream_golden(case: str, tmp_path: Path) -> None:
    package_name, schema_file = case.split("/")
    package = tmp_path / package_name
    shutil.copytree(CORPUS / "openapi" / package_name, package)
    argv = ["doc", "generate", "--file-path", str(package), "--format", "openapi"]
    assert main([*argv, "--target", str(tmp_path), "-q"]) == 0
    text = (tmp_path / "docs" / "main.json").read_text(encoding="utf-8")
    expected = (CORPUS / "openapi-expect" / case).read_text(encoding="utf-8")
    schema = schema_file.removesuffix(".json")
    document = json.loads(text)
    assert document["components"]["schemas"][schema] == json.loads(expected)
    assert f'"{schema}":{expected}' in text  # byte for byte, as Go's encoder writes it
