"""Package variables set once, unconditionally, to a constant (a literal, a list of
literals, a config literal of constants) get no setter code: the VM puts a new value
of the constant in place when the package state is made (``PackageCode.constants``).
Their output must be the one their code gives (each program runs twice, the second
time with the constants turned off), and a run must never see another run's values."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import kclpy.compile.stmts
from kclpy.compile.code import ConfigConstant
from kclpy.emit import EmitOptions
from kclpy.pipeline import driver
from kclpy.syntax import ast

PROGRAMS = {
    "scalars and lists": 'a = 1\nb = "x"\nc = [1, "y", None]\nd = []\ne = 1.5\nf = True\n',
    "configs": (
        'a = {k = 1, "x.y": "s", l = [1, 2], d = {e = True, f: None}, g: 1.5}\n'
        "b = a | {k = 2}\nc = {}\nd = {k: 1}\ne = d | {k: 1}\n_p = {m = 1}\nq = _p.m\n"
        "r = a.d\ns = a.l\n"
    ),
    "unions of constants": (
        "a = {k: {x = 1}}\nb = a | {k: {y = 2}}\nc = {l = [1]}\nd = c | {l += [2]}\n"
        "e = {k = {x = 1}}\nf = e | {k: {y = 2}}\ng = {k: {y = 2}} | e\n"
    ),
    "conflicts": "a = {k = 1}\nb = {k = 2}\nc = a | b\nd = {k: 1} | {k: 2}\n",
    "not constants": (
        "n = 1\na = {k = n}\nb = {k = 1, k = 2}\nc = {k += [1]}\nd = {k.l = 1}\n"
        "e = {**a}\nf = {k = 1 if True else 2}\ng = {k = [[1]]}\nh = {k = 1Ki}\n"
    ),
    "schemas over constants": (
        "schema S:\n    k: int\n    l: [int] = []\n\n"
        "a = {k = 1, l = [2]}\ns = S {**a}\nt = S {k = a.k}\n"
    ),
    "a constant set again": "a = {k = 1}\na = {k = 2}\n",
}


def output(path: Path) -> str:
    result = driver.run(driver.Inputs([str(path)]), driver.RunSettings(), EmitOptions())
    return result.text + "".join(d.message for d in result.diagnostics)


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_a_constant_gives_the_output_of_its_code(
    name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("KCLPY_NO_CACHE", "1")  # (the second run must compile again)
    main = tmp_path / "main.k"
    main.write_text(PROGRAMS[name], encoding="utf-8")
    with_constants = output(main)
    monkeypatch.setattr(kclpy.compile.stmts, "constant_setter", lambda _: ast.NOT_LITERAL)
    assert output(main) == with_constants


def compiled(tmp_path: Path, text: str) -> driver.Compiled:
    main = tmp_path / "main.k"
    main.write_text(text, encoding="utf-8")
    diagnostics: list[Any] = []
    found = driver.front_end(driver.Inputs([str(main)]), diagnostics)
    assert found is not None and not diagnostics
    return found


@pytest.mark.parametrize(
    ("name", "constants"),
    [("configs", {"a", "c", "d", "_p"}), ("not constants", {"n"})],
)
def test_which_variables_are_constants(tmp_path: Path, name: str, constants: set[str]) -> None:
    package = compiled(tmp_path, PROGRAMS[name]).codes["__main__"]
    assert {package.slot_names[slot] for slot in package.constants} == constants
    for slot, value in package.constants.items():
        if package.slot_names[slot] in ("a", "c", "d", "_p"):
            assert isinstance(value, ConfigConstant)


def test_each_run_gets_new_values(tmp_path: Path) -> None:
    found = compiled(tmp_path, "a = {k = 1, l = [1], d = {e = 2}}\nb = [1, 2]\n")
    first = driver.execute(driver.start(found, driver.RunSettings()), driver.RunSettings())
    value = first.documents[0]
    value["a"]["k"] = 9
    value["a"]["l"].append(2)
    value["a"]["d"]["e"] = 9
    value["b"].append(3)
    second = driver.execute(driver.start(found, driver.RunSettings()), driver.RunSettings())
    assert second.documents[0] == {"a": {"k": 1, "l": [1], "d": {"e": 2}}, "b": [1, 2]}


SCHEMAS = {
    "schemas, mixins, protocols, rules": (
        "protocol PProtocol:\n    n: int\n\nmixin MMixin for PProtocol:\n    m = n + 1\n\n"
        "schema B:\n    kind: str = 'b'\n\nschema S(B):\n    mixin [MMixin]\n    n: int = 1\n"
        "    check:\n        n > 0\n\nrule R:\n    True\n\n"
        "s = S {}\nt = S {n = 2}\nr = R {}\ncount = len(S.instances())\n"
    ),
    "a schema read before its statement": "a = S {}\nschema S:\n    k: int = 1\n",
    "a schema and its alias": "schema S:\n    k: int = 1\n\ntype T = S\na = T {k = 2}\n",
    "a schema named again": "schema S:\n    k: int = 1\n\nS = 1\n",
}


def _no_schema_constants(self: Any, setters: Any) -> Any:
    return ast.NOT_LITERAL


@pytest.mark.parametrize("name", sorted(SCHEMAS))
def test_a_schema_constant_gives_the_output_of_its_code(
    name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("KCLPY_NO_CACHE", "1")
    main = tmp_path / "main.k"
    main.write_text(SCHEMAS[name], encoding="utf-8")
    as_constants = output(main)
    monkeypatch.setattr(kclpy.compile.stmts.PackageCompiler, "defined_schema", _no_schema_constants)
    assert output(main) == as_constants


def test_a_schema_statement_is_a_constant_and_a_file_of_definitions_has_no_body(
    tmp_path: Path,
) -> None:
    (tmp_path / "kcl.mod").write_text('[package]\nname = "app"\n', encoding="utf-8")
    (tmp_path / "lib").mkdir()
    (tmp_path / "lib" / "lib.k").write_text(
        "import units\n\nschema S:\n    k: int = 1\n\nrule R:\n    True\n\nn = 1\n",
        encoding="utf-8",
    )
    found = compiled(tmp_path, "import lib\n\na = lib.S {}\n")
    library = found.codes["lib"]
    constants = {library.slot_names[slot]: value for slot, value in library.constants.items()}
    assert {name: type(value).__name__ for name, value in constants.items()} == {
        "S": "SchemaHeader",
        "R": "SchemaHeader",
        "n": "int",
    }
    assert library.setters == [[], [], []]
    assert library.body == []  # nothing to run: the constants are in place
    assert found.codes["__main__"].body  # (a's setter is read there)


def test_each_package_state_gets_its_own_schema_type(tmp_path: Path) -> None:
    found = compiled(tmp_path, "schema S:\n    k: int = 1\n\na = S {}\nn = len(S.instances())\n")
    for _ in range(2):
        result = driver.execute(driver.start(found, driver.RunSettings()), driver.RunSettings())
        assert result.documents[0]["n"] == 1
