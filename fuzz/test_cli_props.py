"""Random argument vectors through the installed ``kcl`` command (hypothesis).

Each example runs ``python -m kclpy`` as a subprocess, in a temp folder holding a
valid program, a broken one, a settings file and a data file, with no standard
input. Argument vectors mix the real subcommands and options (including the
resource and file-system options) with wrong values, missing values, unknown
options, odd Unicode and paths that do not exist. ``lsp`` (a server on stdin) and
``kusion`` (which deploys) are left out.

Property: the command ends (within the subprocess timeout) with exit 0, 1 or 2
(never 3, an internal error), and never prints a Python traceback.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

pytestmark = pytest.mark.filterwarnings("ignore::hypothesis.errors.HypothesisWarning")

EXAMPLES = int(os.environ.get("KCLPY_FUZZ_CLI_EXAMPLES", "30"))

COMMANDS = ["run", "r", "fmt", "lint", "test", "vet", "doc", "version", "main.k", ".", ""]
WORDS = [
    "main.k", "bad.k", "data.json", "kcl.yaml", "missing.k", ".", "..", "-", "--", "",
    "-D", "a=1", "a", "=", "a==", "-Y", "-S", "a.b", "-O", "a=2", "-E", "p=.", "-o",
    "out.yaml", "-f", "json", "toml", "xml", "-n", "-k", "-H", "-r", "-d", "-q", "-v",
    "--format", "--error-format", "json", "short", "--max-memory", "0", "1G", "12Q",
    "--timeout", "-1", "nan", "0.5", "--no-fs", "--allow-fs-read", "--allow-fs-write",
    "/", "--check", "--diff", "--select", "E", "--fix", "-s", "S", "--run", "(",
    "--bogus", "-Z", "名字.k", "\u202e", "é=ü", "-Dx=[1", "--version", "-h",
]  # fmt: skip

PROGRAM = 'import file\nschema S:\n    a: int = 1\nx = S {}\ny = option("a")\n'


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("cli")
    return path


def _prepare(folder: Path) -> None:
    (folder / "main.k").write_text(PROGRAM)
    (folder / "bad.k").write_text("x = [1,\nschema:\n")
    (folder / "kcl.yaml").write_text("kcl_cli_configs:\n  files: [main.k]\n")
    (folder / "data.json").write_text('{"a": 1}')


@settings(
    max_examples=EXAMPLES,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(
    st.sampled_from(COMMANDS),
    st.lists(st.one_of(st.sampled_from(WORDS), st.text(max_size=6)), max_size=7),
)
def test_random_argument_vectors(folder: Path, command: str, words: list[str]) -> None:
    _prepare(folder)
    argv = ([command] if command else []) + [word.replace("\x00", "") for word in words]
    done = subprocess.run(
        [sys.executable, "-m", "kclpy", *argv],
        cwd=folder,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        errors="replace",
        timeout=120,
        env={**os.environ, "KCLPY_DEBUG": ""},
    )
    assert done.returncode in (0, 1, 2), (argv, done.returncode, done.stderr[-2000:])
    assert "Traceback" not in done.stderr, (argv, done.stderr[-2000:])
