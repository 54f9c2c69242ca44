"""A file in two packages of one program: a folder imported as a package and one of
its files imported as a module of its own (konfig imports ``models.kube.frontend``
and ``models.kube.frontend.server``). Each package owns a syntax tree of the file, so
the facts the checker keeps per node (types, bindings, completed uses) are each
package's own, and the parse query keeps both trees for the next program."""

from __future__ import annotations

from pathlib import Path

import pytest
from reference import reference_available, run_reference

from kclpy.emit import EmitOptions
from kclpy.pipeline import driver
from kclpy.pipeline.inputs import Settings
from kclpy.pipeline.queries import Database
from kclpy.sema.types import Type
from kclpy.syntax import ast
from kclpy.syntax.walk import walk

SERVER = "schema Server:\n    port: int = 80\n\nsrv: Server = {port = 8080}\nname = typeof(srv)\n"
BOTH = "import pkg\nimport pkg.server as s\n\na = typeof(pkg.srv, full_name=True)\n"
BOTH += "b = typeof(s.srv, full_name=True)\n"


def _layout(root: Path, main: str = BOTH) -> Path:
    (root / "kcl.mod").write_text('[package]\nname = "two"\nversion = "0.0.1"\n')
    (root / "pkg").mkdir()
    (root / "pkg" / "a.k").write_text("base = 1\n")
    (root / "pkg" / "server.k").write_text(SERVER)
    (root / "main.k").write_text(main)
    return root / "main.k"


def _schema_of(type_: Type | None) -> str:
    info = getattr(type_, "info", None)
    return f"{info.pkgpath}.{info.name}" if info is not None else repr(type_)


@pytest.mark.parametrize("main", [BOTH, "\n".join(reversed(BOTH.split("\n", 2)[:2])) + "\n"])
def test_each_package_checks_its_own_tree_of_the_shared_file(tmp_path: Path, main: str) -> None:
    entry = _layout(tmp_path, main)
    database = Database(Settings(scopes=True))
    program, _ = database.program([str(entry)], str(tmp_path))
    model = database.checked_program(program)
    assert not model.has_errors, model.diagnostics
    server = str(tmp_path / "pkg" / "server.k")
    trees = {
        pkgpath: module
        for pkgpath in ("pkg", "pkg.server")
        for module in program.packages[pkgpath]
        if module.file.path == server
    }
    assert trees["pkg"] is not trees["pkg.server"]
    ids = [{node.id for node in walk(tree)} for tree in trees.values()]
    assert not ids[0] & ids[1]
    for pkgpath, tree in trees.items():
        value = next(
            node for node in walk(tree) if isinstance(node, ast.ConfigExpr)
        )  # ``{port = 8080}``, walked where a Server is expected
        assert _schema_of(model.type_of(value)) == f"{pkgpath}.Server"
        uses = [
            model.symbol_of(node)
            for node in walk(tree)
            if isinstance(node, ast.NameExpr) and node.name == "srv"
        ]
        assert len(uses) == 2  # (the target and ``typeof(srv)``)
        assert {symbol.pkgpath if symbol else None for symbol in uses} == {pkgpath}


def test_the_parse_query_keeps_each_package_s_tree_for_the_next_program(tmp_path: Path) -> None:
    entry = _layout(tmp_path)
    database = Database(Settings(scopes=True, shared=True))
    first, _ = database.program([str(entry)], str(tmp_path))
    second, _ = database.program([str(entry)], str(tmp_path))
    for pkgpath in ("pkg", "pkg.server"):
        assert [id(m) for m in second.packages[pkgpath]] == [id(m) for m in first.packages[pkgpath]]
    server = [m for m in first.packages["pkg"] if m.file.path.endswith("server.k")]
    assert server[0] is not first.packages["pkg.server"][0]
    alone, _ = database.program([str(tmp_path / "pkg" / "server.k")], str(tmp_path))
    assert alone.packages["__main__"] == server  # (one package: the file's parse)


@pytest.mark.skipif(not reference_available(), reason="the reference kcl-lib is not installed")
def test_kcl_run_gives_each_package_its_own_schema(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The reference shares one tree between the two packages too, and answers
    ``pkg.server.Server`` for ``pkg.srv`` (or fails to convert the dict) when both
    are imported; each package imported alone is its answer to compare with."""
    entry = _layout(tmp_path)
    expected = ""
    for name, source in (
        ("pkg", "import pkg\n\na = typeof(pkg.srv, full_name=True)\n"),
        ("s", "import pkg.server as s\n\nb = typeof(s.srv, full_name=True)\n"),
    ):
        (tmp_path / f"{name}_only.k").write_text(source)
        found = run_reference(files=[f"{name}_only.k"], cwd=str(tmp_path))
        assert found.returncode == 0, found.stderr
        expected += found.stdout
    assert expected == "a: pkg.Server\nb: pkg.server.Server\n"
    monkeypatch.setenv("KCLPY_NO_CACHE", "1")
    inputs = driver.Inputs([str(entry)], str(tmp_path), {})
    assert driver.run(inputs, driver.RunSettings(), EmitOptions()).text == expected


def test_checked_packages_read_from_disk_link_to_their_own_trees(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A run stores each checked package (its interface refers to its own trees); the
    next run, main.k edited, reads both packages back and runs alike."""
    from kclpy.pipeline import interfaces

    monkeypatch.setenv("KCLPY_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("KCLPY_NO_CACHE", raising=False)
    monkeypatch.setattr(interfaces, "SIGHTINGS", 1)
    entry = _layout(tmp_path / "project" if (tmp_path / "project").mkdir() is None else tmp_path)
    inputs = driver.Inputs([str(entry)], str(entry.parent), {})
    expected = "a: pkg.Server\nb: pkg.server.Server\n"
    read: list[str] = []
    original = interfaces.PackageShelf._parse

    def reading(self: interfaces.PackageShelf, handle: object, key: str, pkgpath: str) -> object:
        found = original(self, handle, key, pkgpath)  # type: ignore[arg-type]
        if found is not None:
            read.append(pkgpath)
        return found

    monkeypatch.setattr(interfaces.PackageShelf, "_parse", reading)
    for index in range(3):
        result = driver.run(inputs, driver.RunSettings(), EmitOptions())
        assert result.text == expected + "c: 1\n" * bool(index), result.diagnostics
        entry.write_text(BOTH + f"c = 1{' ' * index}\n")
    assert sorted(set(read)) == ["pkg", "pkg.server"]


MODULE_FIRST = "\n".join(reversed(BOTH.split("\n", 2)[:2])) + "\n"


@pytest.mark.parametrize("main", [BOTH, MODULE_FIRST], ids=["pkg", "module"])
@pytest.mark.parametrize("alone_first", [False, True], ids=["fresh", "reused"])
def test_tools_read_the_folder_package_s_tree_of_the_shared_file(
    tmp_path: Path, main: str, alone_first: bool
) -> None:
    """The model's trees by path (what ``symbol_at``, ``occurrences`` and
    ``references`` read) hold the folder package's tree of the shared file, whatever
    the import order and whether the module's package was checked here or reused from
    the store (checked first in a program importing the module alone)."""
    entry = _layout(tmp_path, main)
    server = str(tmp_path / "pkg" / "server.k")
    database = Database(Settings(scopes=True, shared=True))
    if alone_first:
        (tmp_path / "alone.k").write_text("import pkg.server as s\n\nb = s.srv\n")
        alone, _ = database.program([str(tmp_path / "alone.k")], str(tmp_path))
        assert alone.homes == {}
        assert database.checked_program(alone).owners[server] == "pkg.server"
    program, _ = database.program([str(entry)], str(tmp_path))
    assert program.homes == {server: "pkg"}
    model = database.checked_program(program)
    [home] = [m for m in program.packages["pkg"] if m.file.path == server]
    assert model.modules[server] is home and model.owners[server] == "pkg"
    assert program.home_of(server) == ("pkg", home)
    assert model.symbol_at(server, (4, 1)) is model.package_symbols("pkg")["srv"]
    occurrences = [s.pkgpath for _, _, s in model.occurrences(server) if s.name == "srv"]
    assert occurrences == ["pkg", "pkg"]
