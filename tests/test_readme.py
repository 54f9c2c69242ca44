"""The README's own code blocks, run: the ``sh`` blocks that start with
``cd examples/hello`` line by line in a copy of that example (each command must exit
0), and the ``python`` blocks in a subprocess there. ``shell`` blocks (installs,
servers, commands that change the checkout) are shown, not run. Also: the README's
test command shows pytest's summary line, and no file names one machine's paths."""

from __future__ import annotations

import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")
BLOCK = re.compile(r"^```(\w+)\n(.*?)^```", re.S | re.M)
EXAMPLE = "examples/hello"


def _blocks(language: str) -> list[str]:
    return [body for kind, body in BLOCK.findall(README) if kind == language]


def _example_copy(tmp_path: Path) -> Path:
    copy = tmp_path / "hello"
    shutil.copytree(ROOT / EXAMPLE, copy)
    return copy


def _commands() -> list[str]:
    lines = []
    for body in _blocks("sh"):
        first, *rest = body.splitlines()
        assert first == f"cd {EXAMPLE}", "a README sh block must start in the example"
        lines.extend(line for line in rest if line.strip())
    return lines


@pytest.mark.parametrize("line", _commands())
def test_shell_lines_run(tmp_path: Path, line: str) -> None:
    words = shlex.split(line, comments=True)
    assert words[0] == "kcl"
    _succeeds([sys.executable, "-m", "kclpy", *words[1:]], _example_copy(tmp_path))


@pytest.mark.parametrize("code", _blocks("python"))
def test_python_blocks_run(tmp_path: Path, code: str) -> None:
    _succeeds([sys.executable, "-c", code], _example_copy(tmp_path))


def _succeeds(command: list[str], cwd: Path) -> None:
    done = subprocess.run(
        command, cwd=cwd, capture_output=True, text=True, check=False, timeout=300
    )
    assert done.returncode == 0, done.stdout + done.stderr


def test_the_test_command_shows_the_summary_line() -> None:
    """pytest hides its summary line at -qq; pyproject's addopts already has one -q."""
    [command] = [line for line in README.splitlines() if "-m pytest" in line]
    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    addopts = re.search(r'^addopts = "(.*)"$', pyproject, re.M)
    quiet = command.split("-m pytest", 1)[1].split().count("-q")
    quiet += addopts.group(1).split().count("-q") if addopts else 0
    assert quiet <= 1
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert all("-q" not in line.split() for line in ci.splitlines() if "-m pytest" in line)


def test_no_machine_specific_paths() -> None:
    if shutil.which("git") is None or not (ROOT / ".git").exists():
        pytest.skip("needs a git checkout to list the tracked files")
    listed = (
        subprocess.run(
            ["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True, timeout=60
        )
        .stdout.decode()
        .split("\0")
    )
    pattern = re.compile(r"(?<![\w.])/(?:work|home/\w+|Users/\w+)/")
    found = []
    for name in filter(None, listed):
        path = ROOT / name
        if path.suffix in (".json", ".png", ".pickle") or not path.is_file():
            continue
        text = path.read_bytes().decode("utf-8", errors="replace")
        found.extend(f"{name}: {match.group(0)}" for match in pattern.finditer(text))
    assert found == []
