"""Package archives and checksums: the real tool's tar layout and ``sum``.

- :func:`checksum`: base64 of the sha256 over the bytes of every file of a folder,
  walked depth-first in name order, skipping paths containing ``.git`` or ``.tar``
  (the real tool's ``sum`` in ``kcl.mod.lock`` and in the OCI annotation).
- :func:`pack`: a ``.tar`` of a package folder, member names relative to it,
  ``include``/``exclude`` glob patterns from ``[package]``; written to a temporary
  file and moved into place.
- :func:`unpack`: extracts a ``.tar`` or ``.tgz`` safely (no absolute paths, no
  ``..``, no links leaving the folder); a corrupt archive is a CORRUPT_ARCHIVE error.
- :func:`install`: moves a folder prepared in a temporary place into the cache in one
  ``rename``, so the cache never holds half a package.
"""

from __future__ import annotations

import base64
import contextlib
import fnmatch
import hashlib
import os
import shutil
import tempfile
from collections.abc import Iterator

from kclpy.diag import Code
from kclpy.mod.errors import PackageError

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


def checksum(folder: str) -> str:
    """The real tool's package ``sum`` of ``folder``."""
    digest = hashlib.sha256()
    for path, is_dir in _walk(folder):
        if is_dir or any(part in path for part in _IGNORED) or not os.path.isfile(path):
            continue  # (a link to a folder, or to nothing, has no bytes to hash)
        with open(path, "rb") as stream:
            for block in iter(lambda: stream.read(1 << 16), b""):
                digest.update(block)
    return base64.b64encode(digest.digest()).decode("ascii")


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
            for path, _ in _walk(folder):
                relative = os.path.relpath(path, folder).replace(os.sep, "/")
                if any(part in path for part in _IGNORED) or os.path.abspath(path) == target:
                    continue
                if not _selected(relative, include or [], exclude or []):
                    continue
                if ".kclpy-" in relative:
                    continue
                archive.add(path, arcname=relative, recursive=False)
        os.replace(temporary, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise
    return target


def unpack(archive_path: str, destination: str, what: str = "") -> None:
    """Extract the ``.tar``/``.tgz`` at ``archive_path`` into ``destination`` safely."""
    import tarfile

    try:
        with tarfile.open(archive_path, "r:*") as archive:
            archive.extractall(destination, filter="data")
    except (tarfile.TarError, EOFError, OSError, ValueError) as error:
        raise PackageError(
            Code.CORRUPT_ARCHIVE,
            f"corrupt package archive {what or archive_path}: {error}",
            dependency=what,
        ) from None


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
