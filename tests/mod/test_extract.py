"""The extractor (kclpy.mod.extract) and the link rules of pack/checksum/copy_tree,
called directly on archives built here: caps with small limits, names, clashes,
what is already on disk, compression formats, and the OCI layer checks."""

from __future__ import annotations

import bz2
import gzip
import io
import lzma
import os
import shutil
import sys
import tarfile
from pathlib import Path

import pytest

from kclpy.mod import archive, extract, oci
from kclpy.mod.errors import PackageError

from . import hostile_archives as hostile

Member = tuple[str, bytes | None]  # a file's name and bytes; None: a folder


def build(path: Path, members: list[Member], fmt: int = tarfile.PAX_FORMAT) -> Path:
    with tarfile.open(path, "w", format=fmt) as written:
        for name, data in members:
            info = tarfile.TarInfo(name)
            if data is None:
                info.type = tarfile.DIRTYPE
                written.addfile(info)
            else:
                info.size = len(data)
                written.addfile(info, io.BytesIO(data))
    return path


def refused(path: Path, destination: Path, limits: extract.Limits = extract.LIMITS) -> str:
    with pytest.raises(PackageError) as caught:
        extract.unpack(str(path), str(destination), "pkg", limits)
    assert caught.value.code.id in ("E9107", "E9001")
    assert not destination.exists() or not os.listdir(destination)  # nothing written
    return caught.value.message


def files(folder: Path) -> dict[str, bytes]:
    return {k: v for k, (kind, v) in hostile.snapshot(folder).items() if kind == "file"}


def test_a_good_archive_unpacks_exactly_its_files(tmp_path: Path) -> None:
    members: list[Member] = [("./", None), ("./kcl.mod", b"m"), ("sub/", None), ("sub//b.k", b"b")]
    build(tmp_path / "ok.tar", [*members, ("sub/./c.k", b"c"), ("sub/", None)])
    extract.unpack(str(tmp_path / "ok.tar"), str(tmp_path / "out"))
    assert files(tmp_path / "out") == {"kcl.mod": b"m", "sub/b.k": b"b", "sub/c.k": b"c"}


@pytest.mark.parametrize("kind", ["gz", "bz2", "xz"])
def test_compressed_archives_are_told_by_their_bytes(kind: str, tmp_path: Path) -> None:
    raw = build(tmp_path / "ok.tar", [("kcl.mod", b"m" * 5000)]).read_bytes()
    packed = {"gz": gzip.compress, "bz2": bz2.compress, "xz": lzma.compress}[kind]
    (tmp_path / "ok.tar").write_bytes(packed(raw))  # the name says nothing
    extract.unpack(str(tmp_path / "ok.tar"), str(tmp_path / "out"))
    assert files(tmp_path / "out") == {"kcl.mod": b"m" * 5000}


@pytest.mark.parametrize(
    ("name", "reason"),
    [
        ("a\\..\\..\\x.k", "'\\\\'"),
        ("C:x.k", "':'"),
        ("a/\x07.k", "'\\x07'"),
        ("/etc/x.k", "absolute path"),
        ("a/../../x.k", "'..'"),
        ("x" * 300, "name part over 255 bytes"),
        ("a/" * 600 + "x.k", "longer than 1024 bytes"),
    ],
)
def test_bad_member_names_are_refused(name: str, reason: str, tmp_path: Path) -> None:
    build(tmp_path / "bad.tar", [("kcl.mod", b"m"), (name, b"x")])
    assert reason in refused(tmp_path / "bad.tar", tmp_path / "out")


def test_a_name_that_is_not_utf8_is_refused(tmp_path: Path) -> None:
    with tarfile.open(tmp_path / "bad.tar", "w", format=tarfile.GNU_FORMAT) as written:
        info = tarfile.TarInfo("caf\udce9.k")  # written as the raw byte 0xe9
        written.addfile(info, io.BytesIO(b""))
    assert "not UTF-8" in refused(tmp_path / "bad.tar", tmp_path / "out")


@pytest.mark.parametrize(
    ("members", "reason"),
    [
        ([("a.k", b"1"), ("a.k", b"2")], "'a.k' appears twice"),
        ([("lib/", None), ("lib", b"f")], "'lib' is both a file and a folder"),
        ([("lib", b"f"), ("lib/", None)], "'lib' is both a file and a folder"),
        ([("lib", b"f"), ("lib/x/y.k", b"y")], "needs 'lib' to be a folder"),
        ([("./", b"f")], "in place of the package folder"),
    ],
)
def test_clashing_members_are_refused(members: list[Member], reason: str, tmp_path: Path) -> None:
    build(tmp_path / "bad.tar", members, tarfile.GNU_FORMAT)
    assert reason in refused(tmp_path / "bad.tar", tmp_path / "out")


def test_special_members_are_refused(tmp_path: Path) -> None:
    for kind, description in [(tarfile.BLKTYPE, "block device"), (b"V", "unknown type")]:
        with tarfile.open(tmp_path / "bad.tar", "w", format=tarfile.GNU_FORMAT) as written:
            info = tarfile.TarInfo("thing")
            info.type = kind
            written.addfile(info)
        assert description in refused(tmp_path / "bad.tar", tmp_path / "out")


@pytest.mark.parametrize("name", ["lib/x.k", "lib", "victim.txt", "inner/x.k", "inner"])
def test_nothing_on_disk_is_followed(name: str, tmp_path: Path) -> None:
    """Links already in the folder: out of it (refused as resolving outside) or inside it
    (refused when opened without following)."""
    outside = hostile.prepare_outside(tmp_path / "outside")
    before = hostile.snapshot(outside)
    destination = tmp_path / "out"
    (destination / "real").mkdir(parents=True)
    os.symlink(outside, destination / "lib")
    os.symlink(outside / "victim.txt", destination / "victim.txt")
    os.symlink("real", destination / "inner")
    inside = hostile.snapshot(destination)
    build(tmp_path / "x.tar", [(name, b"x")])
    with pytest.raises(PackageError) as caught:
        extract.unpack(str(tmp_path / "x.tar"), str(destination), "pkg")
    reason = "cannot be unpacked" if name.startswith("inner") else "resolves outside the folder"
    assert reason in caught.value.message
    assert hostile.snapshot(outside) == before
    assert hostile.snapshot(destination) == inside


def test_the_size_cap_stops_the_stream(tmp_path: Path) -> None:
    limits = extract.Limits(unpacked_bytes=1 << 20)
    one = os.urandom(600 << 10)
    build(tmp_path / "big.tar", [("a", one), ("b", one), ("c", one)])
    assert "more than 1 MiB" in refused(tmp_path / "big.tar", tmp_path / "out", limits)
    build(tmp_path / "huge.tar", [("a", os.urandom(2 << 20))])  # refused before it is read
    assert "'a' is 2097152 bytes" in refused(tmp_path / "huge.tar", tmp_path / "out", limits)


def test_the_member_and_ratio_caps(tmp_path: Path) -> None:
    build(tmp_path / "many.tar", [(f"{index}.k", b"") for index in range(11)])
    limits = extract.Limits(members=10)
    assert "more than 10 members" in refused(tmp_path / "many.tar", tmp_path / "out", limits)
    enough = extract.Limits(members=11)
    extract.unpack(str(tmp_path / "many.tar"), str(tmp_path / "out"), "", enough)
    bomb = hostile.size_bomb(tmp_path / "bomb.tgz", tmp_path, megabytes=2)
    limits = extract.Limits(ratio_free_bytes=1 << 20)
    assert "compression bomb" in refused(bomb, tmp_path / "out2", limits)
    extract.unpack(str(bomb), str(tmp_path / "out3"))  # 2 MiB: under the default grace


def test_a_huge_or_endless_header_is_refused(tmp_path: Path) -> None:
    with tarfile.open(tmp_path / "pax.tar", "w", format=tarfile.GNU_FORMAT) as written:
        info = tarfile.TarInfo("x")
        info.type = tarfile.XHDTYPE  # a pax header claiming 2 MiB of records
        info.size = 2 << 20
        written.addfile(info, io.BytesIO(bytes(info.size)))
    assert "member header of" in refused(tmp_path / "pax.tar", tmp_path / "out")
    with tarfile.open(tmp_path / "chain.tar", "w", format=tarfile.GNU_FORMAT) as written:
        for _ in range(3000):  # tarfile reads each next header recursively
            info = tarfile.TarInfo("x")
            info.type = tarfile.XHDTYPE
            info.size = len(b"9 a=bcd\n")
            written.addfile(info, io.BytesIO(b"9 a=bcd\n"))
    assert "extended headers" in refused(tmp_path / "chain.tar", tmp_path / "out")
    saved = sys.getrecursionlimit()
    sys.setrecursionlimit(242_000)  # as after a deep run (kclpy.depth): the count still holds
    try:
        assert "extended headers" in refused(tmp_path / "chain.tar", tmp_path / "out")
    finally:
        sys.setrecursionlimit(saved)


def test_truncated_and_garbage_archives_are_corrupt(tmp_path: Path) -> None:
    data = build(tmp_path / "ok.tar", [("a.k", os.urandom(5000))]).read_bytes()
    (tmp_path / "cut.tar").write_bytes(data[:3000])
    assert "corrupt package archive 'pkg'" in refused(tmp_path / "cut.tar", tmp_path / "out")
    (tmp_path / "cut.tgz").write_bytes(gzip.compress(data)[:2000])
    assert "corrupt package archive 'pkg'" in refused(tmp_path / "cut.tgz", tmp_path / "out")


def _package(tmp_path: Path) -> Path:
    package = tmp_path / "pkg"
    (package / "sub").mkdir(parents=True)
    (package / "kcl.mod").write_text("[package]\n")
    (package / "sub" / "b.k").write_text("b = 2\n")
    return package


def test_pack_stores_a_link_inside_as_its_file_and_refuses_the_others(tmp_path: Path) -> None:
    package = _package(tmp_path)
    os.symlink("sub/b.k", package / "a.k")
    packed = archive.pack(str(package), str(tmp_path / "pkg.tar"))
    with tarfile.open(packed) as written:
        kinds = {member.name: member.type for member in written.getmembers()}
    assert kinds["a.k"] == tarfile.REGTYPE and tarfile.SYMTYPE not in kinds.values()
    extract.unpack(packed, str(tmp_path / "out"))
    assert (tmp_path / "out" / "a.k").read_text() == "b = 2\n"
    assert archive.checksum(str(tmp_path / "out")) == archive.checksum(str(package))
    outside = hostile.prepare_outside(tmp_path / "outside")
    for target, reason in [
        (str(outside / "victim.txt"), "outside the package folder"),
        ("sub", "not a regular file"),
        ("missing", "No such file"),
    ]:
        os.unlink(package / "a.k")
        os.symlink(target, package / "a.k")
        for attempt in (
            lambda: archive.pack(str(package), str(tmp_path / "pkg.tar")),
            lambda: archive.checksum(str(package)),
            lambda: archive.copy_tree(str(package), str(tmp_path / "copy")),
        ):
            with pytest.raises(PackageError) as caught:
                attempt()
            assert "'a.k'" in caught.value.message and reason in caught.value.message
            assert caught.value.code.id == "E9101"
        assert not (tmp_path / "copy" / "a.k").exists()
        shutil.rmtree(tmp_path / "copy")
    with tarfile.open(tmp_path / "pkg.tar") as written:  # the earlier archive, untouched
        assert "a.k" in written.getnames()


def test_pack_refuses_a_fifo_without_waiting(tmp_path: Path) -> None:
    package = _package(tmp_path)
    os.mkfifo(package / "pipe.k")
    with pytest.raises(PackageError) as caught:
        archive.pack(str(package), str(tmp_path / "pkg.tar"))
    assert "'pipe.k'" in caught.value.message and "not a regular file" in caught.value.message
    assert not (tmp_path / "pkg.tar").exists()


def test_copy_tree_copies_files_and_folders(tmp_path: Path) -> None:
    package = _package(tmp_path)
    os.symlink("sub/b.k", package / "a.k")
    archive.copy_tree(str(package), str(tmp_path / "copy"))
    assert files(tmp_path / "copy") == {
        "a.k": b"b = 2\n", "kcl.mod": b"[package]\n", "sub/b.k": b"b = 2\n"
    }  # fmt: skip
    assert not os.path.islink(tmp_path / "copy" / "a.k")


LAYER = {"mediaType": oci.LAYER_MEDIA_TYPE, "digest": "sha256:" + "a" * 64, "size": 10}


@pytest.mark.parametrize(
    ("change", "reason"),
    [
        ({"digest": "sha256:../../../v2/other"}, "no sha256 digest"),
        ({"digest": "sha512:" + "a" * 128}, "no sha256 digest"),
        ({"size": True}, "no size"),
        ({"size": oci.MAX_LAYER_BYTES + 1}, "no size or one over"),
        ({"size": -1}, "no size"),
        ({"mediaType": "text/plain"}, "no KCL package layer"),
    ],
)
def test_a_layer_is_checked_before_it_is_fetched(change: dict[str, object], reason: str) -> None:
    with pytest.raises(PackageError) as caught:
        oci._layer({"layers": [{**LAYER, **change}]}, "host/repo:1", "pkg")
    assert reason in caught.value.message and caught.value.code.id == "E9107"
    for odd in ({"layers": "x"}, {"layers": ["x", None]}, {}):
        with pytest.raises(PackageError):
            oci._layer(odd, "host/repo:1", "pkg")
    assert oci._layer({"layers": [LAYER]}, "r", "pkg") == (LAYER["digest"], 10, ".tgz")
