"""Golden outputs of ``kcl import`` on small inputs written for these tests
(``cases/``): every generated file is compared with ``goldens/<input>/<path>``.
Rewrite them with ``pytest --update-goldens``."""

from __future__ import annotations

from pathlib import Path

import pytest
from import_helpers import CASES, GOLDENS

from kclpy.tools.format import format_code
from kclpy.tools.importer.convert import ImportOptions, import_path

MODES = {
    "app.json": "auto",
    "values.yaml": "yaml",
    "server.toml": "auto",
    "person.schema.json": "auto",
    "petstore.v2.json": "openapi",
    "petstore.v3.yaml": "auto",
    "widget-crd.yaml": "auto",
    "rules-crd.yaml": "crd",
}


@pytest.mark.parametrize("case", sorted(MODES))
def test_golden(case: str, monkeypatch: pytest.MonkeyPatch, update_goldens: bool) -> None:
    monkeypatch.chdir(CASES)  # the header names the input as given
    files = import_path(case, ImportOptions(MODES[case]))
    folder = GOLDENS / case
    if update_goldens:
        for relative, text in files.items():
            (folder / relative).parent.mkdir(parents=True, exist_ok=True)
            (folder / relative).write_text(text)
    expected = {
        str(path.relative_to(folder)): path.read_text() for path in sorted(folder.rglob("*.k"))
    }
    assert files == expected


@pytest.mark.parametrize("case", sorted(set(MODES) - {"person.schema.json"}))
def test_output_is_formatted(case: str) -> None:
    """What ``kcl import`` writes is what ``kcl fmt`` would leave (JSON Schema's is
    kcl-go's text as it writes it: ``test_import_upstream.py``)."""
    for text in import_path(str(CASES / case), ImportOptions(MODES[case])).values():
        assert format_code(text) == text


def test_goldens_have_no_stray_files() -> None:
    stray = [p for p in GOLDENS.iterdir() if p.name not in MODES]
    assert stray == [], f"goldens without an input: {stray}"
    assert all(Path(CASES / case).is_file() for case in MODES)
