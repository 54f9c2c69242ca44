"""``kcl import -m openapi`` by the reference importer's rules, on a document written
for these tests: ``x-kcl-type`` packages and their imports, an ``allOf`` base, a
tuple, keyword and dashed names, examples and ``See Also`` links, nulls left out of
enums, sorted properties (``keep_order`` keeps the document's)."""

from __future__ import annotations

import json
from pathlib import Path

from kclpy.api import run_files
from kclpy.tools.importer.convert import ImportOptions, import_path, write_outputs

DOCUMENT = {
    "swagger": "2.0",
    "info": {"title": "t", "version": "1"},
    "paths": {},
    "definitions": {
        "main.Pet": {
            "type": "object",
            "required": ["name"],
            "example": {"name": "rex"},
            "properties": {
                "name": {
                    "type": "string",
                    "externalDocs": {"url": "https://example.com/names"},
                    "description": "the name",
                },
                "category": {"$ref": "#/definitions/base.Category"},
                "mood": {"type": "string", "enum": ["calm", None]},
            },
            "x-kcl-type": {"import": {"package": "main.pet", "alias": "pet"}, "type": "Pet"},
        },
        "base.Category": {
            "type": "object",
            "properties": {"label": {"type": "string"}},
            "x-kcl-type": {"import": {"package": "base.category"}, "type": "Category"},
        },
        "Animal": {"type": "object", "properties": {"legs": {"type": "integer"}}},
        "Dog": {
            "allOf": [
                {"$ref": "#/definitions/Animal"},
                {"properties": {"barks": {"type": "boolean"}}, "required": ["barks"]},
            ]
        },
        "Pair": {"type": "array", "items": [{"type": "string"}, {"type": "integer"}]},
        "relaxed": {"type": "object", "properties": {"my-key": {"type": "string"}}},
    },
}


def _files(tmp_path: Path, keep_order: bool = False) -> dict[str, str]:
    spec = tmp_path / "spec.json"
    spec.write_text(json.dumps(DOCUMENT))
    return import_path(str(spec), ImportOptions("openapi", keep_order=keep_order))


def test_layout_and_names(tmp_path: Path) -> None:
    files = _files(tmp_path)
    assert sorted(files) == [
        "models/animal.k",
        "models/base/category.k",
        "models/dog.k",
        "models/main/pet.k",
        "models/pair.k",
        "models/relaxed.k",
    ]
    pet = files["models/main/pet.k"]
    assert "import base\n" in pet and "category?: base.Category" in pet
    assert 'mood?: "calm"\n' in pet  # null is every attribute's value: not listed
    assert "the name. See Also: https://example.com/names" in pet
    assert 'Examples\n    --------\n    demo = {"name": "rex"}' in pet
    assert pet.index("category?:") < pet.index("mood?:") < pet.index("name: str")
    assert "schema Dog(Animal):" in files["models/dog.k"]
    assert "barks: bool" in files["models/dog.k"] and "legs" not in files["models/dog.k"]
    assert "p0: str\n    p1: int\n" in files["models/pair.k"]
    assert "schema $relaxed:" in files["models/relaxed.k"]
    assert '"my-key"?: str' in files["models/relaxed.k"]


def test_keep_order(tmp_path: Path) -> None:
    pet = _files(tmp_path, keep_order=True)["models/main/pet.k"]
    assert pet.index("name: str") < pet.index("category?:") < pet.index("mood?:")


def test_generated_packages_run(tmp_path: Path) -> None:
    """The package root is the model package, as the reference's ``import base``
    needs."""
    write_outputs(_files(tmp_path), str(tmp_path))
    root = tmp_path / "models"
    (root / "kcl.mod").write_text('[package]\nname = "models"\n')
    main = root / "main.k"
    main.write_text(
        "import main.pet as p\n\n"
        'a = p.Pet {name = "rex", category.label = "good"}\n'
        "b = Dog {legs = 4, barks = True}\n"
    )
    result = run_files(sorted(map(str, root.glob("*.k"))), work_dir=str(root))
    assert result.ok, result.diagnostics
    assert result.documents[0]["a"]["category"] == {"label": "good"}
    assert result.documents[0]["b"] == {"legs": 4, "barks": True}
