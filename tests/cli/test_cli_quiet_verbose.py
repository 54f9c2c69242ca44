"""``-q``, ``-v`` and ``--no_style`` do what docs/cli.md says, on every command that
has them: ``-q`` leaves stdout empty when all is well (only errors remain), ``-v``
adds ``kcl: ...`` lines on stderr without changing stdout, ``--no_style`` takes the
colour out of messages even when ``FORCE_COLOR`` asks for it. Also: ``kcl build``
says which ``kcl.mod.lock`` it wrote, and ``kcl mod`` edits keep kcl.mod's final
newline. Real ``kcl`` processes in temporary folders, with their own package cache."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from tests.cli.cli_helpers import write

PROGRAM = {
    "main.k": "a = 1\n",
    "main_test.k": "test_a = lambda {\n    assert a == 1\n}\n",
    "data.json": '{"a": 1}\n',
    "schema.k": "schema S:\n    a: int\n",
}


def kcl(
    *args: str, cwd: Path, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    environment = {**os.environ, "KCL_PKG_PATH": str(cwd.parent / "kpm"), **(env or {})}
    environment.pop("NO_COLOR", None)
    return subprocess.run(
        [sys.executable, "-m", "kclpy", *args],
        cwd=cwd, env=environment, capture_output=True, text=True, input="", timeout=300,
    )  # fmt: skip


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    work = write(tmp_path / "work", PROGRAM)
    write(tmp_path / "lib", {"kcl.mod": '[package]\nname = "lib"\nversion = "0.0.1"\n'})
    write(tmp_path / "lib", {"lib.k": "b = 2\n"})
    return work


def _module(folder: Path) -> None:
    kcl("mod", "init", "-q", cwd=folder)
    kcl("mod", "add", "../lib", "-q", cwd=folder)


# (arguments, setup): each succeeds and prints something on stdout without -q
CASES: dict[str, tuple[list[str], str]] = {
    "run": (["run", "main.k"], ""),
    "fmt": (["fmt", "unformatted.k"], "unformatted"),
    "lint": (["lint", "main.k"], ""),
    "test": (["test"], ""),
    "vet": (["vet", "data.json", "schema.k"], ""),
    "doc": (["doc", "."], "schema"),
    "import": (["import", "-o", "-", "data.json"], ""),
    "build": (["build", "-j", "0"], ""),
    "build --update": (["build", "-j", "0", "--update"], ""),
    "mod init": (["mod", "init", "demo"], ""),
    "mod add": (["mod", "add", "../lib"], "module-bare"),
    "mod remove": (["mod", "remove", "lib"], "module"),
    "mod graph": (["mod", "graph"], "module"),
    "mod metadata": (["mod", "metadata"], "module"),
    "mod package": (["mod", "package", "--target", "out.tar"], "module"),
    "registry logout": (["registry", "logout", "localhost:5000"], ""),
    "clean": (["clean", "-y"], "cache"),
}


def _prepare(folder: Path, setup: str) -> dict[str, str]:
    if setup == "unformatted":
        (folder / "unformatted.k").write_text("a=1\n")
    elif setup == "schema":
        (folder / "main.k").write_text('schema Person:\n    """A person."""\n    name: str\n')
    elif setup == "module-bare":
        kcl("mod", "init", "-q", cwd=folder)
    elif setup == "module":
        _module(folder)
    elif setup == "cache":
        (folder / "cache").mkdir()
        return {"KCLPY_CACHE_DIR": str(folder / "cache")}
    return {}


@pytest.mark.parametrize("case", sorted(CASES))
def test_quiet_prints_nothing_on_success(case: str, folder: Path) -> None:
    arguments, setup = CASES[case]
    env = _prepare(folder, setup)
    loud = kcl(*arguments, cwd=folder, env=env)
    assert loud.returncode == 0, loud.stderr
    assert loud.stdout or case.startswith("build"), f"{case} printed nothing without -q"
    again = write(folder.parent / "again", PROGRAM)  # the first run may have changed it
    quiet = kcl(*arguments, "-q", cwd=again, env=_prepare(again, setup))
    assert quiet.returncode == 0, quiet.stderr
    assert quiet.stdout == ""
    assert "kcl: " not in quiet.stderr


@pytest.mark.parametrize("case", sorted(CASES))
def test_verbose_says_what_is_read_and_written(case: str, folder: Path) -> None:
    arguments, setup = CASES[case]
    env = _prepare(folder, setup)
    verbose = kcl(*arguments, "-v", cwd=folder, env=env)
    assert verbose.returncode == 0, verbose.stderr
    assert any(line.startswith("kcl: ") for line in verbose.stderr.splitlines()), verbose.stderr


def test_build_quiet_keeps_the_stacks_that_differ(folder: Path) -> None:
    write(folder, {"ci-test/stdout.golden.yaml": "a: 2\n"})
    quiet = kcl("build", "-j", "0", "--check", "-q", cwd=folder)
    assert quiet.returncode == 1
    assert quiet.stdout == "CHANGED: .\n"
    assert " built, " not in quiet.stdout


@pytest.mark.parametrize(
    "arguments",
    [
        ["run", "broken.k"],
        ["import", "broken.json"],
        ["mod", "graph"],
        ["registry", "logout"],
    ],
)
def test_no_style_takes_the_colour_out(arguments: list[str], folder: Path) -> None:
    broken_mod = '[package]\nname = "w"\n[dependencies]\nx = { path = 3 }\n'
    write(folder, {"broken.k": "a = \n", "broken.json": "{", "kcl.mod": broken_mod})
    coloured = kcl(*arguments, cwd=folder, env={"FORCE_COLOR": "1"})
    plain = kcl(*arguments, "--no_style", cwd=folder, env={"FORCE_COLOR": "1"})
    assert coloured.returncode == plain.returncode != 0
    if arguments[0] != "registry":  # a usage error: argparse's, never coloured
        assert "\x1b[" in coloured.stderr
    assert "\x1b[" not in plain.stderr and plain.stderr.strip()


def test_kusion_quiet_and_verbose(tmp_path: Path) -> None:
    pytest.importorskip("yaml")
    spec = tmp_path / "spec.yaml"
    spec.write_text(
        "resources:\n- id: local:file:a\n  type: Local\n  attributes: {path: out/a, content: one}\n"
    )
    common = ["--spec", str(spec), "--workdir", str(tmp_path)]
    preview = kcl("kusion", "preview", *common, cwd=tmp_path)
    if preview.returncode != 0 and "kusion" in preview.stderr and "extra" in preview.stderr:
        pytest.skip("the kusion extra is not installed")
    assert preview.returncode == 0 and "local:file:a" in preview.stdout
    assert kcl("kusion", "preview", *common, "-q", cwd=tmp_path).stdout == ""
    applied = kcl("kusion", "apply", *common, "--yes", "-q", "-v", cwd=tmp_path)
    assert applied.returncode == 0, applied.stderr
    assert applied.stdout == ""
    assert (tmp_path / "out" / "a").read_text() == "one"
    assert "kcl: reading the spec" in applied.stderr and "kcl: state " in applied.stderr
    state = kcl("kusion", "state", "--workdir", str(tmp_path), "-q", cwd=tmp_path)
    assert state.returncode == 0 and state.stdout == ""
    shown = kcl("kusion", "state", "--workdir", str(tmp_path), cwd=tmp_path)
    assert "Revision:  1" in shown.stdout


def test_kusion_verbose_hides_the_database_password(tmp_path: Path) -> None:
    url = "postgresql://user:s3cret@127.0.0.1:1/db"
    done = kcl("kusion", "state", "--state", url, "-v", "--workdir", str(tmp_path), cwd=tmp_path)
    assert "user:***@127.0.0.1:1/db" in done.stderr
    assert "s3cret" not in done.stderr + done.stdout


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.mark.parametrize("quiet", [False, True])
def test_server_quiet_does_not_announce(quiet: bool, tmp_path: Path) -> None:
    port = _free_port()
    command = [sys.executable, "-m", "kclpy", "server", "--port", str(port)]
    process = subprocess.Popen(
        command + (["-q"] if quiet else []),
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=tmp_path,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and process.poll() is None:
            try:
                url = f"http://127.0.0.1:{port}/api:protorpc/BuiltinService.Ping"
                urllib.request.urlopen(urllib.request.Request(url, b"{}"), timeout=2)
                break
            except OSError:
                time.sleep(0.1)
        process.send_signal(signal.SIGTERM)
        out, _ = process.communicate(timeout=60)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    assert ("listen on" in out) is not quiet


def test_build_says_which_lock_it_wrote(tmp_path: Path) -> None:
    write(tmp_path / "lib", {"kcl.mod": '[package]\nname = "lib"\nversion = "0.0.1"\n'})
    app = tmp_path / "repo" / "app"
    write(app, {"kcl.mod": '[package]\nname = "app"\n\n[dependencies]\n'})
    write(app, {"main.k": "import lib\nb = lib.b\n"})
    write(tmp_path / "lib", {"lib.k": "b = 2\n"})
    (app / "kcl.mod").write_text(
        '[package]\nname = "app"\n\n[dependencies]\nlib = { path = "../../lib" }\n'
    )
    repo = tmp_path / "repo"
    locked = kcl("build", "-j", "0", "--locked", cwd=repo)
    assert locked.returncode == 1 and "wrote" not in locked.stderr
    assert not (app / "kcl.mod.lock").exists()
    quiet = kcl("build", "-j", "0", "-q", cwd=repo)
    assert quiet.returncode == 0 and quiet.stderr == "" and quiet.stdout == ""
    (app / "kcl.mod.lock").unlink()
    first = kcl("build", "-j", "0", cwd=repo)
    assert first.returncode == 0, first.stderr
    assert first.stderr == "wrote app/kcl.mod.lock\n"
    second = kcl("build", "-j", "0", cwd=repo)
    assert second.returncode == 0 and second.stderr == ""


def test_mod_edits_keep_the_final_newline(folder: Path) -> None:
    kcl("mod", "init", "-q", cwd=folder)
    assert kcl("mod", "add", "../lib", cwd=folder).returncode == 0
    text = (folder / "kcl.mod").read_text()
    assert text.endswith('lib = { path = "../lib" }\n')
    assert kcl("mod", "remove", "lib", cwd=folder).returncode == 0
    assert (folder / "kcl.mod").read_text().endswith("[dependencies]\n")
