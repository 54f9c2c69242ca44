"""``kcl vet`` on cases of our own: list and scalar data, schema-less code asserting on
the data, packages with ``kcl.mod``, and where errors point (the data file's line and
column of the offending value, the data file named).

Every case states what kclpy must answer; when the reference kcl-lib is installed, the
same files also go through its ``validate_code`` (one subprocess) and both must agree
on success, the error's kind and its place (except where docs/differences.md says
kclpy deliberately points elsewhere).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
from tools_helpers import HAVE_REFERENCE
from vet_upstream import REFERENCE_SCRIPT, Outcome, reference_outcome

import kclpy

USER = """\
schema User:
    name: str
    age: int = 1
    check:
        age >= 0, "age must not be negative"
"""

TWO_SCHEMAS = """\
schema Service:
    port: int

schema Job:
    command: str
    retries: int = 0
"""


@dataclass(frozen=True)
class Case:
    """Code, data (file extension = its format), the schema option, and the expected
    answer: None for success, else (kind, "data" | "code", line, column)."""

    name: str
    code: str
    data: str
    ext: str
    expected: tuple[str, str, int, int] | None
    schema: str | None = None
    # the reference's place when it deliberately differs (docs/differences.md)
    reference_place: tuple[str, int, int] | None = None
    # the reference's kind when it has none of KCL's (bad data: "Failed to Load JSON")
    reference_kind: str | None = None


CASES = [
    Case("list_valid", USER, '[{"name": "a"}, {"name": "b", "age": 2}]\n', "json", None),
    Case(
        "list_item_check_json",
        USER,
        '[\n  {"name": "a"},\n  {"name": "b", "age": -2}\n]\n',
        "json",
        ("EvaluationError", "data", 3, 3),
    ),
    Case(
        "list_item_type_yaml",
        USER,
        "- name: a\n- name: b\n  age: two\n",
        "yaml",
        ("TypeError", "data", 3, 3),
    ),
    Case(
        "nested_list_items_are_instances",
        USER,
        '[[{"name": "a"}], [{"name": 3}]]\n',
        "json",
        ("TypeError", "data", 1, 21),
    ),
    Case(
        "list_items_checked_by_code",
        USER + 'assert all user in value {typeof(user) == "User"}\nassert len(value) == 2\n',
        '[{"name": "a"}, {"name": "b"}]',
        "json",
        None,
    ),
    Case("empty_list", USER, "[]\n", "json", None),
    Case(
        "list_item_unknown_key",
        USER,
        '[\n    {"name": "a", "nick": "b"}\n]\n',
        "json",
        ("CompileError", "data", 2, 19),
    ),
    Case("scalar_valid", 'assert value == "on"\n', '"on"\n', "json", None),
    Case(
        "scalar_failing_assertion",
        "assert value > 2, 'too small'\n",
        "1\n",
        "yaml",
        ("EvaluationError", "code", 1, 1),
    ),
    Case("scalar_with_a_schema_stays_plain", USER + "assert value == 5\n", "5\n", "json", None),
    Case(
        "schemaless_mapping_valid",
        'assert value.replicas <= 3\nassert typeof(value.labels) == "dict"\n',
        "replicas: 2\nlabels:\n  app: web\n",
        "yaml",
        None,
    ),
    Case(
        "schemaless_mapping_failing_assertion",
        'assert typeof(value) == "dict"\nassert value.replicas <= 3, "at most 3"\n',
        '{"replicas": 5}',
        "json",
        ("EvaluationError", "code", 2, 1),
    ),
    Case(
        "named_schema",
        TWO_SCHEMAS,
        '{\n    "command": "run",\n    "retries": "many"\n}\n',
        "json",
        ("TypeError", "data", 3, 5),
        schema="Job",
    ),
    Case(
        "first_schema_by_default",
        TWO_SCHEMAS,
        "port: 80\ncommand: run\n",
        "yaml",
        ("CompileError", "data", 2, 1),
    ),
    Case(
        "nested_entry_json",
        "schema Box:\n    size: {str:int}\n",
        '{\n    "size": {\n        "w": 1,\n        "h": "tall"\n    }\n}\n',
        "json",
        ("TypeError", "data", 4, 9),
    ),
    Case("yaml_date_is_a_string", "schema Day:\n    day: str\n", "day: 2024-05-01\n", "yaml", None),
    Case(
        "instance_check_json",
        USER,
        '{\n    "name": "a",\n    "age": -1\n}\n',
        "json",
        ("EvaluationError", "data", 1, 1),
    ),
    Case(
        "instance_check_yaml",
        USER,
        "name: a\nage: -1\n",
        "yaml",
        ("EvaluationError", "data", 1, 1),
        reference_place=("data", 1, 5),  # the real vet points at the mapping's first colon
    ),
    Case(
        "invalid_json",
        USER,
        '{"name": "a",\n "age" 2}\n',
        "json",
        ("EvaluationError", "data", 2, 8),
        reference_kind="Failed",
    ),
    Case(
        "invalid_yaml",
        USER,
        "name: [a\n",
        "yaml",
        ("EvaluationError", "data", 2, 1),
        reference_kind="Failed",
    ),
]


def _write(case: Case, folder: Path) -> tuple[Path, Path]:
    folder.mkdir(parents=True, exist_ok=True)
    code, data = folder / "main.k", folder / f"data.{case.ext}"
    code.write_text(case.code, encoding="utf-8")
    data.write_text(case.data, encoding="utf-8")
    return data, code


def _place(outcome_file: str | None, data: Path, line: int, column: int) -> tuple[str, int, int]:
    assert outcome_file is not None
    same = os.path.realpath(outcome_file) == os.path.realpath(data)
    return ("data" if same else "code", line, column)


def _kclpy(data: Path, code: Path, schema: str | None) -> Outcome:
    diagnostics = [d for d in kclpy.validate(str(data), str(code), schema=schema) if d.is_error]
    if not diagnostics:
        return Outcome(True)
    first = diagnostics[0]
    text = "\n".join(d.render() for d in diagnostics)
    if first.span is None:
        return Outcome(False, first.code.kind, text=text)
    line, column = first.span.begin_pos
    return Outcome(False, first.code.kind, first.span.file.path, line, column, text)


@pytest.mark.parametrize("case", CASES, ids=lambda case: case.name)
def test_kclpy_answers(case: Case, tmp_path: Path) -> None:
    data, code = _write(case, tmp_path)
    outcome = _kclpy(data, code, case.schema)
    if case.expected is None:
        assert outcome.ok, outcome.text
        return
    kind, *place = case.expected
    assert not outcome.ok
    assert outcome.kind == kind, outcome.text
    assert _place(outcome.file, data, outcome.line, outcome.column) == tuple(place), outcome.text


@pytest.fixture(scope="module")
def reference_answers(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Outcome]:
    if not HAVE_REFERENCE:
        pytest.skip("the reference (kcl_lib) is not installed")
    from reference import call_reference_lines

    root = tmp_path_factory.mktemp("vet-reference")
    requests = []
    for case in CASES:
        data, code = _write(case, root / case.name)
        requests.append(
            {
                "datafile": str(data),
                "file": str(code),
                "code": "",
                "schema": case.schema or "",
                "format": case.ext,
            }
        )
    answers = call_reference_lines(REFERENCE_SCRIPT, requests)
    return {
        case.name: reference_outcome(answer) for case, answer in zip(CASES, answers, strict=True)
    }


@pytest.mark.parametrize("case", CASES, ids=lambda case: case.name)
def test_the_reference_agrees(case: Case, reference_answers: dict[str, Outcome]) -> None:
    theirs = reference_answers[case.name]
    if case.expected is None:
        assert theirs.ok, theirs.text
        return
    assert not theirs.ok
    kind, *place = case.expected
    if case.reference_kind is not None:
        assert theirs.text.startswith(case.reference_kind), theirs.text
        return
    assert theirs.kind == kind, theirs.text
    data = Path(theirs.file or "").parent / f"data.{case.ext}"
    where = _place(theirs.file, data, theirs.line, theirs.column)
    assert where == (case.reference_place or tuple(place)), theirs.text


# --- packages ---------------------------------------------------------------------

PERSON = "schema Person:\n    name: Name\n    age: int\n\n    check:\n        0 < age < 150\n"
NAME = "schema Name:\n    given: str\n    family?: str\n"


def _package(folder: Path, with_mod: bool) -> Path:
    folder.mkdir()
    if with_mod:
        (folder / "kcl.mod").write_text('[package]\nname = "people"\nversion = "0.1.0"\n')
    (folder / "name.k").write_text(NAME, encoding="utf-8")
    (folder / "person.k").write_text(PERSON, encoding="utf-8")
    return folder / "person.k"


def test_a_package_with_kcl_mod_loads_its_sibling_files(tmp_path: Path) -> None:
    code = _package(tmp_path / "people", with_mod=True)
    good = tmp_path / "good.yaml"
    good.write_text("name:\n  given: Ada\nage: 36\n", encoding="utf-8")
    assert kclpy.validate(str(good), str(code), schema="Person") == []
    bad = tmp_path / "bad.json"
    bad.write_text('{\n  "name": {"given": 1},\n  "age": 36\n}\n', encoding="utf-8")
    errors = kclpy.validate(str(bad), str(code), schema="Person")
    # as the reference: the value of "name" (the instance of Name) and the entry
    assert [(e.code.kind, e.location()) for e in errors] == [
        ("TypeError", f"{bad}:2:12"),
        ("TypeError", f"{bad}:2:3"),
    ]
    assert errors[0].labels[1].span is not None
    assert errors[0].labels[1].span.file.path.endswith("name.k")  # the sibling's schema


def test_a_package_as_code_text_with_its_file_name(tmp_path: Path) -> None:
    code = _package(tmp_path / "people", with_mod=True)
    data = '{"name": {"given": "Ada"}, "age": 36}'
    assert kclpy.validate_code(PERSON, data, schema="Person", filename=str(code)) == []
    # code without a file name stands alone: its sibling's schema is unknown
    assert kclpy.validate_code(PERSON, data, schema="Person")


def test_without_kcl_mod_the_file_stands_alone(tmp_path: Path) -> None:
    code = _package(tmp_path / "loose", with_mod=False)
    (tmp_path / "loose" / "other.k").write_text("schema Person:\n    other: int\n")
    data = tmp_path / "data.json"
    data.write_text('{"name": {"given": "Ada"}, "age": 36}', encoding="utf-8")
    [error] = kclpy.validate(str(data), str(code), schema="Person")
    assert "Name" in error.message  # not loaded: name.k beside it is not part of the program
    code.write_text(NAME + PERSON, encoding="utf-8")  # other.k's Person is not loaded either
    assert kclpy.validate(str(data), str(code), schema="Person") == []


@pytest.mark.skipif(not HAVE_REFERENCE, reason="the reference (kcl_lib) is not installed")
def test_the_reference_loads_the_package_too(tmp_path: Path) -> None:
    from reference import call_reference_lines

    code = _package(tmp_path / "people", with_mod=True)
    data = tmp_path / "data.json"
    data.write_text('{"name": {"given": "Ada"}, "age": 36}', encoding="utf-8")
    request = {
        "datafile": str(data),
        "file": str(code),
        "code": "",
        "schema": "Person",
        "format": "json",
    }
    [answer] = call_reference_lines(REFERENCE_SCRIPT, [request])
    assert reference_outcome(answer).ok, answer


# --- the command ------------------------------------------------------------------


def test_cli_names_the_data_file_and_the_place(tmp_path: Path) -> None:
    (tmp_path / "user.k").write_text(USER, encoding="utf-8")
    (tmp_path / "users.json").write_text(
        '[\n    {"name": "a"},\n    {"name": "b", "age": "x"}\n]\n', encoding="utf-8"
    )
    command = [sys.executable, "-m", "kclpy", "vet", "users.json", "user.k"]
    done = subprocess.run(
        [*command, "--no-style"], cwd=tmp_path, capture_output=True, text=True, check=False
    )
    assert done.returncode == 1
    assert "--> users.json:3:19" in done.stderr and "expected int, got str(x)" in done.stderr
    done = subprocess.run(
        [*command, "--output", "json"], cwd=tmp_path, capture_output=True, text=True, check=False
    )
    report = json.loads(done.stdout)
    assert (done.returncode, report["success"], report["errCount"]) == (1, False, 1)
    [label, *_] = report["errors"][0]["labels"]
    assert (label["file"], label["line"], label["column"]) == ("users.json", 3, 19)
