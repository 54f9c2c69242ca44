"""A schema attribute whose setter only stores a literal is marked at compile time
(``SchemaProto.constants``): the schema builder stores the literal without running
the setter. The marking must name exactly the setters whose code is nothing but
"push this literal, store it into the attribute" (checked against that bytecode
shape on every program under tests/ and examples/)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from kclpy.compile.code import Code, PackageCode, SchemaProto, schema_protos
from kclpy.compile.opcodes import Op
from kclpy.pipeline import driver
from kclpy.pipeline.inputs import Settings
from kclpy.pipeline.queries import Database

ROOT = Path(__file__).resolve().parents[2]


def protos(codes: dict[str, PackageCode]) -> list[SchemaProto]:
    return [
        proto
        for package in codes.values()
        for proto in schema_protos(package)
        if isinstance(proto, SchemaProto)
    ]


def compiled(path: Path) -> dict[str, PackageCode] | None:
    diagnostics: list[Any] = []
    program = driver.load(driver.Inputs([str(path)]))
    if program.has_errors:
        return None
    model = driver.check(program, Database(Settings(tool_facts=False)))
    if model.has_errors:
        return None
    built = driver.compile_program(program, model, diagnostics)
    return None if built is None else built[0]


_LOADS = {int(Op.LOAD_TRUE): True, int(Op.LOAD_FALSE): False, int(Op.LOAD_NONE): None}


def stores_only_a_literal(code: Code) -> tuple[bool, Any]:
    """Whether the code is: load a scalar literal, STORE_ATTR_SELF, return None."""
    ops = code.ops
    tail = [ops[2], ops[4], ops[6]] if len(ops) == 8 else []
    if tail != [int(Op.STORE_ATTR_SELF), int(Op.LOAD_NONE), int(Op.RETURN)]:
        return False, None
    if ops[0] == Op.LOAD_CONST and type(code.consts[ops[1]]) in (int, float, str):
        return True, code.consts[ops[1]]
    if ops[0] in _LOADS:
        return True, _LOADS[ops[0]]
    return False, None


SCHEMA = """schema S:
    a: int = 1
    b = "x"
    c: "y"
    d?: "z"
    e: int = 1 if True else 2
    f: str = "${b}"
    g: float = 1.5
    h: bool = False
    i: int = 1
    i = 2
    j: [int] = [1]
    k = 1Ki
    l: int = 1
    l += 1
    if True:
        m: int = 3
    n = o = None
    p: {str:int} = {a = 1}
    p |= {b = 2}

s = S {}
"""


def test_the_constants_of_one_schema(tmp_path: Path) -> None:
    (tmp_path / "main.k").write_text(SCHEMA, encoding="utf-8")
    codes = compiled(tmp_path / "main.k")
    assert codes is not None
    (proto,) = protos(codes)
    # (`l += 1` runs after the instance's config: an assignment into the value, apart)
    assert proto.constants == {
        "a": 1, "b": "x", "c": "y", "g": 1.5, "h": False, "l": 1, "n": None, "o": None
    }  # fmt: skip
    for name, code in proto.setters.items():
        shape, value = stores_only_a_literal(code)
        assert shape == (name in proto.constants), name
        if shape:
            assert proto.constants[name] == value and type(proto.constants[name]) is type(value)


def test_the_marking_is_the_bytecode_shape_on_every_program() -> None:
    """Every schema setter of the programs under tests/ and examples/ (and of the
    conformance corpus where it was built, ``.corpus/``)."""
    checked = 0
    corpus = ROOT / ".corpus" / "kcl-conformance"
    paths = [*ROOT.glob("tests/**/*.k"), *ROOT.glob("examples/**/*.k"), *corpus.glob("**/main.k")]
    for path in sorted(paths):
        for proto in protos(compiled(path) or {}):
            for name, code in proto.setters.items():
                shape, value = stores_only_a_literal(code)
                assert shape == (name in proto.constants), (path, proto.name, name)
                if shape:
                    assert proto.constants[name] == value, (path, proto.name, name)
                checked += 1
    assert checked > 50
