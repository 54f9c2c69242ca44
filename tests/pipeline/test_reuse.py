"""Checked packages reused between programs (``kclpy.sema.interface`` through a shared
query database): the same outputs and diagnostics as checking every package again."""

from __future__ import annotations

import runpy
from collections.abc import Sequence
from pathlib import Path

import pytest

from kclpy.diag.render import render_all
from kclpy.emit import EmitOptions
from kclpy.monorepo import stacks
from kclpy.pipeline import driver
from kclpy.pipeline.inputs import Settings
from kclpy.pipeline.queries import Database
from kclpy.sema.bindings import Binding
from kclpy.sema.declare import DeclarationChecker
from kclpy.sema.interface import ImportMark

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"


@pytest.fixture(autouse=True)
def no_disk_cache(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KCLPY_NO_CACHE", "1")


@pytest.fixture
def checks(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The packages the checker checks (not the ones it reuses), in order."""
    checked: list[str] = []
    original = DeclarationChecker.check_package

    def counted(self: DeclarationChecker, pkgpath: str, imports: list[ImportMark]) -> None:
        checked.append(pkgpath)
        original(self, pkgpath, imports)

    monkeypatch.setattr(DeclarationChecker, "check_package", counted)
    return checked


def _shared() -> Database:
    """A build worker's database: checked packages reused by content key."""
    return Database(Settings(shared=True))


def _outcome(inputs: driver.Inputs, memory: Database | None) -> tuple[str, str]:
    """What a build shows of one program: its text, its rendered diagnostics."""
    result = driver.run(inputs, driver.RunSettings(), EmitOptions(), memory)
    return result.text, render_all(result.diagnostics, "human", False)


def _outcomes(programs: Sequence[driver.Inputs], memory: Database | None) -> list[tuple[str, str]]:
    return [_outcome(inputs, memory) for inputs in programs]


def _write(root: Path, files: dict[str, str]) -> None:
    for relative, text in files.items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


def _generated(root: Path, projects: int) -> list[driver.Inputs]:
    """Every stack of a repository of ``benchmarks/monorepo.py``, as driver inputs."""
    # by path: ``monorepo`` would also name the tests' own package
    generate = runpy.run_path(str(BENCHMARKS / "monorepo.py"), run_name="bench_monorepo")[
        "generate"
    ]
    generate(root, projects, ("dev", "staging", "prod"), 7, 12)
    found = stacks.discover([str(root)], str(root))
    return [driver.Inputs(list(s.files), s.path, dict(s.externals)) for s in found]


def test_a_generated_repository_builds_the_same_with_reuse(
    tmp_path: Path, checks: list[str]
) -> None:
    programs = _generated(tmp_path / "repo", 3)
    without = _outcomes(programs, None)
    shared_checks = [name for name in checks if name != "__main__"]
    del checks[:]
    memory = _shared()
    assert _outcomes(programs, memory) == without
    assert all(text and not errors.strip() for text, errors in without)
    # each shared model package is checked once in all, the stacks' own code every time
    assert checks.count("__main__") == len(programs)
    shared = [name for name in checks if name != "__main__"]
    assert sorted(shared) == sorted(set(shared_checks))
    # a model with a type error: every stack importing it reports it, as without reuse
    app = tmp_path / "repo" / "models" / "app" / "app.k"
    app.write_text(app.read_text() + '\n_broken: int = "no"\n')
    broken = _outcomes(programs, memory)
    assert broken == _outcomes(programs, None)
    assert all(not text and "E2G22" in errors and "app.k" in errors for text, errors in broken)


# A shared package ``lib`` over ``low``, both with errors, reached in a different
# order by each stack: lib's first file reports an error before its second file's
# import checks ``low``, so stack a (low first) and b (lib first) order them differently.
ORDERED = {
    "low/low.k": "schema Low:\n    v: int = 1\n\n_bad: str = 1\nLOW = Low {}\n",
    "lib/a.k": "import math as m\nimport json as m\n",
    "lib/lib.k": (
        "import low\n\nschema Item(low.Low):\n    name: str\n\n"
        'item = Item {name = 2}\n_x: int = "a"\n'
    ),
    "a/main.k": "import low\nimport lib\n\na = lib.item\n",
    "b/main.k": "import lib\nimport low\n\nb = low.LOW\n",
    "c/main.k": "import lib\n\nc: lib.Item = lib.Item {name = 3}\n",
}


def test_diagnostics_keep_their_order_whatever_was_checked_before(
    tmp_path: Path, checks: list[str]
) -> None:
    _write(tmp_path, ORDERED)
    externals = {"lib": str(tmp_path / "lib"), "low": str(tmp_path / "low")}
    programs = [
        driver.Inputs([str(tmp_path / name / "main.k")], str(tmp_path / name), externals)
        for name in ("a", "b", "c", "b", "a", "c")
    ]
    without = _outcomes(programs, None)
    assert all(errors.count("error[") >= 4 for _, errors in without)
    first = [
        errors.index(marker) for marker in ("low.k", "multiple times") for _, errors in without[:2]
    ]
    assert first[0] < first[2] and first[1] > first[3]  # a: low first; b: lib's own first
    del checks[:]
    assert _outcomes(programs, _shared()) == without
    assert checks.count("lib") == 1 and checks.count("low") == 1


LIBRARIES = {
    # one ``app`` package (the same files) over two versions of ``lib``
    "app/app.k": "import lib\n\nschema App(lib.Base):\n    name: str\n",
    "lib1/lib.k": "schema Base:\n    replicas: int = 1\n",
    "lib2/lib.k": 'schema Base:\n    replicas: str = "one"\n',
    "s/main.k": 'import app\n\nweb = app.App {name = "web", replicas = 2}\n',
}


def test_a_package_over_different_imports_is_not_shared(tmp_path: Path, checks: list[str]) -> None:
    _write(tmp_path, LIBRARIES)
    main = [str(tmp_path / "s" / "main.k")]
    one = {"app": str(tmp_path / "app"), "lib": str(tmp_path / "lib1")}
    two = {"app": str(tmp_path / "app"), "lib": str(tmp_path / "lib2")}
    renamed = {"application": str(tmp_path / "app"), "lib": str(tmp_path / "lib1")}
    (tmp_path / "t").mkdir()
    (tmp_path / "t" / "main.k").write_text(
        'import application\n\nweb = application.App {name = "web", replicas = 2}\n'
    )
    programs = [
        driver.Inputs(main, str(tmp_path / "s"), one),
        driver.Inputs(main, str(tmp_path / "s"), two),
        driver.Inputs([str(tmp_path / "t" / "main.k")], str(tmp_path / "t"), renamed),
        driver.Inputs(main, str(tmp_path / "s"), one),
    ]
    without = _outcomes(programs, None)
    assert "replicas: 2" in without[0][0] and "E2G22" in without[1][1]
    del checks[:]
    assert _outcomes(programs, _shared()) == without
    # app over lib1, app over lib2, and the same files as ``application``: three checks
    assert checks.count("app") == 2 and checks.count("application") == 1


def _bindings(table: dict[int, Binding]) -> list[tuple[int, object]]:
    return [(node, binding.key()) for node, binding in table.items()]


def test_a_reused_model_matches_a_checked_one(tmp_path: Path) -> None:
    _write(tmp_path, LIBRARIES)
    inputs = driver.Inputs(
        [str(tmp_path / "s" / "main.k")],
        str(tmp_path / "s"),
        {"app": str(tmp_path / "app"), "lib": str(tmp_path / "lib1")},
    )
    memory = _shared()
    first = driver.check(driver.load(inputs, memory), memory)
    program = driver.load(inputs, memory)
    again = driver.check(program, memory)
    alone = driver.check(program)
    assert again.packages_names["app"] is first.packages_names["app"]  # shared, not rebuilt
    for model in (again, first):
        assert list(model.types) == list(alone.types)
        assert list(model.completed) == list(alone.completed)
        assert list(model.schemas) == list(alone.schemas)
        assert list(model.files) == list(alone.files)
        assert model.packages() == alone.packages()
        # the declarations an editor reads: the reused packages' come with their product
        assert list(model.declarations) == list(alone.declarations)
        assert list(model.schema_members) == list(alone.schema_members)
        for pkgpath in alone.packages():
            symbols = model.package_symbols(pkgpath)
            assert list(symbols) == list(alone.package_symbols(pkgpath))
            assert all(
                s.type.ty_str() == alone.package_symbols(pkgpath)[n].type.ty_str()
                for n, s in symbols.items()
            )
        assert _bindings(model.resolution) == _bindings(alone.resolution)
        assert [
            (node, binding.kind, binding.name, binding.pkgpath)
            for node, binding in model.type_resolution.items()
        ] == [
            (node, binding.kind, binding.name, binding.pkgpath)
            for node, binding in alone.type_resolution.items()
        ]
    app = str(tmp_path / "app" / "app.k")
    assert [item[:2] for item in again.occurrences(app)] == [
        item[:2] for item in alone.occurrences(app)
    ]
    # a shared symbol's uses are each program's own, however often it is reused
    base = again.package_symbols("lib")["Base"]
    counts = []
    for _ in range(3):
        model = driver.check(driver.load(inputs, memory), memory)
        counts.append(len(model.references(base)))
    own = alone.package_symbols("lib")["Base"]
    assert counts[0] == counts[1] == counts[2] == len(alone.references(own)) > 1


def test_clearing_a_model_leaves_the_stored_packages_intact(tmp_path: Path) -> None:
    _write(tmp_path, {**ORDERED, **LIBRARIES})
    externals = {
        "lib": str(tmp_path / "lib1"),
        "app": str(tmp_path / "app"),
        "low": str(tmp_path / "low"),
        "ordered": str(tmp_path / "lib"),
    }
    _write(tmp_path, {"d/main.k": "import ordered\n\nd = ordered.item\n"})
    first, second = (
        driver.Inputs([str(tmp_path / name / "main.k")], str(tmp_path / name), externals)
        for name in ("s", "d")
    )
    expected = [_outcome(first, None), _outcome(second, None)]
    assert "replicas: 2" in expected[0][0] and expected[1][1].count("error[") >= 4
    memory = _shared()
    for inputs in (first, second):
        # as a run does before compiling: the stored products are copies
        driver.check(driver.load(inputs, memory), memory).drop_tool_facts()
    assert [_outcome(first, memory), _outcome(second, memory)] == expected


EVICTED = {
    "lib/lib.k": "schema Base:\n    replicas: int = 1\n",
    "app/app.k": "import lib\n\nschema App(lib.Base):\n    name: str\n",
    "other/other.k": "value = 1\n",
    "one/main.k": 'import app\n\na = app.App {name = "a"}\n',
    "between/main.k": "import other\nimport app\n\nb = other.value\n",
    "two/main.k": (
        "import lib\nimport app\n\n"
        'base: lib.Base = app.App {name = "two"}\ncheck_app: app.App = base\n'
    ),
}


def test_a_package_is_not_reused_over_another_check_of_its_imports(
    tmp_path: Path, checks: list[str]
) -> None:
    # a store of two: when ``between`` runs, ``lib`` was evicted while ``app``, whose
    # symbols refer to that check of ``lib``, stays; app is not reused over a new lib
    _write(tmp_path, EVICTED)
    externals = {name: str(tmp_path / name) for name in ("lib", "app", "other")}
    programs = [
        driver.Inputs([str(tmp_path / name / "main.k")], str(tmp_path / name), externals)
        for name in ("one", "between", "two")
    ]
    without = _outcomes(programs, None)
    del checks[:]
    memory = _shared()
    memory.checked.limit = 2  # (the parsed files stay: the same syntax trees)
    assert _outcomes(programs, memory) == without
    assert checks.count("lib") == 2 and checks.count("app") == 2
