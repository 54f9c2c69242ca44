"""Queries of the semantic Model: types, bindings, positions, references, members, docs."""

from __future__ import annotations

import os
import tempfile

import pytest

from kclpy.loader import Loader, Program
from kclpy.sema import Model, SymbolKind, check_program
from kclpy.sema.symbols import SchemaType
from kclpy.sema.types import DictType, FuncType, ListType
from kclpy.syntax import ast, parse_source

PERSON = '''schema Base:
    id: str

mixin TagMixin:
    tags: [str] = []

schema Person(Base):
    """A person.

    Attributes
    ----------
    name : str, required
        The full name.
    age : int, optional
        Age in years.
    """
    mixin [TagMixin]
    name: str
    age?: int

alice = Person {id = "1", name = "Alice"}
n = alice.name
'''


def check(text: str, files: dict[str, str] | None = None) -> tuple[Model, ast.Module]:
    with tempfile.TemporaryDirectory() as directory:
        with open(os.path.join(directory, "kcl.mod"), "w", encoding="utf-8") as handle:
            handle.write('[package]\nname = "t"\n')
        for name, content in (files or {}).items():
            path = os.path.join(directory, name)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w", encoding="utf-8") as handle:
                handle.write(content)
        main = os.path.join(directory, "main.k")
        with open(main, "w", encoding="utf-8") as handle:
            handle.write(text)
        program = Loader(directory).load([main])
        assert not program.has_errors, program.diagnostics
        model = check_program(program)
        return model, program.packages["__main__"][0]


def assign(module: ast.Module, name: str) -> ast.AssignStmt:
    for stmt in module.body:
        if isinstance(stmt, ast.AssignStmt) and getattr(stmt.targets[0], "name", "") == name:
            return stmt
    raise KeyError(name)


def main_path(module: ast.Module) -> str:
    return module.file.path


def test_types_of_literals_lists_and_inferred_variables() -> None:
    model, module = check("a = 1\nb = [1, 2]\nc = {k = 'v'}\nd = a\n")
    assert str(model.type_of(assign(module, "a").value)) == "<int(1)>"
    assert str(model.type_of(assign(module, "b").value)) == "<[int(1) | int(2)]>"
    assert isinstance(model.type_of(assign(module, "c").value), DictType)
    symbols = model.package_symbols()
    assert symbols["a"].type.ty_str() == "int"
    assert symbols["b"].type.ty_str() == "[int]"
    assert symbols["d"].type.ty_str() == "int"


def test_a_dict_where_a_schema_is_expected_has_the_schema_type() -> None:
    model, module = check("schema S:\n    a: int\n\ns: S = {a = 1}\nd = {a = 1}\n")
    upgraded = model.type_of(assign(module, "s").value)
    assert isinstance(upgraded, SchemaType) and upgraded.ty_str() == "S"
    plain = model.type_of(assign(module, "d").value)
    assert isinstance(plain, DictType) and plain.ty_str() == "{str(a):int(1)}"


def test_comprehension_and_lambda_results() -> None:
    model, module = check("xs = [x * 2 for x in [1, 2]]\nf = lambda x: int { x + 1 }\ny = f(1)\n")
    comp = model.type_of(assign(module, "xs").value)
    assert isinstance(comp, ListType) and comp.ty_str() == "[int]"
    func = model.package_symbols()["f"].type
    assert isinstance(func, FuncType) and func.ty_str() == "(int) -> int"
    assert model.package_symbols()["y"].type.ty_str() == "int"


def test_name_uses_bind_to_definitions_and_references() -> None:
    model, module = check("a = 1\nb = a + a\n")
    use = assign(module, "b").value
    assert isinstance(use, ast.BinaryExpr)
    symbol = model.symbol_of(use.left)
    assert symbol is not None and symbol.name == "a" and symbol.kind == SymbolKind.VARIABLE
    assert len(model.references(symbol, include_definition=False)) == 2
    assert model.references(symbol)[0].begin_pos.line == 1


def test_symbol_at_positions() -> None:
    model, module = check(PERSON)
    path = main_path(module)
    at_use = model.symbol_at(path, (22, 12))  # "name" in alice.name
    assert at_use is not None and at_use.kind == SymbolKind.ATTRIBUTE and at_use.name == "name"
    at_schema = model.symbol_at(path, (21, 10))  # "Person" in the schema expression
    assert at_schema is not None and at_schema.kind == SymbolKind.SCHEMA
    at_key = model.symbol_at(path, (21, 17))  # the config key "id" -> the base attribute
    assert at_key is not None and at_key.name == "id" and at_key.owner is not None
    assert at_key.owner.name == "Base"
    at_var = model.symbol_at(path, (22, 6))  # "alice" in alice.name
    assert at_var is not None and at_var.kind == SymbolKind.VARIABLE
    assert model.symbol_at(path, (3, 1)) is None  # a blank line


def test_members_inherited_and_mixin_attributes() -> None:
    model, _ = check(PERSON)
    members = model.members("Person")
    assert list(members) == ["id", "name", "age", "tags"]
    assert members["age"].optional and not members["name"].optional
    assert members["tags"].type.ty_str() == "[str]"
    person = model.package_symbols()["alice"].type
    assert isinstance(person, SchemaType) and person.instance
    assert list(model.members(person)) == list(members)


def test_docs_of_schemas_and_attributes() -> None:
    model, _ = check(PERSON)
    person = model.package_symbols()["Person"]
    assert model.doc(person) == "A person."
    members = model.members("Person")
    assert model.doc(members["name"]) == "The full name."
    assert model.doc(members["age"]) == "Age in years."
    assert model.doc(members["id"]) == ""


def test_imported_members_bind_across_packages() -> None:
    model, module = check("import sub\nv = sub.value\n", {"sub/sub.k": "value = 1\n"})
    use = assign(module, "v").value
    symbol = model.symbol_of(use)
    assert symbol is not None and symbol.pkgpath == "sub" and symbol.type.ty_str() == "int"
    assert model.package_symbols()["v"].type.ty_str() == "int"


def test_schema_scope_parameters_and_loop_variables() -> None:
    text = "schema P[n: int]:\n    x: int = n\nys = [y for y in ['a']]\n"
    model, module = check(text)
    schema = module.body[0]
    assert isinstance(schema, ast.SchemaStmt)
    attr = schema.body[0]
    assert isinstance(attr, ast.SchemaAttr)
    param = model.symbol_of(attr.value) if attr.value is not None else None
    assert param is not None and param.kind == SymbolKind.PARAMETER
    comp = assign(module, "ys").value
    assert isinstance(comp, ast.ListCompExpr)
    loop = model.symbol_of(comp.elt)
    assert loop is not None and loop.kind == SymbolKind.LOOP_VARIABLE
    assert loop.type.ty_str() == "str"


def test_diagnostics_carry_secondary_labels() -> None:
    model, _ = check("schema P:\n    age: int\np = P {age = 'x'}\n")
    [error] = model.errors
    assert error.code.id == "E2G22" and error.message == "expected int, got str(x)"
    assert error.labels[0].span is not None and error.labels[0].span.begin_pos.line == 3
    assert error.labels[1].span is not None and error.labels[1].span.begin_pos.line == 2
    assert "variable is defined here" in error.labels[1].message


def test_every_error_is_reported_not_only_the_first() -> None:
    model, _ = check("a: int = 's'\nb = c\nd = 1 + 'x'\n")
    assert [d.code.id for d in model.errors] == ["E2G22", "E2L23", "E2G22"]


def test_a_run_checks_alike_without_the_tools_facts() -> None:
    """``tool_facts=False`` (what ``kcl run`` asks for) completes no uses, and reports
    the same diagnostics with the same bindings."""
    text = PERSON + 'bob = Person {id = "2", name = 1}\nc = nosuch\n'
    with tempfile.TemporaryDirectory() as directory:
        main = os.path.join(directory, "main.k")
        with open(main, "w", encoding="utf-8") as handle:
            handle.write(text)
        program = Loader(directory).load([main])
        full = check_program(program)
        lean = check_program(program, tool_facts=False)
    assert [d.message for d in lean.diagnostics] == [d.message for d in full.diagnostics]
    assert len(full.diagnostics) == 2
    assert full.completed and not lean.completed
    assert lean.resolution.keys() == full.resolution.keys()
    assert full.package_symbols()["n"].type.ty_str() == "str"


LONG_LISTS = {
    "distinct ints": "a = [" + ", ".join(str(n) for n in range(100)) + "]\n",
    "few literals": "a = [" + ", ".join(['1, "x", 2.5, "1"'] * 30) + "]\n",
    "int and float one": "a = [" + ", ".join(["1, 1.0"] * 40) + "]\n",
    "with a suffix": "a = [" + ", ".join(["1"] * 70) + ", 1Ki]\n",
    "with a name": "b = 1\na = [" + ", ".join(["1"] * 70) + ", b]\n",
    "annotated": "a: [int] = [" + ", ".join(['1, "x"'] * 40) + "]\n",
    "schema list": "schema S:\n    v: [str]\ns = S {v = [" + ", ".join(["1"] * 80) + "]}\n",
}


@pytest.mark.parametrize("name", sorted(LONG_LISTS))
def test_a_long_list_of_literals_types_alike_without_the_tools_facts(name: str) -> None:
    """A run types a long list of literals from one item per distinct literal: the
    variables' types and the diagnostics are the ones walking every item gives (a run
    records no per-node type)."""
    module, diagnostics = parse_source(LONG_LISTS[name], "main.k")
    assert not diagnostics
    program = Program("")
    program.packages["__main__"] = [module]
    full = check_program(program)
    lean = check_program(program, tool_facts=False)
    assert len(lean.types) < len(full.types)
    variables = full.package_symbols()
    assert variables
    for variable, symbol in variables.items():
        assert lean.package_symbols()[variable].type.ty_str() == symbol.type.ty_str()
    assert [d.message for d in lean.diagnostics] == [d.message for d in full.diagnostics]
