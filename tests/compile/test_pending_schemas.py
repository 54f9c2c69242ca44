"""Schemas compiled when first instantiated (``PendingSchema``).

After the type checker, ``kcl run`` compiles a schema's body only when the run first
reads more than its header: a model library's program uses few of its schemas
(konfig's guestbook stack: 33 of 387). These tests hold the lazy path to the eager
one: the same output and errors on every test program, the same cache blobs, and
nothing compiled that the run did not instantiate.
"""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import pytest

from kclpy.compile.code import (
    AbsentSchema,
    PackageCode,
    PendingSchema,
    SchemaProto,
    provide_sources,
    schema_protos,
)
from kclpy.compile.stmts import LateCompileError, PackageCompiler
from kclpy.emit import EmitOptions
from kclpy.pipeline import driver, pickling
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


def _compiled(path: Path, lazy: bool) -> tuple[dict[str, PackageCode] | None, list[str]]:
    inputs = driver.Inputs([str(path)], str(path.parent))
    program = driver.load(inputs)
    messages = [d.message for d in program.diagnostics if d.is_error]
    if messages:
        return None, messages
    model = driver.check(program, tool_facts=False)
    messages = [d.message for d in model.diagnostics if d.is_error]
    if messages:
        return None, messages
    model.drop_tool_facts()
    diagnostics: list[Any] = []
    codes = driver.compile_program(program, model, diagnostics, lazy=lazy)
    return codes, [d.message for d in diagnostics if d.is_error]


def _run(path: Path, codes: dict[str, PackageCode]) -> str:
    compiled = driver.Compiled(codes, str(path.parent), {}, str(path.parent))
    settings = driver.RunSettings()
    runner = driver.start(compiled, settings)
    try:
        return driver.render(driver.execute(runner, settings), EmitOptions())
    except KclRuntimeError as error:
        return f"error: {error}"


def _outcome(path: Path, lazy: bool) -> str:
    codes, messages = _compiled(path, lazy)
    if codes is None:
        return "\n".join(messages)
    return _run(path, codes)


def _protos(codes: dict[str, PackageCode], pkgpath: str) -> dict[str, SchemaProto]:
    return {proto.name: proto for proto in schema_protos(codes[pkgpath])}


def _pending(proto: SchemaProto) -> bool:
    return isinstance(proto, PendingSchema) and proto.compile is not None


def test_only_the_schemas_a_run_instantiates_are_compiled(tmp_path: Path) -> None:
    main = _program(tmp_path)
    codes, messages = _compiled(main, lazy=True)
    assert codes is not None and not messages
    protos = _protos(codes, "lib")
    assert set(protos) == {"Used", "Parent", "Unused", "Never"}
    assert all(_pending(proto) for proto in protos.values())
    assert _run(main, codes) == "a:\n  name: x\n  port: 80\n"
    assert [name for name, proto in sorted(protos.items()) if _pending(proto)] == [
        "Never",
        "Parent",
        "Unused",
    ]


def _blob(code: PackageCode) -> bytes:
    return pickling.dumps(code)


def test_a_cache_entry_holds_the_schemas_its_run_compiled(tmp_path: Path) -> None:
    """Pickled, a compiled schema is a plain ``SchemaProto`` and a pending one an
    ``AbsentSchema`` (its header); read back, an absent schema is compiled from the
    program's source when first read, through the thread's provider, and the package
    then pickles to the eagerly compiled package's bytes."""
    main = _program(tmp_path)
    eager, _ = _compiled(main, lazy=False)
    lazy, _ = _compiled(main, lazy=True)
    assert eager is not None and lazy is not None
    assert _run(main, lazy) == "a:\n  name: x\n  port: 80\n"  # compiles Used only
    loaded = pickling.load(io.BytesIO(_blob(lazy["lib"])))
    protos = _protos({"lib": loaded}, "lib")
    assert type(protos["Used"]) is SchemaProto
    assert {name for name, proto in protos.items() if type(proto) is AbsentSchema} == {
        "Never",
        "Parent",
        "Unused",
    }
    assert len(_blob(loaded)) < len(_blob(eager["lib"]))
    fresh, _ = _compiled(main, lazy=True)
    assert fresh is not None
    asked: list[tuple[str, str]] = []

    def provider(pkgpath: str, name: str) -> SchemaProto:
        asked.append((pkgpath, name))
        proto = _protos(fresh, pkgpath)[name]
        assert isinstance(proto, PendingSchema)
        return proto.filled()

    provide_sources(provider)
    try:
        assert protos["Unused"].attrs[0].name == "items"
        assert asked == [("lib", "Unused")]
        for proto in protos.values():
            proto.checks  # noqa: B018
    finally:
        provide_sources(None)
    assert sorted(asked) == [("lib", "Never"), ("lib", "Parent"), ("lib", "Unused")]
    assert _plain(loaded) == _plain(eager["lib"])


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
    with pytest.raises(LateCompileError, match="the number of loop variables is 3"):
        proto.attrs  # noqa: B018


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
