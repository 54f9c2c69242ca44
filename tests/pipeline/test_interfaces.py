"""Checked packages on disk by content key (``kclpy.pipeline.interfaces``, ``linking``):
after an edit, a run checks and compiles only what the edit reaches, prints what a run
without the cache prints, and an entry that is corrupt, stale, planted or not this
user's is a miss, never a failure."""

from __future__ import annotations

import io
import os
import pickle
from collections.abc import Iterator
from pathlib import Path

import pytest

from kclpy.compile.code import SchemaProto, schema_protos
from kclpy.diag.render import render_all
from kclpy.emit import EmitOptions
from kclpy.pipeline import cache as cache_module
from kclpy.pipeline import driver, interfaces, linking, pickling, queries
from kclpy.sema.declare import DeclarationChecker
from kclpy.sema.interface import ImportMark

FILES = {
    "kcl.mod": '[package]\nname = "demo"\n',
    "low/low.k": "schema Low:\n    replicas: int = 1\n\nLOW = Low {}\n",
    "lib/lib.k": (
        "import low\n\nschema Item(low.Low):\n    name: str\n    labels: {str:str} = {}\n\n"
        "schema Spare:\n    size: int = 3\n\n"
        'item = Item {name = "a"}\ndouble = lambda x: int { x * 2 }\n'
    ),
    "main.k": (
        'import lib\nimport low\n\nweb = lib.Item {name = "web"}\n'
        "n = lib.double(low.LOW.replicas)\n"
    ),
}


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The cache folder, where a package's entry is stored the first time a run
    checks it (no mark first: the admission has tests of its own)."""
    folder = tmp_path / "cache"
    monkeypatch.setenv("KCLPY_CACHE_DIR", str(folder))
    monkeypatch.delenv("KCLPY_NO_CACHE", raising=False)
    monkeypatch.setattr(interfaces, "SIGHTINGS", 1)
    return folder


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    for relative, text in FILES.items():
        (root / relative).parent.mkdir(parents=True, exist_ok=True)
        (root / relative).write_text(text)
    return root


@pytest.fixture
def work(monkeypatch: pytest.MonkeyPatch) -> dict[str, list[str]]:
    """The packages the checker checks and the compiler compiles, in order."""
    done: dict[str, list[str]] = {"checked": [], "compiled": []}
    check = DeclarationChecker.check_package
    compile_package = queries._compile_package

    def checking(self: DeclarationChecker, pkgpath: str, imports: list[ImportMark]) -> None:
        done["checked"].append(pkgpath)
        check(self, pkgpath, imports)

    def compiling(model: object, pkgpath: str, *rest: object) -> object:
        done["compiled"].append(pkgpath)
        return compile_package(model, pkgpath, *rest)  # type: ignore[arg-type]

    monkeypatch.setattr(DeclarationChecker, "check_package", checking)
    monkeypatch.setattr(queries, "_compile_package", compiling)
    return done


@pytest.fixture
def notes() -> Iterator[list[str]]:
    said: list[str] = []
    cache_module.report_to(said.append)
    cache_module._noted.clear()
    yield said
    cache_module.report_to(None)


def run(project: Path) -> tuple[str, str]:
    inputs = driver.Inputs([str(project / "main.k")], str(project))
    result = driver.run(inputs, driver.RunSettings(), EmitOptions())
    return result.text, render_all(result.diagnostics, "human", False)


def uncached(project: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[str, str]:
    with monkeypatch.context() as patch:
        patch.setenv("KCLPY_NO_CACHE", "1")
        return run(project)


def edit(project: Path, relative: str, extra: str) -> None:
    path = project / relative
    path.write_text(path.read_text() + extra)


def packages(cache: Path) -> list[Path]:
    folder = cache / "packages"
    return sorted(folder.iterdir()) if folder.is_dir() else []


def read_entry(entry: Path) -> tuple[dict[str, object], bytes, bytes]:
    with entry.open("rb") as handle:
        manifest = pickle.load(handle)
        blob, code_blob = pickle.load(handle)
    return manifest, blob, code_blob


def read_entry_manifest(entry: Path) -> dict[str, object]:
    with entry.open("rb") as handle:
        manifest: dict[str, object] = pickle.load(handle)
        assert not handle.read()  # (a mark: nothing follows its manifest)
    return manifest


def write_entry(entry: Path, manifest: dict[str, object], blob: bytes, code_blob: bytes) -> None:
    """An entry whose manifest matches its blobs: only the dialect and the references
    can refuse it."""
    manifest = dict(manifest, blobs=(len(blob), len(code_blob)))
    with entry.open("wb") as handle:
        pickle.dump(manifest, handle)
        pickle.dump((blob, code_blob), handle)


def entry_of(cache: Path, pkgpath: str) -> Path:
    (found,) = [e for e in packages(cache) if read_entry(e)[0]["pkgpath"] == pkgpath]
    return found


# --------------------------------------------------------------------------- reuse


def test_an_edit_of_main_checks_and_compiles_main_only(
    project: Path, cache: Path, work: dict[str, list[str]], monkeypatch: pytest.MonkeyPatch
) -> None:
    first = run(project)
    assert first[0] and not first[1].strip()
    assert work["checked"] == ["low", "lib", "__main__"]
    assert len(packages(cache)) == 2  # low and lib (never __main__)
    edit(project, "main.k", "extra = lib.item.name\n")
    work["checked"].clear()
    work["compiled"].clear()
    again = run(project)
    assert work == {"checked": ["__main__"], "compiled": ["__main__"]}
    assert again == uncached(project, monkeypatch)
    assert "extra: a" in again[0]


def test_a_package_is_stored_the_second_time_a_run_checks_it(
    project: Path, cache: Path, work: dict[str, list[str]], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A first run writes marks (manifests without blobs), which no run reads as an
    entry; the run that checks the packages again stores them; the next reads them."""
    monkeypatch.setattr(interfaces, "SIGHTINGS", 2)
    first = run(project)
    marks = [read_entry_manifest(entry) for entry in packages(cache)]
    assert sorted(mark["pkgpath"] for mark in marks) == ["lib", "low"]
    assert all(mark["blobs"] is None for mark in marks)
    assert run(project) == first  # the whole program's entry: nothing checked
    edit(project, "main.k", "one = 1\n")
    expected = uncached(project, monkeypatch)
    work["checked"].clear()
    assert run(project) == expected
    assert work["checked"] == ["low", "lib", "__main__"]  # marks are misses
    assert all(read_entry(entry)[0]["blobs"] for entry in packages(cache))
    edit(project, "main.k", "two = 2\n")
    expected = uncached(project, monkeypatch)
    work["checked"].clear()
    assert run(project) == expected
    assert work["checked"] == ["__main__"]
    assert len(packages(cache)) == 2


def test_an_edit_below_checks_what_stands_on_it(
    project: Path, cache: Path, work: dict[str, list[str]], monkeypatch: pytest.MonkeyPatch
) -> None:
    run(project)
    edit(project, "low/low.k", "OTHER = 2\n")
    work["checked"].clear()
    assert run(project) == uncached(project, monkeypatch)
    assert work["checked"][:3] == ["low", "lib", "__main__"]
    edit(project, "lib/lib.k", "more = 1\n")
    work["checked"].clear()
    assert run(project) == uncached(project, monkeypatch)
    assert work["checked"][:2] == ["lib", "__main__"]  # low's entry is read
    assert len(packages(cache)) == 5  # every version of each, by content


def test_a_schema_no_run_compiled_comes_from_source_and_joins_the_entry(
    project: Path, cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    run(project)
    entry = entry_of(cache, "lib")
    bodies = lambda: sum(  # noqa: E731
        isinstance(proto, SchemaProto)
        for proto in schema_protos(pickling.load(io.BytesIO(read_entry(entry)[2])))
    )
    before = bodies()
    edit(project, "main.k", "spare = lib.Spare {}\n")
    again = run(project)
    assert again == uncached(project, monkeypatch) and "size: 3" in again[0]
    assert bodies() == before + 1


def test_diagnostics_are_the_same_with_and_without_the_cache(
    project: Path, cache: Path, work: dict[str, list[str]], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Errors in main against the packages read, and in a package checked again over a
    package read, in the order a run without the cache reports them; a failing run
    writes no entry (a package with diagnostics is never stored)."""
    run(project)
    stored = packages(cache)
    edit(
        project,
        "main.k",
        'bad: lib.Item = lib.Item {name = 2, replicas = "x"}\nn2: str = low.LOW\n',
    )
    work["checked"].clear()
    broken = run(project)
    assert work["checked"] == ["__main__"]
    assert broken == uncached(project, monkeypatch)
    assert broken[1].count("error[") >= 3 and "main.k" in broken[1]
    edit(project, "lib/lib.k", '_wrong: int = "no"\n')
    work["checked"].clear()
    worse = run(project)
    assert work["checked"] == ["lib", "__main__"]  # low from its entry
    assert worse == uncached(project, monkeypatch)
    assert worse[1].index("lib.k") < worse[1].index("main.k")
    assert packages(cache) == stored


# --------------------------------------------------------------------------- trust


class _Call:
    def __init__(self, function: object, *args: object) -> None:
        self.function = function
        self.args = args

    def __reduce__(self) -> tuple[object, tuple[object, ...]]:
        return self.function, self.args


class _Persistent(pickle.Pickler):
    """Pickles ``(names, schemas, imports)`` whose schemas hold one persistent id."""

    def __init__(self, file: object, pid: object) -> None:
        super().__init__(file, protocol=5)  # type: ignore[arg-type]
        self.pid = pid

    def persistent_id(self, obj: object) -> object:
        return self.pid if obj == "REFERENCE" else None


def _persistent(pid: object) -> bytes:
    buffer = io.BytesIO()
    _Persistent(buffer, pid).dump(({}, {"x": "REFERENCE"}, ()))
    return buffer.getvalue()


def _referring(*parts: object) -> bytes:
    """``(names, schemas, imports)`` whose schemas hold one reference (as written)."""
    return pickle.dumps(({}, {"x": _Call(linking.reference, *parts)}, ()), protocol=5)


@pytest.mark.parametrize(
    "payload",
    [
        "os.system",
        "builtins.eval",
        "kclpy.source.SourceFile",
        "reference to nothing",
        "reference to a node out of range",
        "reference with no parts",
        "persistent id",
        "not a triple",
        "corrupt",
    ],
)
def test_a_hostile_interface_is_refused(
    project: Path,
    cache: Path,
    tmp_path: Path,
    work: dict[str, list[str]],
    notes: list[str],
    payload: str,
) -> None:
    honest = run(project)
    entry = entry_of(cache, "lib")
    manifest, blob, code_blob = read_entry(entry)
    marker = tmp_path / "ran"
    blobs = {
        "os.system": pickle.dumps(_Call(os.system, f"touch {marker}"), protocol=5),
        "builtins.eval": pickle.dumps(_Call(eval, f"open({str(marker)!r}, 'w')"), protocol=5),
        "kclpy.source.SourceFile": b"\x80\x05\x8c\x0ckclpy.source\x8c\nSourceFile\x93)R.",
        "reference to nothing": _referring("symbol", "nowhere", "x"),
        "reference to a node out of range": _referring("node", str(project / "main.k"), 10**6),
        "reference with no parts": _referring(),
        "persistent id": _persistent(("symbol", "low", "LOW")),
        "not a triple": pickle.dumps(({}, {}), protocol=5),
        "corrupt": blob[: len(blob) // 2],
    }
    write_entry(entry, manifest, blobs[payload], code_blob)
    work["checked"].clear()
    edit(project, "main.k", "# edited\n")
    assert run(project) == honest
    assert not marker.exists()
    assert "lib" in work["checked"]  # checked again: the entry was a miss
    assert any("cannot be used" in note for note in notes)
    assert read_entry(entry)[1] == blob  # the run wrote its own entry back


def test_an_entry_with_other_blobs_or_of_another_package_is_a_miss(
    project: Path, cache: Path, work: dict[str, list[str]]
) -> None:
    honest = run(project)
    lib, low = entry_of(cache, "lib"), entry_of(cache, "low")
    manifest, blob, code_blob = read_entry(lib)
    with lib.open("wb") as handle:  # blobs that are not the manifest's
        pickle.dump(manifest, handle)
        pickle.dump((blob + b"\x00", code_blob), handle)
    work["checked"].clear()
    edit(project, "main.k", "# one\n")
    assert run(project) == honest
    assert work["checked"] == ["lib", "__main__"]
    lib.write_bytes(low.read_bytes())  # low's entry under lib's key
    work["checked"].clear()
    edit(project, "main.k", "# two\n")
    assert run(project) == honest
    assert work["checked"] == ["lib", "__main__"]


@pytest.mark.parametrize("mode", [0o620, 0o602, 0o666], ids=oct)
def test_an_entry_others_may_write_is_ignored(
    project: Path, cache: Path, work: dict[str, list[str]], notes: list[str], mode: int
) -> None:
    honest = run(project)
    entry = entry_of(cache, "low")
    entry.chmod(mode)
    work["checked"].clear()
    edit(project, "main.k", "# edited\n")
    assert run(project) == honest
    assert work["checked"][0] == "low"
    assert any(f"writable by group or others (mode {mode:o})" in note for note in notes)
    assert entry.stat().st_mode & 0o777 == 0o600  # replaced by the run's own


def test_an_entry_that_is_a_link_and_a_folder_others_may_write_are_not_used(
    project: Path, cache: Path, tmp_path: Path, work: dict[str, list[str]]
) -> None:
    honest = run(project)
    entry = entry_of(cache, "low")
    elsewhere = tmp_path / "elsewhere.bin"
    entry.rename(elsewhere)
    entry.symlink_to(elsewhere)
    work["checked"].clear()
    edit(project, "main.k", "# one\n")
    assert run(project) == honest and work["checked"][0] == "low"
    assert not entry.is_symlink()
    (cache / "packages").chmod(0o777)
    before = {path.name: path.read_bytes() for path in packages(cache)}
    work["checked"].clear()
    edit(project, "main.k", "# two\n")
    assert run(project) == honest and work["checked"][:2] == ["low", "lib"]
    assert {path.name: path.read_bytes() for path in packages(cache)} == before


def test_entries_are_private_and_bounded(
    project: Path, cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from kclpy.pipeline import interfaces

    previous = os.umask(0)
    try:
        run(project)
    finally:
        os.umask(previous)
    assert (cache / "packages").stat().st_mode & 0o777 == 0o700
    assert {entry.stat().st_mode & 0o777 for entry in packages(cache)} == {0o600}
    stranger = cache / "packages" / "notes.txt"
    stranger.write_text("mine")
    monkeypatch.setattr(interfaces, "LIMIT", 2)
    for line in range(3):
        edit(project, "low/low.k", f"V{line} = {line}\n")
        run(project)
    assert len(packages(cache)) == 3  # two entries and the stranger, left alone
    assert stranger.read_text() == "mine"
