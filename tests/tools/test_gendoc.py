"""``kcl doc generate``: the real CLI's documents, on packages of our own.

Each folder of ``doc_cases/`` holds a package (``pkg/``) and, per variant of the
command line, the ``docs/`` folder it must write (``expected/VARIANT/``): Markdown
plain and HTML-escaped, HTML, OpenAPI, and ``--ignore-deprecated``. ``pytest
--update-goldens`` rewrites them. Then the command's behaviour: ``docs/`` replaced
whole, the target checked, ``-o``, a single file, bad options; and the schema type
records it is built from, against the reference.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
from reference import call_reference
from tools_helpers import HAVE_REFERENCE

import kclpy
from kclpy.cli import main
from kclpy.tools.gendoc import Options, collect, render

CASES = Path(__file__).parent / "doc_cases"
VARIANTS = {
    "md": [],
    "md-escape-html": ["--escape-html"],
    "html": ["--format", "html"],
    "openapi": ["--format", "openapi"],
    "ignore-deprecated": ["--ignore-deprecated", "--format", "markdown"],
}
PARAMS = [(case.name, variant) for case in sorted(CASES.iterdir()) for variant in VARIANTS]


def _generate(package: Path, target: Path, options: list[str]) -> int:
    argv = ["doc", "generate", "--file-path", str(package), "--target", str(target), "-q"]
    return main([*argv, *options])


@pytest.mark.parametrize(("case", "variant"), PARAMS)
def test_golden(case: str, variant: str, tmp_path: Path, update_goldens: bool) -> None:
    package, expected = CASES / case / "pkg", CASES / case / "expected" / variant
    assert _generate(package, tmp_path, VARIANTS[variant]) == 0
    written = tmp_path / "docs"
    if update_goldens:
        shutil.rmtree(expected, ignore_errors=True)
        shutil.copytree(written, expected)
    assert sorted(os.listdir(written)) == sorted(os.listdir(expected))
    for name in os.listdir(expected):
        assert (written / name).read_text() == (expected / name).read_text(), name


def test_documents_name_the_package_and_hold_every_schema() -> None:
    expected = CASES / "shop" / "expected"
    markdown = (expected / "md" / "shop.md").read_text()
    assert markdown.startswith("# shop\n\n## Index\n\n- [Person](#person)\n")
    assert "- models\n  - orders\n    - [Line](#line)\n" in markdown
    assert "|**inner** `required`|any|||" in markdown  # an import that fails: any
    assert "NotDocumented" not in markdown  # _test.k files are not documented
    assert "### Shop" not in (expected / "ignore-deprecated" / "shop.md").read_text()
    escaped = (expected / "md-escape-html" / "shop.md").read_text()
    assert "&amp; keeps &lt;stock&gt;" in escaped and "&#39;receipts&#39;" in escaped
    assert '"food" \\| "tools"' in escaped and '"food" | "tools"' in markdown
    document = json.loads((expected / "openapi" / "shop.json").read_text())
    assert document["info"] == {"title": "shop", "version": "0.2.0"}
    schemas = document["components"]["schemas"]
    assert sorted(schemas) == [
        "Person", "Prices", "Shop", "Store",
        "models.orders.Line", "models.orders.Order", "util.Wrapper",
    ]  # fmt: skip
    assert schemas["Store"]["properties"]["owner"] == {"$ref": "#/definitions/Person"}
    html = (expected / "html" / "shop.html").read_text()
    assert html.startswith("<h1>shop</h1>\n<h2>Index</h2>\n<ul>\n")
    assert html.endswith("<!-- raw HTML omitted -->\n")


def test_docs_folder_is_replaced_whole(tmp_path: Path) -> None:
    package = CASES / "shop" / "pkg"
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "shop.html").write_text("old\n")
    assert _generate(package, tmp_path, []) == 0
    assert os.listdir(docs) == ["shop.md"]
    assert _generate(package, tmp_path, ["--format", "openapi"]) == 0
    assert os.listdir(docs) == ["shop.json"]
    assert sorted(os.listdir(tmp_path)) == ["docs"]  # nothing left beside it


def test_a_docs_folder_of_other_files_is_left_alone(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The real tool removes any docs/ (a project's own too); kclpy refuses."""
    package = CASES / "shop" / "pkg"
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "guide.md").write_text("mine\n")
    assert _generate(package, tmp_path, []) == 1
    assert "did not write (guide.md)" in capsys.readouterr().err
    assert os.listdir(docs) == ["guide.md"]
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    target = tmp_path / "target"
    target.mkdir()
    (target / "docs").symlink_to(elsewhere)
    assert _generate(package, target, []) == 1
    assert (target / "docs").is_symlink() and os.listdir(elsewhere) == []
    assert sorted(os.listdir(tmp_path)) == ["docs", "elsewhere", "target"]


def test_bad_targets_and_options(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    package = CASES / "shop" / "pkg"
    assert _generate(package, tmp_path / "missing", []) == 1
    assert "invalid target directory" in capsys.readouterr().err
    (tmp_path / "file").write_text("")
    assert _generate(package, tmp_path / "file", []) == 1
    assert "not a directory" in capsys.readouterr().err
    assert _generate(package, tmp_path, ["--format", "pdf"]) == 2
    assert "invalid generate format. Allow values: [md html openapi]" in capsys.readouterr().err
    assert _generate(package, tmp_path, ["--template", "templates"]) == 2
    assert "not supported" in capsys.readouterr().err
    assert _generate(tmp_path / "nowhere", tmp_path, []) == 1
    assert "path not exists" in capsys.readouterr().err
    assert not (tmp_path / "docs").exists()  # nothing written by a failed command


def test_output_option_and_single_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    package = CASES / "shop" / "pkg"
    assert main(["doc", str(package), "-o", "-"]) == 0
    golden = (CASES / "shop" / "expected" / "md" / "shop.md").read_text()
    assert capsys.readouterr().out == golden
    out = tmp_path / "doc.md"
    assert main(["doc", "generate", "--file-path", str(package), "-o", str(out), "-q"]) == 0
    assert out.read_text() == golden
    _, text = render(collect(str(package / "models" / "orders" / "order.k")), Options())
    assert text.startswith("# main\n\n## Index\n\n- [Line](#line)\n- [Order](#order)\n\n")
    (tmp_path / "main.k").write_text("schema A:\n    x: int\n")
    assert main(["doc", str(tmp_path), "--format", "json-schema", "-o", "-"]) == 0
    assert "$defs" in json.loads(capsys.readouterr().out)


def test_python_api_keeps_generate_doc(tmp_path: Path) -> None:
    (tmp_path / "main.k").write_text('schema A:\n    """An A."""\n    x: int\n')
    assert kclpy.generate_doc(str(tmp_path)).startswith("# Schemas\n\n## Package __main__\n")


@pytest.mark.skipif(not HAVE_REFERENCE, reason="kcl_lib not installed")
@pytest.mark.parametrize("folder", ["", "models/orders", "util"])
def test_schema_types_match_the_reference(folder: str) -> None:
    """The records the documents are built from: kcl-lib's for every folder."""
    path = str(CASES / "shop" / "pkg" / folder)
    script = (
        "import json, sys, kcl_lib.api as api\n"
        "from google.protobuf.json_format import MessageToDict\n"
        "args = api.GetSchemaTypeMappingArgs()\n"
        "args.exec_args.k_filename_list.append(json.load(sys.stdin))\n"
        "answer = api.API().get_schema_type_mapping(args)\n"
        "print(json.dumps(MessageToDict(answer, preserving_proto_field_name=True)))\n"
    )
    theirs = call_reference(script, path)["schema_type_mapping"]
    ours = kclpy.schema_type_mapping([path])
    assert json.loads(json.dumps(ours, sort_keys=True)) == json.loads(
        json.dumps(theirs, sort_keys=True)
    )
