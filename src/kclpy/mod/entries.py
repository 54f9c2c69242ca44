"""What ``kcl run`` runs when it is given no file, a package URL or a package archive.

- no file: the module in the current folder: ``[profile] entries`` of its
  ``kcl.mod`` (relative to it; ``${NAME:KCL_MOD}`` entries are kept for the loader),
  else its ``.k`` files;
- ``oci://HOST/REPO/NAME`` (``--tag``), a git URL (``--tag``), or ``NAME:VERSION``
  of the default registry: the package is pulled into the package cache, then run
  as above;
- ``PKG.tar`` / ``PKG.tgz``: unpacked once into the package cache (keyed by the
  archive's sha256), then run as above.
"""

from __future__ import annotations

import os

from kclpy.mod.sources import is_package_source
from kclpy.source import nearest_holding

# Only ``os`` at import time: ``kcl run`` asks :func:`run_inputs` on every run; what
# pulls a package (:mod:`kclpy.mod.operations`) is imported when one is pulled.


def module_entries(folder: str, confined: bool = False) -> list[str]:
    """The entry files of the module in ``folder``; ``confined`` (a fetched package):
    each must lie inside ``folder``."""
    from kclpy.mod.manifest import read_mod

    folder = os.path.abspath(folder)
    mod = read_mod(folder)
    entries = mod.profile.get("entries")
    if isinstance(entries, list) and entries:
        found = [
            str(entry) if str(entry).startswith("${") else os.path.join(folder, str(entry))
            for entry in entries
        ]
        if confined:
            from kclpy.mod.names import inside

            for entry in found:
                if not entry.startswith("${"):
                    inside(folder, entry, f"the entry file of package {mod.name}")
        return found
    return sorted(
        os.path.join(folder, name)
        for name in os.listdir(folder)
        if name.endswith(".k") and not name.endswith("_test.k")
    )


def run_inputs(files: list[str], tag: str = "") -> list[str]:
    """The files ``kcl run`` compiles for the inputs ``files`` (see the module doc)."""
    if not files:
        return module_entries(os.getcwd())
    if len(files) == 1 and is_package_source(files[0]):
        return module_entries(package_folder(files[0], tag), confined=True)
    return files


def module_root(files: list[str]) -> str:
    """The folder of the ``kcl.mod`` at or above the first entry's folder ('' if none)."""
    first = next((item for item in files if not item.startswith("${") and item != "-"), "")
    start = first if os.path.isdir(first) else os.path.dirname(first) or "."
    return nearest_holding(start, "kcl.mod") or ""


def package_folder(source: str, tag: str = "") -> str:
    """The folder of the package ``source`` (pulled or unpacked into the cache)."""
    if source.endswith((".tar", ".tgz")):
        return _unpacked(source)
    from kclpy.mod.operations import pull

    return pull(source, tag).path


def _unpacked(path: str) -> str:
    import hashlib
    import shutil

    from kclpy.diag import Code
    from kclpy.mod import archive, settings
    from kclpy.mod.errors import PackageError

    try:
        with open(path, "rb") as stream:
            digest = hashlib.file_digest(stream, "sha256").hexdigest()
    except OSError as error:
        raise PackageError(Code.IO_ERROR, f"cannot read {path}: {error.strerror}") from None
    home = settings.package_home()
    folder = os.path.join(home, ".kclpy", "archives", digest[:32])
    if not os.path.isdir(folder):
        staging = archive.staging_dir(home)
        try:
            archive.unpack(path, staging, os.path.basename(path))
            os.makedirs(os.path.dirname(folder), exist_ok=True)
            archive.install(staging, folder)
        finally:
            shutil.rmtree(staging, ignore_errors=True)
    return folder
