"""The schemas ``kcl import`` generates accept valid objects and reject invalid
ones, run by kclpy and, when installed, by the reference KCL (which must agree)."""

from __future__ import annotations

from pathlib import Path

import pytest
from import_helpers import generate, run_both

from kclpy.diag.render import render_all

WIDGET = """\
import models.v1 as widgets

widget = widgets.Widget {{
    metadata.name = "w"
    spec = {{
        size = 3
        color = "red"
        {extra}
    }}
}}
"""

# (what the spec adds, a fragment of kclpy's error or "" when valid)
WIDGET_CASES = [
    ('name = "good-name"\nport = "http"\nparts = [{id = "abc", weight = 0.5}]', ""),
    ('port = 8080\nlabels = {a = "b"}\nconfig = {anything = {thing = [1]}}', ""),
    ('selector = {matchLabels = {app = "web"}}\nreplicas = 2', ""),
    ("size = 11", "size <= 10"),
    ('regex = "^a.*$"\nname = "ok"', ""),
    ('regex = "toolong"', "len(regex) <= 5"),
    ("size = 0", "size >= 1"),
    ('color = "pink"', "expected"),
    ('name = "Bad_Name"', "_regex_match(str(name)"),
    ('name = "' + "a" * 64 + '"', "len(name) <= 63"),
    ('parts = [{id = "ab"}]', "len(id) >= 3"),
    ('parts = [{id = "abc", weight = 0}]', "weight > 0"),
    ('parts = [{id = "a1x"}, {id = "a2x"}, {id = "a3x"}, {id = "a4x"}]', "len(parts) <= 3"),
    ("parts = [{weight = 1.0}]", "id"),
    ('unknown = "x"', "unknown"),
    ("port = 1.5", "expected"),
    ("labels = {a = 1}", "expected"),
]


def expect(folder: Path, code: str, error: str, output: str) -> None:
    """``code`` fails with ``error`` in kclpy's rendered diagnostics (or, when
    ``error`` is empty, prints ``output``); the reference agrees on failing."""
    ours, theirs = run_both(folder, code)
    messages = render_all(ours.diagnostics, "human", False)
    if error:
        assert not ours.ok, ours.text
        assert error in messages
    else:
        assert ours.ok, messages
        assert output in ours.text
    if theirs is not None:
        assert theirs.ok == ours.ok, theirs.stderr


@pytest.fixture(scope="module")
def widget_module(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("widget")
    generate("widget-crd.yaml", folder)
    return folder


@pytest.mark.parametrize(("extra", "error"), WIDGET_CASES)
def test_crd_schema(widget_module: Path, extra: str, error: str) -> None:
    code = WIDGET.format(extra=extra.replace("\n", "\n        "))
    expect(widget_module, code, error, "apiVersion: example.com/v1")


def test_crd_required_missing(widget_module: Path) -> None:
    ours, theirs = run_both(
        widget_module, "import models.v1 as w\nx = w.Widget {spec = {size = 1}}\n"
    )
    assert not ours.ok
    assert any("color" in d.message for d in ours.diagnostics)
    if theirs is not None:
        assert not theirs.ok


def test_crd_defaults_and_fixed_kind(widget_module: Path) -> None:
    ours, _ = run_both(
        widget_module,
        'import models.v1 as w\nx = w.Widget {spec = {size = 1, color = "blue"}}\n',
    )
    assert ours.ok
    assert "replicas: 1" in ours.text
    bad, theirs = run_both(widget_module, 'import models.v1 as w\nx = w.Widget {kind = "Gadget"}\n')
    assert not bad.ok
    if theirs is not None:
        assert not theirs.ok


# kcl-go's rules: items and map values are not checked; a check on an optional
# attribute applies when it is truthy (`if score`)
PERSON_CASES = [
    ('name = "Ann", age = 30, email = "ann@example.com", tags = ["ab", "cd"]', ""),
    ('name = "Ann", age = 0, score = 0, attributes = {a = 1}, id = "p-1", $type = "xy"', ""),
    ('name = "Ann", age = 30, address = {city = "Oslo", zip = "01234", floor = 3}', ""),
    ('name = "Ann", age = 30, phones = [{kind = "mobile", number = "1"}]', ""),
    ('name = "Ann", age = 30, tags = ["a"], attributes = {a = 0}', ""),
    ('name = "", age = 30', "len(name) >= 1"),
    ('name = "Ann", age = 30, $type = "x"', "len($type) >= 2"),
    ('name = "Ann", age = 150', "age < 150"),
    ('name = "Ann", age = -1', "age >= 0"),
    ('name = "Ann", age = 30, email = "no-at-sign"', "regex.match(email"),
    ('name = "Ann", age = 30, tags = ["ab", "ab"]', "isunique(list(tags))"),
    ('name = "Ann", age = 30, tags = ["ab", "bc", "cd", "de", "ef"]', "len(tags) <= 4"),
    ('name = "Ann", age = 30, attributes = {a = "x"}', "expected"),
    ('name = "Ann", age = 30, score = 2', "score <= 1"),
    ('name = "Ann", age = 30, level = 10', ""),
    ('name = "Ann", age = 30, level = 12', "multiplyof(level, 5)"),
    ('name = "Ann", age = 30, role = "root"', "expected"),
    ('name = "Ann", age = 30, address = {zip = "12345"}', "city"),
    ('name = "Ann", age = 30, address = {city = "x", zip = "1"}', "regex.match(zip"),
    ('name = "Ann", age = 30, phones = [{kind = "landline"}]', "expected"),
]


@pytest.fixture(scope="module")
def person_module(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("person")
    generate("person.schema.json", folder)
    (folder / "schemas").mkdir()
    (folder / "person.schema.k").rename(folder / "schemas" / "person.k")
    return folder


@pytest.mark.parametrize(("fields", "error"), PERSON_CASES)
def test_jsonschema_schema(person_module: Path, fields: str, error: str) -> None:
    code = f"import schemas\n\nperson = schemas.PersonSchema {{{fields}}}\n"
    expect(person_module, code, error, "role: user")


V2 = "petstore.v2.json"
V3 = "petstore.v3.yaml"


@pytest.mark.parametrize(
    ("case", "code", "output"),
    [
        (
            V2,
            'p = models.Pet {name = "rex", tags = [{name = "good"}], weight = "5kg"}',
            "available",
        ),
        (V2, 'p = models.Pet {name = "rex", category = {name = "a", parent = {id = 1}}}', "id: 1"),
        (V2, 'p = models.Pet {name = "rex", owner = {name = "ann"}, weight = 5}', "weight: 5"),
        (V2, 'p = models.v2_Tag {label = "x"}', "label: x"),
        (V2, 'p = models.Pet {name = "rex", id = 0}', ""),
        (V2, 'p = models.Pet {name = "rex", status = "lost"}', ""),
        (V2, 'p = models.Pet {name = "rex", tags = [{name = "Bad"}]}', ""),
        (V2, "p = models.Pet {id = 3}", ""),
        (V3, 'd = models.Dog {name = "rex", kind = "dog", vaccinations = [{name = "x"}]}', "barks"),
        (V3, 'd = models.Pet {name = "tom", kind = "cat", age = 40}', "age: 40"),
        (V3, 'd = models.Pet {name = "tom", kind = "cat", age = 41}', ""),
        # the reference importer checks minItems only on a non-empty list (`if x`)
        (V3, 'd = models.Pet {name = "tom", kind = "cat", vaccinations = []}', "vaccinations: []"),
        (V3, 'd = models.Pet {name = "tom", kind = "cow"}', ""),
        (V3, 'd = models.Pet {name = "tom", kind = "cat", color = "grey"}', ""),
    ],
)
def test_openapi_schema(tmp_path: Path, case: str, code: str, output: str) -> None:
    """Valid objects print ``output``; the others (``output`` empty) fail in both."""
    generate(case, tmp_path)
    ours, theirs = run_both(tmp_path, "import models\n\n" + code + "\n")
    assert ours.ok == bool(output), render_all(ours.diagnostics, "human", False)
    assert output in ours.text
    if theirs is not None:
        assert theirs.ok == bool(output), theirs.stderr
