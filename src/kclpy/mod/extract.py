"""Package archives unpacked by kclpy itself: regular files and folders only, never
outside the destination, within caps on size, member count and compression ratio.

:func:`unpack` takes the path of a tar archive (plain, gzip, bzip2 or xz, told by its
first bytes, not its name) and a folder (empty or new), and writes the archive's
files and folders under that folder and nothing else. ``tarfile`` only parses the
headers; its extraction and its filters (whose path checks differ between Python
releases, see CVE-2025-4517) are not used, so the rules are the same on every Python.
Every refusal is a :class:`~kclpy.mod.errors.PackageError` with ``CORRUPT_ARCHIVE``
naming the archive and the member.

The archive is read twice, streaming: the first pass checks every member and writes
nothing, the second writes, checking everything again (the file may have changed in
between); if the second fails, what it created is removed. A cap stops the read as
soon as it is passed, so a bomb costs at most the cap, and memory stays bounded
(``tarfile`` is never asked for more than :data:`MAX_HEADER_BYTES` at once).

- Members: regular files and folders. Links (symbolic and hard), devices, FIFOs,
  sparse files and unknown types are refused: KCL packages need none of them.
- Names: relative, ``/``-separated UTF-8, at most :data:`MAX_NAME_BYTES` bytes, parts
  at most 255 bytes, without ``..``, backslashes, ``:`` (drive letters, NTFS streams)
  or control characters; ``.`` and empty parts are dropped. One path is one thing: a
  file named twice, or a file where a folder is needed (or the reverse), is refused.
- Writes: each folder is opened part by part relative to its parent with
  ``O_NOFOLLOW`` and each file created with ``O_CREAT | O_EXCL | O_NOFOLLOW``, so
  nothing already on disk is followed or overwritten; each target is also resolved
  and checked to lie under the destination before it is created.
- Caps (:class:`Limits`, defaults from the module constants): the tar stream at most
  :data:`MAX_UNPACKED_BYTES`, at most :data:`MAX_MEMBERS` members, and a compressed
  archive expanding at most :data:`MAX_RATIO` times once past :data:`RATIO_FREE_BYTES`.
"""

from __future__ import annotations

import contextlib
import errno
import os
import re
import stat
from collections.abc import Iterator
from typing import IO, TYPE_CHECKING, Protocol

from kclpy.diag import Code
from kclpy.mod.errors import PackageError
from kclpy.records import Record

if TYPE_CHECKING:
    import tarfile

MAX_UNPACKED_BYTES = 512 << 20  # the decompressed tar stream (cargo's cap too)
MAX_MEMBERS = 100_000
MAX_RATIO = 100  # decompressed bytes per compressed byte ...
RATIO_FREE_BYTES = 8 << 20  # ... checked once this much is decompressed
MAX_HEADER_BYTES = 1 << 20  # one read by tarfile: a pax or GNU long-name header
MAX_NAME_BYTES = 1024  # a member's path
MAX_PART_BYTES = 255  # one part of it (NAME_MAX)

_CHUNK = 1 << 16
_FORBIDDEN = re.compile("[\x00-\x1f\x7f\\\\:\ud800-\udfff]")
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_COMMON = getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0) | _NOFOLLOW
_DIRECTORY = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | _COMMON
_NEW_FILE = os.O_WRONLY | os.O_CREAT | os.O_EXCL | _COMMON
_AT_FOLDER = os.open in os.supports_dir_fd and os.mkdir in os.supports_dir_fd


class Limits(Record):
    """The caps of one extraction (tests pass smaller ones)."""

    unpacked_bytes: int = MAX_UNPACKED_BYTES
    members: int = MAX_MEMBERS
    ratio: int = MAX_RATIO
    ratio_free_bytes: int = RATIO_FREE_BYTES


LIMITS = Limits()


def unpack(archive_path: str, destination: str, what: str = "", limits: Limits = LIMITS) -> None:
    """Extract the archive at ``archive_path`` into the folder ``destination`` (made if
    missing; see the module doc); ``what`` names the archive in errors."""
    what = what or os.path.basename(archive_path)
    _read(archive_path, limits, what, None)
    try:
        os.makedirs(destination, exist_ok=True)
    except OSError as error:
        raise PackageError(
            Code.IO_ERROR, f"cannot create '{destination}': {error.strerror}", dependency=what
        ) from None
    writer = _Writer(destination, what)
    try:
        _read(archive_path, limits, what, writer)
    except BaseException:
        writer.undo()
        raise


def _refused(what: str, detail: str) -> PackageError:
    return PackageError(
        Code.CORRUPT_ARCHIVE, f"refused package archive '{what}': {detail}", dependency=what
    )


def _shown(name: str) -> str:
    """A member name for a message: quoted, escaped, at most about 120 characters."""
    text = repr(name)
    return text if len(text) <= 120 else text[:60] + "..." + text[-60:]


def _read(path: str, limits: Limits, what: str, writer: _Writer | None) -> None:
    """One pass over the archive: check every member, and write it when ``writer``."""
    import lzma
    import tarfile
    import zlib

    kinds: dict[tuple[str, ...], str] = {}
    try:
        with open(path, "rb") as raw, _Stream(raw, limits, what) as stream:
            for member in _headers(stream, limits, what):
                kind = _kind(member, what)
                parts = _parts(member.name, what)
                if not parts and kind == "dir":
                    continue  # the archive's root folder ("./")
                _claim(kinds, parts, kind, member.name, what)
                if kind == "file" and member.size > limits.unpacked_bytes:
                    raise _refused(
                        what, f"member {_shown(member.name)} is {member.size} bytes, more than "
                        f"the {limits.unpacked_bytes >> 20} MiB a package may unpack to",
                    )  # fmt: skip
                if writer is not None:
                    writer.write(parts, kind, member, stream)
    except PackageError:
        raise
    except (tarfile.TarError, EOFError, OSError, ValueError, zlib.error, lzma.LZMAError) as error:
        detail = error.strerror if isinstance(error, OSError) and error.strerror else str(error)
        raise PackageError(
            Code.CORRUPT_ARCHIVE, f"corrupt package archive '{what}': {detail or 'unreadable'}",
            dependency=what,
        ) from None  # fmt: skip
    except (_ChainTooLong, RecursionError):  # tarfile reads such chains recursively
        raise _refused(what, "too many extended headers in a row") from None


_MAX_CHAIN = 64  # extended (pax, GNU long name) headers before one member


class _ChainTooLong(Exception):
    """More than ``_MAX_CHAIN`` extended headers in a row (tarfile reads each next header
    recursively: the count, not the interpreter's recursion limit, bounds the chain)."""


def _counting_info() -> type[tarfile.TarInfo]:
    """A TarInfo class that counts the extended headers read before each member."""
    import tarfile

    extended = {
        tarfile.XHDTYPE, tarfile.XGLTYPE, tarfile.SOLARIS_XHDTYPE,
        tarfile.GNUTYPE_LONGNAME, tarfile.GNUTYPE_LONGLINK,
    }  # fmt: skip

    class Counted(tarfile.TarInfo):
        def _proc_member(self, archive: tarfile.TarFile) -> tarfile.TarInfo:
            chain = getattr(archive, "_kclpy_chain", 0) + 1 if self.type in extended else 0
            if chain > _MAX_CHAIN:
                raise _ChainTooLong
            archive._kclpy_chain = chain  # type: ignore[attr-defined]
            return super()._proc_member(archive)  # type: ignore[misc, no-any-return]

    return Counted


def _headers(stream: _Stream, limits: Limits, what: str) -> Iterator[tarfile.TarInfo]:
    """The archive's members in order, at most ``limits.members`` of them."""
    import tarfile

    archive = tarfile.TarFile(fileobj=stream, mode="r", tarinfo=_counting_info())  # type: ignore[arg-type]
    count = 0
    while (member := archive.next()) is not None:
        kept = getattr(archive, "members", None)  # tarfile keeps every header: not needed
        if isinstance(kept, list):
            kept.clear()
        count += 1
        if count > limits.members:
            raise _refused(what, f"more than {limits.members} members")
        yield member


_DESCRIPTIONS = {
    b"1": "a hard link",
    b"2": "a symbolic link",
    b"3": "a character device",
    b"4": "a block device",
    b"6": "a FIFO",
    b"S": "a sparse file",
}


def _kind(member: tarfile.TarInfo, what: str) -> str:
    """``"file"`` or ``"dir"``; any other member is refused."""
    import tarfile

    if member.type == tarfile.DIRTYPE:
        return "dir"
    regular = member.type in (tarfile.REGTYPE, tarfile.AREGTYPE, tarfile.CONTTYPE)
    if regular and not member.issparse():
        return "file"
    description = _DESCRIPTIONS.get(member.type)
    if member.issparse():
        description = "a sparse file"
    elif description is None:
        description = f"of unknown type {member.type!r}"
    target = f" (to {_shown(member.linkname)})" if member.linkname else ""
    raise _refused(
        what, f"member {_shown(member.name)} is {description}{target}; "
        "a package archive may hold only files and folders",
    )  # fmt: skip


def _parts(name: str, what: str) -> tuple[str, ...]:
    """The parts of a member's path, checked (see the module doc)."""
    if len(name.encode("utf-8", "surrogatepass")) > MAX_NAME_BYTES:
        raise _refused(what, f"member {_shown(name)} has a name longer than {MAX_NAME_BYTES} bytes")
    bad = _FORBIDDEN.search(name)
    if bad:
        character = "a byte that is not UTF-8" if bad.group() >= "\ud800" else repr(bad.group())
        raise _refused(what, f"member {_shown(name)} has {character} in its name")
    if name.startswith("/"):
        raise _refused(what, f"member {_shown(name)} has an absolute path")
    parts = tuple(part for part in name.split("/") if part not in ("", "."))
    if ".." in parts:
        raise _refused(what, f"member {_shown(name)} climbs out of its folder with '..'")
    if any(len(part.encode("utf-8")) > MAX_PART_BYTES for part in parts):
        raise _refused(what, f"member {_shown(name)} has a name part over {MAX_PART_BYTES} bytes")
    return parts


def _claim(
    kinds: dict[tuple[str, ...], str], parts: tuple[str, ...], kind: str, name: str, what: str
) -> None:
    """Record that ``parts`` is a ``kind`` (and its parents folders); a clash is refused."""
    if not parts:
        raise _refused(what, f"member {_shown(name)} is a file in place of the package folder")
    for depth in range(1, len(parts)):
        if kinds.setdefault(parts[:depth], "dir") == "file":
            folder = "/".join(parts[:depth])
            raise _refused(
                what, f"member {_shown(name)} needs {_shown(folder)} to be a folder, "
                "but the archive has a file there",
            )  # fmt: skip
    previous = kinds.get(parts)
    if previous == kind == "file":
        raise _refused(what, f"member {_shown(name)} appears twice")
    if previous is not None and previous != kind:
        raise _refused(what, f"member {_shown(name)} is both a file and a folder")
    kinds[parts] = kind


class _Source(Protocol):
    """A file of bytes, plain or a decompressor."""

    def read(self, size: int = -1, /) -> bytes: ...

    def close(self) -> None: ...


class _Stream:
    """The archive's tar bytes, decompressed as they are read and counted against the
    caps. Forward only: ``tarfile`` reads the headers in order, and :meth:`seek` skips
    ahead by reading (so skipped bytes count too)."""

    def __init__(self, raw: IO[bytes], limits: Limits, what: str) -> None:
        import bz2
        import gzip
        import lzma

        self.raw, self.limits, self.what = raw, limits, what
        magic = raw.read(6)
        raw.seek(0)
        self.source: _Source = raw
        if magic.startswith(b"\x1f\x8b"):
            self.source = gzip.GzipFile(fileobj=raw, mode="rb")  # closed on exit
        elif magic.startswith(b"BZh"):
            self.source = bz2.BZ2File(raw)
        elif magic.startswith(b"\xfd7zXZ\x00"):
            self.source = lzma.LZMAFile(raw)  # noqa: SIM115
        self.compressed = self.source is not raw
        self.position = 0

    def __enter__(self) -> _Stream:
        return self

    def __exit__(self, *exc_info: object) -> None:
        if self.compressed:
            self.source.close()

    def tell(self) -> int:
        return self.position

    def read(self, size: int = -1) -> bytes:
        if size < 0 or size > max(MAX_HEADER_BYTES, _CHUNK):
            raise _refused(self.what, f"a member header of {size} bytes")
        data = self.source.read(size)
        self.position += len(data)
        limits = self.limits
        if self.position > limits.unpacked_bytes:
            raise _refused(
                self.what, f"it unpacks to more than {limits.unpacked_bytes >> 20} MiB (the limit)"
            )
        if (
            self.compressed
            and self.position > limits.ratio_free_bytes
            and self.position > limits.ratio * self.raw.tell()
        ):
            raise _refused(
                self.what, f"it expands more than {limits.ratio} times when decompressed "
                f"({self.raw.tell()} bytes to over {self.position}): a compression bomb?",
            )  # fmt: skip
        return data

    def seek(self, offset: int, whence: int = os.SEEK_SET) -> int:
        if whence != os.SEEK_SET or offset < self.position:
            raise _refused(self.what, "its headers point backwards")
        while self.position < offset:
            if not self.read(min(_CHUNK, offset - self.position)):
                break
        return self.position


class _Writer:
    """Creates checked folders and files under one destination, following nothing."""

    def __init__(self, destination: str, what: str) -> None:
        self.root = os.path.realpath(destination)
        self.what = what
        self.created: list[tuple[str, bool]] = []  # (path, is a folder), in order

    def undo(self) -> None:
        """Remove what this writer created (after a failure), newest first."""
        for path, is_folder in reversed(self.created):
            with contextlib.suppress(OSError):
                (os.rmdir if is_folder else os.unlink)(path)
        self.created.clear()

    def write(
        self, parts: tuple[str, ...], kind: str, member: tarfile.TarInfo, stream: _Stream
    ) -> None:
        """Create the folder or file ``parts`` (a file's bytes read from ``stream``)."""
        target = os.path.join(self.root, *parts)
        if os.path.commonpath([self.root, os.path.realpath(target)]) != self.root:
            raise _refused(self.what, f"member {_shown(member.name)} resolves outside the folder")
        try:
            if kind == "dir":
                os.close(self._folder(parts))
                return
            stream.seek(member.offset_data)
            mode = 0o755 if member.mode & 0o100 else 0o644
            parent = self._folder(parts[:-1])
            try:
                if _AT_FOLDER:
                    handle = os.open(parts[-1], _NEW_FILE, mode, dir_fd=parent)
                else:
                    handle = os.open(target, _NEW_FILE, mode)
            finally:
                os.close(parent)
            self.created.append((target, False))
            with os.fdopen(handle, "wb") as output:
                _copy(stream, output, member.size, member.name, self.what)
        except OSError as error:
            raise self._failed(member.name, error) from None

    def _folder(self, parts: tuple[str, ...]) -> int:
        """An open descriptor of the folder ``parts``, created as needed; every part
        must be a real folder (a link or a file there is an error)."""
        handle = os.open(self.root, _DIRECTORY)
        try:
            for depth, part in enumerate(parts, 1):
                path = os.path.join(self.root, *parts[:depth])
                with contextlib.suppress(FileExistsError):
                    if _AT_FOLDER:
                        os.mkdir(part, 0o755, dir_fd=handle)
                    else:
                        os.mkdir(path, 0o755)
                    self.created.append((path, True))
                if _AT_FOLDER:
                    child = os.open(part, _DIRECTORY, dir_fd=handle)
                else:
                    child = os.open(path, _DIRECTORY)
                    if not stat.S_ISDIR(os.lstat(path).st_mode):
                        os.close(child)
                        raise NotADirectoryError(errno.ENOTDIR, os.strerror(errno.ENOTDIR))
                os.close(handle)
                handle = child
        except BaseException:
            os.close(handle)
            raise
        return handle

    def _failed(self, name: str, error: OSError) -> PackageError:
        reason = error.strerror or str(error)
        if error.errno in (errno.ENOSPC, errno.EDQUOT, errno.EACCES, errno.EPERM, errno.EROFS):
            return PackageError(
                Code.IO_ERROR, f"cannot unpack member {_shown(name)} of package archive "
                f"'{self.what}': {reason}", dependency=self.what,
            )  # fmt: skip
        if error.errno == errno.EEXIST:
            reason = "another member already took its place (names that differ only in case?)"
        return _refused(self.what, f"member {_shown(name)} cannot be unpacked: {reason}")


def _copy(stream: _Stream, output: IO[bytes], size: int, name: str, what: str) -> None:
    """``size`` bytes from ``stream`` to ``output``."""
    left = size
    while left:
        data = stream.read(min(left, _CHUNK))
        if not data:
            raise PackageError(
                Code.CORRUPT_ARCHIVE, f"corrupt package archive '{what}': member "
                f"{_shown(name)} is cut short", dependency=what,
            )  # fmt: skip
        output.write(data)
        left -= len(data)
