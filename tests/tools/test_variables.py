"""``list_variables`` and ``list_options``: literal expectations (checked against
kcl-lib 0.13.2) and a differential comparison of the shapes (skipped without it)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from tools_helpers import HAVE_REFERENCE, reference

from kclpy.loader import Loader
from kclpy.tools.variables import OptionInfo, VariableInfo, list_options, list_variables

CODE = """\
schema P:
    name: str
    n: int = option("inner", default=3)

p: P {
    name = "a"
    tags = ["x"]
}
c = {
    x.y = 1
    "dot.key" = 3
    k: 2
    **{a = 1}
}
l = [1, {a = 2}]
n: int = 1
o = option("key", type="str", required=True, default="d", help="hello")
o2 = option(key="k2", default={a = 1})
"""


@pytest.fixture
def main_k(tmp_path: Path) -> str:
    path = tmp_path / "main.k"
    path.write_text(CODE)
    return str(path)


def test_top_level_variables(main_k: str) -> None:
    variables = list_variables([main_k])
    assert list(variables) == ["p", "c", "l", "n", "o", "o2"]
    (p,) = variables["p"]
    assert (p.value, p.type_name, p.op) == ('P {\n    name = "a"\n    tags = ["x"]\n}', "P", ":")
    assert [(e.key, e.value.value, e.value.op) for e in p.entries] == [
        ("name", '"a"', "="),
        ("tags", '["x"]', "="),
    ]
    assert [item.value for item in p.entries[1].value.items] == ['"x"']
    (n,) = variables["n"]
    assert (n.value, n.type_name, n.annotation, n.op, n.line) == ("1", "", "int", "=", 16)


def test_nested_entries(main_k: str) -> None:
    (c,) = list_variables([main_k])["c"]
    assert [(e.key, e.value.op) for e in c.entries] == [
        ("x", ":"),  # ``x.y = 1`` is ``x: {y = 1}``
        ("dot.key", "="),
        ("k", ":"),
        ("", ":"),
    ]
    inner = c.entries[0].value.entries
    assert [(e.key, e.value.value, e.value.op) for e in inner] == [("y", "1", "=")]
    assert [e.key for e in c.entries[3].value.entries] == ["a"]
    (lst,) = list_variables([main_k])["l"]
    assert [item.value for item in lst.items] == ["1", "{a = 2}"]
    assert lst.items[1].entries[0].key == "a"


def test_selected_names(main_k: str) -> None:
    selected = list_variables([main_k], ["c.x", "l", "missing"])
    assert list(selected) == ["c.x", "l"]
    assert selected["c.x"][0].entries[0].key == "y"


def test_syntax_errors_are_collected(tmp_path: Path) -> None:
    path = tmp_path / "bad.k"
    path.write_text("a = 1\nb = (\n")
    errors: list[Any] = []
    variables = list_variables([str(path)], errors=errors)
    assert "a" in variables
    assert errors and errors[0].code.id == "E1001"


def test_list_options(main_k: str) -> None:
    program = Loader().load([main_k])
    options = list_options(program)
    assert [(o.name, o.type, o.required, o.default, o.help) for o in options] == [
        ("inner", "", False, "3", ""),
        ("key", "str", True, '"d"', "hello"),
        ("k2", "", False, "{a = 1}", ""),
    ]
    assert isinstance(options[0], OptionInfo)
    assert (options[1].line, options[1].column) == (17, 5)


# --------------------------------------------------------------------------- differential


def _shape(info: VariableInfo) -> dict[str, Any]:
    shape: dict[str, Any] = {"op": info.op, "type": info.type_name}
    if info.entries:
        shape["entries"] = [(e.key, _shape(e.value)) for e in info.entries]
    if info.items:
        shape["items"] = [_shape(item) for item in info.items]
    return shape


def _ref_shape(info: dict[str, Any]) -> dict[str, Any]:
    shape: dict[str, Any] = {"op": info.get("opSym", ""), "type": info.get("typeName", "")}
    if info.get("dictEntries"):
        shape["entries"] = [(e.get("key", ""), _ref_shape(e["value"])) for e in info["dictEntries"]]
    if info.get("listItems"):
        shape["items"] = [_ref_shape(item) for item in info["listItems"]]
    return shape


@pytest.mark.skipif(not HAVE_REFERENCE, reason="kcl_lib not installed")
def test_matches_reference(main_k: str) -> None:
    variables, options = reference(
        [{"kind": "list_variables", "files": [main_k]}, {"kind": "list_options", "files": [main_k]}]
    )
    ours = list_variables([main_k])
    theirs = variables["variables"]
    assert sorted(ours) == sorted(theirs)
    for name, infos in ours.items():
        expected = [_ref_shape(info) for info in theirs[name]["variables"]]
        assert [_shape(info) for info in infos] == expected, name
    program = Loader().load([main_k])
    assert [(o.name, o.type, o.required, o.help) for o in list_options(program)] == [
        (o["name"], o.get("type", ""), o.get("required", False), o.get("help", ""))
        for o in options["options"]
    ]
