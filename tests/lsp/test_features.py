"""Issue 15's missing features through a real client: range formatting, semantic
tokens, inlay hints, signature help, workspace symbols, completion of keywords,
import paths, string methods, list items and dict keys, hover on system-module
functions and string methods."""

from __future__ import annotations

from pathlib import Path

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient

from .helpers import apply_edits, diagnostics, document, open_document, position, write

pytestmark = pytest.mark.asyncio

SOURCE = '''import math

schema Person:
    """A person."""
    name: str
    age: int = 1

people = [Person {name = "a"}]
ports = {http = 80, https = 443}
add = lambda x: int, y: int -> int {
    x + y
}
total = add(1, 2)
first = Person("unused") {name = "b"}
'''


async def _opened(lsp: LanguageClient, path: Path, text: str) -> str:
    uri = open_document(lsp, write(path, text), text)
    await diagnostics(lsp, uri)
    return uri


async def _labels(lsp: LanguageClient, uri: str, where: types.Position) -> set[str]:
    result = await lsp.text_document_completion_async(types.CompletionParams(document(uri), where))
    assert isinstance(result, types.CompletionList)
    return {item.label for item in result.items}


async def test_completion_of_members_keywords_and_imports(
    lsp: LanguageClient, tmp_path: Path
) -> None:
    write(tmp_path / "kcl.mod", '[package]\nname = "demo"\n')
    write(tmp_path / "models" / "web" / "app.k", "schema App:\n    name: str\n")
    text = SOURCE + 'a = people[0].\nb = ports.\nc = "abc".\nd = first.name.\nimport mo\n'
    uri = await _opened(lsp, tmp_path / "main.k", text)
    end = {line: types.Position(number, len(line)) for number, line in enumerate(text.split("\n"))}
    assert await _labels(lsp, uri, end["a = people[0]."]) == {"name", "age"}
    assert await _labels(lsp, uri, end["b = ports."]) == {"http", "https"}
    assert {"upper", "startswith", "format"} <= await _labels(lsp, uri, end['c = "abc".'])
    assert {"lower", "replace"} <= await _labels(lsp, uri, end["d = first.name."])
    imports = await _labels(lsp, uri, end["import mo"])
    assert {"math", "yaml", "models.web"} <= imports
    top = await _labels(lsp, uri, types.Position(len(SOURCE.split("\n")) - 1, 0))
    assert {"schema", "lambda", "import", "Person", "people", "len", "math"} <= top


async def test_hover_on_system_functions_and_string_methods(
    lsp: LanguageClient, tmp_path: Path
) -> None:
    text = SOURCE + 'r = math.sqrt(4)\ns = "x".upper()\n'
    uri = await _opened(lsp, tmp_path / "main.k", text)
    sqrt = await lsp.text_document_hover_async(
        types.HoverParams(document(uri), position(text, "sqrt", 1))
    )
    assert sqrt is not None and "math.sqrt" in str(sqrt.contents)
    upper = await lsp.text_document_hover_async(
        types.HoverParams(document(uri), position(text, "upper", 1))
    )
    assert upper is not None and "str.upper" in str(upper.contents)
    person = await lsp.text_document_hover_async(
        types.HoverParams(document(uri), position(text, "Person {"))
    )
    assert person is not None and isinstance(person.contents, types.MarkupContent)
    assert "schema Person:\n    name: str\n    age: int" in person.contents.value
    assert "A person." in person.contents.value


async def test_signature_help(lsp: LanguageClient, tmp_path: Path) -> None:
    text = SOURCE + "u = add(1, \nv = math.pow(\nw = Person(\n"
    uri = await _opened(lsp, tmp_path / "main.k", text)
    lines = text.split("\n")

    async def help_at(line: str) -> types.SignatureHelp | None:
        where = types.Position(lines.index(line), len(line))
        return await lsp.text_document_signature_help_async(
            types.SignatureHelpParams(document(uri), where)
        )

    found = await help_at("u = add(1, ")
    assert found is not None and found.active_parameter == 1
    assert "x: int" in found.signatures[0].label and "y: int" in found.signatures[0].label
    power = await help_at("v = math.pow(")
    assert power is not None and power.active_parameter == 0


async def test_inlay_hints(lsp: LanguageClient, tmp_path: Path) -> None:
    uri = await _opened(lsp, tmp_path / "main.k", SOURCE)
    hints = await lsp.text_document_inlay_hint_async(
        types.InlayHintParams(
            document(uri), types.Range(types.Position(0, 0), types.Position(100, 0))
        )
    )
    assert hints is not None
    labels = {(hint.position.line, str(hint.label)) for hint in hints}
    assert (SOURCE.split("\n").index("total = add(1, 2)"), ": int") in labels
    assert (SOURCE.split("\n").index("total = add(1, 2)"), "x:") in labels
    assert any(label == ": [Person]" for _, label in labels)


async def test_semantic_tokens(lsp: LanguageClient, tmp_path: Path) -> None:
    uri = await _opened(lsp, tmp_path / "main.k", SOURCE)
    result = await lsp.text_document_semantic_tokens_full_async(
        types.SemanticTokensParams(document(uri))
    )
    assert result is not None and len(result.data) % 5 == 0 and result.data
    legend = ["namespace", "struct", "property", "function", "parameter", "variable", "type"]
    lines = SOURCE.split("\n")
    line = column = 0
    tokens = set()
    data = result.data
    for index in range(0, len(data), 5):
        line += data[index]
        column = data[index + 1] if data[index] else column + data[index + 1]
        text = lines[line][column : column + data[index + 2]]
        tokens.add((text, legend[data[index + 3]]))
    assert {("Person", "struct"), ("name", "property"), ("math", "namespace")} <= tokens
    assert ("add", "function") in tokens


async def test_range_formatting_and_workspace_symbols(lsp: LanguageClient, tmp_path: Path) -> None:
    text = "a=1\nb=2\nc=3\n"
    uri = await _opened(lsp, tmp_path / "main.k", text)
    edits = await lsp.text_document_range_formatting_async(
        types.DocumentRangeFormattingParams(
            document(uri),
            types.Range(types.Position(1, 0), types.Position(1, 3)),
            types.FormattingOptions(4, True),
        )
    )
    assert edits is not None
    assert apply_edits(text, edits) == "a=1\nb = 2\nc=3\n"
    symbols = await lsp.workspace_symbol_async(types.WorkspaceSymbolParams(query="B"))
    assert symbols is not None and [s.name for s in symbols] == ["b"]


async def test_completion_of_the_values_an_attribute_accepts(
    lsp: LanguageClient, tmp_path: Path
) -> None:
    text = (
        'schema Port:\n    protocol: "TCP" | "UDP" = "TCP"\n\nschema Service:\n'
        "    port: Port\n\ns = Service {\n    port = \n}\np = Port {\n    protocol = \n}\n"
    )
    uri = await _opened(lsp, tmp_path / "main.k", text)
    lines = text.split("\n")
    service = types.Position(lines.index("    port = "), len("    port = "))
    assert await _labels(lsp, uri, service) == {"Port{}"}
    port = types.Position(lines.index("    protocol = "), len("    protocol = "))
    assert await _labels(lsp, uri, port) == {'"TCP"', '"UDP"'}
