"""kcl.mod / kcl.mod.lock formats, checksums and path dependencies (no network)."""

from __future__ import annotations

import base64
import hashlib
from pathlib import Path

import pytest

from kclpy.mod import PackageError
from kclpy.mod.archive import checksum, pack, unpack
from kclpy.mod.manifest import Locked, read_lock, read_mod, render_lock
from kclpy.mod.resolution import version_key

from .conftest import kcl, make_package

REAL_LOCK = """[dependencies]
  [dependencies.k8s]
    name = "k8s"
    full_name = "k8s_1.31.2"
    version = "1.31.2"
    sum = "xBZgPsnpVVyWBpahuPQHReeRx28eUHGFoaPeqbct+vs="
    reg = "ghcr.io"
    repo = "kcl-lang/k8s"
    oci_tag = "1.31.2"
  [dependencies.konfig]
    name = "konfig"
    full_name = "konfig_0.14.0"
    version = "0.14.0"
"""


def test_lock_file_round_trips_in_the_real_tools_layout(tmp_path: Path) -> None:
    (tmp_path / "kcl.mod.lock").write_text(REAL_LOCK)
    locked = read_lock(str(tmp_path))
    assert locked["k8s"].source == {"reg": "ghcr.io", "repo": "kcl-lang/k8s", "oci_tag": "1.31.2"}
    assert render_lock(locked) == REAL_LOCK


def test_every_dependency_form_of_kcl_mod(tmp_path: Path) -> None:
    (tmp_path / "kcl.mod").write_text(
        '[package]\nname = "app"\nversion = "0.1.0"\n[dependencies]\n'
        'k8s = "1.31.2"\n'
        'hello = { oci = "oci://ghcr.io/kcl-lang/helloworld", tag = "0.1.4" }\n'
        'lib = { git = "https://example.com/lib.git", commit = "abc1234" }\n'
        'local = { path = "../local" }\n'
        'renamed = { oci = "oci://ghcr.io/kcl-lang/x", tag = "1.0.0", package = "x" }\n'
        '[profile]\nentries = ["main.k", "${local:KCL_MOD}/a.k"]\n'
    )
    mod = read_mod(str(tmp_path))
    kinds = {name: dep.kind for name, dep in mod.dependencies.items()}
    assert kinds == {
        "k8s": "registry", "hello": "oci", "lib": "git", "local": "path", "renamed": "oci",
    }  # fmt: skip
    assert mod.dependencies["lib"].commit == "abc1234"
    assert mod.dependencies["renamed"].package_name == "x"
    assert mod.profile["entries"][1] == "${local:KCL_MOD}/a.k"


def test_a_bad_dependency_is_a_coded_error_at_its_line(tmp_path: Path) -> None:
    (tmp_path / "kcl.mod").write_text('[package]\nname = "a"\n[dependencies]\nbad = 3\n')
    with pytest.raises(PackageError) as caught:
        read_mod(str(tmp_path))
    assert caught.value.code.id == "E9101"
    assert caught.value.span is not None and caught.value.span.begin_pos.line == 4


def test_checksum_is_the_real_tools_sum(tmp_path: Path) -> None:
    """sha256 over file bytes in depth-first name order, .git and .tar paths skipped."""
    (tmp_path / "a.k").write_text("a = 1\n")
    (tmp_path / "b").mkdir()
    (tmp_path / "b" / "x.k").write_text("x = 2\n")
    (tmp_path / "c.k").write_text("c = 3\n")
    (tmp_path / ".git").mkdir()
    (tmp_path / ".git" / "HEAD").write_text("ref\n")
    (tmp_path / "old.tar").write_bytes(b"tar")
    expected = base64.b64encode(hashlib.sha256(b"a = 1\nx = 2\nc = 3\n").digest()).decode()
    assert checksum(str(tmp_path)) == expected


def test_checksum_matches_the_published_k8s_package() -> None:
    k8s = Path(__file__).parents[2] / ".corpus" / "k8s"
    if not (k8s / "kcl.mod").is_file():
        pytest.skip("the benchmarks corpus (.corpus/k8s) is not present")
    assert checksum(str(k8s)) == "xBZgPsnpVVyWBpahuPQHReeRx28eUHGFoaPeqbct+vs="


def test_pack_and_unpack_keep_the_package(tmp_path: Path) -> None:
    package = make_package(tmp_path / "pkg", "pkg", "0.1.0", "a = 1\n")
    (package / "sub").mkdir()
    (package / "sub" / "b.k").write_text("b = 2\n")
    archive = pack(str(package), str(tmp_path / "pkg_0.1.0.tar"))
    unpack(archive, str(tmp_path / "out"))
    assert checksum(str(tmp_path / "out")) == checksum(str(package))


def test_a_corrupt_archive_is_a_coded_error(tmp_path: Path) -> None:
    (tmp_path / "bad.tar").write_bytes(b"\x00not a tar at all" * 100)
    with pytest.raises(PackageError) as caught:
        unpack(str(tmp_path / "bad.tar"), str(tmp_path / "out"), "bad")
    assert caught.value.code.id == "E9107"


def test_versions_sort_semantically() -> None:
    versions = ["0.10.0", "0.9.1", "v0.2.0", "1.0.0-rc1", "1.0.0"]
    assert sorted(versions, key=version_key) == ["v0.2.0", "0.9.1", "0.10.0", "1.0.0-rc1", "1.0.0"]


def test_init_add_path_run_and_remove(tmp_path: Path, home: Path) -> None:
    make_package(tmp_path / "lib", "lib", "0.2.0", "greeting = 'hello'\n")
    created = kcl("mod", "init", "app", cwd=tmp_path)
    assert created.returncode == 0, created.stderr
    app = tmp_path / "app"
    (app / "main.k").write_text("import lib\nmessage = lib.greeting\n")
    added = kcl("mod", "add", "--path", "../lib", cwd=app)
    assert added.returncode == 0, added.stderr
    assert 'lib = { path = "../lib" }' in (app / "kcl.mod").read_text()
    assert 'full_name = "lib_0.2.0"' in (app / "kcl.mod.lock").read_text()
    ran = kcl("run", cwd=app)
    assert ran.returncode == 0, ran.stderr
    assert ran.stdout == "message: hello\n"
    removed = kcl("mod", "remove", "lib", cwd=app)
    assert removed.returncode == 0, removed.stderr
    assert "lib" not in (app / "kcl.mod").read_text().split("[dependencies]")[1]
    failed = kcl("run", cwd=app)
    assert failed.returncode != 0 and "E2F04" in failed.stderr
    assert "Traceback" not in failed.stderr


def test_kcl_run_without_files_uses_profile_entries(tmp_path: Path, home: Path) -> None:
    app = make_package(tmp_path / "app", "app", "0.0.1", "a = 1\n")
    (app / "extra.k").write_text("b = 2\n")
    (app / "kcl.mod").write_text(
        (app / "kcl.mod").read_text() + '\n[profile]\nentries = ["extra.k"]\n'
    )
    ran = kcl("run", cwd=app)
    assert ran.returncode == 0, ran.stderr
    assert ran.stdout == "b: 2\n"


def test_a_missing_path_dependency_names_the_dependency(tmp_path: Path, home: Path) -> None:
    app = make_package(tmp_path / "app", "app", "0.0.1", "a = 1\n", 'gone = { path = "../gone" }\n')
    ran = kcl("run", cwd=app)
    assert ran.returncode != 0
    assert "E9102" in ran.stderr and "gone" in ran.stderr and "Traceback" not in ran.stderr


def test_kcl_mod_edits_keep_comments(tmp_path: Path, home: Path) -> None:
    make_package(tmp_path / "lib", "lib", "0.2.0", "x = 1\n")
    app = make_package(tmp_path / "app", "app", "0.0.1", "a = 1\n")
    (app / "kcl.mod").write_text(
        "# my module\n" + (app / "kcl.mod").read_text() + "\n[lint]\nmax_line_length = 80\n"
    )
    assert kcl("mod", "add", "--path", "../lib", cwd=app).returncode == 0
    text = (app / "kcl.mod").read_text()
    assert text.startswith("# my module\n") and "max_line_length = 80" in text


def test_locked_full_name() -> None:
    assert Locked("k8s", "1.31.2").full_name == "k8s_1.31.2"


def test_staging_folders_left_by_a_killed_run_are_cleaned(tmp_path: Path) -> None:
    import os

    from kclpy.mod.archive import staging_dir

    old = tmp_path / ".kclpy-download-old"
    old.mkdir()
    (old / "partial.k").write_text("a = ")
    os.utime(old, (0, 0))
    recent = tmp_path / ".kclpy-download-recent"
    recent.mkdir()
    fresh = staging_dir(str(tmp_path))
    assert not old.exists() and recent.exists() and Path(fresh).is_dir()


def test_two_folders_for_one_package_are_a_conflict(tmp_path: Path, home: Path) -> None:
    make_package(tmp_path / "util_a", "util", "0.1.0", "u = 'a'\n")
    make_package(tmp_path / "util_b", "util", "0.1.0", "u = 'b'\n")
    make_package(tmp_path / "left", "left", "0.1.0", "x = 1\n", 'util = { path = "../util_a" }\n')
    make_package(tmp_path / "right", "right", "0.1.0", "x = 1\n", 'util = { path = "../util_b" }\n')
    make_package(tmp_path / "same", "same", "0.1.0", "x = 1\n", 'util = { path = "../util_a" }\n')
    deps = 'left = { path = "../left" }\nsame = { path = "../same" }\n'
    fine = make_package(tmp_path / "fine", "fine", "0.0.1", "import util\nv = util.u\n", deps)
    assert kcl("run", cwd=fine).stdout == "v: a\n"
    deps += 'right = { path = "../right" }\n'
    clash = make_package(tmp_path / "clash", "clash", "0.0.1", "a = 1\n", deps)
    ran = kcl("run", cwd=clash)
    assert ran.returncode != 0 and "E9103" in ran.stderr and "util" in ran.stderr
