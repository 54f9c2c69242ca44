"""The bounded workspace scan (``kclpy_lsp.scan``) on real folder trees: what it looks
into, what it skips, where its limits stop it (with a note), that it stops when asked,
and which roots are no workspace at all."""

from __future__ import annotations

import os
from pathlib import Path

from kclpy_lsp.scan import Limits, package_folders, refused


def package(folder: Path, text: str = "a = 1\n", name: str = "main.k") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / name).write_text(text, encoding="utf-8")
    return folder


def never() -> bool:
    return False


def test_skipped_folders_are_not_looked_into(tmp_path: Path) -> None:
    kept = [package(tmp_path), package(tmp_path / "app"), package(tmp_path / "app" / "deep")]
    for skipped in (".git", ".corpus", ".venv", "node_modules", "__pycache__", "vendor"):
        package(tmp_path / skipped)
    package(tmp_path / "env" / "lib").parent.joinpath("pyvenv.cfg").write_text("home = /x\n")
    package(tmp_path / "cache" / "k").parent.joinpath("CACHEDIR.TAG").write_text("Signature")
    package(tmp_path / "tests_only", name="main_test.k")
    (tmp_path / "linked").symlink_to(tmp_path / "app", target_is_directory=True)
    found = package_folders([str(tmp_path)], never)
    assert found.folders == [str(path) for path in kept]  # shallow ones first
    assert found.note is None


def test_a_virtual_environment_as_root_is_skipped(tmp_path: Path) -> None:
    package(tmp_path).joinpath("pyvenv.cfg").write_text("home = /x\n")
    assert package_folders([str(tmp_path)], never).folders == []


def test_the_folder_limit_stops_the_scan_with_a_note(tmp_path: Path) -> None:
    for number in range(5):
        package(tmp_path / f"p{number}")
    found = package_folders([str(tmp_path)], never, Limits(folders=3))
    assert len(found.folders) == 3
    assert found.note is not None and "3 package folders" in found.note


def test_the_byte_limit_stops_the_scan_with_a_note(tmp_path: Path) -> None:
    for number in range(5):
        package(tmp_path / f"p{number}", "a = 1\n" * 100)  # 600 bytes each
    found = package_folders([str(tmp_path)], never, Limits(bytes=1500))
    assert found.folders == [str(tmp_path / "p0"), str(tmp_path / "p1")]
    assert found.note is not None and "bytes" in found.note


def test_the_entry_limit_stops_the_scan_with_a_note(tmp_path: Path) -> None:
    for number in range(50):
        (tmp_path / f"empty{number:02}").mkdir()
    package(tmp_path / "zz")
    found = package_folders([str(tmp_path)], never, Limits(entries=20))
    assert found.folders == []
    assert found.note is not None and "entries" in found.note


def test_the_scan_stops_when_asked(tmp_path: Path) -> None:
    for number in range(10):
        package(tmp_path / f"p{number}")
    asked: list[int] = []

    def stopped() -> bool:
        asked.append(1)
        return len(asked) > 3

    found = package_folders([str(tmp_path)], stopped)
    assert len(found.folders) == 2  # the root holds none; p0 and p1, then the stop
    assert package_folders([str(tmp_path)], lambda: True).folders == []


def test_unreadable_and_missing_roots_are_skipped(tmp_path: Path) -> None:
    assert package_folders([str(tmp_path / "missing")], never).folders == []
    file = package(tmp_path / "x") / "main.k"
    assert package_folders([str(file)], never).folders == []


def test_the_root_and_the_home_folder_are_no_workspace(tmp_path: Path) -> None:
    assert refused("/") is not None
    assert refused(os.path.expanduser("~")) is not None
    assert refused(str(tmp_path)) is None
