"""Issue 15's wrong results, each through a real client (pytest-lsp over stdio)."""

from __future__ import annotations

from pathlib import Path

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient

from .helpers import (
    announce,
    apply_edits,
    codes,
    diagnostics,
    document,
    edit,
    open_document,
    position,
    write,
)

pytestmark = pytest.mark.asyncio


async def test_reopening_at_the_same_version_is_not_stale(
    lsp: LanguageClient, tmp_path: Path
) -> None:
    path = tmp_path / "main.k"
    uri = open_document(lsp, path, "a = undefined_name\n")
    await diagnostics(lsp, uri, lambda found: "E2L23" in codes(found))
    lsp.text_document_did_close(types.DidCloseTextDocumentParams(document(uri)))
    await diagnostics(lsp, uri, lambda found: not found)
    open_document(lsp, path, "a = 1\n", version=1)  # same version, other text
    await diagnostics(lsp, uri, lambda found: not found)
    hover = await lsp.text_document_hover_async(
        types.HoverParams(document(uri), types.Position(0, 0))
    )
    assert hover is not None and "int" in str(hover.contents)


@pytest.mark.parametrize("separator", ["\u2028", "\u0085", "\x0c", "\r"])
async def test_lines_follow_the_protocol(
    lsp: LanguageClient, tmp_path: Path, separator: str
) -> None:
    """Only \\n, \\r\\n and \\r end lines; an edit after such a line lands where the
    client meant it."""
    text = f"# a{separator}b\nx = 1\n"
    uri = open_document(lsp, tmp_path / "main.k", text)
    await diagnostics(lsp, uri)
    # the client's line of ``x = 1``: 2 after a lone \r, else 1
    line = 2 if separator == "\r" else 1
    where = types.Range(types.Position(line, 4), types.Position(line, 5))
    edit(lsp, uri, 2, where, "undefined_name")
    found = await diagnostics(lsp, uri, lambda found: "E2L23" in codes(found))
    [error] = [d for d in found if d.code == "E2L23"]
    assert error.range.start == types.Position(line, 4)
    assert error.range.end == types.Position(line, 4 + len("undefined_name"))


async def test_completion_after_astral_characters(lsp: LanguageClient, tmp_path: Path) -> None:
    text = 'schema P:\n    name: str\n\np = P {name = "😀😀"}\ns = "😀😀😀".\n'
    uri = open_document(lsp, tmp_path / "main.k", text)
    await diagnostics(lsp, uri)
    line = text.split("\n")[4]
    end = types.Position(4, len(line.encode("utf-16-le")) // 2)
    result = await lsp.text_document_completion_async(types.CompletionParams(document(uri), end))
    assert isinstance(result, types.CompletionList)
    assert {"upper", "lower", "split"} <= {item.label for item in result.items}
    past = types.Position(3, 200)  # past the end of the line: clamped, not a crash
    assert await lsp.text_document_completion_async(types.CompletionParams(document(uri), past))


MODELS = 'schema Base:\n    """The base."""\n    name: str\n'


def _project(tmp_path: Path) -> tuple[Path, Path, str]:
    base = write(tmp_path / "models" / "base.k", MODELS)
    main_text = (
        'import models as mb\n\nitem = mb.Base {name = "x"}\nother = mb.Base {name = item.name}\n'
    )
    main = write(tmp_path / "main.k", main_text)
    write(tmp_path / "kcl.mod", '[package]\nname = "demo"\n')
    return base, main, main_text


async def test_rename_of_an_import_alias_keeps_the_path(
    lsp: LanguageClient, tmp_path: Path
) -> None:
    _, main, text = _project(tmp_path)
    uri = open_document(lsp, main, text)
    await diagnostics(lsp, uri)
    result = await lsp.text_document_rename_async(
        types.RenameParams(document(uri), position(text, "mb.Base"), "models2")
    )
    assert result is not None and result.changes is not None
    renamed = apply_edits(text, result.changes[uri])
    assert renamed.startswith("import models as models2\n")
    assert renamed.count("models2.Base") == 2


async def test_rename_refuses_keywords_and_invalid_names(
    lsp: LanguageClient, tmp_path: Path
) -> None:
    text = "alpha = 1\nbeta = alpha + 1\n"
    uri = open_document(lsp, tmp_path / "main.k", text)
    await diagnostics(lsp, uri)
    for name in ("schema", "import", "1abc", "a-b"):
        with pytest.raises(Exception, match="not a valid KCL name"):
            await lsp.text_document_rename_async(
                types.RenameParams(document(uri), types.Position(0, 0), name)
            )
    prepared = await lsp.text_document_prepare_rename_async(
        types.PrepareRenameParams(document(uri), types.Position(1, 8))
    )
    assert isinstance(prepared, types.PrepareRenamePlaceholder)
    assert prepared.placeholder == "alpha"
    assert prepared.range == types.Range(types.Position(1, 7), types.Position(1, 12))
    nothing = await lsp.text_document_prepare_rename_async(
        types.PrepareRenameParams(document(uri), types.Position(1, 5))  # on '='
    )
    assert nothing is None


async def test_rename_from_the_defining_file_reaches_importers(
    lsp: LanguageClient, tmp_path: Path
) -> None:
    base, main, text = _project(tmp_path)
    announce(lsp, base, main)
    uri = open_document(lsp, base, MODELS)  # the importer main.k is not open
    await diagnostics(lsp, uri)
    await diagnostics(lsp, main.as_uri())  # its background analysis is done

    result = await lsp.text_document_rename_async(
        types.RenameParams(document(uri), position(MODELS, "Base"), "Root")
    )
    assert result is not None and result.changes is not None
    assert apply_edits(MODELS, result.changes[uri]).startswith("schema Root:")
    renamed = apply_edits(text, result.changes[main.as_uri()])
    assert renamed.count("mb.Root {") == 2 and "Base" not in renamed


async def test_references_to_a_key_part_cover_only_the_name(
    lsp: LanguageClient, tmp_path: Path
) -> None:
    text = (
        "schema Meta:\n    name: str\n\nschema App:\n    metadata: Meta\n\n"
        'app = App {metadata.name = "a"}\n'
    )
    uri = open_document(lsp, tmp_path / "main.k", text)
    await diagnostics(lsp, uri)
    found = await lsp.text_document_references_async(
        types.ReferenceParams(
            text_document=document(uri),
            position=position(text, "name: str"),
            context=types.ReferenceContext(include_declaration=True),
        )
    )
    assert found is not None
    ranges = {
        (place.range.start.line, place.range.start.character, place.range.end.character)
        for place in found
    }
    assert (6, len("app = App {metadata."), len("app = App {metadata.name")) in ranges
    assert (1, 4, 8) in ranges


async def test_definition_into_an_unopened_file_has_an_encoded_uri(
    lsp: LanguageClient, tmp_path: Path
) -> None:
    folder = tmp_path / "my models 模型"
    write(folder / "base.k", MODELS)
    text = 'import .base\n\nitem = base.Base {name = "x"}\n'
    main = write(folder / "main.k", text)
    uri = open_document(lsp, main, text)
    await diagnostics(lsp, uri)
    found = await lsp.text_document_definition_async(
        types.DefinitionParams(document(uri), position(text, "Base {"))
    )
    assert isinstance(found, types.Location)
    assert found.uri == (folder / "base.k").as_uri()
    assert "%20" in found.uri and " " not in found.uri
    assert found.range.start == types.Position(0, 7)


async def test_formatting_a_very_long_expression(lsp: LanguageClient, tmp_path: Path) -> None:
    text = "x = " + " + ".join(["1"] * 3000) + "\n"
    uri = open_document(lsp, tmp_path / "main.k", text)
    edits = await lsp.text_document_formatting_async(
        types.DocumentFormattingParams(document(uri), types.FormattingOptions(4, True))
    )
    assert edits is None or isinstance(edits, list)  # an answer, not an error
    hover = await lsp.text_document_hover_async(
        types.HoverParams(document(uri), types.Position(0, 0))
    )
    assert hover is None or hover.contents
