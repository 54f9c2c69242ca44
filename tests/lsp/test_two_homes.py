"""A file in two packages of one program (a folder imported as a package and one of
its files imported as a module of its own, as konfig imports ``models.kube.frontend``
and ``models.kube.frontend.server``), through a real client (pytest-lsp over stdio).

Each package checks a tree of its own of the file; the editor reads the folder
package's (the file's home) whatever the import order: a name the file takes from a
sibling file is defined there. The module's own check still reports what ``kcl run``
reports for it (the sibling's name is undefined in a module of one file), once.

The stack's ``kcl.mod`` names ``main.k`` as its entry, so the folder ``pkg`` is
analysed within the stack only (no program of its own answers for ``server.k``)."""

from __future__ import annotations

from pathlib import Path

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient

from .helpers import announce, diagnostics, document, open_document, position, write

pytestmark = pytest.mark.asyncio

MOD = '[package]\nname = "two"\nversion = "0.0.1"\n\n[profile]\nentries = ["main.k"]\n'
SIBLING = "base = 1\n"
SERVER = "schema Server:\n    port: int = base\n\nsrv = Server {}\nother = base\n"
IMPORTS = ["import pkg\n", "import pkg.server as s\n"]
USES = "\na = pkg.srv.port\nb = s.srv.port\n"
ORDERS = pytest.mark.parametrize("imports", [IMPORTS, IMPORTS[::-1]], ids=["pkg", "module"])


async def _layout(lsp: LanguageClient, root: Path, imports: list[str]) -> str:
    """The stack written and announced, ``server.k`` opened once the stack is
    analysed (``main.k`` has its diagnostics): its uri."""
    main = "".join(imports) + USES
    paths = [
        write(root / "kcl.mod", MOD),
        write(root / "pkg" / "a.k", SIBLING),
        write(root / "pkg" / "server.k", SERVER),
        write(root / "main.k", main),
    ]
    announce(lsp, *paths)
    await diagnostics(lsp, open_document(lsp, root / "main.k", main))
    uri = open_document(lsp, root / "pkg" / "server.k", SERVER)
    await diagnostics(lsp, uri, lambda found: bool(found))
    return uri


@ORDERS
async def test_definition_of_a_sibling_s_name_from_the_shared_file(
    lsp: LanguageClient, tmp_path: Path, imports: list[str]
) -> None:
    uri = await _layout(lsp, tmp_path, imports)
    for needle in ("base\n\n", "base\n"):  # the schema attribute's default, ``other``
        found = await lsp.text_document_definition_async(
            types.DefinitionParams(document(uri), position(SERVER, needle))
        )
        assert isinstance(found, types.Location), needle
        assert found.uri == (tmp_path / "pkg" / "a.k").as_uri()
        assert found.range.start == types.Position(0, 0)


@ORDERS
async def test_references_of_a_sibling_s_name_include_the_shared_file(
    lsp: LanguageClient, tmp_path: Path, imports: list[str]
) -> None:
    uri = await _layout(lsp, tmp_path, imports)
    found = await lsp.text_document_references_async(
        types.ReferenceParams(
            text_document=document(uri),
            position=position(SERVER, "base\n", shift=1),
            context=types.ReferenceContext(include_declaration=True),
        )
    )
    assert found is not None
    places = sorted((Path(p.uri).name, p.range.start.line, p.range.start.character) for p in found)
    sibling = (tmp_path / "pkg" / "a.k").as_uri()
    assert {p.uri for p in found} == {sibling, uri}
    assert places == [("a.k", 0, 0), ("server.k", 1, 16), ("server.k", 4, 8)]


@ORDERS
async def test_hover_in_the_shared_file_reads_the_folder_package(
    lsp: LanguageClient, tmp_path: Path, imports: list[str]
) -> None:
    uri = await _layout(lsp, tmp_path, imports)
    hover = await lsp.text_document_hover_async(
        types.HoverParams(document(uri), position(SERVER, "base\n"))
    )
    assert hover is not None and "base: int" in str(hover.contents)


@ORDERS
async def test_the_module_s_own_errors_are_reported_once(
    lsp: LanguageClient, tmp_path: Path, imports: list[str]
) -> None:
    """``kcl run`` reports ``base`` undefined in the module ``pkg.server`` (as the
    reference does); the folder package's tree of the file has no error."""
    uri = await _layout(lsp, tmp_path, imports)
    found = await diagnostics(lsp, uri, lambda found: bool(found))
    places = sorted((str(d.code), d.range.start.line, d.message) for d in found)
    undefined = "name 'base' is not defined"
    assert places == [("E2L23", 1, undefined), ("E2L23", 4, undefined)]
