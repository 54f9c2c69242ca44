"""The server's answers on a real project, through a real client over stdio (issue 31):
completion by context, signature help for methods, hierarchical document symbols,
inlay hints only where they add something, rename through untyped uses and
redeclarations, one diagnostic per problem, and formatting of big files."""

from __future__ import annotations

from pathlib import Path

import pytest
from kclpy_lsp.formatting import FEW_EDITS
from kclpy_lsp.ranking import LIMIT
from lsprotocol import types
from pytest_lsp import LanguageClient

from kclpy.tools.format import format_code

from .helpers import announce, apply_edits, diagnostics, document, open_document, position, write

pytestmark = pytest.mark.asyncio

MODELS = '''schema Person:
    """A person."""
    name: str
    age: int = 1
    labels: {str:str} = {}

schema Team:
    lead: Person
    kind: "core" | "edge" = "core"

schema Admin(Person):
    name = "root"
'''
MAIN = """import math
import models

p = models.Person {
    name = "a"
    age = 2
    labels = {}

}
s = "abc".replace("a,b", )
n = math.log(8, )
# a comment about na
x = "hello na ${p.na}"
t: models.Team = {
    lead: models.Person {
        name = "b"
    }
    kind = "edge"
}
merged = p | {name = "z"}
loose = {name = "q"}
f = lambda q { q.name }
quoted = {"name": 1}
"""


async def _project(lsp: LanguageClient, root: Path, main: str = MAIN) -> str:
    write(root / "kcl.mod", '[package]\nname = "demo"\n')
    models = write(root / "models" / "m.k", MODELS)
    other = write(root / "app" / "o.k", 'import models\n\no = models.Person {name = "o"}\n')
    announce(lsp, models, other)
    uri = open_document(lsp, write(root / "main.k", main), main)
    await diagnostics(lsp, uri)
    return uri


def _text(root: Path) -> str:
    return (root / "main.k").read_text(encoding="utf-8")


async def _complete(lsp: LanguageClient, uri: str, where: types.Position) -> types.CompletionList:
    found = await lsp.text_document_completion_async(
        types.CompletionParams(
            document(uri),
            where,
            types.CompletionContext(types.CompletionTriggerKind.Invoked),
        )
    )
    assert isinstance(found, types.CompletionList)
    return found


async def test_completion_is_silent_in_strings_and_comments(
    lsp: LanguageClient, tmp_path: Path
) -> None:
    uri = await _project(lsp, tmp_path)
    text = _text(tmp_path)
    for needle in ("about na", "hello na", '"a,b'):
        found = await _complete(lsp, uri, position(text, needle, len(needle)))
        assert not found.items, needle
    inside = await _complete(lsp, uri, position(text, "${p.na", len("${p.na")))
    assert {item.label for item in inside.items} == {"name"}  # an interpolation is code


async def test_a_block_with_every_attribute_set_offers_them_ranked_not_the_scope(
    lsp: LanguageClient, tmp_path: Path
) -> None:
    uri = await _project(lsp, tmp_path)
    text = _text(tmp_path)
    found = await _complete(lsp, uri, position(text, "labels = {}\n\n", len("labels = {}\n")))
    assert {item.label for item in found.items} == {"name", "age", "labels"}
    partial = MAIN.replace("    age = 2\n    labels = {}\n", "")
    uri = await _project(lsp, tmp_path / "partial", partial)
    text = _text(tmp_path / "partial")
    found = await _complete(lsp, uri, position(text, 'name = "a"\n', len('name = "a"\n')))
    order = [item.label for item in sorted(found.items, key=lambda item: item.sort_text or "")]
    assert order == ["age", "labels", "name"]  # unset first, the one already set last


async def test_completion_lists_are_bounded_and_filtered_by_the_typed_word(
    lsp: LanguageClient, tmp_path: Path
) -> None:
    names = "".join(f"value{index} = {index}\n" for index in range(LIMIT + 50))
    text = names + "pick = va\nother = zq\n"
    uri = open_document(lsp, write(tmp_path / "main.k", text), text)
    await diagnostics(lsp, uri)
    many = await _complete(lsp, uri, position(text, "= va", 4))
    assert len(many.items) == LIMIT and many.is_incomplete
    assert all(item.label.startswith("va") for item in many.items)
    few = await _complete(lsp, uri, position(text, "= zq", 4))
    assert not few.is_incomplete and len(few.items) < 20


async def _signature(lsp: LanguageClient, uri: str, where: types.Position) -> types.SignatureHelp:
    found = await lsp.text_document_signature_help_async(
        types.SignatureHelpParams(document(uri), where)
    )
    assert found is not None
    return found


async def test_signature_help_for_string_methods_and_system_module_functions(
    lsp: LanguageClient, tmp_path: Path
) -> None:
    uri = await _project(lsp, tmp_path)
    text = _text(tmp_path)
    method = await _signature(lsp, uri, position(text, '"a,b", ', len('"a,b", ')))
    assert method.signatures[0].label == "str.replace(old: str, new: str, count?: int) -> str"
    assert method.active_parameter == 1  # the comma inside the string does not count
    assert method.signatures[0].documentation
    function = await _signature(lsp, uri, position(text, "log(8, ", len("log(8, ")))
    assert function.signatures[0].label.startswith("math.log(x: int | float, e?: float)")
    assert function.active_parameter == 1


async def test_document_symbols_are_a_tree(lsp: LanguageClient, tmp_path: Path) -> None:
    await _project(lsp, tmp_path)
    models = (tmp_path / "models" / "m.k").as_uri()
    symbols = await lsp.text_document_document_symbol_async(
        types.DocumentSymbolParams(document(models))
    )
    assert symbols is not None
    tree = {s.name: s for s in symbols if isinstance(s, types.DocumentSymbol)}
    person = tree["Person"]
    assert [child.name for child in person.children or []] == ["name", "age", "labels"]
    assert (person.range.start.line, person.range.end.line) == (0, 4)
    main = await lsp.text_document_document_symbol_async(
        types.DocumentSymbolParams(document((tmp_path / "main.k").as_uri()))
    )
    assert main is not None
    top = {s.name: s for s in main if isinstance(s, types.DocumentSymbol)}
    team = top["t"]
    assert [child.name for child in team.children or []] == ["lead", "kind"]
    lead = (team.children or [])[0]
    assert [child.name for child in lead.children or []] == ["name"]
    assert team.range.end.line - team.range.start.line == 5


async def test_inlay_hints_do_not_repeat_what_the_value_spells(
    lsp: LanguageClient, tmp_path: Path
) -> None:
    uri = await _project(lsp, tmp_path)
    text = _text(tmp_path)
    hints = await lsp.text_document_inlay_hint_async(
        types.InlayHintParams(
            document(uri), types.Range(types.Position(0, 0), types.Position(40, 0))
        )
    )
    assert hints is not None
    shown = {(hint.position.line, str(hint.label)) for hint in hints}
    line = {
        name: position(text, f"\n{name}", 1).line for name in ("p = ", "    lead:", "s = ", "x = ")
    }
    line["kind ="] = position(text, "kind =").line
    assert not any(at == line["p = "] for at, _label in shown)  # p = models.Person {
    assert not any(at == line["    lead:"] for at, _label in shown)  # lead: models.Person {
    assert not any(at == line["x = "] for at, _label in shown)  # a string literal
    assert (line["kind ="], ': "core" | "edge"') in shown  # a literal union adds something
    assert (line["s = "], ": str") in shown  # the result of a call


async def test_rename_of_an_attribute_reaches_untyped_uses_and_redeclarations(
    lsp: LanguageClient, tmp_path: Path
) -> None:
    uri = await _project(lsp, tmp_path)
    text = _text(tmp_path)
    other = (tmp_path / "app" / "o.k").as_uri()
    for _attempt in range(100):  # the other folder is analysed in the background
        edit = await lsp.text_document_rename_async(
            types.RenameParams(document(uri), position(text, 'name = "a"'), "title")
        )
        assert edit is not None and edit.changes is not None
        if other in edit.changes:
            break
        await diagnostics(lsp, other)
    changes = edit.changes
    renamed = apply_edits(text, changes[uri])
    assert 'p | {title = "z"}' in renamed and '{title = "q"}' in renamed
    assert "q.title" in renamed and 'title = "b"' in renamed
    assert '{"name": 1}' in renamed  # a quoted key is no use of the attribute
    models = apply_edits(MODELS, changes[(tmp_path / "models" / "m.k").as_uri()])
    assert "    title: str" in models and '    title = "root"' in models
    assert "labels: {str:str}" in models
    assert 'o = models.Person {title = "o"}' in apply_edits(
        (tmp_path / "app" / "o.k").read_text(encoding="utf-8"), changes[other]
    )


async def test_one_diagnostic_per_problem(lsp: LanguageClient, tmp_path: Path) -> None:
    text = "import nothere\n\na: int = nothere.x\n"
    uri = open_document(lsp, write(tmp_path / "main.k", text), text)
    found = await diagnostics(lsp, uri, lambda found: any(d.code == "E2F04" for d in found))
    places = [
        (d.range.start.line, d.range.start.character, d.range.end.line, d.code) for d in found
    ]
    assert len(places) == len(set(places)), places
    assert sum(1 for d in found if d.code == "E2F04") == 1


def _big(units: int) -> str:
    head = "schema S:\n    name: str\n    ports: [int] = []\n\n"
    body = "".join(
        f'a{index}=S{{\n    name="a{index}"\n    ports=[80,443]\n}}\n' for index in range(units)
    )
    return head + body


async def test_formatting_a_big_file_gives_kcl_fmt_text_in_one_edit(
    lsp: LanguageClient, tmp_path: Path
) -> None:
    text = _big(FEW_EDITS)
    uri = open_document(lsp, write(tmp_path / "big.k", text), text)
    edits = await lsp.text_document_formatting_async(
        types.DocumentFormattingParams(document(uri), types.FormattingOptions(4, True))
    )
    assert edits is not None and len(edits) == 1
    assert apply_edits(text, edits) == format_code(text)


async def test_formatting_a_few_lines_gives_one_edit_a_line(
    lsp: LanguageClient, tmp_path: Path
) -> None:
    text = format_code(_big(200))
    broken = text.replace('    name = "a7"\n', '    name="a7"\n').replace("a150 = S", "a150=S")
    uri = open_document(lsp, write(tmp_path / "small.k", broken), broken)
    edits = await lsp.text_document_formatting_async(
        types.DocumentFormattingParams(document(uri), types.FormattingOptions(4, True))
    )
    assert edits is not None
    assert [(edit.range.start.line, edit.range.end.line) for edit in edits] == [
        (position(broken, 'name="a7"').line, position(broken, 'name="a7"').line + 1),
        (position(broken, "a150=S").line, position(broken, "a150=S").line + 1),
    ]
    assert apply_edits(broken, edits) == text


async def test_the_collectors_pauses_are_answered(lsp: LanguageClient, tmp_path: Path) -> None:
    """``kclpy/collectorPauses`` (what lsp_bench reports): the collections the server
    made, the longest and the total pause; a formatting request adds none."""
    text = _big(FEW_EDITS)
    uri = open_document(lsp, write(tmp_path / "big.k", text), text)
    await diagnostics(lsp, uri)
    before = await lsp.protocol.send_request_async("kclpy/collectorPauses", None)
    edits = await lsp.text_document_formatting_async(
        types.DocumentFormattingParams(document(uri), types.FormattingOptions(4, True))
    )
    after = await lsp.protocol.send_request_async("kclpy/collectorPauses", None)
    assert edits
    figures = {name: getattr(after, name) for name in ("collections", "longest_s", "total_s")}
    assert figures["longest_s"] <= figures["total_s"]
    assert after.collections >= before.collections
