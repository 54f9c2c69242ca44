"""``--locked``: ``kcl run``, ``kcl build`` and ``kcl mod`` leave an up-to-date
kcl.mod.lock alone and succeed; with an out-of-date one they fail (exit 1) saying what
would change, and neither kcl.mod nor kcl.mod.lock changes."""

from __future__ import annotations

from pathlib import Path

import pytest

from .conftest import kcl, make_package
from .test_registry import env_for, push


@pytest.fixture
def app(registry: str, tmp_path: Path, home: Path) -> Path:
    """A module depending on ``tools`` 0.1.0 (also pushed: 0.2.0), its lock written."""
    for version in ("0.1.0", "0.2.0"):
        folder = make_package(tmp_path / f"tools{version}", "tools", version, f"v = '{version}'\n")
        push(folder, registry, home, "tools")
    module = make_package(
        tmp_path / "stack", "stack", "0.0.1", "import tools\nv = tools.v\n", 'tools = "0.1.0"\n'
    )
    written = kcl("run", cwd=module, env=env_for(registry, home))
    assert written.returncode == 0, written.stderr
    return module


def files_of(module: Path) -> tuple[str, str]:
    return (module / "kcl.mod").read_text(), (module / "kcl.mod.lock").read_text()


def outdate(module: Path) -> tuple[str, str]:
    """kcl.mod now asks for tools 0.2.0; the lock still says 0.1.0."""
    mod = module / "kcl.mod"
    mod.write_text(mod.read_text().replace('tools = "0.1.0"', 'tools = "0.2.0"'))
    return files_of(module)


def assert_stale(ran_stderr: str, returncode: int) -> None:
    assert returncode == 1, ran_stderr
    assert "E9101" in ran_stderr and "is out of date and --locked forbids changing it" in ran_stderr
    assert "tools: version 0.1.0 -> 0.2.0" in ran_stderr, ran_stderr
    assert "Traceback" not in ran_stderr


def test_run_locked(registry: str, app: Path, home: Path) -> None:
    environment = env_for(registry, home)
    before = files_of(app)
    ran = kcl("run", "--locked", cwd=app, env=environment)
    assert ran.returncode == 0 and ran.stdout == "v: '0.1.0'\n", ran.stderr
    assert files_of(app) == before
    stale = outdate(app)
    refused = kcl("run", "--locked", cwd=app, env=environment)
    assert_stale(refused.stderr, refused.returncode)
    assert refused.stdout == ""
    assert files_of(app) == stale
    (app / "kcl.mod.lock").unlink()
    missing = kcl("run", "--locked", cwd=app, env=environment)
    assert missing.returncode == 1 and "is missing" in missing.stderr, missing.stderr
    assert not (app / "kcl.mod.lock").exists()
    assert kcl("run", cwd=app, env=environment).stdout == "v: '0.2.0'\n"  # unlocked: rewrites


def test_build_locked(registry: str, app: Path, home: Path) -> None:
    environment = env_for(registry, home)
    build = ("build", "--no-progress", "-j", "0", "--locked", ".")
    before = files_of(app)
    built = kcl(*build, cwd=app.parent, env=environment)
    assert built.returncode == 0, built.stdout + built.stderr
    assert files_of(app) == before
    stale = outdate(app)
    refused = kcl(*build, cwd=app.parent, env=environment)
    assert refused.returncode == 1, refused.stdout + refused.stderr
    assert "FAILED: stack" in refused.stdout
    assert_stale(refused.stdout, 1)
    assert files_of(app) == stale


def test_mod_commands_locked(registry: str, app: Path, home: Path, tmp_path: Path) -> None:
    environment = env_for(registry, home)
    before = files_of(app)
    for command in (["update"], ["metadata"], ["graph"]):
        done = kcl("mod", *command, "--locked", cwd=app, env=environment)
        assert done.returncode == 0, done.stderr
        assert files_of(app) == before
    push(make_package(tmp_path / "extra", "extra", "1.0.0", "e = 1\n"), registry, home)
    added = kcl("mod", "add", "extra:1.0.0", "--locked", cwd=app, env=environment)
    assert added.returncode == 1 and "extra 1.0.0 would be added" in added.stderr, added.stderr
    removed = kcl("mod", "remove", "tools", "--locked", cwd=app, env=environment)
    assert removed.returncode == 1 and "tools 0.1.0 would be removed" in removed.stderr
    assert files_of(app) == before
    stale = outdate(app)
    updated = kcl("mod", "update", "--locked", cwd=app, env=environment)
    assert_stale(updated.stderr, updated.returncode)
    assert files_of(app) == stale
    assert kcl("mod", "update", cwd=app, env=environment).returncode == 0
    assert 'version = "0.2.0"' in (app / "kcl.mod.lock").read_text()


def test_a_plain_run_without_dependencies_leaves_the_lock_alone(tmp_path: Path, home: Path) -> None:
    module = make_package(tmp_path / "plain", "plain", "0.0.1", "a = 1\n")
    (module / "kcl.mod.lock").write_text("")  # as `kcl mod init` writes it
    assert kcl("run", "--locked", cwd=module).returncode == 0
    assert kcl("run", cwd=module).returncode == 0
    assert (module / "kcl.mod.lock").read_text() == ""


def test_locked_holds_when_the_compiled_program_is_cached(tmp_path: Path, home: Path) -> None:
    """A path package's new version changes no file of the program: the run's cached
    entry is still valid, yet the lock is out of date and --locked must say so."""
    make_package(tmp_path / "lib", "lib", "0.1.0", "x = 1\n")
    module = make_package(
        tmp_path / "app", "app", "0.0.1", "import lib\nv = lib.x\n", 'lib = { path = "../lib" }\n'
    )
    cache = {"KCLPY_CACHE_DIR": str(tmp_path / "programs")}
    assert kcl("run", cwd=module, env=cache).stdout == "v: 1\n"
    assert kcl("run", "--locked", cwd=module, env=cache).stdout == "v: 1\n"  # cached, up to date
    lib = tmp_path / "lib" / "kcl.mod"
    lib.write_text(lib.read_text().replace('"0.1.0"', '"0.2.0"'))
    lock = (module / "kcl.mod.lock").read_text()
    refused = kcl("run", "--locked", cwd=module, env=cache)
    assert refused.returncode == 1 and "lib: version 0.1.0 -> 0.2.0" in refused.stderr
    assert (module / "kcl.mod.lock").read_text() == lock
