"""Packages checked one at a time in import order into interfaces (``sema.interface``):
the order of checks, the order of diagnostics (an imported package's at its first
import, as the reference), import cycles, and what an interface lets importers do."""

from __future__ import annotations

from pathlib import Path

import pytest

from kclpy.diag.render import render_all
from kclpy.pipeline import driver
from kclpy.pipeline.inputs import Settings
from kclpy.pipeline.queries import Database, package_keys
from kclpy.sema.declare import DeclarationChecker
from kclpy.sema.interface import ImportMark, check_order


def _write(root: Path, files: dict[str, str]) -> None:
    (root / "kcl.mod").write_text('[package]\nname = "app"\n', encoding="utf-8")
    for relative, text in files.items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


def _lines(root: Path, memory: Database | None = None) -> list[str]:
    program = driver.load(driver.Inputs([str(root / "main.k")], str(root)), memory)
    model = driver.check(program, memory)
    text = render_all(model.diagnostics, "short", False).replace(str(root) + "/", "")
    return [line.split(": error")[0] for line in text.splitlines() if line]


DIAMOND = {
    "main.k": "import left\nimport right\nimport left as right\nm: int = 'main'\n",
    "left/left.k": "import base\nl: int = 'left'\n",
    "right/right.k": "import base\nr: int = 'right'\n",
    "base/base.k": "b: int = 'base'\nb = 2\n",
}


def test_packages_are_checked_once_each_after_what_they_import(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _write(tmp_path, DIAMOND)
    depth: list[str] = []
    checked: list[str] = []
    original = DeclarationChecker.check_package

    def watched(self: DeclarationChecker, pkgpath: str, imports: list[ImportMark]) -> None:
        assert not depth, f"{pkgpath} checked inside {depth}"
        depth.append(pkgpath)
        checked.append(pkgpath)
        try:
            original(self, pkgpath, imports)
        finally:
            depth.pop()

    monkeypatch.setattr(DeclarationChecker, "check_package", watched)
    program = driver.load(driver.Inputs([str(tmp_path / "main.k")], str(tmp_path)))
    driver.check(program)
    # ``right`` is not imported (``left as right`` takes its name): checked last
    assert checked == ["base", "left", "__main__", "right"] == check_order(program)


def test_an_imported_package_reports_at_its_first_import(tmp_path: Path) -> None:
    _write(tmp_path, DIAMOND)
    # ``base`` at ``left``'s import, before ``left``'s own; ``right`` (whose name
    # ``left as right`` takes) after ``__main__``, as a package no import reaches
    assert _lines(tmp_path) == [
        "base/base.k:2:1",
        "base/base.k:1:1",
        "left/left.k:2:1",
        "main.k:3:1",
        "main.k:4:1",
        "right/right.k:2:1",
    ]


def test_reused_packages_report_in_the_same_order(tmp_path: Path) -> None:
    _write(tmp_path, DIAMOND)
    memory = Database(Settings(shared=True))  # a build worker's
    first = _lines(tmp_path, memory)
    program = driver.load(driver.Inputs([str(tmp_path / "main.k")], str(tmp_path)), memory)
    stored = memory.checked.get(package_keys(program)["base"])
    assert stored is not None
    assert _lines(tmp_path, memory) == first == _lines(tmp_path)
    assert memory.checked.get(package_keys(program)["base"]) is stored  # reused, not checked


def test_a_package_of_an_import_cycle_read_before_its_check_is_empty(tmp_path: Path) -> None:
    files = {
        "main.k": "import a\n",
        "a/a.k": "import b\nya = 1\n",
        "b/b.k": "import a\nz = a.ya\n",
    }
    _write(tmp_path, files)
    program = driver.load(driver.Inputs([str(tmp_path / "main.k")], str(tmp_path)))
    model = driver.check(program)
    messages = [diagnostic.message for diagnostic in model.diagnostics]
    assert messages == ["attribute 'ya' not found in 'module 'a''"]
    assert model.packages() == ["__main__", "a", "b"]


def test_an_interface_is_read_only(tmp_path: Path) -> None:
    _write(tmp_path, DIAMOND)
    memory = Database(Settings(shared=True))  # a build worker's
    _lines(tmp_path, memory)
    program = driver.load(driver.Inputs([str(tmp_path / "main.k")], str(tmp_path)))
    keys = [key for key in package_keys(program).values() if key is not None]
    products = [memory.checked.get(key) for key in keys]
    interfaces = {p.interface.pkgpath: p.interface for p in products if p is not None}
    assert set(interfaces) == {"base", "left", "right"}
    with pytest.raises(TypeError):
        interfaces["base"].symbols["b"] = interfaces["base"].symbols["b"]  # type: ignore[index]
    assert list(interfaces["left"].symbols) == ["base", "l"]
