"""``get_schema_types``: the schema type mapping from sema's Model, with literal
expectations (checked against kcl-lib 0.13.2) and a differential check."""

from __future__ import annotations

from pathlib import Path

import pytest
from tools_helpers import HAVE_REFERENCE, reference

from kclpy.loader import Loader
from kclpy.tools.schema_types import get_schema_types

CODE = '''\
schema Base:
    id: int = 0

schema P(Base):
    """A person.

    Attributes
    ----------
    name : str, default is "x", required
        The name.
    """
    name: str = "x"
    age?: int
    tags: [str] = []

p: P {
    name = "a"
}
n = 1
'''


@pytest.fixture
def main_k(tmp_path: Path) -> str:
    path = tmp_path / "main.k"
    path.write_text(CODE)
    return str(path)


def test_schema_mapping(main_k: str) -> None:
    mapping = get_schema_types(Loader().load([main_k]))
    assert list(mapping) == ["Base", "P", "p"]
    person = mapping["P"]
    assert (person.schema_name, person.doc, person.base, person.file) == (
        "P",
        "A person.",
        "Base",
        main_k,
    )
    assert [
        (a.name, a.type, a.optional, a.default, a.description) for a in person.attributes.values()
    ] == [
        ("id", "int", False, "0", ""),
        ("name", "str", False, '"x"', "The name."),
        ("age", "int", True, "", ""),
        ("tags", "[str]", False, "[]", ""),
    ]
    assert person.required == ["id", "name", "tags"]
    assert mapping["p"] == person


def test_schema_name_filter(main_k: str) -> None:
    assert list(get_schema_types(Loader().load([main_k]), "P")) == ["P", "p"]
    assert get_schema_types(Loader().load([main_k]), "Nope") == {}


@pytest.mark.skipif(not HAVE_REFERENCE, reason="kcl_lib not installed")
def test_matches_reference(main_k: str) -> None:
    (answer,) = reference([{"kind": "schema_types", "files": [main_k]}])
    theirs = answer["schemaTypeMapping"]
    ours = get_schema_types(Loader().load([main_k]))
    assert sorted(ours) == sorted(theirs)
    for name, info in ours.items():
        expected = theirs[name]
        assert info.schema_name == expected["schemaName"]
        assert info.doc == expected.get("schemaDoc", "")
        assert sorted(info.attributes) == sorted(expected["properties"])  # a proto map
        assert sorted(info.required) == sorted(expected.get("required", []))
        for attr_name, attr in info.attributes.items():
            prop = expected["properties"][attr_name]
            assert attr.default == prop.get("default", ""), attr_name
            assert attr.description == prop.get("description", ""), attr_name
