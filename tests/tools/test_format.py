"""``kcl fmt`` / ``kclpy.format_code`` / ``kclpy.format_path``.

Goldens: the 31 input/output pairs of the reference formatter (kcl_lib 0.13.2) in
``format_cases/`` (``NAME.in``, ``NAME.out``). Four outputs are kclpy's own where the
reference changes meaning or moves comments (docs/differences.md, "Formatter");
two inputs are syntax errors, which kclpy refuses to format.
"""

from __future__ import annotations

import io
import os
import sys
from pathlib import Path

import pytest

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


def test_all_reference_cases_are_here() -> None:
    assert len(NAMES) == 31


@pytest.mark.parametrize("name", NAMES)
def test_reference_case(name: str) -> None:
    source = (CASES / f"{name}.in").read_text(encoding="utf-8")
    if name in SYNTAX_ERRORS:
        with pytest.raises(FormatError) as caught:
            format_code(source)
        assert caught.value.diagnostics[0].code.id == "E1001"
        return
    expected = (CASES / f"{name}.out").read_text(encoding="utf-8")
    assert format_code(source) == expected
    assert format_code(expected) == expected  # idempotent


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
        "# head\n\na = 1 # one\n# before b\nb = [\n    1 # item\n    # between\n    2\n]\n"
        "schema S:\n    x: int # attr\n    # end of body\n# tail\n"
    )
    out = format_code(source)
    assert out == source
    assert [line.strip() for line in out.splitlines() if "#" in line] == [
        line.strip() for line in source.splitlines() if "#" in line
    ]


def test_config_if_entries_become_blocks() -> None:
    source = "a = {\n    if True: b = 1\n    c = 2\n}\n"
    assert format_code(source) == "a = {\n    if True:\n        b = 1\n    c = 2\n}\n"


def test_empty_and_crlf() -> None:
    assert format_code("") == ""
    assert format_code("a=1\r\nb=2\r\n") == "a = 1\nb = 2\n"


def test_long_lambda_signature_gets_one_parameter_per_line() -> None:
    source = (CASES / "07_longline.in").read_text(encoding="utf-8")
    out = format_code(source)
    assert "f = lambda {\n    aaaaaaaaaaaaa: int,\n" in out
    assert kclpy.run(out + "x = f(1, 2, 3, 4)\n").text.endswith("x: 1\n")


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
    assert main(["fmt", str(bad), "--no_style"]) == 1
    err = capsys.readouterr().err
    assert "error[E1001]" in err and "bad.k:" in err
    assert bad.read_text() == "a = (\n"
    assert main(["fmt", str(tmp_path / "missing")]) == 1
