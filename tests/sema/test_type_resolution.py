"""The resolver's type bindings (``Model.type_resolution``): what every type name denotes.

Each type name of an annotation (an ``ast.NamedType``) and each schema reference
(a parent, a mixin, the schema of ``s: S {...}``) gets one binding from
``sema.resolve``; the compiler builds runtime types from them. These tests pin
the bindings of a program written for them, check that the checker sees every
type name of the in-repo conformance cases the same way, and run a program whose
annotations need each kind of binding (against the reference when it is there).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from reference import reference_available, run_reference

from kclpy.api import run_files
from kclpy.loader import Loader, Program
from kclpy.sema import Model, SymbolKind, check_program, resolve_program
from kclpy.sema.bindings import TypeBinding, TypeKind
from kclpy.syntax import ast
from kclpy.syntax.walk import walk

SHAPES = """\
schema Base:
    name: str

schema Labelled(Base):
    labels: {str:str} = {}
"""

MAIN = """\
import units
import pkg
import pkg as other

type Shape = pkg.Base
type Port = int | str
type Ports = [Port]
type Size = units.NumberMultiplier

schema Service(other.Labelled):
    base: Shape
    port: Port
    ports: Ports = [80, "http"]
    size: units.NumberMultiplier = 1Ki
    limit?: Size
    mapping: {str:Port} = {web = 80}
    check:
        (port as str) != "", "no port"

svc = Service {
    name = "svc"
    base = {name = "web"}
    port = "http"
}
shape = Shape {name = "direct"}
double = lambda p: Port -> [Port] { [p, p] }
twice = double(8080)
"""


def load(folder: Path) -> Program:
    program = Loader(str(folder), {}, {}).load([str(folder / "main.k")])
    assert not program.has_errors, program.diagnostics
    return program


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "kcl.mod").write_text('[package]\nname = "types"\n')
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "shapes.k").write_text(SHAPES)
    (tmp_path / "main.k").write_text(MAIN)
    return tmp_path


def descriptor(binding: TypeBinding) -> str:
    if binding.kind == TypeKind.BASIC:
        return "basic"
    if binding.kind == TypeKind.ALIAS:
        return "alias"
    if binding.kind == TypeKind.NUMBER_MULTIPLIER:
        return "multiplier"
    if binding.kind == TypeKind.UNKNOWN:
        return "unknown"
    return f"schema:{binding.pkgpath}.{binding.member}" if binding.pkgpath else "schema"


def written_types(model: Model, program: Program) -> dict[tuple[int, str], set[str]]:
    """Each type name of the main file, as ``(line, name) -> descriptors``."""
    found: dict[tuple[int, str], set[str]] = {}
    for module in program.packages["__main__"]:
        for node in walk(module):
            binding = model.type_resolution.get(node.id)
            if binding is not None:
                line = node.span.file.pos(node.span.start).line
                found.setdefault((line, binding.name), set()).add(descriptor(binding))
    return found


def test_every_kind_of_type_name(project: Path) -> None:
    program = load(project)
    found = written_types(resolve_program(program), program)
    assert found == {
        (5, "pkg.Base"): {"schema:pkg.Base"},
        (6, "int"): {"basic"},
        (6, "str"): {"basic"},
        (7, "Port"): {"alias"},
        (8, "units.NumberMultiplier"): {"multiplier"},
        (10, "other.Labelled"): {"schema:pkg.Labelled"},
        (11, "Shape"): {"alias"},
        (12, "Port"): {"alias"},
        (13, "Ports"): {"alias"},
        (14, "units.NumberMultiplier"): {"multiplier"},
        (15, "Size"): {"alias"},
        (16, "str"): {"basic"},
        (16, "Port"): {"alias"},
        (18, "str"): {"basic"},
        (26, "Port"): {"alias"},
    }


def test_an_alias_binding_carries_the_aliased_type(project: Path) -> None:
    program = load(project)
    model = resolve_program(program)
    aliases = {
        binding.name: binding.aliased
        for binding in model.type_resolution.values()
        if binding.kind == TypeKind.ALIAS
    }
    assert isinstance(aliases["Port"], ast.UnionType)
    assert isinstance(aliases["Shape"], ast.NamedType) and aliases["Shape"].name == "pkg.Base"


EXPECTED = """\
svc:
  name: svc
  labels: {}
  base:
    name: web
  port: http
  ports:
  - 80
  - http
  size: 1024.0
  mapping:
    web: 80
shape:
  name: direct
twice:
- 8080
- 8080
"""


@pytest.mark.parametrize("check", [True, False])
def test_a_program_needing_every_kind_runs(project: Path, check: bool) -> None:
    result = run_files([str(project / "main.k")], work_dir=str(project), check=check)
    assert result.ok, result.diagnostics
    assert result.text == EXPECTED


def test_the_program_runs_as_in_the_reference(project: Path) -> None:
    if not reference_available():
        pytest.skip("the reference KCL (kcl-lib) is not installed")
    expected = run_reference(files=["main.k"], cwd=project)
    assert expected.returncode == 0, expected.stderr
    assert expected.stdout == EXPECTED


def test_a_union_alias_is_checked_at_run_time(project: Path) -> None:
    (project / "main.k").write_text("type Port = int | str\nvalue = 1.5\nport: Port = value\n")
    result = run_files([str(project / "main.k")], work_dir=str(project), check=False)
    assert not result.ok
    assert "expect int | str, got float" in result.diagnostics[0].message


# ---------------------------------------------------------------------- the checker's view


def agrees(binding: TypeBinding, symbol: object, pkgpath: str) -> bool:
    """Whether a type binding names what the checker bound the same type name to."""
    kind = binding.kind
    if kind in (TypeKind.BASIC, TypeKind.NUMBER_MULTIPLIER):
        return symbol is None
    if kind == TypeKind.UNKNOWN:  # a clean program names no unknown type
        return False
    name = getattr(symbol, "name", None)
    owner = getattr(symbol, "pkgpath", None)
    if kind == TypeKind.ALIAS:
        return getattr(symbol, "kind", None) == SymbolKind.TYPE_ALIAS and name == binding.name
    if binding.pkgpath:
        return owner == binding.pkgpath and name == binding.member.rsplit(".", 1)[-1]
    return owner == pkgpath and name == binding.name


def disagreements(main: Path) -> list[str]:
    """Type names of a clean program where the checker and the resolver disagree, and
    type names the resolver did not bind."""
    program = Loader(str(main.parent), {}, {}).load([str(main)])
    if program.has_errors:
        return []
    model = check_program(program)
    if model.has_errors:
        return []
    found: list[str] = []
    for pkgpath, modules in program.packages.items():
        for module in modules:
            for node in walk(module):
                if not isinstance(node, ast.NamedType):
                    continue
                where = f"{main}:{node.span.file.pos(node.span.start)} {node.name}"
                binding = model.type_resolution.get(node.id)
                symbol = model.symbol_of(node)
                if binding is None:
                    found.append(f"{where}: not bound")
                elif not agrees(binding, symbol, pkgpath):
                    found.append(f"{where}: {symbol!r} / {binding!r}")
    return found


CASES = sorted((Path(__file__).parent.parent / "conformance").glob("**/main.k"))


def test_checker_and_resolver_agree_on_every_type_name() -> None:
    assert len(CASES) > 20
    assert [text for main in CASES for text in disagreements(main)] == []


def test_checker_and_resolver_agree_on_the_program(project: Path) -> None:
    assert disagreements(project / "main.k") == []
