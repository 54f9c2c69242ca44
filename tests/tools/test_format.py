"""``kcl fmt`` / ``kclpy.format_code`` / ``kclpy.format_path``.

Goldens: the 36 input/output pairs of the reference formatter (kcl_lib 0.13.2) in
``format_cases/`` (``NAME.in``, ``NAME.out``; inputs written for kclpy). 30 outputs are
the reference's (checked against it when it is installed; ``pytest --update-goldens``
rewrites them from it); four are kclpy's own where the reference changes meaning or
moves comments (docs/differences.md, "Formatter"); two inputs are syntax errors, which
kclpy refuses to format (the reference returns them unchanged). Real code against the
reference: ``test_format_corpus.py``.
"""

from __future__ import annotations

import io
import os
import sys
from pathlib import Path

import pytest
from reference import call_reference, reference_available

import kclpy
from kclpy.cli import main
from kclpy.tools.format import FormatError, format_code

CASES = Path(__file__).parent / "format_cases"
DELIBERATE = {
    "04_comments": "trailing comments stay on list items; a comment ending a schema stays in it",
    "25_numbers": "number literals keep their spelling (2.0 and 1e3 stay floats)",
    "27_index_sig": "a trailing comment on a check line stays there",
    "29_config_comments": "a blank line inside a config is kept",
}
SYNTAX_ERRORS = {"10_syntax_error", "18_dict_trailing_comma"}
NAMES = sorted(path.stem for path in CASES.glob("*.in"))


_REFERENCE_FORMAT = r"""
import json, sys
import kcl_lib.api as api

client = api.API()
texts = json.load(sys.stdin)
outputs = [client.format_code(api.FormatCodeArgs(source=t)).formatted for t in texts]
json.dump([out.decode("utf-8") for out in outputs], sys.stdout)
"""


def test_all_reference_cases_are_here() -> None:
    assert len(NAMES) == 36


def _read(path: Path) -> str:
    return path.read_bytes().decode("utf-8")  # `\r\n` kept (14_crlf)


@pytest.mark.parametrize("name", NAMES)
def test_reference_case(name: str) -> None:
    source = _read(CASES / f"{name}.in")
    if name in SYNTAX_ERRORS:
        with pytest.raises(FormatError) as caught:
            format_code(source)
        assert caught.value.diagnostics[0].code.id == "E1001"
        return
    expected = _read(CASES / f"{name}.out")
    assert format_code(source) == expected
    assert format_code(expected) == expected  # idempotent


def test_outputs_are_the_references(update_goldens: bool) -> None:
    """The ``.out`` files but kclpy's own are what the reference prints now."""
    if not reference_available():
        pytest.skip("the reference (kcl_lib) is not installed")
    names = [n for n in NAMES if n not in DELIBERATE and n not in SYNTAX_ERRORS]
    answers = call_reference(_REFERENCE_FORMAT, [_read(CASES / f"{n}.in") for n in names])
    for name, answer in zip(names, answers, strict=True):
        if update_goldens:
            (CASES / f"{name}.out").write_bytes(answer.encode("utf-8"))
        assert _read(CASES / f"{name}.out") == answer, name


def test_literals_keep_their_spelling_and_meaning() -> None:
    source = "a = 0x1F\nb = 1_000\nc = 2.0\nd = 1e3\ne = 'single'\nf = r'raw\\n'\n"
    assert format_code(source) == source
    before = kclpy.run(source).text
    assert kclpy.run(format_code(source)).text == before
    assert "c: 2.0" in before


def test_layout_rules() -> None:
    source = (
        "import math\nx=math.pow(2,3)\nschema S :\n  a : int=1\n  check :\n    a>0\n"
        "y=S{a=2}\nz=[\n  1,\n  2,\n]\nf=lambda x:int->int{x*2}\nt: {str:int} = {}\n"
    )
    assert format_code(source) == (
        "import math\n\nx = math.pow(2, 3)\nschema S:\n    a: int = 1\n\n    check:\n"
        "        a > 0\n\ny = S {a = 2}\nz = [\n    1\n    2\n]\nf = lambda x: int -> int {\n"
        "    x * 2\n}\nt: {str:int} = {}\n"
    )


def test_comments_stay_in_place_and_in_order() -> None:
    source = (
        "# head\na = 1 # one\n# before b\nb = [\n    1 # item\n    # between\n    2\n]\n"
        "schema S:\n    x: int # attr\n    # end of body\n\n# tail\n"
    )
    out = format_code(source)
    assert out == source
    assert [line.strip() for line in out.splitlines() if "#" in line] == [
        line.strip() for line in source.splitlines() if "#" in line
    ]


# (name, input, expected output): the reference's layout rules and what kclpy keeps
# where the reference loses text or produces code that does not parse
RULES = [
    (
        "names written with $ keep it",
        "schema $if[$a: int]:\n    [$k: str]: int\n    $b: $if = $a\n\n"
        "f = lambda $for: int {\n    $for\n}\nx = f($for=1)\nimport a.$b as $c\n",
        None,
    ),
    (
        "a lone entry whose value is a config gets a block (reference)",
        "a = {b: {c: 1}}\nd = S {e = T {f = 1}}\ng = {h: 1, i: {j: 1}}\n",
        "a = {\n    b: {c: 1}\n}\nd = S {\n    e = T {f = 1}\n}\ng = {h: 1, i: {j: 1}}\n",
    ),
    (
        "an item starting on a later line than the bracket: one item per line (reference)",
        "a = [{\n    b: 1\n}, {\n    c: 1\n}]\nd = [1, {\n    e: 1\n}]\n",
        "a = [\n    {\n        b: 1\n    }\n    {\n        c: 1\n    }\n]\n"
        "d = [1, {\n    e: 1\n}]\n",
    ),
    (
        "a multi-line item before another: one per line at once (idempotent)",
        "g = {b = [{aa = {bb = 55}}], c = 1}\n",
        "g = {\n    b = [{\n        aa = {bb = 55}\n    }]\n    c = 1\n}\n",
    ),
    (
        "a comment inside a list or config: one item per line, the comment kept there",
        "a = [1, 2 # two\n]\nb = {c: 1, # one\n}\nd = [\n    # nothing yet\n]\n",
        "a = [\n    1\n    2 # two\n]\nb = {\n    c: 1 # one\n}\nd = [\n    # nothing yet\n]\n",
    ),
    ("comments between call arguments stay", "a = f(\n    1, # one\n    x=2 # two\n)\n", None),
    (
        "a quantifier written as a block stays one (reference)",
        "a = all x in y {\n    x > 0 # positive\n}\nb = any x in y {x > 0}\n",
        None,
    ),
    (
        "no blank line after a schema docstring or mixins (reference); kept after attributes",
        'schema S:\n    """Doc."""\n\n    mixin [M]\n\n    a: int\n\n    b: int\n',
        'schema S:\n    """Doc."""\n    mixin [\n        M\n    ]\n    a: int\n\n    b: int\n',
    ),
    (
        "comments between lambda parameters: one parameter per line",
        "f = lambda {\n    a: int, # first\n    b: int\n} -> int {\n    a + b\n}\n",
        "f = lambda {\n    a: int, # first\n    b: int,\n} -> int {\n    a + b\n}\n",
    ),
    (
        "a long signature without a return type stays on one line (`lambda {` needs `->`)",
        f"f = lambda {'a' * 32}: int, {'b' * 47}: int {{\n    1\n}}\n",
        None,
    ),
    (
        "the comment after a one-line lambda stays after it",
        "f = lambda n { n + 1 } # inc\n",
        "f = lambda n {\n    n + 1\n} # inc\n",
    ),
    (
        "comments ending an if or else block stay in it",
        "if a:\n    b = 1\n    # end of if\nelse:\n    c = 1\n    # end of else\nd = 1\n",
        None,
    ),
    (
        "comments around check: stay where they were",
        "schema S:\n    a: int\n    # end of body\n\n    # about the checks\n    check:\n"
        "        a > 0 # positive\n        # end of check\n",
        None,
    ),
    ("slices as written", "a = b[1:]\nc = b[1::]\nd = b[:]\ne = b?[::2]\n", None),
    ("else: if stays as written", "if a:\n    b = 1\nelse:\n    if c:\n        d = 1\n", None),
    ("a schema expression with a dict comprehension", "a = S {k: v for k, v in d}\n", None),
]


@pytest.mark.parametrize("rule", RULES, ids=[rule[0] for rule in RULES])
def test_rule(rule: tuple[str, str, str | None]) -> None:
    _, source, expected = rule
    out = format_code(source)
    assert out == (source if expected is None else expected)
    assert format_code(out) == out


def test_config_if_entries_become_blocks() -> None:
    source = "a = {\n    if True: b = 1\n    c = 2\n}\n"
    assert format_code(source) == "a = {\n    if True:\n        b = 1\n    c = 2\n}\n"


def test_empty_and_crlf() -> None:
    assert format_code("") == ""
    # nothing to print, blank or line continuations alone (kcl-lang/kcl's
    # grammar/misc/only_line_continuation cases): empty, and so idempotent
    for source in (" \n\n", "\\", "\\\n", "\\\n\\"):
        assert format_code(source) == ""
    assert format_code('"""\nA file of its docstring alone.\n"""\n') == (
        '"""\nA file of its docstring alone.\n"""\n'
    )
    assert format_code("a=1\r\nb=2\r\n") == "a = 1\nb = 2\n"


def test_long_lambda_signature_gets_one_parameter_per_line() -> None:
    source = (CASES / "07_longline.in").read_text(encoding="utf-8")
    out = format_code(source)
    assert "f = lambda {\n    aaaaaaaaaaaaa: int,\n" in out
    assert kclpy.run(out + "x = f(1, 2, 3, 4)\n").text.endswith("x: 1\n")


def test_deep_nesting_is_laid_out_level_by_level() -> None:
    """2,000 nested configs (a lone entry whose value is a config gets a block):
    every level but the innermost on its own lines. Blocks are built as lists of lines (joining and
    splitting each level's text made this cubic: 2,000 levels took minutes)."""
    depth = 2000
    source = "a = " + "{x: " * depth + "1" + "}" * depth + "\n"
    lines = ["a = {"]
    lines.extend("    " * level + "x: {" for level in range(1, depth - 1))
    lines.append("    " * (depth - 1) + "x: {x: 1}")
    lines.extend("    " * level + "}" for level in reversed(range(depth - 1)))
    expected = "\n".join(lines) + "\n"
    out = kclpy.format_code(source)
    assert out == expected
    assert kclpy.format_code(out) == out
    inline = "a = " + "{x: [" * depth + "1" + "]}" * depth + "\n"  # no block rule applies
    assert kclpy.format_code(inline) == inline


def _write(folder: Path, name: str, text: str) -> Path:
    path = folder / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def test_format_path_rewrites_only_changed_files(tmp_path: Path) -> None:
    messy = _write(tmp_path, "a.k", "a=1\n")
    clean = _write(tmp_path, "b.k", "b = 2\n")
    nested = _write(tmp_path, "sub/c.k", "c=3\n")
    stamp = clean.stat().st_mtime_ns
    assert kclpy.format_path(str(tmp_path), check=True) == [str(messy)]
    assert messy.read_text() == "a=1\n"
    assert kclpy.format_path(str(tmp_path)) == [str(messy)]
    assert messy.read_text() == "a = 1\n"
    assert clean.stat().st_mtime_ns == stamp
    assert nested.read_text() == "c=3\n"  # a folder is not recursive
    assert kclpy.format_path(str(tmp_path) + "/...") == [str(nested)]
    assert kclpy.format_path(str(messy)) == []


def test_format_path_replaces_files_atomically(tmp_path: Path) -> None:
    messy = _write(tmp_path, "a.k", "a=1\n")
    messy.chmod(0o640)
    old = tmp_path / "old.k"
    os.link(messy, old)  # still names the old file after a rename over `a.k`
    assert kclpy.format_path(str(messy)) == [str(messy)]
    assert messy.read_text() == "a = 1\n" and old.read_text() == "a=1\n"
    assert messy.stat().st_mode & 0o777 == 0o640
    assert sorted(os.listdir(tmp_path)) == ["a.k", "old.k"]


def test_format_path_turns_crlf_into_lf(tmp_path: Path) -> None:
    crlf = tmp_path / "crlf.k"
    crlf.write_bytes(b"a = 1\r\nb = 2\r\n")
    assert kclpy.format_path(str(crlf)) == [str(crlf)]
    assert crlf.read_bytes() == b"a = 1\nb = 2\n"


def test_format_path_with_a_syntax_error_writes_nothing(tmp_path: Path) -> None:
    good = _write(tmp_path, "a.k", "a=1\n")
    _write(tmp_path, "b.k", "b = (\n")
    with pytest.raises(FormatError):
        kclpy.format_path(str(tmp_path))
    assert good.read_text() == "a=1\n"
    assert sorted(os.listdir(tmp_path)) == ["a.k", "b.k"]  # no temporary files left


def test_cli_fmt(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    messy = _write(tmp_path, "a.k", "a=1\n")
    assert main(["fmt", str(tmp_path), "--check"]) == 1
    assert capsys.readouterr().out == f"{messy}\n"
    assert main(["fmt", str(tmp_path), "--diff"]) == 1
    out = capsys.readouterr().out
    assert "-a=1\n+a = 1\n" in out and messy.read_text() == "a=1\n"
    assert main(["fmt", str(tmp_path)]) == 0
    assert capsys.readouterr().out == f"{messy}\n"
    assert messy.read_text() == "a = 1\n"
    assert main(["fmt", str(tmp_path), "--check"]) == 0


def test_cli_fmt_stdin_and_errors(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sys, "stdin", io.StringIO("x={a=1}\n"))
    assert main(["fmt", "-"]) == 0
    assert capsys.readouterr().out == "x = {a = 1}\n"
    bad = _write(tmp_path, "bad.k", "a = (\n")
    good = _write(tmp_path, "good.k", "b=1\n")
    assert main(["fmt", str(tmp_path), "--no_style"]) == 1
    captured = capsys.readouterr()
    assert "error[E1001]" in captured.err and "bad.k:1:6" in captured.err
    assert bad.read_text() == "a = (\n"
    assert captured.out == f"{good}\n"  # the other files are formatted
    assert good.read_text() == "b = 1\n"
    (tmp_path / "latin.k").write_bytes(b"s = '\xe9'\n")
    assert main(["fmt", str(tmp_path / "latin.k")]) == 1
    assert "latin.k" in capsys.readouterr().err
    assert main(["fmt", str(tmp_path / "missing")]) == 1
    assert "missing" in capsys.readouterr().err
    monkeypatch.setattr(sys, "stdin", io.StringIO("x = (\n"))
    assert main(["fmt", "-", "--no_style"]) == 1
    captured = capsys.readouterr()
    assert captured.out == "" and "<stdin>:1:6" in captured.err
