"""Corpus mode: kclpy's ``kcl import -m openapi`` and ``-m jsonschema`` against the
reference importers' own test data (kcl-lang/kcl-openapi's cases and kcl-lang/kcl-go's
JSON Schema cases), schema by schema (``upstream.py``).

Build the data into the git-ignored ``.corpus/`` first::

    python benchmarks/prepare_corpus.py --skip conformance,k8s,konfig,bench,vet,doc,fmt

Skipped without it. Measured: OpenAPI 49 of 49 expected schemas (37 of 37 cases; the
cases with two base schemas, which KCL cannot parse, are not counted); JSON Schema 171
of 171, and each of the 25 files byte for byte what kcl-go's test expects.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from upstream import (
    JSONSCHEMA,
    OPENAPI,
    compare_jsonschema,
    compare_openapi,
    jsonschema_cases,
    openapi_cases,
)

from kclpy.tools.importer.convert import ImportOptions, import_path


@pytest.mark.skipif(not openapi_cases(), reason=f"no kcl-openapi test data in {OPENAPI}")
@pytest.mark.parametrize("case", openapi_cases(), ids=lambda case: case.name)
def test_openapi_case_matches(case: Path) -> None:
    result = compare_openapi(case)
    assert result.matched == result.expected, "\n".join(result.examples)


@pytest.mark.skipif(not jsonschema_cases(), reason=f"no kcl-go JSON Schema data in {JSONSCHEMA}")
def test_jsonschema_cases_match() -> None:
    expected = matched = 0
    for case in jsonschema_cases():
        result = compare_jsonschema(case)
        expected, matched = expected + result.expected, matched + result.matched
    assert matched == expected, f"{matched} of {expected} schemas match"


@pytest.mark.skipif(not jsonschema_cases(), reason=f"no kcl-go JSON Schema data in {JSONSCHEMA}")
@pytest.mark.parametrize("case", jsonschema_cases(), ids=lambda case: case.name)
def test_jsonschema_file_is_the_reference_text(case: Path) -> None:
    """kcl-go's own test compares the whole text; so does this one."""
    [text] = import_path(str(case / "input.json"), ImportOptions("jsonschema")).values()
    assert text == (case / "expect.k").read_text()
