"""A stack's ``-O`` overrides in the editor (``kclpy_lsp.runsettings``): applied to
copies of the main package's trees, each with node ids of its own (the checker's
tables are keyed by node id) and lists of its own (the parse query's trees, shared
with every other program, never change), the copies' imports resolved as the
originals'. Real components: the query database's loader and checker."""

from __future__ import annotations

from pathlib import Path

from kclpy_lsp.programs import Unit
from kclpy_lsp.runsettings import apply_settings

from kclpy.loader import MAIN
from kclpy.pipeline.inputs import Settings
from kclpy.pipeline.queries import Database
from kclpy.syntax import ast
from kclpy.syntax.walk import walk

MAIN_TEXT = "import pkg\n\ncfg = {}\nport = pkg.port\n"


def _config_entries(module: ast.Module) -> list[list[ast.ConfigEntry]]:
    return [node.entries for node in walk(module) if isinstance(node, ast.ConfigExpr)]


def test_overrides_rewrite_copies_with_ids_and_lists_of_their_own(tmp_path: Path) -> None:
    (tmp_path / "kcl.mod").write_text('[package]\nname = "app"\nversion = "0.0.1"\n')
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "a.k").write_text("port = 80\n")
    main = tmp_path / "main.k"
    main.write_text(MAIN_TEXT)
    database = Database(Settings(scopes=True, shared=True))
    unit = Unit(str(tmp_path), (str(main),), overrides=('cfg.name="web"',))
    program, _ = database.program(list(unit.inputs), unit.folder)
    [original] = program.packages[MAIN]
    assert apply_settings(program, unit) == {}
    [copied] = program.packages[MAIN]
    assert copied is not original
    assert not {n.id for n in walk(copied)} & {n.id for n in walk(original)}
    assert [len(entries) for entries in _config_entries(copied)] == [1]
    assert [len(entries) for entries in _config_entries(original)] == [0]
    assert program.imports_of(copied) == program.imports_of(original) == {"pkg": "pkg"}
    model = database.checked_program(program)
    assert not model.diagnostics, model.diagnostics
    assert model.modules[str(main)] is copied
    again, _ = database.program(list(unit.inputs), unit.folder)
    assert again.packages[MAIN] == [original]  # (the parse query's tree, unchanged)
