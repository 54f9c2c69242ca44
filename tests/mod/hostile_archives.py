"""Builders of hostile package archives, for the archive tests and for measuring.

Each builder writes one ``.tar`` (or ``.tgz``) that a careless extractor would let
reach outside its destination, or that costs far more to unpack than it weighs.
``outside`` is a folder the archive aims at (the tests snapshot it before and after).
Every archive also holds a harmless ``kcl.mod`` and ``main.k`` first, so it looks
like a package.
"""

from __future__ import annotations

import gzip
import hashlib
import io
import os
import tarfile
from collections.abc import Callable
from pathlib import Path

MOD = b'[package]\nname = "hostile"\nedition = "v0.11.0"\nversion = "0.1.0"\n'
MAIN = b"a = 1\n"


def _file(archive: tarfile.TarFile, name: str, data: bytes) -> None:
    member = tarfile.TarInfo(name)
    member.size = len(data)
    member.mode = 0o644
    archive.addfile(member, io.BytesIO(data))


def _special(archive: tarfile.TarFile, name: str, kind: bytes, target: str = "") -> None:
    member = tarfile.TarInfo(name)
    member.type = kind
    member.linkname = target
    member.mode = 0o755 if kind == tarfile.DIRTYPE else 0o644
    archive.addfile(member)


def _tar(path: Path, fill: Callable[[tarfile.TarFile], None]) -> Path:
    with tarfile.open(path, "w", format=tarfile.PAX_FORMAT) as archive:
        _file(archive, "kcl.mod", MOD)
        _file(archive, "main.k", MAIN)
        fill(archive)
    return path


def symlink_out(path: Path, outside: Path) -> Path:
    """A symlink to ``outside``, then a file written through it."""

    def fill(archive: tarfile.TarFile) -> None:
        _special(archive, "escape", tarfile.SYMTYPE, str(outside))
        _file(archive, "escape/created.txt", b"written through a symlink\n")

    return _tar(path, fill)


def hardlink_out(path: Path, outside: Path) -> Path:
    """A hard link to the file ``outside/victim.txt``, then the link overwritten."""

    def fill(archive: tarfile.TarFile) -> None:
        _special(archive, "victim", tarfile.LNKTYPE, str(outside / "victim.txt"))
        _file(archive, "victim", b"overwritten through a hard link\n")

    return _tar(path, fill)


def long_symlink_chain(path: Path, outside: Path) -> Path:
    """The CVE-2025-4517 pattern: short symlinks to very long folder names, so that
    ``os.path.realpath`` gives up past PATH_MAX and believes an escaping link stays
    inside; then a file overwritten and a file created outside through it."""
    long_name = "d" * 247
    steps = "abcdefghijklmnop"

    def fill(archive: tarfile.TarFile) -> None:
        prefix = ""
        for step in steps:
            _special(archive, os.path.join(prefix, long_name), tarfile.DIRTYPE)
            _special(archive, os.path.join(prefix, step), tarfile.SYMTYPE, long_name)
            prefix = os.path.join(prefix, long_name)
        link_path = os.path.join(*steps, "l" * 254)
        _special(archive, link_path, tarfile.SYMTYPE, os.path.join(*[".."] * len(steps)))
        up = link_path + "/.." * (len(steps) + 1)
        _special(archive, "escape", tarfile.SYMTYPE, up + str(outside / "victim.txt"))
        _special(archive, "escape_dir", tarfile.SYMTYPE, up + str(outside))
        _file(archive, "escape", b"overwritten through a symlink chain\n")
        _file(archive, "escape_dir/created.txt", b"created through a symlink chain\n")
        _special(archive, "hard", tarfile.LNKTYPE, "escape")

    return _tar(path, fill)


def dotdot(path: Path, outside: Path) -> Path:
    """A member named with enough ``..`` to climb out to ``outside``."""

    def fill(archive: tarfile.TarFile) -> None:
        _file(archive, "../" * 40 + str(outside / "created.txt").lstrip("/"), b"climbed\n")

    return _tar(path, fill)


def absolute(path: Path, outside: Path) -> Path:
    """A member with an absolute name inside ``outside``."""

    def fill(archive: tarfile.TarFile) -> None:
        _file(archive, str(outside / "created.txt"), b"absolute\n")

    return _tar(path, fill)


def device(path: Path, outside: Path) -> Path:
    """A character device member (``/dev/null``'s numbers)."""

    def fill(archive: tarfile.TarFile) -> None:
        member = tarfile.TarInfo("null")
        member.type = tarfile.CHRTYPE
        member.devmajor, member.devminor = 1, 3
        archive.addfile(member)

    return _tar(path, fill)


def fifo(path: Path, outside: Path) -> Path:
    """A FIFO member."""

    def fill(archive: tarfile.TarFile) -> None:
        _special(archive, "pipe", tarfile.FIFOTYPE)

    return _tar(path, fill)


def clash(path: Path, outside: Path) -> Path:
    """A file ``lib``, then ``lib/x.k`` that needs ``lib`` to be a folder."""

    def fill(archive: tarfile.TarFile) -> None:
        _file(archive, "lib", b"a file\n")
        _file(archive, "lib/x.k", b"b = 2\n")

    return _tar(path, fill)


def size_bomb(path: Path, outside: Path, megabytes: int = 64) -> Path:
    """A ``.tgz`` whose one member is ``megabytes`` MiB of zeros (about 1000:1)."""
    with (
        open(path, "wb") as raw,
        gzip.GzipFile(fileobj=raw, mode="wb", mtime=0) as packed,
        tarfile.open(fileobj=packed, mode="w|", format=tarfile.PAX_FORMAT) as archive,
    ):
        _file(archive, "kcl.mod", MOD)
        _file(archive, "main.k", MAIN)
        member = tarfile.TarInfo("zeros.bin")
        member.size = megabytes << 20
        archive.addfile(member, _Zeros(member.size))
    return path


def count_bomb(path: Path, outside: Path, members: int = 100_100) -> Path:
    """A ``.tgz`` of ``members`` empty files with random-looking names."""
    with (
        open(path, "wb") as raw,
        gzip.GzipFile(fileobj=raw, mode="wb", mtime=0) as packed,
        tarfile.open(fileobj=packed, mode="w|", format=tarfile.GNU_FORMAT) as archive,
    ):
        _file(archive, "kcl.mod", MOD)
        _file(archive, "main.k", MAIN)
        for index in range(members):
            name = hashlib.sha256(str(index).encode()).hexdigest()  # compresses little
            archive.addfile(tarfile.TarInfo(f"f/{name}.k"))
    return path


class _Zeros(io.RawIOBase):
    """``size`` zero bytes, read in pieces."""

    def __init__(self, size: int) -> None:
        self.left = size

    def readable(self) -> bool:
        return True

    def read(self, size: int = -1) -> bytes:
        size = self.left if size < 0 else min(size, self.left)
        self.left -= size
        return bytes(size)


BUILDERS: dict[str, Callable[[Path, Path], Path]] = {
    "symlink": symlink_out,
    "hardlink": hardlink_out,
    "symlink-chain": long_symlink_chain,
    "dotdot": dotdot,
    "absolute": absolute,
    "device": device,
    "fifo": fifo,
    "clash": clash,
    "size-bomb": size_bomb,
    "count-bomb": count_bomb,
}


def suffix(case: str) -> str:
    return ".tgz" if case.endswith("bomb") else ".tar"


def prepare_outside(folder: Path) -> Path:
    """The sentinel folder: one file the archives try to overwrite."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "victim.txt").write_text("original\n")
    return folder


def snapshot(folder: Path) -> dict[str, tuple[str, bytes]]:
    """Every path under ``folder`` with its kind and content (link target for links)."""
    found: dict[str, tuple[str, bytes]] = {}
    for root, folders, files in os.walk(folder):
        for name in folders + files:
            path = os.path.join(root, name)
            relative = os.path.relpath(path, folder)
            if os.path.islink(path):
                found[relative] = ("link", os.readlink(path).encode())
            elif os.path.isdir(path):
                found[relative] = ("dir", b"")
            else:
                with open(path, "rb") as stream:
                    found[relative] = ("file", stream.read())
    return found
