"""``kcl import`` end to end: the installed command in a subprocess, its options
(``-m``, ``-o``, ``-p``, ``-f``, ``-s``, ``-r``, ``--single``), the files it writes
and leaves alone, its diagnostics and exit codes."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from import_helpers import CASES, kcl

from kclpy.tools.importer.kclgen import HEADER

HEADED = HEADER + "\n\n"  # the reference's header, then the data


def copy_case(case: str, folder: Path) -> Path:
    return Path(shutil.copy(CASES / case, folder / case))


def test_data_to_stem_file(tmp_path: Path) -> None:
    copy_case("app.json", tmp_path)
    done = kcl("import", "app.json", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "app.k").read_text().startswith(HEADED + 'name = "web"\n')
    assert sorted(p.name for p in tmp_path.iterdir()) == ["app.json", "app.k"]


def test_refuses_to_overwrite_without_force(tmp_path: Path) -> None:
    copy_case("values.yaml", tmp_path)
    (tmp_path / "values.k").write_text("keep = 1\n")
    done = kcl("import", "values.yaml", cwd=tmp_path)
    assert done.returncode == 1
    assert "error[E9001]" in done.stderr and "--force" in done.stderr
    assert (tmp_path / "values.k").read_text() == "keep = 1\n"
    forced = kcl("import", "-f", "values.yaml", cwd=tmp_path)
    assert forced.returncode == 0, forced.stderr
    assert "replicaCount = 2" in (tmp_path / "values.k").read_text()


def test_output_to_stdout_and_to_a_file(tmp_path: Path) -> None:
    copy_case("server.toml", tmp_path)
    printed = kcl("import", "-m", "toml", "-o", "-", "server.toml", cwd=tmp_path)
    assert printed.returncode == 0
    assert printed.stdout.startswith(HEADED + 'title = "server"\n')
    (tmp_path / "out").mkdir()
    written = kcl("import", "server.toml", "--output", "out/config.k", cwd=tmp_path)
    assert written.returncode == 0, written.stderr
    assert (tmp_path / "out" / "config.k").read_text() == printed.stdout
    into_folder = kcl("import", "server.toml", "-o", "out", cwd=tmp_path)
    assert into_folder.returncode == 0
    assert (tmp_path / "out" / "server.k").read_text() == printed.stdout


def test_output_file_in_a_missing_folder_is_an_error(tmp_path: Path) -> None:
    copy_case("app.json", tmp_path)
    done = kcl("import", "app.json", "-o", "missing/app.k", cwd=tmp_path)
    assert done.returncode == 1
    assert "missing does not exist" in done.stderr
    assert not (tmp_path / "missing").exists()


def test_options_after_files_and_stdin_free(tmp_path: Path) -> None:
    copy_case("app.json", tmp_path)
    done = kcl("import", "app.json", "-m", "json", "-o", "-", cwd=tmp_path)
    assert done.returncode == 0 and done.stdout.startswith(HEADED + 'name = "web"')


def test_crd_package_layout(tmp_path: Path) -> None:
    copy_case("widget-crd.yaml", tmp_path)
    done = kcl("import", "-m", "crd", "-o", "src", "-p", "widgets", "widget-crd.yaml", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    made = sorted(str(p.relative_to(tmp_path)) for p in (tmp_path / "src").rglob("*.k"))
    assert made == [
        "src/widgets/v1/example_com_v1_widget.k",
        "src/widgets/v1alpha1/example_com_v1alpha1_widget.k",
    ]
    again = kcl(
        "import", "-m", "crd", "-o", "src", "-p", "widgets", "widget-crd.yaml", cwd=tmp_path
    )
    assert again.returncode == 1 and "--force" in again.stderr


def test_single_file_and_auto_mode(tmp_path: Path) -> None:
    copy_case("petstore.v2.json", tmp_path)
    done = kcl("import", "--single", "petstore.v2.json", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    text = (tmp_path / "petstore.v2.k").read_text()
    assert "schema Pet:" in text and "schema v2_Tag:" in text
    assert not (tmp_path / "models").exists()


def test_recursive_folders(tmp_path: Path) -> None:
    (tmp_path / "in" / "deep").mkdir(parents=True)
    copy_case("app.json", tmp_path / "in")
    copy_case("values.yaml", tmp_path / "in" / "deep")
    refused = kcl("import", "in", cwd=tmp_path)
    assert refused.returncode == 1 and "-r" in refused.stderr
    done = kcl("import", "-r", "in", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "app.k").exists() and (tmp_path / "values.k").exists()


def test_skip_validation_reads_definitions(tmp_path: Path) -> None:
    (tmp_path / "defs.json").write_text(
        '{"definitions": {"A": {"type": "object", "properties": {"x": {"type": "integer"}}}}}'
    )
    refused = kcl("import", "-m", "openapi", "defs.json", cwd=tmp_path)
    assert refused.returncode == 1
    assert "error[E9010]" in refused.stderr and "--skip-validation" in refused.stderr
    done = kcl("import", "-m", "openapi", "-s", "defs.json", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "x?: int" in (tmp_path / "models" / "a.k").read_text()


def test_json_schema_ref_to_another_file_is_any(tmp_path: Path) -> None:
    """As the reference: the other file is not read, and the attribute is ``any``."""
    text = '{"type": "object", "properties": {"a": {"$ref": "other.json#/x"}}}'
    (tmp_path / "remote.json").write_text(text)
    done = kcl("import", "-m", "jsonschema", "remote.json", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "    a?: any\n" in (tmp_path / "remote.k").read_text()


@pytest.mark.parametrize(
    ("name", "text", "mode", "where", "message"),
    [
        ("bad.json", '{"a": 1,\n "b": }\n', "json", "bad.json:2:7", "invalid JSON"),
        ("bad.yaml", "a: 1\nb: [1, 2\n", "yaml", "bad.yaml:3:1", "invalid YAML"),
        ("bad.toml", 'a = 1\nb = "x\n', "toml", "bad.toml:2:", "invalid TOML"),
        ("list.json", "[1, 2]\n", "json", "list.json:1:1", "root must be a mapping"),
        ("keys.yaml", "ok: 1\nnot-a-name: 2\n", "yaml", "keys.yaml:2:1", "cannot be a KCL"),
        ("nan.yaml", "a:\n  b: .nan\n", "yaml", "nan.yaml:2:3", "no literal"),
        ("empty.json", "  \n", "json", "empty.json:1:1", "empty"),
        ("crd.yaml", "kind: Deployment\n", "crd", "crd.yaml:1:1", "no CustomResourceDefinition"),
        (
            "ref.json",
            '{"type": "object",\n "properties": {"a": {"$ref": "#/$defs/missing"}}}',
            "jsonschema",
            "ref.json:2:",
            "points at nothing",
        ),
    ],
)
def test_bad_inputs_are_diagnostics(
    tmp_path: Path, name: str, text: str, mode: str, where: str, message: str
) -> None:
    (tmp_path / name).write_text(text)
    done = kcl("import", "-m", mode, name, cwd=tmp_path)
    assert done.returncode == 1, done.stdout
    assert "Traceback" not in done.stderr
    assert "error[E9010]: ImportError" in done.stderr
    assert f"--> {where}" in done.stderr and message in done.stderr
    assert "^" in done.stderr  # a caret under the position
    assert sorted(p.name for p in tmp_path.iterdir()) == [name]  # nothing written


def test_missing_input_and_binary_input(tmp_path: Path) -> None:
    missing = kcl("import", "nowhere.json", cwd=tmp_path)
    assert missing.returncode == 1 and "error[E9001]" in missing.stderr
    (tmp_path / "blob.json").write_bytes(b"\xff\xfe{\x00")
    binary = kcl("import", "blob.json", cwd=tmp_path)
    assert binary.returncode == 1 and "Traceback" not in binary.stderr


def test_help_lists_every_option_and_examples(tmp_path: Path) -> None:
    done = kcl("import", "--help", cwd=tmp_path)
    assert done.returncode == 0
    for option in (
        "--mode",
        "--output",
        "--package",
        "--force",
        "--skip-validation",
        "--recursive",
    ):
        assert option in done.stdout
    assert "examples:\n  kcl import data.json" in done.stdout


def test_unknown_mode_is_a_usage_error(tmp_path: Path) -> None:
    done = kcl("import", "-m", "gostruct", "x.go", cwd=tmp_path)
    assert done.returncode == 2


def test_v1beta1_crds_lists_and_unserved_versions(tmp_path: Path) -> None:
    copy_case("legacy-crds.yaml", tmp_path)
    done = kcl("import", "legacy-crds.yaml", cwd=tmp_path)  # auto: CRDs
    assert done.returncode == 0, done.stderr
    made = sorted(str(p.relative_to(tmp_path)) for p in tmp_path.rglob("*.k"))
    assert made == [
        "models/v1/example_com_v1_listed.k",  # v2 has no schema
        "models/v1_2_0/example_com_v120_listed.k",  # package v1_2_0; go-swagger's file name
        "models/v1beta1/example_com_v1beta1_old.k",
    ]
    old = (tmp_path / made[2]).read_text()
    assert 'apiVersion: "example.com/v1beta1" = "example.com/v1beta1"' in old
    assert "count >= 0 if count not in [None, Undefined]" in old
    listed = (tmp_path / made[0]).read_text()
    assert "spec?: any" in listed and "[...str]" not in listed  # as the reference: closed
