"""Hostile package archives through the installed ``kcl``: ``kcl run x.tar`` and an OCI
dependency pushed to the real registry. Each must end in a coded error naming the
member, exit 1, nothing changed outside, and nothing left in the package cache."""

from __future__ import annotations

import gzip
import os
import shutil
import tarfile
from pathlib import Path

import pytest

from kclpy.mod import oci

from . import hostile_archives as hostile
from .conftest import kcl, make_package

EXPECTED = {
    "symlink": "member 'escape' is a symbolic link",
    "hardlink": "member 'victim' is a hard link",
    "symlink-chain": "member 'a' is a symbolic link",
    "dotdot": "climbs out of its folder with '..'",
    "absolute": "has an absolute path",
    "device": "member 'null' is a character device",
    "fifo": "member 'pipe' is a FIFO",
    "clash": "member 'lib/x.k' needs 'lib' to be a folder",
    "size-bomb": "a compression bomb?",
    "count-bomb": "more than 100000 members",
}


def _assert_refused(ran: object, case: str) -> None:
    returncode, stderr = ran.returncode, ran.stderr  # type: ignore[attr-defined]
    assert returncode == 1, stderr
    assert "E9107" in stderr and EXPECTED[case] in stderr, stderr
    assert "Traceback" not in stderr


def _cache_is_empty(home: Path) -> bool:
    """Nothing but empty folders in the package cache (no package, no staging)."""
    return all(kind == "dir" for kind, _ in hostile.snapshot(home).values())


@pytest.mark.parametrize("case", sorted(EXPECTED))
def test_kcl_run_refuses_a_hostile_archive(case: str, tmp_path: Path, home: Path) -> None:
    outside = hostile.prepare_outside(tmp_path / "outside")
    work = tmp_path / "work"
    work.mkdir()
    archive = hostile.BUILDERS[case](work / f"x{hostile.suffix(case)}", outside)
    before, work_before = hostile.snapshot(outside), hostile.snapshot(work)
    ran = kcl("run", archive.name, cwd=work)
    _assert_refused(ran, case)
    assert hostile.snapshot(outside) == before
    assert hostile.snapshot(work) == work_before
    assert _cache_is_empty(home)


OCI_CASES = ["symlink", "hardlink", "symlink-chain", "clash", "size-bomb"]


@pytest.mark.parametrize("case", OCI_CASES)
def test_an_oci_dependency_with_a_hostile_archive_is_refused(
    case: str, registry: str, tmp_path: Path, home: Path
) -> None:
    outside = hostile.prepare_outside(tmp_path / "outside")
    built = hostile.BUILDERS[case](tmp_path / f"built{hostile.suffix(case)}", outside)
    tar = tmp_path / "hostile_0.1.0.tar"
    if built.suffix == ".tgz":  # oci.push gzips a .tar
        with gzip.open(built, "rb") as source, open(tar, "wb") as target:
            shutil.copyfileobj(source, target)
    else:
        built.rename(tar)
    name = "h" + case.replace("-", "")
    oci.push(oci.Reference(registry, f"kcl-lang/{name}"), "0.1.0", str(tar), {}, name)
    app = make_package(tmp_path / "app", "app", "0.0.1", f"import {name}\n", f'{name} = "0.1.0"\n')
    before, app_before = hostile.snapshot(outside), hostile.snapshot(app)
    environment = {"KPM_REG": registry, "KPM_REPO": "kcl-lang"}
    ran = kcl("run", cwd=app, env=environment)
    _assert_refused(ran, case)
    assert name in ran.stderr
    assert hostile.snapshot(outside) == before
    assert hostile.snapshot(app) == app_before  # kcl.mod and the lock untouched
    assert _cache_is_empty(home)
    added = kcl("mod", "add", f"{name}:0.1.0", cwd=app, env=environment)
    _assert_refused(added, case)
    assert hostile.snapshot(app) == app_before and hostile.snapshot(outside) == before


def _package_with_link(tmp_path: Path, target: str) -> tuple[Path, Path]:
    outside = hostile.prepare_outside(tmp_path / "outside")
    package = make_package(tmp_path / "pkg", "pkg", "0.1.0", "a = 1\n")
    os.symlink(target.replace("OUTSIDE", str(outside)), package / "data.k")
    return package, outside


def test_kcl_mod_package_refuses_a_link_out_of_the_package(tmp_path: Path, home: Path) -> None:
    package, _ = _package_with_link(tmp_path, "OUTSIDE/victim.txt")
    ran = kcl("mod", "package", cwd=package)
    assert ran.returncode == 1, ran.stderr
    assert "E9101" in ran.stderr and "'data.k'" in ran.stderr
    assert "outside the package" in ran.stderr
    assert not [name for name in os.listdir(package) if name.endswith((".tar", ".tmp"))]


def test_kcl_mod_package_vendor_never_copies_a_path_dependency_linking_out(
    tmp_path: Path, home: Path
) -> None:
    _package_with_link(tmp_path, "OUTSIDE")  # a link to the folder
    app = make_package(tmp_path / "app", "app", "0.0.1", "a = 1\n", 'pkg = { path = "../pkg" }\n')
    ran = kcl("mod", "package", "--vendor", cwd=app)
    # path packages are used where they are, never copied into vendor/ (git and OCI
    # packages holding such a link are refused when fetched: tests/mod/test_vendor.py)
    assert ran.returncode == 0 and "Traceback" not in ran.stderr, ran.stderr
    assert not [path for path in hostile.snapshot(app) if "victim" in path]  # nothing copied
    with tarfile.open(app / "app_0.0.1.tar") as packed:
        assert not [name for name in packed.getnames() if "victim" in name or "pkg" in name]
