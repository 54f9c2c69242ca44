"""The analysis model through a real client: other open buffers, saved dependencies,
errors in files that are not open, watched files."""

from __future__ import annotations

from pathlib import Path

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient

from .helpers import announce, change, codes, diagnostics, document, open_document, write

pytestmark = pytest.mark.asyncio

MODEL = "schema Server:\n    port: int = 80\n"
MAIN = "import models\n\nserver = models.Server {port = 8080}\n"


def _project(tmp_path: Path) -> tuple[Path, Path]:
    write(tmp_path / "kcl.mod", '[package]\nname = "demo"\n')
    return write(tmp_path / "models" / "server.k", MODEL), write(tmp_path / "main.k", MAIN)


async def test_unsaved_edits_in_another_open_file_count(
    lsp: LanguageClient, tmp_path: Path
) -> None:
    model, main = _project(tmp_path)
    main_uri = open_document(lsp, main, MAIN)
    await diagnostics(lsp, main_uri, lambda found: not found)
    model_uri = open_document(lsp, model, MODEL)
    change(lsp, model_uri, 2, 'schema Server:\n    port: str = "80"\n')  # not saved
    found = await diagnostics(lsp, main_uri, lambda found: "E2G22" in codes(found))
    assert found[0].range.start.line == 2
    change(lsp, model_uri, 3, MODEL)
    await diagnostics(lsp, main_uri, lambda found: not found)


async def test_saving_a_dependency_rechecks_its_importers(
    lsp: LanguageClient, tmp_path: Path
) -> None:
    model, main = _project(tmp_path)
    main_uri = open_document(lsp, main, MAIN)
    await diagnostics(lsp, main_uri, lambda found: not found)
    model.write_text("schema Server:\n    port: str\n", encoding="utf-8")  # saved elsewhere
    lsp.workspace_did_change_watched_files(
        types.DidChangeWatchedFilesParams(
            [types.FileEvent(model.as_uri(), types.FileChangeType.Changed)]
        )
    )
    await diagnostics(lsp, main_uri, lambda found: "E2G22" in codes(found))
    model.write_text(MODEL, encoding="utf-8")
    lsp.text_document_did_save(types.DidSaveTextDocumentParams(document(model.as_uri())))
    await diagnostics(lsp, main_uri, lambda found: not found)


async def test_errors_in_files_that_are_not_open(lsp: LanguageClient, tmp_path: Path) -> None:
    model, main = _project(tmp_path)
    model.write_text('schema Server:\n    port: int = "eighty"\n', encoding="utf-8")
    created = [
        write(tmp_path / "p1" / "a.k", "import p2\n\nx = p2.y\n"),
        write(tmp_path / "p2" / "b.k", "import p1\n\ny = 1\n"),
    ]
    announce(lsp, *created)
    main_uri = open_document(lsp, main, MAIN)
    await diagnostics(lsp, main_uri)
    in_model = await diagnostics(lsp, model.as_uri(), lambda found: "E2G22" in codes(found))
    assert in_model[0].range.start.line == 1
    cyclic = "cyclic import"
    for file in ("p1/a.k", "p2/b.k"):  # neither is open; each ends the cycle once
        found = await diagnostics(
            lsp, (tmp_path / file).as_uri(), lambda found: any(cyclic in d.message for d in found)
        )
        assert found[0].range.start.line == 0


async def test_a_deleted_file_loses_its_diagnostics(lsp: LanguageClient, tmp_path: Path) -> None:
    broken = write(tmp_path / "lib" / "broken.k", "x = undefined_name\n")
    main = write(tmp_path / "main.k", "a = 1\n")
    announce(lsp, broken)
    open_document(lsp, main, "a = 1\n")
    await diagnostics(lsp, broken.as_uri(), lambda found: "E2L23" in codes(found))
    broken.unlink()
    lsp.workspace_did_change_watched_files(
        types.DidChangeWatchedFilesParams(
            [types.FileEvent(broken.as_uri(), types.FileChangeType.Deleted)]
        )
    )
    await diagnostics(lsp, broken.as_uri(), lambda found: not found)
