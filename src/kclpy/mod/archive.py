"""Package archives and checksums: the real tool's tar layout and ``sum``.

- :func:`checksum`: base64 of the sha256 over the bytes of every file of a folder,
  walked depth-first in name order, skipping paths containing ``.git`` or ``.tar``
  (the real tool's ``sum`` in ``kcl.mod.lock`` and in the OCI annotation).
- :func:`pack`: a ``.tar`` of a package folder, member names relative to it,
  ``include``/``exclude`` glob patterns from ``[package]``; written to a temporary
  file and moved into place. The archive holds only files and folders.
- :func:`copy_tree`: a package folder copied to a new folder (vendoring).
- :func:`unpack`: extracts a ``.tar`` or ``.tgz`` with :mod:`kclpy.mod.extract`
  (files and folders only, never outside the folder, within caps).
- :func:`install`: moves a folder prepared in a temporary place into the cache in one
  ``rename``, so the cache never holds half a package.

Links in a package folder: these three never follow a link out of the folder. A
symbolic link to a regular file inside the folder stands for that file (its bytes
are hashed, packed or copied as a regular file, so archives hold no links); a link
leaving the folder, to a folder, or to nothing, and any FIFO, device or socket, is
refused with a ``MOD_FILE_ERROR`` naming it.
"""

from __future__ import annotations

import base64
import contextlib
import fnmatch
import hashlib
import os
import shutil
import stat
import tempfile
from collections.abc import Iterator

from kclpy.diag import Code
from kclpy.mod.errors import PackageError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import IO

_IGNORED = (".git", ".tar")


def _walk(folder: str) -> Iterator[tuple[str, bool]]:
    """(path, is_dir) of everything under ``folder``, depth-first in name order."""
    try:
        names = sorted(os.listdir(folder))
    except OSError:
        return
    for name in names:
        path = os.path.join(folder, name)
        is_dir = os.path.isdir(path) and not os.path.islink(path)
        yield path, is_dir
        if is_dir:
            yield from _walk(path)


def _open_file(folder: str, path: str) -> IO[bytes]:
    """The regular file that ``path`` (in the package ``folder``) stands for, opened:
    the file itself, or the file inside ``folder`` a symbolic link resolves to."""
    relative = os.path.relpath(path, folder)
    real = path  # _walk enters no linked folder: only ``path`` itself may be a link
    if os.path.islink(path):
        real = os.path.realpath(path)
        root = os.path.realpath(folder)
        if os.path.commonpath([root, real]) != root:
            raise PackageError(
                Code.MOD_FILE_ERROR,
                f"'{relative}' in the package '{folder}' is a symbolic link to "
                f"'{os.readlink(path)}', outside the package folder",
                "packages are hashed, packed and copied without following links out of them",
            )
    try:
        handle = os.open(real, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | _NONBLOCK)
    except OSError as error:
        raise _unreadable(folder, relative, error.strerror or str(error)) from None
    if not stat.S_ISREG(os.fstat(handle).st_mode):
        os.close(handle)
        raise _unreadable(folder, relative, "it is not a regular file (a folder, FIFO or device)")
    return os.fdopen(handle, "rb")


_NONBLOCK = getattr(os, "O_NONBLOCK", 0)  # a FIFO is refused, not waited on


def _unreadable(folder: str, relative: str, reason: str) -> PackageError:
    return PackageError(
        Code.MOD_FILE_ERROR, f"cannot read '{relative}' in the package '{folder}': {reason}"
    )


def checksum(folder: str) -> str:
    """The real tool's package ``sum`` of ``folder``."""
    digest = hashlib.sha256()
    for path, is_dir in _walk(folder):
        if is_dir or any(part in path for part in _IGNORED):
            continue
        with _open_file(folder, path) as stream:
            for block in iter(lambda: stream.read(1 << 16), b""):
                digest.update(block)
    return base64.b64encode(digest.digest()).decode("ascii")


def copy_tree(source: str, target: str) -> None:
    """Copy the package folder ``source`` to ``target`` (which must not exist): its
    folders and files, links to files inside it as those files (see the module doc)."""
    os.makedirs(target)
    for path, is_dir in _walk(source):
        destination = os.path.join(target, os.path.relpath(path, source))
        if is_dir:
            os.mkdir(destination)
            continue
        with _open_file(source, path) as stream, open(destination, "xb") as output:
            shutil.copyfileobj(stream, output)


def _selected(relative: str, include: list[str], exclude: list[str]) -> bool:
    if any(fnmatch.fnmatch(relative, pattern) for pattern in exclude):
        return False
    return not include or any(fnmatch.fnmatch(relative, pattern) for pattern in include)


def pack(
    folder: str, tar_path: str, include: list[str] | None = None, exclude: list[str] | None = None
) -> str:
    """Write the package in ``folder`` to ``tar_path`` (atomically); returns ``tar_path``."""
    target = os.path.abspath(tar_path)
    import tarfile

    handle, temporary = tempfile.mkstemp(
        prefix=".kclpy-", suffix=".tmp", dir=os.path.dirname(target)
    )
    os.close(handle)
    try:
        with tarfile.open(temporary, "w", format=tarfile.GNU_FORMAT) as archive:
            for path, is_dir in _walk(folder):
                relative = os.path.relpath(path, folder).replace(os.sep, "/")
                if any(part in path for part in _IGNORED) or os.path.abspath(path) == target:
                    continue
                if not _selected(relative, include or [], exclude or []):
                    continue
                if ".kclpy-" in relative:
                    continue
                if is_dir:
                    archive.add(path, arcname=relative, recursive=False)
                    continue
                with _open_file(folder, path) as stream:
                    member = archive.gettarinfo(arcname=relative, fileobj=stream)
                    archive.addfile(member, stream)
        os.replace(temporary, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise
    return target


def unpack(archive_path: str, destination: str, what: str = "") -> None:
    """Extract the ``.tar``/``.tgz`` at ``archive_path`` into the empty folder
    ``destination``: regular files and folders only, never outside it, within caps
    (:mod:`kclpy.mod.extract`)."""
    from kclpy.mod import extract

    extract.unpack(archive_path, destination, what)


_STAGING = ".kclpy-download-"
_STALE_SECONDS = 24 * 3600


def staging_dir(cache: str) -> str:
    """A fresh temporary folder inside the cache (same file system as its final place).
    Staging folders a killed process left behind for a day are removed first."""
    import shutil
    import time

    os.makedirs(cache, exist_ok=True)
    with contextlib.suppress(OSError):
        for name in os.listdir(cache):
            path = os.path.join(cache, name)
            if name.startswith(_STAGING) and time.time() - os.path.getmtime(path) > _STALE_SECONDS:
                shutil.rmtree(path, ignore_errors=True)
    return tempfile.mkdtemp(prefix=_STAGING, dir=cache)


def install(prepared: str, final: str) -> str:
    """Move ``prepared`` to ``final`` in one rename; if another process won the race,
    keep its copy. ``prepared`` is removed either way."""
    try:
        os.rename(prepared, final)
    except OSError:
        if not os.path.isdir(final):
            shutil.rmtree(prepared, ignore_errors=True)
            raise
        shutil.rmtree(prepared, ignore_errors=True)
    return final
