"""The language server, end to end: a real pytest-lsp client drives
``python -m kclpy_lsp`` over stdio (with VS Code's and Neovim's capabilities)."""

from __future__ import annotations

import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities

from .helpers import open_document, write

pytestmark = pytest.mark.asyncio

SOURCE = '''import math
import regex

schema Person:
    """A person."""
    name: str
    age: int = 1

alice = Person {name = "alice"}
n = alice.age + undefined_name
'''


@pytest_lsp.fixture(
    config=ClientServerConfig(server_command=[sys.executable, "-m", "kclpy_lsp"]),
    params=["visual-studio-code", "neovim"],
)
async def client(
    lsp_client: LanguageClient, request: pytest.FixtureRequest, tmp_path: Path
) -> AsyncIterator[None]:
    @lsp_client.feature(types.CLIENT_REGISTER_CAPABILITY)
    def register(params: types.RegistrationParams) -> None:
        """Accept the server's file watchers (VS Code registers them)."""

    await lsp_client.initialize_session(
        types.InitializeParams(
            capabilities=client_capabilities(request.param), root_uri=tmp_path.as_uri()
        )
    )
    yield
    await lsp_client.shutdown_session()


async def _opened(client: LanguageClient, path: Path, text: str) -> str:
    """Open a document and wait for its first diagnostics."""
    uri = _open(client, path, text)
    await client.wait_for_notification(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    return uri


def _open(client: LanguageClient, path: Path, text: str, version: int = 1) -> str:
    return open_document(client, write(path, text), text, version)


async def test_diagnostics_hover_definition_formatting(
    client: LanguageClient, tmp_path: Path
) -> None:
    lsp, folder = client, tmp_path
    uri = _open(lsp, folder / "main.k", SOURCE)
    await lsp.wait_for_notification(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    found = {(d.code, d.range.start.line) for d in lsp.diagnostics[uri]}
    assert ("W0411", 0) in found and ("W0411", 1) in found  # unused imports
    assert ("E2L23", 9) in found  # name 'undefined_name' is not defined

    hover = await lsp.text_document_hover_async(
        types.HoverParams(types.TextDocumentIdentifier(uri), types.Position(8, 10))
    )
    assert hover is not None and "Person" in hover.contents.value
    assert "A person." in hover.contents.value

    location = await lsp.text_document_definition_async(
        types.DefinitionParams(types.TextDocumentIdentifier(uri), types.Position(8, 10))
    )
    assert location is not None and location.range.start.line == 3

    messy = "a=1\nb = {x=1}\n"
    uri2 = _open(lsp, folder / "other.k", messy)
    edits = await lsp.text_document_formatting_async(
        types.DocumentFormattingParams(
            types.TextDocumentIdentifier(uri2),
            types.FormattingOptions(tab_size=4, insert_spaces=True),
        )
    )
    assert edits is not None and len(edits) == 2  # minimal: one edit per changed line
    assert [edit.new_text for edit in edits] == ["a = 1\n", "b = {x = 1}\n"]
    assert [edit.range.start.line for edit in edits] == [0, 1]


async def test_changes_update_diagnostics(client: LanguageClient, tmp_path: Path) -> None:
    lsp, folder = client, tmp_path
    uri = _open(lsp, folder / "main.k", "a = 1\n")
    await lsp.wait_for_notification(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    assert not lsp.diagnostics[uri]
    lsp.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=2),
            content_changes=[types.TextDocumentContentChangeWholeDocument(text="a = (\n")],
        )
    )
    await lsp.wait_for_notification(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    assert "E1001" in [d.code for d in lsp.diagnostics[uri]]
    edits = await lsp.text_document_formatting_async(
        types.DocumentFormattingParams(
            types.TextDocumentIdentifier(uri),
            types.FormattingOptions(tab_size=4, insert_spaces=True),
        )
    )
    assert not edits  # a syntax error: nothing to format


async def test_completion(client: LanguageClient, tmp_path: Path) -> None:
    text = SOURCE + "bob = Person {\n    \n}\nm = math.\nx = alice.\n"
    uri = await _opened(client, tmp_path / "main.k", text)
    lines = text.splitlines()

    async def labels(line: int, column: int) -> set[str]:
        result = await client.text_document_completion_async(
            types.CompletionParams(types.TextDocumentIdentifier(uri), types.Position(line, column))
        )
        assert isinstance(result, types.CompletionList)
        return {item.label for item in result.items}

    inside = lines.index("bob = Person {") + 1
    assert await labels(inside, 4) == {"name", "age"}  # the schema's attributes
    math_line = lines.index("m = math.")
    assert {"log", "sqrt", "pow"} <= await labels(math_line, len("m = math."))
    alice_line = lines.index("x = alice.")
    assert await labels(alice_line, len("x = alice.")) == {"name", "age"}
    top = await labels(alice_line, 0)
    assert {"Person", "alice", "len", "print"} <= top


async def test_references_and_symbols(client: LanguageClient, tmp_path: Path) -> None:
    text = SOURCE + "bob = Person {name = alice.name}\n"
    uri = await _opened(client, tmp_path / "main.k", text)
    found = await client.text_document_references_async(
        types.ReferenceParams(
            text_document=types.TextDocumentIdentifier(uri),
            position=types.Position(3, 8),  # schema Person
            context=types.ReferenceContext(include_declaration=True),
        )
    )
    assert found is not None
    assert sorted(location.range.start.line for location in found) == [3, 8, 10]
    symbols = await client.text_document_document_symbol_async(
        types.DocumentSymbolParams(types.TextDocumentIdentifier(uri))
    )
    assert symbols is not None
    names = {symbol.name: symbol for symbol in symbols}
    assert {"Person", "alice", "n", "bob"} <= set(names)
    person = names["Person"]
    assert isinstance(person, types.DocumentSymbol) and person.children
    assert {child.name for child in person.children} == {"name", "age"}


async def test_rename(client: LanguageClient, tmp_path: Path) -> None:
    text = SOURCE + "bob = Person {name = alice.name}\n"
    uri = await _opened(client, tmp_path / "main.k", text)
    edit = await client.text_document_rename_async(
        types.RenameParams(
            text_document=types.TextDocumentIdentifier(uri),
            position=types.Position(8, 1),  # alice
            new_name="carol",
        )
    )
    assert edit is not None and edit.changes is not None
    lines = text.splitlines()
    for change in edit.changes[uri]:
        start, end = change.range.start, change.range.end
        assert start.line == end.line
        line = lines[start.line]
        lines[start.line] = line[: start.character] + change.new_text + line[end.character :]
    renamed = "\n".join(lines) + "\n"
    assert "carol = Person" in renamed and "carol.name" in renamed and "carol.age" in renamed
    assert "alice." not in renamed and "alice =" not in renamed and '"alice"' in renamed


async def test_quick_fix_removes_an_unused_import(client: LanguageClient, tmp_path: Path) -> None:
    text = "import math\nimport regex\n\nx = regex.match('a', 'a')\n"
    uri = await _opened(client, tmp_path / "main.k", text)
    actions = await client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri),
            range=types.Range(types.Position(0, 0), types.Position(0, 5)),
            context=types.CodeActionContext(diagnostics=[]),
        )
    )
    assert actions is not None and len(actions) == 1
    action = actions[0]
    assert isinstance(action, types.CodeAction) and action.edit is not None
    assert action.edit.changes is not None
    [change] = action.edit.changes[uri]
    assert change.range.start.line == 0 and change.new_text == ""
    lines = text.splitlines(keepends=True)
    start, end = change.range.start, change.range.end
    head = "".join(lines[: start.line]) + lines[start.line][: start.character]
    tail = (
        lines[end.line][end.character :] + "".join(lines[end.line + 1 :])
        if end.line < len(lines)
        else ""
    )
    assert (head + tail).startswith("import regex\n")
