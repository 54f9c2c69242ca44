"""The resolver: the run-time binding of every name use (``Model.resolution``).

Each program marks its lines with ``# B: name=binding ...``: every use of ``name``
on that line must have that binding. Bindings are written ``local`` (``local+1``:
one code unit out), ``global``, ``import:pkgpath``, ``builtin``, ``undefined``,
prefixed ``schema/`` when the schema's attribute is looked up first and ``key/``
when a sibling config key is.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from kclpy.api import run
from kclpy.loader import Loader, Program
from kclpy.sema import Model, SymbolKind, check_program, resolve_program
from kclpy.sema.bindings import Binding, BindingKind
from kclpy.syntax import ast, parse_source
from kclpy.syntax.walk import walk

KINDS = {
    BindingKind.LOCAL: "local",
    BindingKind.GLOBAL: "global",
    BindingKind.IMPORT: "import",
    BindingKind.BUILTIN: "builtin",
    BindingKind.UNDEFINED: "undefined",
}

PROGRAMS = {
    "package": """\
import math
a = 1
b = a + len([1])  # B: a=global len=builtin
c = math.pow(b, 2)  # B: math=import:math b=global
d = nowhere  # B: nowhere=undefined
""",
    "loops": """\
x = 10
l = [x * y for x in range(3) for y in [x]]  # B: x=local y=local range=builtin
q = all x in l { x > 0 }  # B: x=local l=global
m = {k: v for k, v in {a = x}}  # B: k=local v=local x=global
after = x  # B: x=global
""",
    "config_keys": """\
a = 1
c = {a = 2, b = a}  # B: a=key/global
d = [{k = v} for k, v in {x = 1}]  # B: k=local v=local
e = {b = a, a = 3}  # B: a=global
""",
    "schema": """\
n = 1
schema S[p]:
    v: int = p + n + w  # B: p=local n=schema/global w=schema/undefined
    f = lambda y { y + p + n }  # B: y=local p=local+1 n=schema/global
    [k: str]: int = len(k)  # B: k=local
    check:
        k != "", "{}".format(v)  # B: k=local v=schema/undefined
""",
    "lambda": """\
g = 5
f = lambda x {
    z = x + g  # B: x=local g=global
    z = z + 1  # B: z=local
    h = lambda { z + x }  # B: z=local+1 x=local+1
    h()  # B: h=local
}
""",
}


def descriptor(binding: Binding) -> str:
    text = KINDS[binding.kind]
    if binding.kind == BindingKind.LOCAL and binding.depth:
        text += f"+{binding.depth}"
    if binding.kind == BindingKind.IMPORT:
        text += f":{binding.pkgpath}"
    if binding.dynamic:
        text = "schema/" + text
    if binding.config_key:
        text = "key/" + text
    return text


def resolve_text(text: str, check: bool = False) -> tuple[Model, ast.Module]:
    module, diagnostics = parse_source(text, "main.k")
    assert not diagnostics
    program = Program("")
    program.packages["__main__"] = [module]
    for stmt in module.body:
        if isinstance(stmt, ast.ImportStmt):
            program.imports.setdefault(module.id, {})[stmt.path.split(".")[-1]] = stmt.path
    return (check_program(program) if check else resolve_program(program)), module


def expectations(text: str) -> list[tuple[int, str, str]]:
    found = []
    for number, line in enumerate(text.splitlines(), 1):
        marker = re.search(r"# B: (.*)$", line)
        if marker:
            for item in marker.group(1).split():
                name, _, expected = item.partition("=")
                found.append((number, name, expected))
    return found


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_bindings_as_marked(name: str) -> None:
    text = PROGRAMS[name]
    model, module = resolve_text(text)
    uses: dict[tuple[int, str], list[str]] = {}
    for node in walk(module):
        if isinstance(node, ast.NameExpr) and node.id in model.resolution:
            line = node.span.file.pos(node.span.start).line
            uses.setdefault((line, node.name), []).append(descriptor(model.resolution[node.id]))
    marks = expectations(text)
    assert marks
    for line, use, expected in marks:
        assert uses.get((line, use)), f"line {line}: no use of {use} resolved"
        assert set(uses[(line, use)]) == {expected}, f"line {line}: {use}"


def positions(model: Model, module: ast.Module) -> dict[tuple[int, str], str]:
    """Each resolved name use as ``(offset, name) -> descriptor``."""
    return {
        (node.span.start, node.name): descriptor(model.resolution[node.id])
        for node in walk(module)
        if isinstance(node, ast.NameExpr) and node.id in model.resolution
    }


def test_check_program_resolves_as_resolve_program_does() -> None:
    for text in PROGRAMS.values():
        alone = positions(*resolve_text(text))
        checked = positions(*resolve_text(text, check=True))
        assert alone and alone == checked


def test_uses_that_resolve_alike_share_one_binding() -> None:
    model, module = resolve_text("a = 1\nb = [a, a, a]\n")
    uses = [node for node in walk(module) if isinstance(node, ast.NameExpr) and node.name == "a"]
    assert len(uses) == 4
    assert len({id(model.resolution[node.id]) for node in uses}) == 1


def test_without_type_checks_names_are_still_resolved() -> None:
    result = run("a = nowhere\n", check=False)
    assert [d.message for d in result.diagnostics] == ["name 'nowhere' is not defined"]
    result = run("f = lambda x {\n    y = x + 1\n    y * 2\n}\nv = f(2)\n", check=False)
    assert result.ok and result.text == "v: 6\n"


# the checker's symbol kinds whose uses must have these run-time binding kinds
AGREEING = {
    SymbolKind.BUILTIN: {BindingKind.BUILTIN},
    SymbolKind.MODULE: {BindingKind.IMPORT},
    SymbolKind.PARAMETER: {BindingKind.LOCAL},
    SymbolKind.LOOP_VARIABLE: {BindingKind.LOCAL},
    SymbolKind.INDEX_KEY: {BindingKind.LOCAL},
}


def disagreements(main: Path) -> list[str]:
    """Name reads of a clean program where the checker and the resolver disagree."""
    program = Loader(str(main.parent), {}, {}).load([str(main)])
    if program.has_errors:
        return []
    model = check_program(program)
    if model.has_errors:
        return []
    found: list[str] = []
    for modules in program.packages.values():
        for module in modules:
            for node in walk(module):
                if not isinstance(node, ast.NameExpr):
                    continue
                binding = model.resolution.get(node.id)
                symbol = model.bindings.get(node.id)
                if binding is None or symbol is None or binding.config_key:
                    continue
                expected = AGREEING.get(symbol.kind)
                undefined = binding.kind == BindingKind.UNDEFINED and not binding.dynamic
                if undefined or (expected is not None and binding.kind not in expected):
                    where = node.span.file.pos(node.span.start)
                    found.append(f"{main}:{where} {node.name}: {symbol.kind} / {binding!r}")
    return found


CASES = sorted((Path(__file__).parent.parent / "conformance").glob("**/main.k"))


def test_checker_and_resolver_agree_on_every_name_read() -> None:
    assert len(CASES) > 20
    assert [text for main in CASES for text in disagreements(main)] == []
