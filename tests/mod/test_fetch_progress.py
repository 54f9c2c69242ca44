"""What `kcl run` and `kcl mod` show while they download packages (on standard error):
two plain lines per download off a terminal, a tqdm bar on one, nothing under -q or
for a package already in the cache, a closing line when a download fails."""

from __future__ import annotations

import io
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from kclpy.mod import progress

from .conftest import free_port, kcl, make_package
from .test_registry import env_for, push

STARTED = r"fetching greeter 1\.2\.0 from {host}/kcl-lang/greeter \.\.\."
DONE = r"\.\.\. done in \d+\.\d s, \d+(\.\d)? (B|kB)"


def _greeter_app(registry: str, tmp_path: Path, home: Path) -> Path:
    lib = make_package(tmp_path / "greeter", "greeter", "1.2.0", "hello = 'world'\n")
    push(lib, registry, home)
    return make_package(
        tmp_path / "app", "app", "0.0.1", "import greeter\nh = greeter.hello\n",
        'greeter = "1.2.0"\n',
    )  # fmt: skip


def test_run_shows_each_download_once(registry: str, tmp_path: Path, home: Path) -> None:
    app = _greeter_app(registry, tmp_path, home)
    environment = env_for(registry, home)
    ran = kcl("run", cwd=app, env=environment)
    assert ran.returncode == 0 and ran.stdout == "h: world\n", ran.stderr
    lines = ran.stderr.splitlines()
    assert len(lines) == 2, ran.stderr
    assert re.fullmatch(STARTED.format(host=re.escape(registry)), lines[0])
    assert re.fullmatch(DONE, lines[1])
    again = kcl("run", cwd=app, env=environment)  # in the cache: nothing to show
    assert (again.returncode, again.stdout, again.stderr) == (0, "h: world\n", "")


def test_quiet_shows_no_download(registry: str, tmp_path: Path, home: Path) -> None:
    app = _greeter_app(registry, tmp_path, home)
    ran = kcl("run", "-q", cwd=app, env=env_for(registry, home))
    assert (ran.returncode, ran.stderr) == (0, "")
    added = kcl("mod", "add", "-q", "greeter:1.2.0", cwd=app, env=env_for(registry, home))
    assert added.returncode == 0 and "fetching" not in added.stderr


def test_mod_add_shows_the_download(registry: str, tmp_path: Path, home: Path) -> None:
    _greeter_app(registry, tmp_path, home)
    app = make_package(tmp_path / "other", "other", "0.0.1", "a = 1\n")
    added = kcl("mod", "add", "greeter:1.2.0", cwd=app, env=env_for(registry, home))
    assert added.returncode == 0, added.stderr
    assert re.search(STARTED.format(host=re.escape(registry)) + "\n" + DONE + "\n", added.stderr)
    assert "add dependency 'greeter:1.2.0' successfully" in added.stdout


def test_a_failed_download_is_closed(tmp_path: Path, home: Path) -> None:
    host = f"127.0.0.1:{free_port()}"
    app = make_package(tmp_path / "app", "app", "0.0.1", "a = 1\n", 'greeter = "1.2.0"\n')
    ran = kcl("run", cwd=app, env=env_for(host, home))
    assert ran.returncode == 1
    first, second = ran.stderr.splitlines()[:2]
    assert re.fullmatch(STARTED.format(host=re.escape(host)), first)
    assert re.fullmatch(r"\.\.\. failed after \d+\.\d s", second)


def test_a_terminal_gets_a_bar(registry: str, tmp_path: Path, home: Path) -> None:
    """`kcl run` with standard error on a pseudo-terminal draws a tqdm bar."""
    pty = pytest.importorskip("pty")
    app = _greeter_app(registry, tmp_path, home)
    import fcntl
    import struct
    import termios

    leader, follower = pty.openpty()
    fcntl.ioctl(follower, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 100, 0, 0))
    environment = dict(os.environ, **env_for(registry, home))
    process = subprocess.Popen(
        [sys.executable, "-m", "kclpy", "run", "--no_style"], cwd=app, env=environment,
        stdout=subprocess.PIPE, stderr=follower, text=True,
    )  # fmt: skip
    os.close(follower)
    screen = b""
    while True:
        try:
            chunk = os.read(leader, 4096)
        except OSError:  # the follower side closed: the run is over
            break
        if not chunk:
            break
        screen += chunk
    stdout, _ = process.communicate(timeout=120)
    os.close(leader)
    text = screen.decode("utf-8", "replace")
    assert process.returncode == 0 and stdout == "h: world\n", text
    assert "fetching greeter 1.2.0 from" in text and "100%" in text
    assert "... done in" not in text  # the bar stands for the lines


def test_reporter_lines_and_sizes(monkeypatch: pytest.MonkeyPatch) -> None:
    stream = io.StringIO()
    monkeypatch.setattr(sys, "stderr", stream)
    with progress.reporting(progress.Reporter(terminal=False)):
        fetch = progress.current().start("k8s 1.31.2 from ghcr.io/kcl-lang/k8s")
        fetch.expect(3_400_000)
        fetch.advance(3_400_000)
        fetch.finish()
    assert progress.current() is progress.SILENT
    first, second = stream.getvalue().splitlines()
    assert first == "fetching k8s 1.31.2 from ghcr.io/kcl-lang/k8s ..."
    assert re.fullmatch(r"\.\.\. done in \d+\.\d s, 3\.4 MB", second)
    assert [progress.size_text(n) for n in (0, 999, 1000, 2_500_000, 7 * 10**12)] == [
        "0 B", "999 B", "1.0 kB", "2.5 MB", "7000.0 GB",
    ]  # fmt: skip
    silent = progress.SILENT.start("nothing")
    silent.advance(10)
    silent.finish()
    assert stream.getvalue().count("\n") == 2


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
def test_a_git_download_is_shown_with_its_size(tmp_path: Path, home: Path) -> None:
    from .test_git import git

    folder = make_package(tmp_path / "mathlib", "mathlib", "0.1.0", "version = 'one'\n")
    git(folder, "init", "-q", "-b", "main")
    git(folder, "add", ".")
    git(folder, "commit", "-q", "-m", "one")
    git(folder, "tag", "v0.1.0")
    app = make_package(tmp_path / "app", "app", "0.0.1", "a = 1\n")
    added = kcl("mod", "add", "--git", f"file://{folder}", "--tag", "v0.1.0", cwd=app)
    assert added.returncode == 0, added.stderr
    started, done = added.stderr.splitlines()
    assert started == f"fetching mathlib v0.1.0 from file://{folder} ..."
    assert re.fullmatch(r"\.\.\. done in \d+\.\d s, \d+ B", done)  # the files' bytes
