"""kcl vet / kclpy.validate_code: data validated as a schema of KCL code."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import kclpy
from kclpy.tools.vet import to_kcl

CODE = 'schema User:\n    name: str\n    age: int = 1\n    check:\n        age >= 0, "age"\n'


def test_valid_data_and_defaults() -> None:
    assert kclpy.validate_code(CODE, '{"name": "a", "age": 3}') == []
    assert kclpy.validate_code(CODE, "name: b\n", format="yaml") == []


def test_checks_types_and_strictness_apply() -> None:
    [check] = kclpy.validate_code(CODE, '{"name": "a", "age": -1}')
    assert check.code.kind == "EvaluationError" and "age" in check.message
    assert kclpy.validate_code(CODE, '{"name": 1}')
    [extra] = kclpy.validate_code(CODE, '{"name": "a", "extra": 2}')
    assert "extra" in extra.message


def test_bad_data_is_a_diagnostic_not_an_exception() -> None:
    [error] = kclpy.validate_code(CODE, "{not json")
    assert "invalid JSON data" in error.message
    [error] = kclpy.validate_code(CODE, "{}", attribute_name="not a name")
    assert "invalid attribute name" in error.message


def test_strings_are_not_interpolated() -> None:
    assert to_kcl({"k": "${x}"}) == '{"k": "\\${x}"}'
    assert kclpy.validate_code(CODE, '{"name": "${x}"}') == []


def test_cli(tmp_path: Path) -> None:
    (tmp_path / "user.k").write_text(CODE)
    (tmp_path / "data.json").write_text('{"name": "a"}')
    done = subprocess.run(
        [sys.executable, "-m", "kclpy", "vet", "data.json", "user.k"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=False,
    )
    assert (done.returncode, done.stdout) == (0, "Validate success!\n")


def test_parse_program_returns_trees_and_diagnostics(tmp_path: Path) -> None:
    (tmp_path / "main.k").write_text("a = 1\nb = (\n")
    program = kclpy.parse_program([str(tmp_path / "main.k")])
    assert "__main__" in program.packages and program.has_errors


def test_validate_files(tmp_path: Path) -> None:
    code = tmp_path / "schema.k"
    code.write_text(CODE, encoding="utf-8")
    good = tmp_path / "user.json"
    good.write_text('{"name": "a"}', encoding="utf-8")
    bad = tmp_path / "user.yaml"
    bad.write_text("name: a\nage: -1\n", encoding="utf-8")
    assert kclpy.validate(str(good), str(code)) == []
    [check] = kclpy.validate(str(bad), str(code))  # YAML by the extension
    assert check.code.kind == "EvaluationError"
    [missing] = kclpy.validate(str(tmp_path / "none.json"), str(code))
    assert missing.code.id == "E9001"
