"""Nothing named by a kcl.mod, a kcl.mod.lock or a package reaches outside its folder:
traversal names, keys, versions and refs (direct, transitive, in the lock), ``kcl mod
update`` and ``kcl mod package`` on them, and a fetched package that differs from the
lock's sum. Each case checks the exit code, the located diagnostic, and that nothing
outside the package cache changed (a snapshot of the whole test folder)."""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from kclpy.mod import names

from .conftest import kcl, make_package
from .test_registry import env_for, push

LOCATION = re.compile(r"kcl\.mod(\.lock)?:\d+:\d+")


def snapshot(top: Path, skip: Path) -> dict[str, str]:
    """Every path under ``top`` but ``skip`` (the package cache): its kind and content."""
    found: dict[str, str] = {}
    for folder, subfolders, files in os.walk(top):
        subfolders[:] = [name for name in subfolders if Path(folder, name) != skip]
        for name in subfolders + files:
            path = Path(folder, name)
            relative = str(path.relative_to(top))
            if path.is_symlink():
                found[relative] = "link " + os.readlink(path)
            elif path.is_dir():
                found[relative] = "folder"
            else:
                found[relative] = hashlib.sha256(path.read_bytes()).hexdigest()
    return found


@pytest.fixture
def victim(tmp_path: Path) -> Path:
    """A folder of the user's, shaped like what a traversal name would aim at."""
    folder = tmp_path / "victim_0.1.0"
    folder.mkdir()
    (folder / "important.txt").write_text("keep me\n")
    return folder


def widgets_url(registry: str, tmp_path: Path, home: Path) -> str:
    push(make_package(tmp_path / "widgets", "widgets", "0.1.0", "w = 1\n"), registry, home)
    return f"oci://{registry}/kcl-lang/widgets"


def push_raw(folder: Path, registry: str) -> None:
    """Push a package as a hostile publisher would: no checks of its kcl.mod."""
    from kclpy.mod import archive, oci

    tar_path = archive.pack(str(folder), str(folder.parent / f"{folder.name}.tar"))
    annotations = {oci.ANNOTATION_NAME: folder.name}
    oci.push(
        oci.Reference(registry, f"kcl-lang/{folder.name}"), "0.2.0", tar_path, annotations, "x"
    )


def assert_refused(ran: subprocess.CompletedProcess[str], value: str) -> None:
    assert ran.returncode == 1, ran.stdout + ran.stderr
    assert "E9101" in ran.stderr and value in ran.stderr, ran.stderr
    assert LOCATION.search(ran.stderr), ran.stderr
    assert "Traceback" not in ran.stderr


def cache_names(home: Path) -> list[str]:
    return sorted(name for name in os.listdir(home) if not name.startswith("."))


@pytest.mark.parametrize(
    ("template", "value"),
    [
        ('evil = {{ oci = "{url}", tag = "0.1.0", package = "../victim" }}', "../victim"),
        ('"../victim" = {{ oci = "{url}", tag = "0.1.0" }}', "../victim"),
        ('evil = {{ oci = "{url}", tag = "0.1.0", package = "../../../x" }}', "../../../x"),
        ('evil = {{ oci = "{url}", tag = "0.1.0/../../victim" }}', "0.1.0/../../victim"),
        ('evil = {{ oci = "{url}", tag = "0.1.0", package = "a\\u0000b" }}', "a\\x00b"),
    ],
)
def test_a_traversal_in_kcl_mod_is_refused_where_it_is_written(
    registry: str, tmp_path: Path, home: Path, victim: Path, template: str, value: str
) -> None:
    url = widgets_url(registry, tmp_path, home)
    app = make_package(tmp_path / "app", "app", "0.0.1", "a = 1\n", template.format(url=url) + "\n")
    before = snapshot(tmp_path, home)
    for command in (["run"], ["mod", "update"], ["mod", "metadata"]):
        ran = kcl(*command, cwd=app, env=env_for(registry, home))
        assert_refused(ran, value)
        assert f"{app / 'kcl.mod'}:7:" in ran.stderr  # the line of the dependency
        assert snapshot(tmp_path, home) == before
    assert (victim / "important.txt").read_text() == "keep me\n"
    assert cache_names(home) == []


def test_a_transitive_traversal_is_refused_in_the_dependencys_kcl_mod(
    registry: str, tmp_path: Path, home: Path, victim: Path
) -> None:
    url = widgets_url(registry, tmp_path, home)
    inner = make_package(
        tmp_path / "inner", "inner", "0.2.0", "i = 2\n",
        f'evil = {{ oci = "{url}", tag = "0.1.0", package = "../victim" }}\n',
    )  # fmt: skip
    push_raw(inner, registry)
    shutil.rmtree(inner)
    app = make_package(tmp_path / "app", "app", "0.0.1", "a = 1\n", 'inner = "0.2.0"\n')
    before = snapshot(tmp_path, home)
    for command in (["run"], ["mod", "update"]):
        ran = kcl(*command, cwd=app, env=env_for(registry, home))
        assert_refused(ran, "../victim")
        assert str(home / "inner_0.2.0" / "kcl.mod") + ":7:" in ran.stderr
        assert snapshot(tmp_path, home) == before
    assert "victim_0.1.0" not in cache_names(home)


def test_a_fetched_packages_path_dependency_stays_inside_it(
    registry: str, tmp_path: Path, home: Path
) -> None:
    secret = make_package(tmp_path / "secret", "secret", "0.0.1", "token = 'hunter2'\n")
    inner = make_package(
        tmp_path / "inner", "inner", "0.2.0", "import secret\nt = secret.token\n",
        f'secret = {{ path = "{os.path.relpath(secret, home / "inner_0.2.0")}" }}\n',
    )  # fmt: skip
    push_raw(inner, registry)
    app = make_package(
        tmp_path / "app", "app", "0.0.1", "import inner\nv = inner.t\n", 'inner = "0.2.0"\n'
    )
    ran = kcl("run", cwd=app, env=env_for(registry, home))
    assert ran.returncode == 1 and "is not inside" in ran.stderr, ran.stderr
    assert "hunter2" not in ran.stdout + ran.stderr


def test_a_traversal_in_the_lock_is_refused_where_it_is_written(
    registry: str, tmp_path: Path, home: Path, victim: Path
) -> None:
    url = widgets_url(registry, tmp_path, home)
    app = make_package(
        tmp_path / "app", "app", "0.0.1", "a = 1\n", f'widgets = {{ oci = "{url}" }}\n'
    )
    (app / "kcl.mod.lock").write_text(
        '[dependencies]\n  [dependencies.widgets]\n    name = "widgets"\n'
        '    version = "../../victim"\n'
        f'    reg = "{registry}"\n    repo = "kcl-lang/widgets"\n    oci_tag = "0.1.0"\n'
    )
    before = snapshot(tmp_path, home)
    ran = kcl("run", cwd=app, env=env_for(registry, home))
    assert_refused(ran, "../../victim")
    assert f"{app / 'kcl.mod.lock'}:4:16" in ran.stderr
    assert snapshot(tmp_path, home) == before


def test_mod_update_never_removes_a_folder_outside_the_cache(
    registry: str, tmp_path: Path, home: Path, victim: Path
) -> None:
    url = widgets_url(registry, tmp_path, home)
    dependency = f'evil = {{ oci = "{url}", tag = "0.1.0", package = "../victim" }}\n'
    app = make_package(tmp_path / "app", "app", "0.0.1", "a = 1\n", dependency)
    before = snapshot(tmp_path, home)
    updated = kcl("mod", "update", cwd=app, env=env_for(registry, home))
    assert_refused(updated, "../victim")
    assert snapshot(tmp_path, home) == before
    assert (victim / "important.txt").read_text() == "keep me\n"


def test_a_linked_cache_entry_is_not_followed_by_update(
    registry: str, tmp_path: Path, home: Path, victim: Path
) -> None:
    """A cache folder replaced by a link out of the cache: update removes the link,
    never what it points at."""
    url = widgets_url(registry, tmp_path, home)
    app = make_package(
        tmp_path / "app",
        "app",
        "0.0.1",
        "a = 1\n",
        f'widgets = {{ oci = "{url}", tag = "0.1.0" }}\n',
    )
    (home / "widgets_0.1.0").symlink_to(victim, target_is_directory=True)
    updated = kcl("mod", "update", cwd=app, env=env_for(registry, home))
    assert updated.returncode == 0, updated.stderr
    assert (victim / "important.txt").read_text() == "keep me\n"
    assert (
        not (home / "widgets_0.1.0").is_symlink() and (home / "widgets_0.1.0" / "main.k").is_file()
    )


@pytest.mark.parametrize("name", ["../escape", "a/b", ".."])
def test_mod_package_keeps_its_archive_inside_the_module(
    tmp_path: Path, home: Path, name: str
) -> None:
    app = make_package(tmp_path / "deep" / "app", name, "0.0.1", "a = 1\n")
    before = snapshot(tmp_path, home)
    packed = kcl("mod", "package", cwd=app)
    assert_refused(packed, name)
    assert f"{app / 'kcl.mod'}:2:" in packed.stderr
    assert snapshot(tmp_path, home) == before


def test_mod_init_and_add_refuse_a_traversal_name(tmp_path: Path, home: Path) -> None:
    before = snapshot(tmp_path, home)
    made = kcl("mod", "init", "../outside", cwd=tmp_path)
    assert made.returncode == 1 and "E9101" in made.stderr and "../outside" in made.stderr
    app = make_package(tmp_path / "app", "app", "0.0.1", "a = 1\n")
    before = snapshot(tmp_path, home)
    added = kcl("mod", "add", "../../victim:0.1.0", cwd=app)
    assert added.returncode == 1 and "E9101" in added.stderr, added.stderr
    renamed = kcl("mod", "add", "--path", str(app), "--rename", "../x", cwd=app)
    assert renamed.returncode == 1 and "E9101" in renamed.stderr, renamed.stderr
    assert snapshot(tmp_path, home) == before


def test_a_fetched_package_that_differs_from_the_lock_is_not_installed(
    registry: str, tmp_path: Path, home: Path
) -> None:
    url = widgets_url(registry, tmp_path, home)
    app = make_package(
        tmp_path / "app",
        "app",
        "0.0.1",
        "a = 1\n",
        f'widgets = {{ oci = "{url}", tag = "0.1.0" }}\n',
    )
    assert kcl("run", cwd=app, env=env_for(registry, home)).returncode == 0
    lock = app / "kcl.mod.lock"
    lock.write_text(re.sub(r'sum = "[^"]*"', 'sum = "bm90IHRoZSBzdW0="', lock.read_text()))
    empty = tmp_path / "empty-cache"
    ran = kcl("run", cwd=app, env=dict(env_for(registry, home), KCL_PKG_PATH=str(empty)))
    assert ran.returncode == 1 and "E9106" in ran.stderr and "widgets" in ran.stderr
    assert "bm90IHRoZSBzdW0=" in ran.stderr
    assert cache_names(empty) == []
    assert not list((empty / ".kclpy" / "sums").glob("*")) if (empty / ".kclpy").exists() else True


REAL_NAMES = ["k8s", "argo-cd", "json_merge_patch", "gke.secret-sync", "cluster-api", "helloworld"]
REAL_VERSIONS = ["1.31.2", "0.1.0-alpha.1", "v0.10.2", "1.32", "0.1.4", "1.0.0+build.1"]


def test_the_grammar_accepts_real_names_and_refuses_traversals() -> None:
    assert all(not names.name_problem(name) for name in REAL_NAMES)
    assert all(not names.version_problem(version) for version in REAL_VERSIONS)
    assert all(not names.ref_problem(ref) for ref in ["v0.1.0", "main", "release/v1", "fix-1"])
    assert not names.commit_problem("0a1b2c3d")
    for bad in ["..", ".", "../x", "a/b", "a\\b", "", "a\x00b", "-x", ".hidden", "x" * 129]:
        assert names.name_problem(bad), bad
        assert names.version_problem(bad), bad
    for bad in ["../x", "a/../b", "a//b", "/a", "a/", ".a", "a/.b", "a.lock", "a\nb", "-x"]:
        assert names.ref_problem(bad), bad
    assert names.commit_problem("../../x") and names.commit_problem("HEAD")
    assert names.folder_name("lib", "release/v1") == "lib_release%2Fv1"
    assert "/" not in names.folder_name("lib", "a/b/c")
