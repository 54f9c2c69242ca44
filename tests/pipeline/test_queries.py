"""The query layer (``kclpy.pipeline.queries`` over ``kclpy.pipeline.inputs``): the
overlay is an input, parses are memoised by content, checked and compiled packages
by package key, and a run's deferred schemas come from its explicit code source."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from kclpy.compile.code import SchemaHeader, schema_protos
from kclpy.emit import EmitOptions
from kclpy.pipeline import driver, queries
from kclpy.pipeline import inputs as inputs_module
from kclpy.pipeline.inputs import Files, Settings
from kclpy.pipeline.queries import Database
from kclpy.values.errors import KclRuntimeError

LIBRARY = "schema Box:\n    size: int = 1\n\nschema Spare:\n    kind: str = 'x'\n"


def _counting(monkeypatch: pytest.MonkeyPatch, name: str) -> list[str]:
    """The paths ``inputs.<name>`` (parse_source or parse_bytes) is called for."""
    calls: list[str] = []
    original = getattr(inputs_module, name)

    def counted(source: object, path: str = "<string>") -> object:
        calls.append(path)
        return original(source, path)

    monkeypatch.setattr(inputs_module, name, counted)
    return calls


def test_a_package_of_unsaved_buffers_is_found_and_edits_reparse_one_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "main.k").write_text("import lib\n\nb = lib.Box {}\n")
    lib = str(tmp_path / "lib" / "lib.k")  # no such folder on disk: a buffer only
    texts = _counting(monkeypatch, "parse_source")
    disk = _counting(monkeypatch, "parse_bytes")
    database = Database(Settings(scopes=True))
    database.files.set_overlay({lib: LIBRARY})
    program, _ = database.program([str(tmp_path / "main.k")], str(tmp_path))
    assert not program.has_errors and program.packages["lib"][0].file.path == lib
    assert not database.checked_program(program).has_errors
    database.files.set_overlay({lib: LIBRARY.replace("= 1", "= 2")})
    again, _ = database.program([str(tmp_path / "main.k")], str(tmp_path))
    assert "= 2" in again.packages["lib"][0].file.text
    assert again.packages["__main__"][0] is program.packages["__main__"][0]  # reused
    assert (texts, disk) == ([lib, lib], [str(tmp_path / "main.k")])


def test_the_parse_query_keeps_the_latest_content_of_each_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    parsed = _counting(monkeypatch, "parse_bytes")
    files = Files(keyed=True)
    path = str(tmp_path / "a.k")
    first = files.parse_data(path, b"a = 1\n", "one")
    assert files.parse_data(path, b"a = 1\n", "one")[0] is first[0]
    files.parse_data(path, b"a = 2\n", "two")
    files.parse_data(path, b"a = 1\n", "one")  # replaced by "two": parsed again
    assert parsed == [path, path, path]
    assert len(files._parses) == 1


def test_a_settled_unchanged_file_is_not_read_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A keyed parse query reads a disk file again only when its status changed, or
    when it had changed too recently to trust the status (a write within the file
    system's time granularity keeps it): then every read sees the newest bytes."""
    digests: list[str] = []
    original = inputs_module.digest

    def counted(data: bytes) -> str:
        digests.append(data.decode())
        return original(data)

    monkeypatch.setattr(inputs_module, "digest", counted)
    files = Files(keyed=True)
    path = tmp_path / "a.k"
    path.write_text("a = 1\n")
    for text in ("a = 2\n", "a = 3\n"):  # fresh: read each time, same size and all
        assert files.parse_file(str(path))[1][0].file.text == path.read_text()
        path.write_text(text)
    assert files.parse_file(str(path))[1][0].file.text == "a = 3\n"
    assert digests == ["a = 1\n", "a = 2\n", "a = 3\n"]
    monkeypatch.setattr(inputs_module, "SETTLED_NS", -1)  # every status trusted from now
    key, (module, _) = files.parse_file(str(path))  # not known settled yet: read
    assert files.parse_file(str(path)) == (key, (module, []))  # unchanged: not read
    assert len(digests) == 4
    path.write_text("a = 4\n")  # the same size; its times set apart from the last read's
    os.utime(path, ns=(time.time_ns() - 10**10, time.time_ns() - 10**10))
    assert files.parse_file(str(path))[1][0].file.text == "a = 4\n"
    assert len(digests) == 5


def test_a_shared_database_reuses_checked_and_compiled_packages_by_key(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("KCLPY_NO_CACHE", "1")
    (tmp_path / "lib").mkdir()
    (tmp_path / "lib" / "lib.k").write_text(LIBRARY)
    compiled: list[str] = []
    original = queries._compile_package

    def counted(model: object, pkgpath: str, *rest: object) -> object:
        compiled.append(pkgpath)
        return original(model, pkgpath, *rest)  # type: ignore[arg-type]

    monkeypatch.setattr(queries, "_compile_package", counted)
    database = Database(Settings(tool_facts=False, shared=True))
    texts = []
    for index in range(3):
        folder = tmp_path / f"s{index}"
        folder.mkdir()
        (folder / "main.k").write_text(f"import lib\n\nb = lib.Box {{size = {index}}}\n")
        inputs = driver.Inputs(
            [str(folder / "main.k")], str(folder), {"lib": str(tmp_path / "lib")}
        )
        texts.append(driver.run(inputs, driver.RunSettings(), EmitOptions(), database).text)
    assert texts == [f"b:\n  size: {index}\n" for index in range(3)]
    assert compiled.count("lib") == 1 and compiled.count("__main__") == 3


def test_a_run_s_deferred_schemas_come_from_its_code_source(tmp_path: Path) -> None:
    """A run's database defers every schema (the code holds headers); the VM asks the
    code source handed to the runner for the ones it uses; without one, using a
    schema is an error of the run, not a traceback."""
    (tmp_path / "main.k").write_text(LIBRARY + "\nb = Box {}\n")
    database = Database(Settings(tool_facts=False))
    program = driver.load(driver.Inputs([str(tmp_path / "main.k")]), database)
    model = driver.check(program, database)
    built = driver.compile_program(program, model, [], database)
    assert built is not None
    codes, source = built
    assert all(type(proto) is SchemaHeader for proto in schema_protos(codes["__main__"]))
    settings = driver.RunSettings()
    with_source = driver.Compiled(codes, str(tmp_path), {}, str(tmp_path), None, source)
    output = driver.execute(driver.start(with_source, settings), settings)
    assert driver.render(output, EmitOptions()) == "b:\n  size: 1\n"
    assert sorted(source.compiled) == [("__main__", "Box")]
    without = driver.Compiled(codes, str(tmp_path), {}, str(tmp_path))
    with pytest.raises(KclRuntimeError, match=r"no source for the schema __main__\.Box"):
        driver.execute(driver.start(without, settings), settings)
