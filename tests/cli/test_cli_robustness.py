"""Any command line gives an exit code of 0, 1 or 2 and coded messages: never a
traceback, never the internal-error exit 3 (hypothesis over kcl's own vocabulary)."""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

import pytest
from cli_helpers import kcl, write
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kclpy.cli import main

WORDS = [
    "run", "fmt", "lint", "test", "vet", "doc", "generate", "version", "main.k", "data.json",
    "folder", "folder/...", "./...", "missing.k", "-", "--", "-D", "a=1", "=", "-S", "a", "-O",
    "a.b=2", "-E", "x=folder", "-Y", "settings.yaml", "-o", "out.yaml", "folder", "--format",
    "json", "toml", "xml", "-n", "-k", "-H", "-r", "-q", "-v", "--check", "--diff", "--run",
    "(", "-s", "Nope", "--output", "--select", "W0411", "--target", "",
]  # fmt: skip


@pytest.fixture(scope="module")
def sandbox() -> Path:
    folder = Path(tempfile.mkdtemp(prefix="kcl-cli-fuzz-"))
    write(
        folder,
        {
            "main.k": 'schema S:\n    a: int = 1\n\nx = S {}\ny = option("a")\n',
            "data.json": '{"a": "no"}',
            "settings.yaml": "kcl_cli_configs:\n  files: [main.k]\n",
            "folder/t_test.k": "test_a = lambda { assert 1 == 1 }\n",
        },
    )
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


@settings(
    max_examples=80,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(st.lists(st.sampled_from(WORDS), min_size=1, max_size=7))
def test_no_internal_errors(
    sandbox: Path, capsys: pytest.CaptureFixture[str], words: list[str]
) -> None:
    before = os.getcwd()
    os.chdir(sandbox)
    try:
        try:
            code = main(words)
        except SystemExit as stop:  # argparse: --help (0) or a usage error (2)
            code = int(stop.code or 0)
    finally:
        os.chdir(before)
    captured = capsys.readouterr()
    assert code in (0, 1, 2), (words, captured.err)
    assert "Traceback" not in captured.err and "E9999" not in captured.err


def test_bad_regular_expressions_and_missing_packages_are_user_errors(tmp_path: Path) -> None:
    done = kcl("test", "--run", "(", cwd=tmp_path)
    assert done.returncode == 2 and "invalid --run pattern" in done.stderr
    done = kcl("doc", "nowhere", cwd=tmp_path)
    assert done.returncode == 1 and done.stderr.startswith("error[E9001]: IOError\n")


def _one_line_inputs(folder: Path) -> None:
    """A 200 KB one-line program, JSON data and YAML data, each wrong near its end."""
    items = {f"k{index}": index for index in range(16_000)}
    program = ", ".join(f'"{key}": {value}' for key, value in items.items())
    data = ",".join(f'"{key}":{value}' for key, value in items.items())
    yaml_data = ", ".join(f"{key}: {value}" for key, value in items.items())
    write(
        folder,
        {
            "main.k": f"a = {{{program}, bad: undefined_name}}\n",
            "data.json": f'{{{data},"name":5}}',
            "bad.json": f"{{{data},,}}",
            "bad.yaml": f"{{{yaml_data}, : ]}}\n",
            "schema.k": "schema S:\n    name: str\n    [...str]: int\n",
        },
    )


@pytest.mark.parametrize(
    ("words", "token"),
    [
        (("run", "main.k"), "undefined_name"),
        (("vet", "data.json", "schema.k", "-s", "S"), '"name"'),
        (("import", "bad.json", "-o", "out.k"), ","),
        (("import", "bad.yaml", "-o", "out.k"), ":"),
    ],
)
def test_a_diagnostic_on_a_200kb_line_stays_small(
    tmp_path: Path, words: tuple[str, ...], token: str
) -> None:
    _one_line_inputs(tmp_path)
    assert (tmp_path / words[1]).stat().st_size > 200_000
    done = kcl(*words, cwd=tmp_path)
    assert done.returncode == 1 and len(done.stderr.encode()) < 2_000, done.stderr[:500]
    source, carets = done.stderr.splitlines()[3:5]
    assert source.startswith("1 | ...")
    assert source[carets.index("^") :].startswith(token)


def test_lint_on_a_200kb_line_stays_small(tmp_path: Path) -> None:
    _one_line_inputs(tmp_path)
    done = kcl("lint", "main.k", cwd=tmp_path)
    assert "LineTooLong" in done.stdout and len(done.stdout.encode()) < 2_000
