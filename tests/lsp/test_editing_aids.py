"""The editing aids kcl-language-server users expect, through a real client over stdio:
attribute-line and docstring snippets after a newline, schemas of packages not yet
imported (with the import), quick fixes for misspellings, config-key type hints,
hover on decorators."""

from __future__ import annotations

from pathlib import Path

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient

from .helpers import (
    announce,
    apply_edits,
    change,
    diagnostics,
    document,
    open_document,
    position,
    write,
)

pytestmark = pytest.mark.asyncio

MODELS = '''schema Name:
    first: str
    tags: [str] = []

schema Person:
    """A person.

    Attributes
    ----------
    name : Name, required
        The person's name.
    """
    name: Name
    age: int
    kind: "a" | "b" = "a"
    labels?: {str:str}
    nick?: str
    admin?: bool
'''


async def _opened(lsp: LanguageClient, path: Path, text: str) -> str:
    uri = open_document(lsp, write(path, text), text)
    await diagnostics(lsp, uri)
    return uri


async def _complete(
    lsp: LanguageClient, uri: str, where: types.Position, trigger: str | None = None
) -> dict[str, types.CompletionItem]:
    context = (
        types.CompletionContext(types.CompletionTriggerKind.TriggerCharacter, trigger)
        if trigger
        else types.CompletionContext(types.CompletionTriggerKind.Invoked)
    )
    result = await lsp.text_document_completion_async(
        types.CompletionParams(document(uri), where, context=context)
    )
    assert isinstance(result, types.CompletionList)
    return {item.label: item for item in result.items}


def _line_end(text: str, line: str, occurrence: int = 0) -> types.Position:
    lines = text.split("\n")
    number = [index for index, found in enumerate(lines) if found == line][occurrence]
    return types.Position(number, len(line))


async def test_a_new_line_in_a_config_block_offers_the_attributes_not_yet_set(
    lsp: LanguageClient, tmp_path: Path
) -> None:
    text = MODELS + (
        "\np = Person {\n    age = 1\n    \n    nick = 'n'\n}\n"
        "q = Person {\n    name: {\n        \n    }\n}\n"
        "people: [Person] = [{\n    \n}]\n"
    )
    uri = await _opened(lsp, tmp_path / "main.k", text)
    blank = "    "
    person = await _complete(lsp, uri, _line_end(text, blank, 0), "\n")
    assert set(person) == {"name", "kind", "labels", "admin", "age", "nick"}
    ranked = sorted(person, key=lambda label: person[label].sort_text or "")
    assert set(ranked[-2:]) == {"age", "nick"}  # set already: offered after the others
    inserted = {label: item.insert_text for label, item in person.items() if label in ranked[:4]}
    assert inserted == {
        "name": "name = {$1}",
        "kind": 'kind = ${1|"a","b"|}',
        "labels": "labels = {$1}",
        "admin": "admin = ${1|True,False|}",
    }
    assert all(
        item.insert_text_format == types.InsertTextFormat.Snippet for item in person.values()
    )
    assert sorted(person, key=lambda label: person[label].sort_text or "")[0] == "name"
    assert person["name"].documentation == "The person's name."
    nested = await _complete(lsp, uri, _line_end(text, "        "))
    assert {label: item.insert_text for label, item in nested.items()} == {
        "first": 'first = "$1"',
        "tags": "tags = [$1]",
    }
    top = types.Position(text.split("\n").index("q = Person {"), 0)
    assert await _complete(lsp, uri, top, "\n") == {}  # Enter elsewhere: nothing pops up
    assert "Person" in await _complete(lsp, uri, top)
    item = await _complete(lsp, uri, _line_end(text, blank, 1), "\n")
    assert set(item) == {"name", "age", "kind", "labels", "nick", "admin"}
    typed = text.replace("    age = 1\n    \n", "    age = 1\n    ni\n")
    change(lsp, uri, 2, typed)
    partial = await _complete(lsp, uri, _line_end(typed, "    ni"))
    assert set(partial) == {"nick"}  # the word typed filters; "ni" itself is no key set
    assert partial["nick"].filter_text == "nick"


async def test_docstring_snippets_in_a_schema_body(lsp: LanguageClient, tmp_path: Path) -> None:
    text = (
        '@info(owner="me")\nschema Server:\n    \n    name: str\n    replicas?: int = 1\n\n'
        'schema Client:\n    """\n    \n    """\n    url: str\n\n'
        'schema Documented:\n    \n    """Done."""\n    x: int\n'
    )
    uri = await _opened(lsp, tmp_path / "main.k", text)
    first = await _complete(lsp, uri, types.Position(2, 4), "\n")
    [item] = first.values()
    assert item.kind == types.CompletionItemKind.Snippet
    assert item.insert_text == (
        '"""${1:Summary}\n\nAttributes\n----------\nname : str, required\n    ${2:description}\n'
        'replicas : int, default is 1, optional\n    ${3:description}\n"""'
    )
    inside = await _complete(lsp, uri, types.Position(8, 4), "\n")
    [item] = inside.values()
    assert item.insert_text is not None and item.insert_text.startswith("${1:Summary}\n")
    assert "url : str, required" in item.insert_text
    for where in (types.Position(4, len("    replicas?: int = 1")), types.Position(13, 4)):
        labels = await _complete(lsp, uri, where)
        assert "docstring" not in labels and '"""docstring"""' not in labels


async def test_schemas_of_packages_not_yet_imported(lsp: LanguageClient, tmp_path: Path) -> None:
    write(
        tmp_path / "kcl.mod", '[package]\nname = "app"\n\n[dependencies]\nlib = { path = "lib" }\n'
    )
    write(tmp_path / "lib" / "kcl.mod", '[package]\nname = "lib"\n')
    write(tmp_path / "lib" / "net" / "service.k", "schema Service:\n    port: int\n")
    models = write(tmp_path / "models" / "web" / "app.k", 'schema App:\n    """An app."""\n')
    announce(lsp, models)
    text = '"""The main program."""\nimport math\n\nx = math.log(1)\ny = \n'
    uri = await _opened(lsp, tmp_path / "main.k", text)
    found: dict[str, types.CompletionItem] = {}
    for _attempt in range(100):  # the models package is analysed in the background
        found = await _complete(lsp, uri, _line_end(text, "y = "))
        if "App" in found:
            break
        await diagnostics(lsp, models.as_uri())
    app, service = found["App"], found["Service"]
    assert app.insert_text == "web.App" and app.documentation == "An app."
    assert app.additional_text_edits is not None
    assert apply_edits(text, app.additional_text_edits).startswith(
        '"""The main program."""\nimport math\nimport models.web\n\n'
    )
    assert service.insert_text == "net.Service"
    assert service.label_details is not None
    assert service.label_details.description == "import lib.net"
    imported = text.replace("import math\n", "import math\nimport models.web\n")
    change(lsp, uri, 2, imported)
    await diagnostics(lsp, uri, lambda found: any("web" in d.message for d in found))
    assert "App" not in await _complete(lsp, uri, _line_end(imported, "y = "))


async def _fixes(lsp: LanguageClient, uri: str, line: int) -> list[types.CodeAction]:
    actions = await lsp.text_document_code_action_async(
        types.CodeActionParams(
            document(uri),
            types.Range(types.Position(line, 0), types.Position(line, 1)),
            types.CodeActionContext(diagnostics=[]),
        )
    )
    assert actions is not None
    return [action for action in actions if isinstance(action, types.CodeAction)]


async def test_quick_fixes_replace_a_misspelling_with_a_close_name(
    lsp: LanguageClient, tmp_path: Path
) -> None:
    write(tmp_path / "models" / "base.k", "schema Base:\n    enabled: bool = True\n")
    text = (
        "import math\nimport models\n\nschema App:\n    replicas: int\n\n"
        "app = App {\n    replica: 1\n}\ncount = 1\nx = cont\ny = app.replica\n"
        "z = math.sqr(4)\nb = models.Bsae {}\n"
    )
    uri = await _opened(lsp, tmp_path / "main.k", text)
    lines = text.split("\n")
    cases = [
        ("    replica: 1", "Change 'replica' to 'replicas'", "    replicas: 1"),
        ("x = cont", "Change 'cont' to 'count'", "x = count"),
        ("y = app.replica", "Change 'replica' to 'replicas'", "y = app.replicas"),
        ("z = math.sqr(4)", "Change 'sqr' to 'sqrt'", "z = math.sqrt(4)"),
        ("b = models.Bsae {}", "Change 'Bsae' to 'Base'", "b = models.Base {}"),
    ]
    for line, title, fixed in cases:
        number = lines.index(line)
        actions = await _fixes(lsp, uri, number)
        assert actions, line
        first = actions[0]
        assert first.title == title and first.is_preferred and first.diagnostics
        assert first.edit is not None and first.edit.changes is not None
        assert apply_edits(text, first.edit.changes[uri]).split("\n")[number] == fixed


async def test_quick_fix_removes_an_unused_import_the_linter_reports(
    lsp: LanguageClient, tmp_path: Path
) -> None:
    text = "import math\nimport regex\n\nx = regex.match('a', 'a')\n"
    uri = await _opened(lsp, tmp_path / "main.k", text)
    [action] = await _fixes(lsp, uri, 0)  # answered from the analysis of this text
    assert action.title == "Remove: Module 'math' imported but unused"
    assert [str(d.code) for d in action.diagnostics or []] == ["W0411"]
    assert action.edit is not None and action.edit.changes is not None
    assert (
        apply_edits(text, action.edit.changes[uri]) == "import regex\n\nx = regex.match('a', 'a')\n"
    )


async def test_inlay_hints_show_the_types_of_config_keys(
    lsp: LanguageClient, tmp_path: Path
) -> None:
    text = (
        'schema Name:\n    name: str\n\nschema App:\n    a: int\n    b: 1 | 2\n    d: "A" | "B"\n'
        "    n: Name\n\n"
        'app = App {\n    a: 1\n    b: 1\n    d: "A"\n    n.name = ""\n}\n'
        "other = App {a = 1, b = 2}\nplain = {a = 1}\n"
    )
    uri = await _opened(lsp, tmp_path / "main.k", text)
    hints = await lsp.text_document_inlay_hint_async(
        types.InlayHintParams(
            document(uri), types.Range(types.Position(0, 0), types.Position(100, 0))
        )
    )
    assert hints is not None
    found = {
        (hint.position.line, hint.position.character): str(hint.label)
        for hint in hints
        if hint.kind == types.InlayHintKind.Type
    }
    lines = text.split("\n")
    row = lines.index
    assert (row("    a: 1"), 5) not in found  # a literal of the declared type: nothing to add
    assert found[(row("    b: 1"), 5)] == ": 1 | 2"
    assert found[(row('    d: "A"'), 5)] == ': "A" | "B"'
    assert (row('    n.name = ""'), len("    n.name")) not in found
    other = row("other = App {a = 1, b = 2}")
    assert [key for key in found if key[0] == other] == [(other, 21)]  # not ': App', b
    assert found[(other, 21)] == ": 1 | 2"
    assert [key for key in found if key[0] == row("plain = {a = 1}")] == [
        (row("plain = {a = 1}"), 5)
    ]


async def test_hover_on_decorators(lsp: LanguageClient, tmp_path: Path) -> None:
    text = (
        '@deprecated(version="1.16", reason="use App", strict=False)\nschema Old:\n'
        '    @info(owner="me")\n    attr: str\n'
    )
    uri = await _opened(lsp, tmp_path / "main.k", text)
    deprecated = await lsp.text_document_hover_async(
        types.HoverParams(document(uri), position(text, "deprecated", 3))
    )
    assert deprecated is not None and isinstance(deprecated.contents, types.MarkupContent)
    assert (
        "(decorator) deprecated(version?: str, reason?: str, strict?: bool) -> any"
        in deprecated.contents.value
    )
    assert "deprecated" in deprecated.contents.value.split("```")[-1]
    assert deprecated.range == types.Range(types.Position(0, 0), types.Position(0, 11))
    info = await lsp.text_document_hover_async(
        types.HoverParams(document(uri), position(text, "@info"))
    )
    assert info is not None and isinstance(info.contents, types.MarkupContent)
    assert "(decorator) info(...) -> any" in info.contents.value
    argument = await lsp.text_document_hover_async(
        types.HoverParams(document(uri), position(text, "reason", 1))
    )
    assert argument is None or "(decorator)" not in str(argument.contents)
