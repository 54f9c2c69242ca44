"""Schemas compiled when first instantiated (the code holds a ``SchemaHeader``, the
run's code source, ``kclpy.pipeline.queries.ProgramCode``, compiles the body).

After the type checker, ``kcl run`` compiles a schema's body only when the run first
needs more than its header: a model library's program uses few of its schemas
(konfig's guestbook stack: 33 of 387). These tests hold the lazy path to the eager
one: the same output and errors on every test program, the same cache blobs, and
nothing compiled that the run did not instantiate.
"""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import pytest

from kclpy.compile.code import PackageCode, SchemaHeader, SchemaProto, schema_protos
from kclpy.compile.stmts import LateCompileError, PackageCompiler
from kclpy.emit import EmitOptions
from kclpy.pipeline import driver, pickling
from kclpy.pipeline.inputs import Settings
from kclpy.pipeline.queries import Database, ProgramCode
from kclpy.sema import resolve_program
from kclpy.values.errors import KclRuntimeError

ROOT = Path(__file__).resolve().parents[2]

LIBRARY = """\
schema Used:
    name: str
    port: int = 80
    check:
        port > 0

schema Parent:
    kind: str = "parent"

schema Unused(Parent):
    items: [str] = [x for x in ["a", "b"]]
    size: int = len(items)

rule Never:
    True
"""

MAIN = """\
import lib

a = lib.Used {name = "x"}
"""


def _program(tmp_path: Path) -> Path:
    (tmp_path / "kcl.mod").write_text('[package]\nname = "app"\n', encoding="utf-8")
    (tmp_path / "lib").mkdir()
    (tmp_path / "lib" / "lib.k").write_text(LIBRARY, encoding="utf-8")
    (tmp_path / "main.k").write_text(MAIN, encoding="utf-8")
    return tmp_path / "main.k"


Codes = dict[str, PackageCode]


def _compiled(path: Path, lazy: bool) -> tuple[Codes | None, ProgramCode, list[str]]:
    """The program's codes and code source (``lazy``: a run's database, which defers
    the schemas to the code source; else a shared one, which compiles them all)."""
    database = Database(Settings(tool_facts=False, shared=not lazy))
    inputs = driver.Inputs([str(path)], str(path.parent))
    program = driver.load(inputs, database)
    messages = [d.message for d in program.diagnostics if d.is_error]
    if messages:
        return None, ProgramCode(), messages
    model = driver.check(program, database)
    messages = [d.message for d in model.diagnostics if d.is_error]
    if messages:
        return None, ProgramCode(), messages
    model.drop_tool_facts()
    diagnostics: list[Any] = []
    built = driver.compile_program(program, model, diagnostics, database)
    messages = [d.message for d in diagnostics if d.is_error]
    return (None, ProgramCode(), messages) if built is None else (*built, messages)


def _run(path: Path, codes: Codes, source: ProgramCode) -> str:
    compiled = driver.Compiled(codes, str(path.parent), {}, str(path.parent), None, source)
    settings = driver.RunSettings()
    runner = driver.start(compiled, settings)
    try:
        return driver.render(driver.execute(runner, settings), EmitOptions())
    except KclRuntimeError as error:
        return f"error: {error}"


def _outcome(path: Path, lazy: bool) -> str:
    codes, source, messages = _compiled(path, lazy)
    if codes is None:
        return "\n".join(messages)
    return _run(path, codes, source)


def _protos(codes: Codes, pkgpath: str) -> dict[str, SchemaHeader]:
    return {proto.name: proto for proto in schema_protos(codes[pkgpath])}


def _pending(proto: SchemaHeader) -> bool:
    return not isinstance(proto, SchemaProto)


def test_only_the_schemas_a_run_instantiates_are_compiled(tmp_path: Path) -> None:
    main = _program(tmp_path)
    codes, source, messages = _compiled(main, lazy=True)
    assert codes is not None and not messages
    protos = _protos(codes, "lib")
    assert set(protos) == {"Used", "Parent", "Unused", "Never"}
    assert all(_pending(proto) for proto in protos.values())
    assert _run(main, codes, source) == "a:\n  name: x\n  port: 80\n"
    assert sorted(source.compiled) == [("lib", "Used")]
    source.fill(codes)
    protos = _protos(codes, "lib")
    assert [name for name, proto in sorted(protos.items()) if _pending(proto)] == [
        "Never",
        "Parent",
        "Unused",
    ]


def test_an_instance_checked_against_a_schema_type_leaves_that_schema_uncompiled(
    tmp_path: Path,
) -> None:
    """Outside ``as``, any schema instance passes where a schema is expected (the checker
    judged it): the expected schema is not resolved, so not compiled for the check."""
    main = _program(tmp_path)
    main.write_text(
        "import lib\n\n"
        'used: any = lib.Used {name = "x"}\n\n'
        "schema Holder:\n    item: lib.Unused\n\n"
        "h = Holder {item = used}\n",
        encoding="utf-8",
    )
    codes, source, messages = _compiled(main, lazy=True)
    assert codes is not None and not messages
    assert (
        _run(main, codes, source)
        == "used:\n  name: x\n  port: 80\nh:\n  item:\n    name: x\n    port: 80\n"
    )
    assert sorted(source.compiled) == [("__main__", "Holder"), ("lib", "Used")]


def _blob(code: PackageCode) -> bytes:
    return pickling.dumps(code)


def test_a_cache_entry_holds_the_schemas_its_run_compiled(tmp_path: Path) -> None:
    """Pickled after its run filled in what it compiled, a package holds a plain
    ``SchemaProto`` for each schema the run used and a ``SchemaHeader`` for the others;
    read back, a header's body comes from a code source that rebuilds the program from
    source (once), and the package then pickles to the eagerly compiled package's
    bytes."""
    main = _program(tmp_path)
    eager, _, _ = _compiled(main, lazy=False)
    lazy, source, _ = _compiled(main, lazy=True)
    assert eager is not None and lazy is not None
    assert _run(main, lazy, source) == "a:\n  name: x\n  port: 80\n"  # compiles Used only
    source.fill(lazy)
    loaded = pickling.load(io.BytesIO(_blob(lazy["lib"])))
    protos = _protos({"lib": loaded}, "lib")
    assert type(protos["Used"]) is SchemaProto
    assert {name for name, proto in protos.items() if type(proto) is SchemaHeader} == {
        "Never",
        "Parent",
        "Unused",
    }
    assert len(_blob(loaded)) < len(_blob(eager["lib"]))
    rebuilds: list[int] = []

    def rebuild() -> ProgramCode:
        rebuilds.append(1)
        fresh, fresh_source, _ = _compiled(main, lazy=True)
        assert fresh is not None
        return fresh_source

    again = ProgramCode(rebuild)
    assert again.schema(protos["Unused"]).attrs[0].name == "items"
    for proto in protos.values():
        if type(proto) is SchemaHeader:
            again.schema(proto)
    assert rebuilds == [1] and again.rebuilt
    assert sorted(again.compiled) == [("lib", "Never"), ("lib", "Parent"), ("lib", "Unused")]
    again.fill({"lib": loaded})
    assert _plain(loaded) == _plain(eager["lib"])


def test_a_code_source_without_the_schema_raises_a_lookup_error(tmp_path: Path) -> None:
    """A rebuild that finds the files changed gives no source: the schema is not
    found (the VM reports it as an error of the run)."""
    header = SchemaHeader("Gone", "schema", "lib", str(tmp_path / "lib.k"))
    with pytest.raises(LookupError, match="changed while it ran"):
        ProgramCode(lambda: None).schema(header)


def _plain(value: Any) -> Any:
    """Compiled code as nested plain data (a filled pending schema as the proto it
    stands for), to compare codes made by different compiles."""
    if isinstance(value, list | tuple):
        return [type(value).__name__, *(_plain(item) for item in value)]
    if isinstance(value, dict):
        return {key: _plain(item) for key, item in value.items()}
    if isinstance(value, SchemaProto):
        return ["SchemaProto", *(_plain(getattr(value, f)) for f in SchemaProto.__slots__)]
    slots = getattr(type(value), "__slots__", None)
    if slots and type(value).__module__ == "kclpy.compile.code":
        return [type(value).__name__, *(_plain(getattr(value, name)) for name in slots)]
    return value


def test_an_error_compiling_a_pending_schema_is_raised_where_it_is_read() -> None:
    """Only a type-checked program compiles lazily: the checker reports what the
    compiler could; if compiling a pending schema reports an error anyway (here the
    checker was skipped), reading the schema raises it instead of losing it."""
    from kclpy.loader import Program
    from kclpy.syntax import parse_source

    text = "schema S:\n    a = [x for x, y, z in [[1, 2, 3]]]\n\nb = 1\n"
    module, diagnostics = parse_source(text, "main.k")
    assert not diagnostics
    program = Program("")
    program.packages["__main__"] = [module]
    compiler = PackageCompiler("__main__", [module], resolve_program(program), lazy=True)
    code = compiler.compile()
    assert not compiler.diagnostics
    (proto,) = _protos({"__main__": code}, "__main__").values()
    source = ProgramCode()
    source.defer("__main__", compiler.deferred)
    with pytest.raises(LateCompileError, match="the number of loop variables is 3"):
        source.schema(proto)


def _test_programs() -> list[Path]:
    return sorted(path for path in (ROOT / "tests").rglob("*.k") if ".corpus" not in path.parts)


def test_every_test_program_runs_alike_lazy_and_eager() -> None:
    outcomes = {
        path.relative_to(ROOT).as_posix(): (_outcome(path, False), _outcome(path, True))
        for path in _test_programs()
    }
    assert len(outcomes) > 50
    differing = {name: pair for name, pair in outcomes.items() if pair[0] != pair[1]}
    assert not differing
