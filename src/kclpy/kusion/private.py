"""Folders and files only their owner may read: state, journal, Terraform workspaces, caches.

What the Kusion backend keeps on disk holds secrets in clear (the state
records every attribute; a Terraform workspace holds ``terraform.tfstate`` and
provider credentials), so it is never world- or group-readable:

- ``private_directory(path)`` creates ``path`` and its missing parents with
  mode 0700; a folder that already exists with group or other permissions is
  tightened to 0700 (``chmod``), with a note on stderr saying so;
- ``private_file(path)`` creates an empty ``path`` with mode 0600 (a file that
  already exists is tightened to 0600 the same way) before anyone writes it;
- ``write_private(path, text)`` replaces a file's content atomically (a
  temporary file of mode 0600 in the same folder, then ``os.replace``);
- ``safe_name(text)`` is the name of a folder or file for ``text`` (a project, a
  workspace, a provider; also a Terraform identifier): stable and collision-free.

Paths are never followed out: a symlink in place of a private folder or file
is refused (``KusionError``, as is a folder or file that cannot be made or
tightened), so a link planted in ``.kusion`` cannot redirect the state or a
chmod elsewhere.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
import stat
import sys
import tempfile
from pathlib import Path

from kclpy.kusion.model import KusionError

DIRECTORY_MODE = 0o700
FILE_MODE = 0o600
_WIDE = stat.S_IRWXG | stat.S_IRWXO


def note(message: str) -> None:
    print(f"note: {message}", file=sys.stderr, flush=True)


def _tighten(path: Path, mode: int) -> None:
    """``chmod`` ``path`` to ``mode`` if group or others have any permission on it."""
    try:
        info = os.lstat(path)
        if stat.S_ISLNK(info.st_mode):
            raise KusionError(f"{path} is a symbolic link; refusing to keep state or secrets there")
        if info.st_mode & _WIDE:
            os.chmod(path, mode)
    except OSError as error:
        raise KusionError(f"cannot make {path} private: {error.strerror or error}") from None
    if info.st_mode & _WIDE:
        note(
            f"tightened the permissions of {path} from {stat.S_IMODE(info.st_mode):04o} to "
            f"{mode:04o} (it holds state and secrets)"
        )


def private_directory(path: Path) -> Path:
    """``path`` as an existing folder of mode 0700 (parents created 0700 too)."""
    missing = []
    current = path
    while not current.exists() and not current.is_symlink() and current != current.parent:
        missing.append(current)
        current = current.parent
    for folder in reversed(missing):
        try:
            with contextlib.suppress(FileExistsError):
                folder.mkdir(mode=DIRECTORY_MODE)
        except OSError as error:
            raise KusionError(f"cannot create {folder}: {error.strerror or error}") from None
    _tighten(path, DIRECTORY_MODE)
    return path


def private_file(path: Path) -> Path:
    """``path`` as an existing file of mode 0600 (created empty if missing)."""
    try:
        descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, FILE_MODE)
    except FileExistsError:
        _tighten(path, FILE_MODE)
    except OSError as error:
        raise KusionError(f"cannot create {path}: {error.strerror or error}") from None
    else:
        os.close(descriptor)
    return path


def write_private(path: Path, text: str) -> None:
    """Replace ``path``'s content with ``text`` atomically, as a file of mode 0600."""
    descriptor, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    try:
        with os.fdopen(descriptor, "w", encoding="utf-8") as handle:  # mkstemp: mode 0600
            handle.write(text)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def safe_name(text: str) -> str:
    """A directory or Terraform identifier derived from ``text`` (stable, collision-free)."""
    cleaned = re.sub(r"[^A-Za-z0-9_-]", "_", text).strip("_") or "resource"
    if cleaned[0].isdigit():
        cleaned = "r_" + cleaned
    if cleaned != text:
        cleaned += "_" + hashlib.sha256(text.encode()).hexdigest()[:8]
    return cleaned
