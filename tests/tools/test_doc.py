"""``kclpy.generate_doc``: Markdown equal to kcl-lib's generate_doc, and a JSON Schema
of the same schemas (``kcl doc --format json-schema``). The CLI's own documents (the
real ``kcl doc generate``'s) are tested in test_gendoc.py and test_doc_upstream.py."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from reference import call_reference
from tools_helpers import HAVE_REFERENCE

import kclpy
from kclpy.cli import main
from kclpy.tools.doc import DocError

SOURCE = '''\
schema Person:
    """A person.

    Attributes
    ----------
    name : str
        The name.
    age : int, default is 1
        The age.
    """
    name: str
    age?: int = 1
    tags: [str] = []
    kind: "a" | "b" = "a"

schema Student(Person):
    school: str
    mentor?: Person
'''


@pytest.fixture
def package(tmp_path: Path) -> Path:
    (tmp_path / "main.k").write_text(SOURCE, encoding="utf-8")
    return tmp_path


def test_markdown(package: Path) -> None:
    text = kclpy.generate_doc(str(package))
    assert text.startswith("# Schemas\n\n## Package __main__\n\n### Person\n\nA person.\n")
    assert "| age | int | no | 1 | The age. |" in text
    assert "| school | str | yes |  |  |" in text  # Student lists inherited attributes too


@pytest.mark.skipif(not HAVE_REFERENCE, reason="kcl_lib not installed")
def test_markdown_matches_reference(package: Path) -> None:
    script = (
        "import json, kcl_lib.api as api\n"
        "parse = api.ParseProgramArgs(paths=['main.k'])\n"
        "args = api.GenerateDocArgs(parse_args=parse, format='md')\n"
        "print(json.dumps(api.API().generate_doc(args).content))\n"
    )
    assert kclpy.generate_doc(str(package)) == call_reference(script, None, cwd=package)


def test_json_schema(package: Path) -> None:
    document = json.loads(kclpy.generate_doc(str(package / "main.k"), "json-schema"))
    person = document["$defs"]["Person"]
    assert person["required"] == ["name"]
    assert person["properties"]["age"] == {
        "type": "integer",
        "description": "The age.",
        "default": 1,
    }
    assert person["properties"]["kind"]["enum"] == ["a", "b"]
    student = document["$defs"]["Student"]
    assert student["properties"]["mentor"] == {"$ref": "#/$defs/Person"}


def test_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "main.k").write_text("schema A:\n    x: int = undefined\n", encoding="utf-8")
    with pytest.raises(DocError) as caught:
        kclpy.generate_doc(str(tmp_path))
    assert caught.value.diagnostics
    argv = ["doc", str(tmp_path), "--format", "json-schema", "-o", "-", "--no_style"]
    assert main(argv) == 1
    assert "error[E2L23]" in capsys.readouterr().err
    # (the real kcl doc generate documents what it can of a program with errors)
    assert main(["doc", str(tmp_path), "--target", str(tmp_path), "-q"]) == 0
    assert "|**x** `required`|int||undefined|" in (tmp_path / "docs" / "main.md").read_text()


def test_cli_json_schema(package: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "schemas.json"
    assert main(["doc", str(package), "--format", "json-schema", "-o", str(out)]) == 0
    assert out.read_text(encoding="utf-8") == kclpy.generate_doc(str(package), "json-schema")
    argv = ["doc", str(package), "--format", "json-schema", "--target", str(tmp_path)]
    assert main(argv) == 0
    written = tmp_path / "docs" / f"{package.name}.schema.json"
    assert "$defs" in written.read_text(encoding="utf-8")
