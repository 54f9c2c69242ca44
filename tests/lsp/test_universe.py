"""Builtins in the editor come from the one declaration (kclpy.syntax.universe):
completion of every system module's members (toml included) and of builtins, with
their docs, and hover on builtins and module members showing the declared doc."""

from __future__ import annotations

from pathlib import Path

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient

from kclpy.syntax import universe

from .helpers import diagnostics, document, open_document, position, write

pytestmark = pytest.mark.asyncio

TEXT = "import toml\nimport math\nimport units\na = len([1])\nb = math.sqrt(4)\nc = toml.\n"


async def _items(
    lsp: LanguageClient, uri: str, where: types.Position
) -> dict[str, types.CompletionItem]:
    result = await lsp.text_document_completion_async(types.CompletionParams(document(uri), where))
    assert isinstance(result, types.CompletionList)
    return {item.label: item for item in result.items}


async def _hover(lsp: LanguageClient, uri: str, where: types.Position) -> str:
    found = await lsp.text_document_hover_async(types.HoverParams(document(uri), where))
    assert found is not None and isinstance(found.contents, types.MarkupContent)
    return found.contents.value


async def test_members_and_builtins_come_with_their_declared_docs(
    lsp: LanguageClient, tmp_path: Path
) -> None:
    uri = open_document(lsp, write(tmp_path / "main.k", TEXT), TEXT)
    await diagnostics(lsp, uri)
    lines = TEXT.split("\n")
    members = await _items(lsp, uri, types.Position(5, len(lines[5])))
    declared = universe.module_members("toml")
    assert set(members) == set(declared)
    assert members["decode"].documentation == declared["decode"].doc
    top = await _items(lsp, uri, types.Position(6, 0))
    assert top["len"].documentation == universe.builtin_functions()["len"].doc
    assert universe.module_members("math")["sqrt"].doc in await _hover(
        lsp, uri, position(TEXT, "sqrt", 1)
    )
    assert universe.builtin_functions()["len"].doc in await _hover(
        lsp, uri, position(TEXT, "len", 1)
    )
