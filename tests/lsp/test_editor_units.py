"""Unit tests of the parts behind issue 31's answers: the linear line diff, where no
code is typed (strings, comments), the ranking of completion names, one diagnostic
per problem, and the caches a closed document leaves behind."""

from __future__ import annotations

import gc
import random
from pathlib import Path

from kclpy_lsp.blocks import in_text
from kclpy_lsp.diagnostics import unique
from kclpy_lsp.documents import Documents
from kclpy_lsp.memory import Graveyard, collect_idle, release_memory
from kclpy_lsp.ranking import LIMIT, Rank, bounded, matches, typed_word
from kclpy_lsp.textdiff import edits_of, joined_edit, line_changes
from kclpy_lsp.workspace import Workspace
from lsprotocol import types

from kclpy.pipeline.inputs import Settings
from kclpy.pipeline.queries import Database
from kclpy.sema.model import Model
from kclpy.tools.lint import LintConfig, lint_program

from .helpers import apply_edits

LINES = ["}\n", "\n", "    name = 1\n", "a = S {\n", "    ports = [80]\n", "b = 2\n", "# c\n"]


def _text(chooser: random.Random, count: int) -> str:
    return "".join(chooser.choice(LINES) for _ in range(count))


def test_the_line_diff_turns_any_text_into_any_other() -> None:
    chooser = random.Random(31)
    for _round in range(300):
        before = _text(chooser, chooser.randrange(0, 60))
        lines = before.splitlines(keepends=True)
        for _edit in range(chooser.randrange(0, 8)):  # small edits of the same text
            at = chooser.randrange(0, len(lines) + 1)
            lines[at : at + chooser.randrange(0, 3)] = [chooser.choice(LINES)] * chooser.randrange(
                3
            )
        after = "".join(lines) if chooser.random() < 0.8 else _text(chooser, 40)
        changes = line_changes(before, after)
        assert apply_edits(before, edits_of(changes)) == after
        assert apply_edits(before, joined_edit(changes, before)) == after
        starts = [change.first for change in changes]
        assert starts == sorted(starts)


def test_the_line_diff_of_a_repetitive_file_is_small_and_quick() -> None:
    units = "".join(
        f"a{index} = S {{\n    name = 1\n    ports = [80]\n}}\n" for index in range(20000)
    )
    changed = units.replace("a777 = S {\n    name = 1\n", "a777 = S {\n    name = 2\n")
    changes = line_changes(units, changed)  # difflib took minutes on such files
    assert [(change.first, change.stop) for change in changes] == [(777 * 4 + 1, 777 * 4 + 2)]
    assert line_changes(units, units) == []


def test_code_is_not_typed_in_strings_and_comments() -> None:
    def inside(marked: str) -> bool:
        return in_text(marked.replace("|", ""), marked.index("|"))

    assert inside('x = "ab|c"') and inside('x = """doc\n  te|xt"""') and inside("x = 1 # co|")
    assert inside("# |") and inside("x = '|")
    assert not inside('x = "abc"|') and not inside('x = "#" + |') and not inside("x = a|")
    assert not inside('x = "${a.|}"') and not inside('x = "${a["k"]} ${b.|}"')


def test_names_match_the_typed_word_as_editors_match() -> None:
    assert (
        typed_word("x = pers") == "pers"
        and typed_word("x = a.") == ""
        and typed_word("$if") == "if"
    )
    assert (
        matches("PersonSpec", "pers") and matches("PersonSpec", "PS") and matches("my_name", "mn")
    )
    assert matches("anything", "")
    assert not matches("PersonSpec", "ers") and not matches("name", "nx")


def _item(label: str) -> types.CompletionItem:
    return types.CompletionItem(label=label)


def test_completion_lists_rank_sources_and_stop_at_the_limit() -> None:
    found = bounded(
        [
            (Rank.KEYWORD, [_item("if"), _item("import")]),
            (Rank.UNSET, [_item("image"), _item("id")]),
            (Rank.SET, [_item("ingress")]),
        ],
        "i",
    )
    ordered = sorted(found.items, key=lambda item: item.sort_text or "")
    assert [item.label for item in ordered] == ["id", "image", "ingress", "if", "import"]
    assert not found.is_incomplete
    many = bounded([(Rank.LOCAL, [_item(f"v{index}") for index in range(LIMIT + 1)])], "")
    assert len(many.items) == LIMIT and many.is_incomplete


def test_one_diagnostic_per_range_and_code() -> None:
    where = types.Range(types.Position(0, 0), types.Position(0, 14))
    other = types.Range(types.Position(1, 0), types.Position(1, 1))
    found = unique(
        [
            types.Diagnostic(where, "pkgpath nothere not found", code="E2F04"),
            types.Diagnostic(where, "Cannot find the module nothere", code="E2F04"),
            types.Diagnostic(where, "Module 'nothere' imported but unused", code="W0411"),
            types.Diagnostic(other, "no code"),
            types.Diagnostic(other, "no code"),
        ]
    )
    assert [(d.code, d.message) for d in found] == [
        ("E2F04", "pkgpath nothere not found"),
        ("W0411", "Module 'nothere' imported but unused"),
        (None, "no code"),
    ]


def test_a_closed_document_leaves_no_parse_behind(tmp_path: Path) -> None:
    documents = Documents()
    workspace = Workspace(documents, lambda path, found, version: None)
    try:
        path = str(tmp_path / "main.k")
        text = "a = 1\n" * 1000
        documents.did_open((tmp_path / "main.k").as_uri(), text, 1)
        files = workspace.database.files
        files.set_overlay(documents.overlay())
        files.parse_text(path, text)  # an open buffer: statement by statement
        assert path in files._parses and path in workspace._chunks._chunks
        documents.did_close((tmp_path / "main.k").as_uri())
        workspace.forget(path)
        assert path not in files._parses and path not in workspace._chunks._chunks
    finally:
        workspace.stop()
    release_memory()  # glibc gives free pages back; elsewhere nothing happens


def _checked(tmp_path: Path, count: int) -> Model:
    """A program of ``count`` schema configs in nested scopes, checked for an editor."""
    source = "schema S:\n    n: int = 1\n\n" + "".join(
        f"s{i} = S {{n = [x for x in [1]][0]}}\n" for i in range(count)
    )
    path = tmp_path / "main.k"
    path.write_text(source, encoding="utf-8")
    database = Database(Settings(scopes=True))  # as the language server's
    program, loader = database.program([str(path)], str(tmp_path))
    return lint_program(program, loader, LintConfig(), database)[1]


def test_a_dropped_model_is_freed_by_reference_counting(tmp_path: Path) -> None:
    """Once the graveyard unlinks a model nobody reads, dropping it leaves no cycle
    for the collector (its scopes and schema types were cycles: a full pass over every
    live object was the only way to free a replaced analysis)."""
    collecting = gc.isenabled()
    gc.disable()
    try:
        gc.collect()
        model = _checked(tmp_path, 50)
        graveyard = Graveyard()
        graveyard.bury(model)
        held = model  # a request still reading it: not unlinked
        graveyard.sweep()
        assert any(model.regions.values())  # (the editor's declarations of each region)
        del model, held
        graveyard.sweep()
        assert gc.collect() == 0
    finally:
        if collecting:
            gc.enable()


def test_idle_housekeeping_gives_way_to_waiting_work(tmp_path: Path) -> None:
    graveyard = Graveyard()
    graveyard.bury(_checked(tmp_path, 5))
    graveyard.bury(_checked(tmp_path, 5))
    assert collect_idle(graveyard, lambda: True) is False
    assert len(graveyard._models) == 1  # one unlinked, then it stopped
    collect_idle(graveyard, lambda: False)
    assert not graveyard._models


def test_the_graveyard_leaves_the_packages_other_programs_share(tmp_path: Path) -> None:
    """Two programs share the checked ``models`` (as the language server's stacks):
    unlinking one program's model leaves the shared package's declarations and schemas
    as they are while the store holds them; once it no longer does, they go too."""
    (tmp_path / "kcl.mod").write_text('[package]\nname = "shared"\n', encoding="utf-8")
    (tmp_path / "models").mkdir()
    (tmp_path / "models" / "m.k").write_text(
        "schema S:\n    n: int = [x for x in [1]][0]\n", encoding="utf-8"
    )
    database = Database(Settings(scopes=True, shared=True))
    models: list[tuple[Model, dict[str, str]]] = []
    for name in ("a", "b"):
        (tmp_path / name).mkdir()
        main = tmp_path / name / "main.k"
        main.write_text(f"import models\n\n{name} = models.S {{}}\n", encoding="utf-8")
        program, loader = database.program([str(main)], str(tmp_path / name))
        keys = database.package_keys(program)
        model = lint_program(program, loader, LintConfig(), database)[1]
        models.append((model, {"models": str(keys["models"])}))
    (first, shared), (second, _) = models
    names = second.packages_names["models"]
    assert first.packages_names["models"] is names and names["S"].symbol is not None
    schema = second.schemas["models.S"]
    graveyard = Graveyard(database.checked.holds)
    graveyard.bury(first, shared)
    del first, models
    graveyard.sweep()
    assert names["S"].symbol is not None and schema.symbol is not None
    database.checked.retain(set())  # no analysis uses it any more
    graveyard.bury(second, shared)
    del second, model  # (the loop's last)
    graveyard.sweep()
    assert schema.symbol is None  # unlinked once no store holds it
