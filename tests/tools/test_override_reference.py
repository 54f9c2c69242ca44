"""``override_file`` against the reference: the text it leaves, case by case (our own
programs; expectations are kcl-lib 0.13.2's output, and each case is also compared
with kcl-lib directly when it is installed), what it does where the reference leaves
a file that does not parse, and the upstream cases of kcl-lang/kcl in corpus mode
(``.corpus/override``, built by ``tests/tools/override_corpus.py build``).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from tools_helpers import HAVE_REFERENCE, reference

from kclpy.syntax import ast, parse_source
from kclpy.syntax.walk import walk
from kclpy.tools.override import OverrideError, override_file, override_source

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT / ".corpus" / "override"
needs_reference = pytest.mark.skipif(not HAVE_REFERENCE, reason="kcl_lib not installed")

APP = 'app = {\n    name = "a"\n    ports = [80]\n}\n'
CFG = "x = 1\ncfg = {\n    a = 1\n}\n"

# (file, specs, the file the reference leaves)
CASES: list[tuple[str, list[str], str]] = [
    # a multi-line value: laid out as the reference lays it out, the file parses
    (
        APP,
        ['app.env={\n  "A": "1"\n  "B": [1, 2]\n}'],
        APP[:-2] + '    env = {\n        "A": "1"\n        "B": [1, 2]\n    }\n}\n',
    ),
    # ... which depends on the lines of the value and of the file (the value's entry is
    # on its line 2, the file's last line of code is 2)
    (
        'a = {\n    b = "a"\n}\n',
        ['extra={\n    "c": 2\n}'],
        'a = {\n    b = "a"\n}\nextra = {"c": 2}\n',
    ),
    (
        'a = {\n    b = "a"\n    c = 1\n}\n',
        ['extra={\n    "c": 2\n}'],
        'a = {\n    b = "a"\n    c = 1\n}\nextra = {\n    "c": 2\n}\n',
    ),
    # lists and configs: on one line where the reference's printer sees one line
    ("x = 1\n", ["a=[1,2,3]"], "x = 1\na = [1, 2, 3]\n"),
    ("a = 1\n", ["a=[1,2,3]"], "a = [1, 2, 3]\n"),
    (
        CFG,
        ["cfg.a=[1,2]", 'cfg.b={k="v",l=[1]}'],
        'x = 1\ncfg = {\n    a = [\n        1\n        2\n    ]\n    b = {\n        k = "v"\n'
        "        l = [\n            1\n        ]\n    }\n}\n",
    ),
    # unquoted strings are strings; quotes are kept
    (
        CFG,
        ["cfg.image=image/image", "cfg.tag=nginx-latest", "cfg.s='s'", 'cfg.t="t"'],
        'x = 1\ncfg = {\n    a = 1\n    image = "image/image"\n    tag = "nginx-latest"\n'
        "    s = 's'\n    t = \"t\"\n}\n",
    ),
    # every matching entry, every binding statement at the top level, the first one below
    ("c = {a = 1, a = 2}\n", ["c.a=3"], "c = {a = 3, a = 3}\n"),
    ("c = {a = 1}\nc = {a = 2}\n", ["c=3"], "c = 3\nc = 3\n"),
    ("c = {a = 1}\nc = {a = 2}\n", ["c.a=3"], "c = {a = 3}\nc = {a = 2}\n"),
    ("c = {a = {b = 1}, a = {d = 1}}\n", ["c.a.b=3"], "c = {a = {b = 3}, a = {d = 1, b = 3}}\n"),
    # '-' inside a path part
    ('c = {"a-b" = 1}\n', ["c.a-b=2"], 'c = {"a-b" = 2}\n'),
    ("x = 1\n", ["cfg.b-c.d=1"], 'x = 1\ncfg = {\n    "b-c": {d = 1}\n}\n'),
    ('c = {a = 1, "b-c" = 2}\n', ["c.b-c-"], "c = {a = 1}\n"),
    # a batch: a delete that finds nothing is skipped, a stray '}' after a value dropped
    ("x = 1\n", ["x=2", "y.z-", "w=3"], "x = 2\nw = 3\n"),
    ("c = {a = 1}\n", ['c.b={"x": 1}}'], 'c = {a = 1, b = {"x": 1}}\n'),
    # dotted entries and multiple targets are read as the reference reads them
    ("c = {a.b.c = 1}\n", ["c.a.b.d=2"], "c = {\n    a: {\n        b: {c = 1, d = 2}\n    }\n}\n"),
    ("a = b = {x = 1}\n", ["a.x=2"], "a = {x = 2}\nb = {x = 1}\n"),
    # unions with schemas, list inserts
    (
        "schema S:\n    x: int\n\nc: S {x = 1}\n",
        ["c:{y=3}"],
        "schema S:\n    x: int\n\nc: S {\n    x = 1\n    y = 3\n}\n",
    ),
    (
        "schema S:\n    x: int\n\nc: S {x = 1}\n",
        ["c=S{x=3}"],
        "schema S:\n    x: int\n\nc: S {\n    x = 3\n}\n",
    ),
    ("c = {a = [1]}\n", ["c.a+=[2,3]", "c.b+=[1]"], "c = {a = [1, 2, 3], b += [1]}\n"),
]


@pytest.mark.parametrize(("text", "specs", "expected"), CASES)
def test_override_source_as_the_reference(text: str, specs: list[str], expected: str) -> None:
    new, result = override_source(text, specs, "main.k")
    assert result.result and not result.parse_errors
    assert new == expected
    _, diagnostics = parse_source(new, "main.k")
    assert not [d for d in diagnostics if d.is_error]


@needs_reference
def test_cases_are_what_the_reference_writes(tmp_path: Path) -> None:
    requests = []
    for index, (text, specs, _) in enumerate(CASES):
        path = tmp_path / f"case{index}.k"
        path.write_text(text)
        requests.append({"kind": "override_file", "file": str(path), "specs": specs})
    for (text, specs, expected), answer in zip(CASES, reference(requests), strict=True):
        assert answer.get("text") == expected, (text, specs, answer)


def test_stray_bracket_is_a_warning() -> None:
    _, result = override_source("c = {a = 1}\n", ['c.b={"x": 1}}'])
    assert [d.message for d in result.warnings] == [
        "the override 'c.b={\"x\": 1}}' ends with unmatched '}', which is ignored"
    ]


def test_invalid_spec_refuses_the_batch(tmp_path: Path) -> None:
    path = tmp_path / "main.k"
    path.write_text("x = 1\n")
    with pytest.raises(OverrideError) as caught:
        override_file(str(path), ["x=2", "....", "y=2"])
    assert caught.value.diagnostics[0].message.startswith("Invalid spec format '....'")
    assert path.read_text() == "x = 1\n"


def test_negative_number_stays_a_number() -> None:
    """The reference writes ``"-1"`` (docs/differences.md)."""
    assert override_source("x = 1\n", ["a=-1"])[0] == "x = 1\na = -1\n"


# --------------------------------------------------------------------------- unparsable results


UNPARSABLE = [
    # a new variable whose name is not a name: the reference writes `a-b = 1`
    ("x = 1\n", ["a-b=1"]),
    # an entry after an if entry: the reference writes `c = {if True:\n    x = 1, x = 3}`
    ("c = {if True: x = 1}\n", ["c.x=3"]),
]


def test_no_override_leaves_an_unparsable_file(tmp_path: Path) -> None:
    path = tmp_path / "main.k"
    path.write_text("x = 1\n")
    with pytest.raises(OverrideError) as caught:
        override_file(str(path), ["x=2", "a-b=1"])
    message = caught.value.diagnostics[0].message
    assert message.startswith(f"the override 'a-b=1' would leave {path} unparsable")
    assert path.read_text() == "x = 1\n"  # nothing written, not even x=2
    text = "c = {if True: x = 1}\n"
    new, _ = override_source(text, ["c.x=3"])
    assert new == "c = {\n    if True:\n        x = 1\n    x = 3\n}\n"


@needs_reference
def test_the_reference_leaves_unparsable_files(tmp_path: Path) -> None:
    """Where kclpy refuses or differs (docs/differences.md): kcl-lib's file does not parse."""
    requests = []
    for index, (text, specs) in enumerate(UNPARSABLE):
        path = tmp_path / f"u{index}.k"
        path.write_text(text)
        requests.append({"kind": "override_file", "file": str(path), "specs": specs})
    for answer in reference(requests):
        _, diagnostics = parse_source(answer["text"], "theirs.k")
        assert [d for d in diagnostics if d.is_error], answer


def test_import_paths_are_added() -> None:
    new, _ = override_source(
        "import a.b\n\nc = {x = 1}\n", ["c.x=2"], "m.k", ["a.b", "d as f", "g"]
    )
    assert new == "import a.b\nimport d as f\nimport g\n\nc = {x = 2}\n"


def test_run_spec_validation(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from kclpy.cli import main

    path = tmp_path / "main.k"
    path.write_text('c = {"a-b" = 1}\n')
    assert main([str(path), "-O", "c.a-b=2"]) == 0
    assert capsys.readouterr().out == "c:\n  a-b: 2\n"
    with pytest.raises(SystemExit) as ended:
        main([str(path), "-O", ":a"])
    assert ended.value.code == 2


# --------------------------------------------------------------------------- corpus mode


def _shape(text: str) -> list[tuple[object, ...]]:
    """A program's syntax without positions: the same shape means the same program."""
    module, _ = parse_source(text, "x.k")
    shape: list[tuple[object, ...]] = []
    for node in walk(module):
        values = [getattr(node, f) for f in node._fields]
        shape.append(
            (type(node).__name__, *[v for v in values if not isinstance(v, ast.Node | list)])
        )
    return shape


# upstream cases where kclpy's file differs from the reference's, and why
# (docs/differences.md): the layout only, never the program
LAYOUT_ONLY = {
    "query/test_override_file_config": "with import_paths the reference shifts some lines, "
    "which puts some one-entry configs on one line",
}


def _check(python: str, impl: str) -> dict[str, dict[str, object]]:
    script = ROOT / "tests" / "tools" / "override_corpus.py"
    done = subprocess.run(
        [python, str(script), "check", impl, str(CORPUS)],
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    )
    result: dict[str, dict[str, object]] = json.loads(done.stdout)
    return result


@pytest.mark.skipif(not CORPUS.is_dir(), reason=".corpus/override is not built")
@needs_reference
def test_upstream_cases_against_the_reference() -> None:
    ours = _check(sys.executable, "kclpy")
    theirs = _check(sys.executable, "reference")
    assert ours.keys() == theirs.keys()
    for case, answer in ours.items():
        expected = theirs[case]
        if "text" not in expected or "error" in expected:
            assert ("error" in answer) == ("error" in expected), case
            continue
        if case == "query/test_overridefile_with_invalid_kcl":
            assert answer["parse_errors"] and not answer["result"]  # left alone
            continue
        assert answer.get("result") == expected.get("result"), case
        if case in LAYOUT_ONLY:
            assert answer["text"] != expected["text"], f"{case} now matches: drop it"
            assert _shape(str(answer["text"])) == _shape(str(expected["text"])), case
        else:
            assert answer["text"] == expected["text"], case
    met = [case for case, answer in ours.items() if answer["met"]]
    assert len(met) == len(ours) - 2  # the two above
