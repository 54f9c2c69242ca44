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
