"""The driver's cache of compiled programs (``kclpy.pipeline.cache``): on disk, in process."""

from __future__ import annotations

import io
import os
import pickle
import subprocess
import sys
from pathlib import Path

import pytest

import kclpy
from kclpy import loader as loader_module
from kclpy.compile import code as code_module
from kclpy.diag.render import render
from kclpy.emit import EmitOptions
from kclpy.loader import Loader
from kclpy.pipeline import cache as cache_module
from kclpy.pipeline import driver, pickling, queries
from kclpy.pipeline import inputs as inputs_module
from kclpy.pipeline.inputs import Settings
from kclpy.source import SourceFile
from kclpy.values.errors import KclRuntimeError

MAIN_TEXT = """\
import pkg

a = pkg.App {name = "web"}
b = pkg.double(21)
"""

PKG_TEXT = """\
schema App:
    name: str
    replicas: int = 1

double = lambda x: int {
    x * 2
}
"""


@pytest.fixture
def cache_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "cache"
    monkeypatch.setenv("KCLPY_CACHE_DIR", str(folder))
    monkeypatch.delenv("KCLPY_NO_CACHE", raising=False)
    return folder


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    (root / "pkg").mkdir(parents=True)
    (root / "kcl.mod").write_text('[package]\nname = "demo"\n')
    (root / "main.k").write_text(MAIN_TEXT)
    (root / "pkg" / "app.k").write_text(PKG_TEXT)
    return root


def _entries(folder: Path) -> list[Path]:
    programs = folder / "programs"
    return sorted(programs.iterdir()) if programs.is_dir() else []


def _run(root: Path) -> kclpy.RunResult:
    return kclpy.run_files([str(root / "main.k")], work_dir=str(root))


def _forbid_parsing(monkeypatch: pytest.MonkeyPatch) -> None:
    def fail(self: Loader, path: str) -> object:
        raise AssertionError(f"parsed {path} on a cache hit")

    monkeypatch.setattr(Loader, "parse", fail)


def test_hit_after_miss_gives_identical_output(
    cache_dir: Path, project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    first = _run(project)
    assert first.ok, first.diagnostics
    assert len(_entries(cache_dir)) == 1
    _forbid_parsing(monkeypatch)
    second = _run(project)
    assert second.ok
    assert second.text == first.text
    assert second.documents == first.documents
    assert "replicas: 1" in second.text and "b: 42" in second.text


OPTIONAL_TEXT = """\
schema Always:
    x: int = 1

schema Sometimes:
    z: str = "b"

a = Always {}
b = Sometimes {} if option("with_b") else None
"""


def test_an_entry_holds_what_its_run_compiled_and_a_hit_compiles_the_rest(
    cache_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The entry is written after the run: schemas it never read are stored as their
    headers (``SchemaHeader``); a later run from the entry that needs one gets it from
    its code source, which compiles the program's source files."""
    (tmp_path / "main.k").write_text(OPTIONAL_TEXT)
    files = [str(tmp_path / "main.k")]
    first = kclpy.run_files(files, work_dir=str(tmp_path))
    assert first.ok and "b: null" in first.text
    (entry,) = _entries(cache_dir)
    with entry.open("rb") as handle:
        pickling.load(handle)  # the manifest
        blobs = pickling.load(handle)
    main = pickling.load(io.BytesIO(blobs["__main__"][1]))
    kinds = {proto.name: type(proto).__name__ for proto in code_module.schema_protos(main)}
    assert kinds == {"Always": "SchemaProto", "Sometimes": "SchemaHeader"}
    parsed: list[str] = []
    original = Loader.parse

    def counting(self: Loader, path: str) -> object:
        parsed.append(path)
        return original(self, path)

    monkeypatch.setattr(Loader, "parse", counting)
    second = kclpy.run_files(files, work_dir=str(tmp_path), options={"with_b": True})
    assert second.ok, second.diagnostics
    assert "b:\n  z: b" in second.text and "x: 1" in second.text
    assert parsed == files  # a hit: the source read once, for the absent schema
    parsed.clear()
    assert kclpy.run_files(files, work_dir=str(tmp_path)).text == first.text
    third = kclpy.run_files(files, work_dir=str(tmp_path), options={"with_b": True})
    assert third.text == second.text
    assert parsed == []  # the second run wrote the entry again, with the schema it compiled


def test_absent_schemas_come_only_from_the_entry_s_own_files(
    cache_dir: Path, tmp_path: Path
) -> None:
    """Compiling a schema an entry holds the header of needs the files the entry was
    made from (as its lookup found them): other files (changed during the run) stop
    the run with an error, and the entry is not written again."""
    (tmp_path / "main.k").write_text(OPTIONAL_TEXT)
    inputs = driver.Inputs([str(tmp_path / "main.k")], str(tmp_path))
    assert driver.run(inputs, driver.RunSettings(), EmitOptions()).ok  # the entry
    (entry,) = _entries(cache_dir)
    written = entry.stat().st_mtime_ns
    hit = driver.front_end(inputs, [])
    assert hit is not None and hit.files == {}
    (tmp_path / "main.k").write_text(OPTIONAL_TEXT + "c = 1\n")  # during the run
    runner = driver.start(hit, driver.RunSettings({"with_b": True}))
    with pytest.raises(KclRuntimeError, match="changed while it ran"):
        driver.execute(runner, driver.RunSettings({"with_b": True}))
    driver.stored(hit)
    assert entry.stat().st_mtime_ns == written
    (tmp_path / "main.k").write_text(OPTIONAL_TEXT)
    again = driver.front_end(inputs, [])
    assert again is not None and again.files == {}
    header = next(
        proto
        for proto in code_module.schema_protos(again.codes["__main__"])
        if proto.name == "Sometimes"
    )
    assert again.source.schema(header).attrs[0].name == "z"


@pytest.mark.parametrize("edited", ["main.k", "pkg/app.k"])
def test_a_changed_file_invalidates(cache_dir: Path, project: Path, edited: str) -> None:
    assert _run(project).ok
    target = project / edited
    target.write_text(target.read_text().replace("21", "5").replace("= 1\n", "= 3\n"))
    result = _run(project)
    assert result.ok
    if edited == "main.k":
        assert "b: 10" in result.text
    else:
        assert "replicas: 3" in result.text


def test_a_new_file_in_an_imported_package_invalidates(cache_dir: Path, project: Path) -> None:
    assert _run(project).ok

    def entry() -> cache_module.ProgramCache:
        found = cache_module.open_cache([str(project / "main.k")], str(project), {}, True)
        assert found is not None
        return found

    assert entry().lookup() is not None
    (project / "pkg" / "extra.k").write_text("triple = lambda x: int {\n    x * 3\n}\n")
    assert entry().lookup() is None
    (project / "main.k").write_text(MAIN_TEXT + "c = pkg.triple(2)\n")
    result = _run(project)
    assert result.ok, result.diagnostics
    assert "c: 6" in result.text


def test_a_package_appearing_where_an_import_fell_through_invalidates(
    cache_dir: Path, tmp_path: Path
) -> None:
    root = tmp_path / "p2"
    (root / "lib").mkdir(parents=True)
    (root / "main.k").write_text("import lib\n\nx = lib.v\n")
    (root / "lib" / "a.k").write_text("v = 1\n")
    assert "x: 1" in _run(root).text
    # a file lib.k does not shadow the folder; a folder does not appear from nowhere,
    # but removing the folder's file makes the import resolve to lib.k
    (root / "lib.k").write_text("v = 2\n")
    assert "x: 1" in _run(root).text
    (root / "lib" / "a.k").unlink()
    assert "x: 2" in _run(root).text


def test_a_new_vendored_version_invalidates(
    cache_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "app"
    root.mkdir()
    (root / "kcl.mod").write_text('[package]\nname = "app"\n')
    (root / "main.k").write_text("import helm\n\nv = helm.version\n")
    (root / "vendor" / "helm_0.1.0").mkdir(parents=True)
    (root / "vendor" / "helm_0.1.0" / "main.k").write_text('version = "0.1.0"\n')
    assert "v: '0.1.0'" in _run(root).text
    assert "v: '0.1.0'" in _run(root).text  # a hit
    (root / "vendor" / "helm_0.2.0").mkdir()
    (root / "vendor" / "helm_0.2.0" / "main.k").write_text('version = "0.2.0"\n')
    assert "v: '0.2.0'" in _run(root).text
    # the same through $KCL_PKG_PATH
    shared = tmp_path / "pkgs"
    (shared / "extra_1.0.0").mkdir(parents=True)
    (shared / "extra_1.0.0" / "main.k").write_text("count = 1\n")
    monkeypatch.setenv("KCL_PKG_PATH", str(shared))
    (root / "main.k").write_text("import extra\n\ncount = extra.count\n")
    assert "count: 1" in _run(root).text
    (shared / "extra_1.1.0").mkdir()
    (shared / "extra_1.1.0" / "main.k").write_text("count = 2\n")
    assert "count: 2" in _run(root).text


def test_a_corrupt_entry_is_ignored_and_replaced(cache_dir: Path, project: Path) -> None:
    expected = _run(project).text
    (entry,) = _entries(cache_dir)
    entry.write_bytes(b"\x80\x05garbage")
    assert _run(project).text == expected
    (entry,) = _entries(cache_dir)
    entry.write_bytes(entry.read_bytes()[: entry.stat().st_size // 2])  # truncated
    assert _run(project).text == expected
    assert entry.stat().st_size > 100


def test_no_cache_is_honoured(
    cache_dir: Path, project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("KCLPY_NO_CACHE", "1")
    assert _run(project).ok
    assert not cache_dir.exists()
    assert cache_module.cache_dir() is None


def test_cache_location(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv("KCLPY_NO_CACHE", raising=False)
    monkeypatch.delenv("KCLPY_CACHE_DIR", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert cache_module.cache_dir() == os.path.join(str(tmp_path), "kclpy")
    monkeypatch.setenv("KCLPY_CACHE_DIR", str(tmp_path / "x"))
    assert cache_module.cache_dir() == str(tmp_path / "x")


def test_code_given_as_text_is_not_cached(cache_dir: Path) -> None:
    assert kclpy.run("a = 1\n").text == "a: 1\n"
    assert not cache_dir.exists()


def test_programs_with_errors_are_not_cached(cache_dir: Path, project: Path) -> None:
    (project / "main.k").write_text("import pkg\n\na: int = 'x'\n")
    assert not _run(project).ok
    assert _entries(cache_dir) == []


def test_runtime_error_on_a_hit_renders_the_source_line(
    cache_dir: Path, project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (project / "pkg" / "app.k").write_text(
        PKG_TEXT + "\nfirst = lambda xs: [int] {\n    xs[5]\n}\n"
    )
    (project / "main.k").write_text("import pkg\n\nv = pkg.first([1, 2])\n")
    miss = _run(project)
    assert not miss.ok and len(_entries(cache_dir)) == 1
    _forbid_parsing(monkeypatch)
    hit = _run(project)
    assert not hit.ok
    text = render(hit.diagnostics[0])
    assert text == render(miss.diagnostics[0])
    assert "xs[5]" in text and "app.k" in text


def test_concurrent_writers(cache_dir: Path, project: Path) -> None:
    env = dict(os.environ, KCLPY_CACHE_DIR=str(cache_dir))
    command = [sys.executable, "-m", "kclpy", "run", str(project / "main.k")]
    processes = [
        subprocess.Popen(command, cwd=project, env=env, stdout=subprocess.PIPE, text=True)
        for _ in range(2)
    ]
    outputs = [process.communicate(timeout=120)[0] for process in processes]
    assert [process.returncode for process in processes] == [0, 0]
    assert outputs[0] == outputs[1] and "b: 42" in outputs[0]
    entries = _entries(cache_dir)
    assert len(entries) == 1 and not entries[0].name.startswith(".tmp")
    again = subprocess.run(command, cwd=project, env=env, capture_output=True, text=True)
    assert again.returncode == 0 and again.stdout == outputs[0]


def test_an_entry_with_foreign_objects_is_ignored(cache_dir: Path, project: Path) -> None:
    expected = _run(project).text
    (entry,) = _entries(cache_dir)
    with entry.open("rb") as handle:
        manifest = pickle.load(handle)
    with entry.open("wb") as handle:
        pickle.dump(manifest, handle)
        pickle.dump({"__main__": SourceFile("x.k", "a = 1\n")}, handle)
    found = cache_module.open_cache([str(project / "main.k")], str(project), {}, True)
    assert found is not None and found.lookup() is None
    assert _run(project).text == expected
    assert found.lookup() is not None


def test_entries_hold_only_compiled_code(cache_dir: Path, project: Path) -> None:
    assert _run(project).ok
    (entry,) = _entries(cache_dir)
    classes: set[tuple[str, str]] = set()

    class Recorder(pickle.Unpickler):
        def find_class(self, module: str, name: str) -> object:
            classes.add((module, name))
            return super().find_class(module, name)

    with entry.open("rb") as handle:
        Recorder(handle).load()
        blobs = Recorder(handle).load()
    assert classes == set()  # the manifest and the table of packages are plain data
    assert set(blobs) == {"__main__", "pkg"}
    for _, blob in blobs.values():
        Recorder(io.BytesIO(blob)).load()
    assert {module for module, _ in classes} == {"kclpy.compile.code"}


def _stack(root: Path, name: str, value: int) -> Path:
    """A program beside ``project`` importing its shared package ``pkg``."""
    folder = root / name
    folder.mkdir()
    (folder / "main.k").write_text(f'import pkg\n\na = pkg.App {{name = "{name}"}}\nv = {value}\n')
    return folder


def _inputs(folder: Path, root: Path) -> driver.Inputs:
    return driver.Inputs([str(folder / "main.k")], str(folder), {"pkg": str(root / "pkg")})


def _counting(monkeypatch: pytest.MonkeyPatch, owner: object, name: str) -> list[str]:
    """Calls of ``owner.name`` (by their first argument after self), while still calling it."""
    calls: list[str] = []
    original = getattr(owner, name)

    def counted(*args: object) -> object:
        calls.append(str(args[1]))
        return original(*args)

    monkeypatch.setattr(owner, name, counted)
    return calls


def test_a_shared_database_parses_and_compiles_a_shared_package_once(
    tmp_path: Path, project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("KCLPY_NO_CACHE", "1")
    parsed = _counting(monkeypatch, inputs_module, "parse_bytes")
    compiled = _counting(monkeypatch, queries, "_compile_package")
    memory = queries.Database(Settings(tool_facts=False, shared=True))
    texts = []
    for index in range(3):
        folder = _stack(tmp_path, f"s{index}", index)
        result = driver.run(_inputs(folder, project), driver.RunSettings(), EmitOptions(), memory)
        assert result.ok, result.diagnostics
        texts.append(result.text)
    app = str(project / "pkg" / "app.k")
    assert parsed.count(app) == 1
    assert compiled.count("pkg") == 1 and compiled.count("__main__") == 3
    assert texts[2] == "a:\n  name: s2\n  replicas: 1\nv: 2\n"
    # an edit of the shared package is a new content key: parsed and compiled again
    (project / "pkg" / "app.k").write_text(PKG_TEXT.replace("= 1", "= 4"))
    result = driver.run(_inputs(folder, project), driver.RunSettings(), EmitOptions(), memory)
    assert "replicas: 4" in result.text
    assert parsed.count(app) == 2 and compiled.count("pkg") == 2


def test_a_shared_database_reads_a_shared_package_back_once(
    cache_dir: Path, tmp_path: Path, project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folders = [_stack(tmp_path, f"s{index}", index) for index in range(3)]
    expected = []
    for folder in folders:  # fill the disk tier
        result = driver.run(_inputs(folder, project), driver.RunSettings(), EmitOptions())
        expected.append(result.text)
    assert len(_entries(cache_dir)) == 3
    unpickled = _counting(monkeypatch, pickling.Unpickler, "__init__")
    _forbid_parsing(monkeypatch)
    memory = queries.Database(Settings(tool_facts=False, shared=True))
    texts = [
        driver.run(_inputs(folder, project), driver.RunSettings(), EmitOptions(), memory).text
        for folder in folders
    ]
    assert texts == expected
    # per entry: the manifest and the package table, then __main__; pkg once in all
    assert len(unpickled) == 3 * 3 + 1


def test_a_package_key_follows_its_imports(tmp_path: Path) -> None:
    (tmp_path / "low").mkdir()
    (tmp_path / "mid").mkdir()
    (tmp_path / "low" / "a.k").write_text("v = 1\n")
    (tmp_path / "mid" / "a.k").write_text("import low\n\nw = low.v\n")
    (tmp_path / "main.k").write_text("import mid\n\nx = mid.w\n")

    def key() -> str | None:
        program = driver.load(driver.Inputs([str(tmp_path / "main.k")], str(tmp_path)))
        return queries.package_keys(program)["mid"]

    before = key()
    assert before is not None and key() == before
    (tmp_path / "low" / "a.k").write_text("v = 2\n")
    assert key() != before

    def text_key(text: str) -> str | None:  # a file given as text: keyed by its text
        inputs = driver.Inputs(["main.k"], str(tmp_path), sources={"main.k": text})
        return queries.package_keys(driver.load(inputs))["__main__"]

    assert text_key("") is not None and text_key("") == text_key("")
    assert text_key("a = 1\n") != text_key("")
    (tmp_path / "gone").mkdir()
    missing = driver.Inputs([str(tmp_path / "gone" / "main.k")], str(tmp_path / "gone"))
    assert queries.package_keys(driver.load(missing)) == {"__main__": None}


def test_the_memory_tables_keep_only_the_most_recently_used(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    parsed = _counting(monkeypatch, inputs_module, "parse_bytes")
    memo = inputs_module.Files(keyed=True, limit=2)
    paths = []
    for name in ("a", "b", "c"):
        path = tmp_path / f"{name}.k"
        path.write_text(f"{name} = 1\n")
        paths.append(str(path))

    def parse(path: str) -> None:
        data = Path(path).read_bytes()
        memo.parse_data(path, data, loader_module.digest(data))

    for path in [paths[0], paths[1], paths[0], paths[2], paths[0], paths[1]]:
        parse(path)
    # a, b; a again (a hit, now the newest); c pushes out b; a a hit; b parsed again
    assert parsed == [paths[0], paths[1], paths[2], paths[1]]
