"""Overrides (``-O``): spec parsing, AST rewriting before checking, and
``override_file`` text edits. Expectations were checked against kcl-lib 0.13.2;
the differential tests at the end compare with it directly (skipped without it).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from tools_helpers import HAVE_REFERENCE, reference, run_with_overrides

from kclpy.tools.override import (
    OverrideError,
    OverrideSpec,
    override_file,
    override_source,
    parse_override_spec,
)

PROGRAM = """\
schema Person:
    name: str
    age: int = 1
    tags: [str] = []

p = Person {
    name = "a"
    age = 5
}
cfg = {
    x = {y = 1}
    l = [1]
    "dot.key" = 3
}
v = 1
"""

BASE_YAML = (
    "p:\n  name: a\n  age: 5\n  tags: []\ncfg:\n  x:\n    'y': 1\n  l:\n  - 1\n  dot.key: 3\nv: 1\n"
)


# --------------------------------------------------------------------------- specs


@pytest.mark.parametrize(
    ("text", "path", "op", "value"),
    [
        ("a.b.c=1", ("a", "b", "c"), "=", "1"),
        ("a:{x=1}", ("a",), ":", "{x=1}"),
        ("a.l+=[1]", ("a", "l"), "+=", "[1]"),
        ("a.b-", ("a", "b"), "-", ""),
        ('a["dot.key"]=2', ("a", "dot.key"), "=", "2"),
        ("a['k'].b = 'x=y'", ("a", "k", "b"), "=", "'x=y'"),
        ('p.name="Bob"', ("p", "name"), "=", '"Bob"'),
        # the reference's grammar: '-' inside a part, empty parts skipped, '.[' allowed
        ("a.b-c.d=1", ("a", "b-c", "d"), "=", "1"),
        ("a.b-c-", ("a", "b-c"), "-", ""),
        ("a..b=1", ("a", "b"), "=", "1"),
        ('a.["b"].c=1', ("a", "b", "c"), "=", "1"),
        ("a.$if=1", ("a", "if"), "=", "1"),
        ('_x      ="a6"', ("_x",), "=", '"a6"'),
        ('a["k=v"]:{x=1}', ("a", "k=v"), ":", "{x=1}"),
    ],
)
def test_parse_spec(text: str, path: tuple[str, ...], op: str, value: str) -> None:
    assert parse_override_spec(text) == OverrideSpec(text, path, op, value)


@pytest.mark.parametrize(
    "text",
    ["x.y", "p.name=", "=1", 'a["x=1', "a.b-c", "", ":a:", "=a=", ":a", "a-1", "....", "..=1"],
)
def test_bad_spec(text: str) -> None:
    with pytest.raises(OverrideError) as caught:
        parse_override_spec(text)
    assert caught.value.diagnostics[0].message == (
        f"Invalid spec format '{text}', expected <field_path>=<filed_value>, "
        "<field_path>:<filed_value>, <field_path>+=<filed_value> or <field_path>-"
    )


# --------------------------------------------------------------------------- AST rewriting


def _with(text: str, old: str, new: str) -> str:
    assert old in text
    return text.replace(old, new)


@pytest.mark.parametrize(
    ("specs", "expected"),
    [
        ([], BASE_YAML),
        (['p.name="Bob"'], _with(BASE_YAML, "name: a", "name: Bob")),
        (["p.age-"], _with(BASE_YAML, "age: 5", "age: 1")),  # the default comes back
        (["cfg.x.y=2"], _with(BASE_YAML, "'y': 1", "'y': 2")),
        (["cfg.x.y=2", "cfg.x.z=3"], _with(BASE_YAML, "'y': 1", "'y': 2\n    z: 3")),
        (["cfg.x:{q=1}"], _with(BASE_YAML, "'y': 1", "'y': 1\n    q: 1")),
        (["cfg.x={q=1}"], _with(BASE_YAML, "'y': 1", "q: 1")),
        (["cfg.l+=[2]"], _with(BASE_YAML, "- 1", "- 1\n  - 2")),
        (['cfg["dot.key"]=4'], _with(BASE_YAML, "dot.key: 3", "dot.key: 4")),
        (['cfg["dot.key"]-'], _with(BASE_YAML, "\n  dot.key: 3", "")),
        (["cfg.x-"], _with(BASE_YAML, "  x:\n    'y': 1\n", "")),
        (["cfg.w.q=3"], _with(BASE_YAML, "dot.key: 3", "dot.key: 3\n  w:\n    q: 3")),
        (["cfg:{k=1}"], _with(BASE_YAML, "dot.key: 3", "dot.key: 3\n  k: 1")),
        (["new.a.b=1"], BASE_YAML + "new:\n  a:\n    b: 1\n"),
        (["c=3"], BASE_YAML + "c: 3\n"),
        (["v=2"], _with(BASE_YAML, "v: 1", "v: 2")),
        (["v-"], _with(BASE_YAML, "v: 1\n", "")),
        (["missing-", "cfg.nope-"], BASE_YAML),
        (['p.tags+=["t"]'], _with(BASE_YAML, "tags: []", "tags:\n  - t")),
    ],
)
def test_apply_overrides(specs: list[str], expected: str) -> None:
    text, errors = run_with_overrides(PROGRAM, specs)
    assert errors == []
    assert text == expected


def test_override_errors_point_at_the_changed_entry() -> None:
    _, errors = run_with_overrides(PROGRAM, ["p.name=Bob"])
    assert [(e.code.id, e.message, e.location()) for e in errors] == [
        ("E2L23", "name 'Bob' is not defined", "main.k:7:5")
    ]
    _, errors = run_with_overrides(PROGRAM, ['p.age="x"'])
    assert [(e.code.id, e.message, e.location()) for e in errors] == [
        ("E2G22", "expected int, got str(x)", "main.k:8:5")
    ]


def test_appending_to_a_non_config_variable_is_an_immutable_error() -> None:
    _, errors = run_with_overrides("c = {a = 1}\nd = c | {z = 1}\n", ["d.w=1"])
    assert [e.code.kind for e in errors] == ["ImmutableError"]


def test_bad_value_is_a_syntax_diagnostic() -> None:
    _, errors = run_with_overrides(PROGRAM, ['p.name="a" +', "x.y"])
    assert [e.code.id for e in errors] == ["E1001", "E1001"]
    assert 'p.name="a" +' in errors[0].message
    assert errors[1].message.startswith("Invalid spec format 'x.y'")


# --------------------------------------------------------------------------- override_file


FILE_CASES: list[tuple[str, str, str]] = [
    ('p.name="Bob"', '    name = "a"', '    name = "Bob"'),
    ("p.age-", "    age = 5\n", ""),
    ("cfg.x.y=2", "x = {y = 1}", "x = {y = 2}"),
    # a new entry or item in a config or list not on line 1: one per line, as the
    # reference prints it
    ("cfg.x:{q=1}", "x = {y = 1}", "x = {\n        y = 1\n        q = 1\n    }"),
    ("cfg.l+=[2]", "l = [1]", "l = [\n        1\n        2\n    ]"),
    ('cfg["dot.key"]=4', '"dot.key" = 3', '"dot.key" = 4'),
    ("cfg.w.q=3", '    "dot.key" = 3\n', '    "dot.key" = 3\n    w: {\n        q = 3\n    }\n'),
    ("cfg:{k=1}", '    "dot.key" = 3\n', '    "dot.key" = 3\n    k = 1\n'),
    ("cfg.n+=[1]", '    "dot.key" = 3\n', '    "dot.key" = 3\n    n += [\n        1\n    ]\n'),
    ("v-", "v = 1\n", ""),
    ("v=2", "v = 1\n", "v = 2\n"),
    ("newv=3", "v = 1\n", "v = 1\nnewv = 3\n"),
    ("new.a.b=1", "v = 1\n", "v = 1\nnew = {\n    a: {\n        b = 1\n    }\n}\n"),
    ("cfg.x.y-", "x = {y = 1}", "x = {}"),
]


@pytest.mark.parametrize(("spec", "old", "new"), FILE_CASES)
def test_override_source(spec: str, old: str, new: str) -> None:
    text, changed = override_source(PROGRAM, [spec])
    assert changed
    assert text == _with(PROGRAM, old, new)


def test_override_source_no_change() -> None:
    text, result = override_source(PROGRAM, ["nope-", "cfg.nope-"])
    assert (text, result.result, result.parse_errors) == (PROGRAM, False, [])


def test_override_source_several_specs() -> None:
    text, changed = override_source(PROGRAM, ["v=2", "cfg.x.z=3", "p.age-"])
    assert changed
    expected = _with(PROGRAM, "v = 1", "v = 2")
    expected = _with(expected, "x = {y = 1}", "x = {\n        y = 1\n        z = 3\n    }")
    assert text == _with(expected, "    age = 5\n", "")


def test_override_source_inline_entries() -> None:
    text, _ = override_source("c = {a = 1, b = 2, d = [3]}\n", ["c.b-", "c.e.f=1", "c.d+=[4]"])
    assert text == "c = {a = 1, d = [3, 4], e: {f = 1}}\n"


def test_override_file_writes_atomically(tmp_path: Path) -> None:
    path = tmp_path / "main.k"
    path.write_text(PROGRAM)
    os.chmod(path, 0o640)
    assert override_file(str(path), ["v=2"])
    assert path.read_text() == _with(PROGRAM, "v = 1", "v = 2")
    assert os.stat(path).st_mode & 0o777 == 0o640
    assert not override_file(str(path), ["nope-"])
    assert sorted(os.listdir(tmp_path)) == ["main.k"]


def test_override_file_errors(tmp_path: Path) -> None:
    path = tmp_path / "bad.k"
    path.write_text("a = (\n")
    result = override_file(str(path), ["a=1"])  # answered with its parse errors
    assert not result.result
    assert [(d.code.id, d.location()) for d in result.parse_errors] == [("E1001", f"{path}:1:6")]
    assert path.read_text() == "a = (\n"  # left alone
    with pytest.raises(OverrideError):
        override_file(str(tmp_path / "missing.k"), ["a=1"])


# --------------------------------------------------------------------------- differential

needs_reference = pytest.mark.skipif(not HAVE_REFERENCE, reason="kcl_lib not installed")

DIFF_SPECS: list[list[str]] = [
    ['p.name="Bob"'],
    ["p.age-"],
    ["cfg.x.y=2", "cfg.x.z=3"],
    ["cfg.x:{q=1}"],
    ["cfg.x={q=1}"],
    ["cfg.l+=[2]"],
    ['cfg["dot.key"]=4'],
    ["cfg.x-"],
    ["cfg.w.q=3"],
    ["cfg:{k=1}"],
    ["new.a.b=1"],
    ["c=3"],
    ["v-"],
    ['p.tags+=["t"]'],
    ["cfg.n+=[1]"],
    ["cfg.x.y-"],
]


@needs_reference
def test_run_with_overrides_matches_reference(tmp_path: Path) -> None:
    path = tmp_path / "main.k"
    path.write_text(PROGRAM)
    requests = [{"kind": "run", "files": [str(path)], "specs": specs} for specs in DIFF_SPECS]
    answers = reference(requests)
    for specs, answer in zip(DIFF_SPECS, answers, strict=True):
        assert not answer.get("error") and "exception" not in answer, (specs, answer)
        ours, errors = run_with_overrides(PROGRAM, specs)
        assert errors == [], specs
        assert ours == answer["yaml"] + "\n", specs


@needs_reference
def test_override_file_text_matches_reference(tmp_path: Path) -> None:
    """The file the reference leaves, to the character."""
    requests = []
    for index, specs in enumerate(DIFF_SPECS):
        path = tmp_path / f"ref{index}.k"
        path.write_text(PROGRAM)
        requests.append({"kind": "override_file", "file": str(path), "specs": specs})
    answers = reference(requests)
    for index, (specs, answer) in enumerate(zip(DIFF_SPECS, answers, strict=True)):
        ours = tmp_path / f"ours{index}.k"
        ours.write_text(PROGRAM)
        assert override_file(str(ours), specs).result == answer["result"], specs
        assert ours.read_text() == answer["text"], specs


def test_union_of_a_config_with_a_non_config_adds_a_new_binding() -> None:
    _, errors = run_with_overrides(PROGRAM, ["v:{z=1}"])
    assert [e.code.kind for e in errors] == ["ImmutableError", "TypeError"]
    _, errors = run_with_overrides("c = {x.y = 1}\n", ["c.x.y:{z=1}"])
    assert [e.code.kind for e in errors] == ["EvaluationError"]
    assert "conflicting values on the attribute 'y'" in errors[0].message


def test_override_source_multiline_list() -> None:
    text, _ = override_source("l = [\n    1\n]\n", ["l+=[2, 3]"])
    assert text == "l = [\n    1\n    2\n    3\n]\n"


def test_cli_debug_writes_overrides_into_the_files(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from kclpy.cli import main

    main_k = tmp_path / "main.k"
    other_k = tmp_path / "other.k"
    main_k.write_text("a = 1\nb = {x = 1}\n")
    other_k.write_text("c = 2\n")
    code = main([str(main_k), str(other_k), "-O", "b.x=2", "-O", "d=5", "-O", "c=3", "-d"])
    assert code == 0
    assert capsys.readouterr().out == "a: 1\nb:\n  x: 2\nc: 3\nd: 5\n"
    # each spec lands in the file that binds its variable; a new one in the last file
    assert main_k.read_text() == "a = 1\nb = {x = 2}\n"
    assert other_k.read_text() == "c = 3\nd = 5\n"
    # the files now hold the overrides: a plain run gives the same result
    assert main([str(main_k), str(other_k)]) == 0
    assert capsys.readouterr().out == "a: 1\nb:\n  x: 2\nc: 3\nd: 5\n"


def test_cli_debug_with_a_bad_spec_writes_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from kclpy.cli import main

    main_k = tmp_path / "main.k"
    main_k.write_text("a = 1\n")
    with pytest.raises(SystemExit) as ended:  # a usage error
        main([str(main_k), "-O", "a=2", "-O", "b.x=", "-d"])
    assert ended.value.code == 2
    err = capsys.readouterr().err
    assert "UsageError" in err and "Invalid spec format 'b.x='" in err
    assert main_k.read_text() == "a = 1\n"


@needs_reference
def test_cli_debug_single_file_matches_reference(tmp_path: Path) -> None:
    """One file: the reference writes the same program (its layout aside) and prints
    the same YAML."""
    import subprocess
    import sys

    ours = tmp_path / "ours" / "main.k"
    theirs = tmp_path / "theirs" / "main.k"
    for path in (ours, theirs):
        path.parent.mkdir()
        path.write_text(PROGRAM)
    specs = ["p.age=9", "cfg.x.z=2", "w=[1, 2]"]
    script = (
        "import sys, kcl_lib.api as api\n"
        "args = api.ExecProgramArgs(k_filename_list=[sys.argv[1]], debug=1)\n"
        "args.overrides.extend(sys.argv[2:])\n"
        "print(api.API().exec_program(args).yaml_result)\n"
    )
    reference_run = subprocess.run(
        [sys.executable, "-c", script, str(theirs), *specs],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    from kclpy.api import run_files
    from kclpy.cli import main

    assert main([str(ours), *[arg for spec in specs for arg in ("-O", spec)], "-d"]) == 0
    assert run_files([str(ours)]).text == reference_run.stdout
    answers = reference([{"kind": "run", "files": [str(ours)], "specs": []}])
    assert answers[0]["yaml"] + "\n" == reference_run.stdout
