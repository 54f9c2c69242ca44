"""Vendoring: ``vendor/`` filled under the real tool's names (``kcl mod package
--vendor``, ``kcl mod metadata --vendor``, ``kcl run -V``) and used, without network
or package cache, for OCI, git and path dependencies; links never followed out of a
package."""

from __future__ import annotations

import shutil
from pathlib import Path

from .conftest import free_port, kcl, make_package
from .test_git import git
from .test_registry import env_for, push


def nowhere(tmp_path: Path) -> dict[str, str]:
    """An empty package cache and a registry that does not answer."""
    return {"KCL_PKG_PATH": str(tmp_path / "empty"), "KPM_REG": f"127.0.0.1:{free_port()}"}


def test_vendored_git_and_oci_packages_are_used_offline(
    registry: str, tmp_path: Path, home: Path
) -> None:
    push(make_package(tmp_path / "base", "base", "0.1.0", "b = 'base'\n"), registry, home)
    repo = make_package(tmp_path / "mathlib", "mathlib", "0.1.0", "m = 'git'\n")
    git(repo, "init", "-q", "-b", "main")
    git(repo, "add", ".")
    git(repo, "commit", "-q", "-m", "one")
    git(repo, "tag", "v0.1.0")
    git(repo, "checkout", "-q", "-b", "release/v1")
    make_package(
        tmp_path / "local", "local", "0.0.1", "import base\nl = base.b\n", 'base = "0.1.0"\n'
    )
    app = make_package(
        tmp_path / "app", "app", "0.0.1",
        "import mathlib\nimport local\nimport branchy\nv = [mathlib.m, local.l, branchy.m]\n",
        f'mathlib = {{ git = "file://{repo}", tag = "v0.1.0" }}\n'
        f'branchy = {{ git = "file://{repo}", branch = "release/v1", package = "mathlib" }}\n'
        'local = { path = "../local" }\n',
    )  # fmt: skip
    vendored = kcl("mod", "metadata", "--vendor", cwd=app, env=env_for(registry, home))
    assert vendored.returncode == 0, vendored.stderr
    names = sorted(path.name for path in (app / "vendor").iterdir())
    assert names == ["base_0.1.0", "mathlib_release%2Fv1", "mathlib_v0.1.0"]
    shutil.rmtree(repo)
    ran = kcl("run", cwd=app, env=nowhere(tmp_path))
    assert ran.returncode == 0, ran.stderr
    assert ran.stdout == "v:\n- git\n- base\n- git\n"
    assert not (tmp_path / "empty").exists() or not list((tmp_path / "empty").iterdir())


def test_run_in_vendor_mode_fills_vendor_then_needs_no_network(
    registry: str, tmp_path: Path, home: Path
) -> None:
    push(make_package(tmp_path / "lib", "lib", "0.3.0", "x = 3\n"), registry, home)
    app = make_package(
        tmp_path / "app", "app", "0.0.1", "import lib\nv = lib.x\n", 'lib = "0.3.0"\n'
    )
    ran = kcl("run", "-V", cwd=app, env=env_for(registry, home))
    assert ran.returncode == 0 and ran.stdout == "v: 3\n", ran.stderr
    assert (app / "vendor" / "lib_0.3.0" / "main.k").is_file()
    offline = kcl("run", "--vendor", cwd=app, env=nowhere(tmp_path))
    assert offline.returncode == 0 and offline.stdout == "v: 3\n", offline.stderr


def test_vendoring_never_follows_a_link_out_of_the_package(tmp_path: Path, home: Path) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("hunter2\n")
    repo = make_package(tmp_path / "linky", "linky", "0.1.0", "a = 1\n")
    (repo / "outside.txt").symlink_to(secret)
    (repo / "alias.k").symlink_to("main.k")
    (repo / "up").symlink_to(tmp_path, target_is_directory=True)
    git(repo, "init", "-q", "-b", "main")
    git(repo, "add", ".")
    git(repo, "commit", "-q", "-m", "links")
    git(repo, "tag", "v0.1.0")
    app = make_package(
        tmp_path / "app", "app", "0.0.1", "import linky\nv = linky.a\n",
        f'linky = {{ git = "file://{repo}", tag = "v0.1.0" }}\n',
    )  # fmt: skip
    # a package holding a link out of itself is refused when it is fetched (its sum is
    # taken without following links out), so nothing of it is vendored or packed
    packed = kcl("mod", "package", "--vendor", cwd=app)
    assert packed.returncode == 1 and "E9101" in packed.stderr, packed.stderr
    assert "'outside.txt'" in packed.stderr and "outside the package folder" in packed.stderr
    copy = app / "vendor" / "linky_v0.1.0"
    assert not copy.exists() and not list(app.glob("*.tar"))
    assert not any("hunter2" in p.read_text() for p in app.rglob("*") if p.is_file())
