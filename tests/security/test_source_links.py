"""Sources stay within their package (``kclpy.loader``): a ``.k`` file or a folder that
a symbolic link leads outside the module's folder (the main package) or the package's
folder (a dependency: git, path, ``-E``) is refused with a located error, with and
without ``--no-fs``; links that stay inside the root are followed."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from kclpy.loader import Loader

FLAGS = pytest.mark.parametrize("flags", [[], ["--no-fs"]], ids=["fs", "no-fs"])


def kcl(folder: Path, *args: str, home: Path | None = None) -> subprocess.CompletedProcess[str]:
    """``kcl ARGS`` in ``folder``, uncached, packages downloaded into ``home``."""
    environment = dict(os.environ, KCLPY_NO_CACHE="1")
    if home is not None:
        environment["KCL_PKG_PATH"] = str(home)
    return subprocess.run(
        [sys.executable, "-m", "kclpy", *args],
        cwd=folder, env=environment, capture_output=True, text=True, timeout=300,
    )  # fmt: skip


def module(folder: Path, name: str, main: str, dependencies: str = "") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "kcl.mod").write_text(
        f'[package]\nname = "{name}"\nedition = "v0.11.0"\nversion = "0.1.0"\n\n'
        f"[dependencies]\n{dependencies}"
    )
    (folder / "main.k").write_text(main)
    return folder


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    """A host folder no package owns: ``file.k`` and ``dir/a.k`` hold secrets."""
    folder = tmp_path / "outside"
    (folder / "dir").mkdir(parents=True)
    (folder / "file.k").write_text('secret = "HOST-FILE"\n')
    (folder / "dir" / "a.k").write_text('secret = "HOST-DIR"\n')
    return folder


def refused(ran: subprocess.CompletedProcess[str], link: Path, where: str | None) -> None:
    """Exit 1, nothing of the host's in the output, an IOError naming the link (and,
    with ``where``, pointing at that import line)."""
    assert ran.returncode == 1, ran.stderr
    assert "HOST" not in ran.stdout and "HOST" not in ran.stderr
    assert "error[E9001]: IOError" in ran.stderr and "Traceback" not in ran.stderr
    assert f"{link} leads through a symbolic link to " in ran.stderr
    assert "outside its package root" in ran.stderr
    if where is not None:
        assert where in ran.stderr and "^" in ran.stderr


# --------------------------------------------------------------------------- main module


@FLAGS
def test_a_main_package_file_linked_outside(
    tmp_path: Path, outside: Path, flags: list[str]
) -> None:
    app = module(tmp_path / "app", "app", "a = 1\n")
    (app / "leak.k").symlink_to(outside / "file.k")
    refused(kcl(app, "run", ".", *flags), app / "leak.k", None)
    refused(kcl(app, "run", "leak.k", *flags), app / "leak.k", None)
    (app / "main.k").write_text("import leak\n\nv = leak.secret\n")
    refused(kcl(app, "run", "main.k", *flags), app / "leak.k", "main.k:1:1")


@FLAGS
def test_a_main_module_folder_linked_outside(
    tmp_path: Path, outside: Path, flags: list[str]
) -> None:
    app = module(tmp_path / "app", "app", "import sub\n\nv = sub.secret\n")
    (app / "sub").symlink_to(outside / "dir")
    refused(kcl(app, "run", "main.k", *flags), app / "sub", "main.k:1:1")
    # a link above the package folder, below the root
    (app / "sub").unlink()
    (app / "models").symlink_to(outside)
    (app / "main.k").write_text("import models.dir as d\n\nv = d.secret\n")
    refused(kcl(app, "run", "main.k", *flags), app / "models" / "dir", "main.k:1:1")


@FLAGS
def test_links_inside_the_root_are_followed(tmp_path: Path, flags: list[str]) -> None:
    app = module(tmp_path / "app", "app", "import sub\nimport alias\n\nv = sub.x\nw = alias.x\n")
    (app / "real").mkdir()
    (app / "real" / "x.k").write_text('x = "inside"\n')
    (app / "sub").symlink_to("real")
    (app / "alias.k").symlink_to("real/x.k")
    ran = kcl(app, "run", "main.k", *flags)
    assert ran.returncode == 0, ran.stderr
    assert ran.stdout == "v: inside\nw: inside\n"


def test_a_module_reached_through_a_link_is_its_own_root(tmp_path: Path) -> None:
    """The module folder itself may be a link: the real paths of its files are under
    the real path of the root."""
    real = module(tmp_path / "real-app", "app", "import sub\n\nv = sub.x\n")
    (real / "sub").mkdir()
    (real / "sub" / "x.k").write_text("x = 1\n")
    (tmp_path / "app").symlink_to(real)
    ran = kcl(tmp_path / "app", "run", "main.k")
    assert ran.returncode == 0 and ran.stdout == "v: 1\n", ran.stderr


# --------------------------------------------------------------------------- dependencies


def _dependency(folder: Path, outside: Path) -> Path:
    """A package ``dep`` with ``leak.k`` (to the host's file), ``inner/far/`` (to the
    host's folder) and ``near/`` (to its own ``real/``)."""
    dep = module(folder, "dep", "x = 1\n")
    (dep / "leak.k").symlink_to(outside / "file.k")
    (dep / "inner").mkdir()
    (dep / "inner" / "far").symlink_to(outside / "dir")
    (dep / "real").mkdir()
    (dep / "real" / "y.k").write_text('secret = "inside"\n')
    (dep / "near").symlink_to("real")
    return dep


@FLAGS
def test_a_path_dependency_s_links(tmp_path: Path, outside: Path, flags: list[str]) -> None:
    dep = _dependency(tmp_path / "dep", outside)
    app = module(
        tmp_path / "app", "app", "import dep\n\nv = dep.secret\n", f'dep = {{ path = "{dep}" }}\n'
    )
    home = tmp_path / "kpm"
    refused(kcl(app, "run", "main.k", *flags, home=home), dep / "leak.k", "main.k:1:1")
    (app / "main.k").write_text("import dep.inner.far\n\nv = far.secret\n")
    refused(kcl(app, "run", "main.k", *flags, home=home), dep / "inner" / "far", "main.k:1:1")
    (app / "main.k").write_text("import dep.near\n\nv = near.secret\n")
    ran = kcl(app, "run", "main.k", *flags, home=home)
    assert ran.returncode == 0 and ran.stdout == "v: inside\n", ran.stderr


def test_an_external_package_s_links(tmp_path: Path, outside: Path) -> None:
    dep = _dependency(tmp_path / "dep", outside)
    app = tmp_path / "app"
    app.mkdir()
    (app / "main.k").write_text("import dep.inner.far\n\nv = far.secret\n")
    refused(kcl(app, "run", "main.k", "-E", f"dep={dep}"), dep / "inner" / "far", "main.k:1:1")


def git(folder: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@example.com", *args],
        cwd=folder, capture_output=True, text=True, check=True,
    )  # fmt: skip


def _git_package(folder: Path, build: object) -> str:
    dep = module(folder, "dep", "x = 1\n")
    assert callable(build)
    build(dep)
    git(dep, "init", "-q", "-b", "main")
    git(dep, "add", ".")
    git(dep, "commit", "-q", "-m", "one")
    git(dep, "tag", "v0.1.0")
    return f'dep = {{ git = "file://{dep}", tag = "v0.1.0" }}\n'


needs_git = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")


def refused_by_either(ran: subprocess.CompletedProcess[str], link: Path) -> None:
    """A git package's link is refused by the loader (at the import) or, first, by
    ``kclpy.mod`` when it fetches the package (E9101): either way exit 1, nothing of
    the host's in the output."""
    if "E9101" in ran.stderr:
        assert ran.returncode == 1 and "HOST" not in ran.stdout + ran.stderr
        assert "Traceback" not in ran.stderr
    else:
        refused(ran, link, "main.k:1:1")


@needs_git
@FLAGS
@pytest.mark.parametrize("kind", ["file", "folder"])
def test_a_git_dependency_s_link_outside(
    tmp_path: Path, outside: Path, flags: list[str], kind: str
) -> None:
    home = tmp_path / "kpm"
    home.mkdir()

    def build(dep: Path) -> None:
        if kind == "file":
            (dep / "leak.k").symlink_to(outside / "file.k")
        else:
            (dep / "inner").mkdir()
            (dep / "inner" / "far").symlink_to(outside / "dir")

    main = (
        "import dep\n\nv = dep.secret\n"
        if kind == "file"
        else "import dep.inner.far\n\nv = far.secret\n"
    )
    app = module(tmp_path / "app", "app", main, _git_package(tmp_path / "repo", build))
    ran = kcl(app, "run", "main.k", *flags, home=home)
    link = home / "repo_v0.1.0" / ("leak.k" if kind == "file" else "inner/far")
    refused_by_either(ran, link)


# --------------------------------------------------------------------------- the loader


def test_the_loader_reads_nothing_through_an_outside_link(tmp_path: Path, outside: Path) -> None:
    """Through the API (``Loader``, as the tools and the language server load): the
    file is not parsed, the program records it unread, one error per link."""
    app = module(tmp_path / "app", "app", "import sub\nimport sub as again\n\nv = sub.secret\n")
    (app / "sub").symlink_to(outside / "dir")
    (outside / "dir" / "b.k").write_text('other = "HOST"\n')
    program = Loader(str(app)).load(["main.k"])
    errors = [d for d in program.diagnostics if d.is_error]
    assert len(errors) == 1 and "outside its package root" in errors[0].message
    assert [module.body for module in program.packages["sub"]] == [[], []]
    assert not program.reads.complete
    assert (str(app / "sub" / "a.k"), "") in program.reads.files
