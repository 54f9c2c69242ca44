"""Where packages live and which registry is the default, as the real ``kcl mod`` decides.

- The package cache: ``$KCL_PKG_PATH``, else ``~/.kcl/kpm``; a registry or git
  dependency is unpacked into ``<cache>/<name>_<version>``.
- The default registry and repository: ``KPM_REG`` / ``KPM_REPO``, else
  ``DefaultOciRegistry`` / ``DefaultOciRepo`` of ``<cache>/.kpm/config/kpm.json``,
  else ``ghcr.io`` / ``kcl-lang``.
- Credentials: ``<cache>/.kpm/config/config.json`` in Docker's format
  (``{"auths": {host: {"auth": base64("user:password")}}}``).
- Plain HTTP: for ``localhost`` / ``127.0.0.1`` / ``[::1]`` registries, or every
  registry when ``OCI_REG_PLAIN_HTTP=on``.
- ``--locked``: whether this process may change a ``kcl.mod.lock``
  (:func:`locked`, :func:`is_locked`): set by ``kcl run|build|mod --locked``.
- Which ``kcl.mod.lock`` files this process wrote (:func:`recording_lock_writes`),
  for the commands that say so (``kcl build``, ``kcl mod -v``).
- Read-only locks (:func:`read_only_locks`, :func:`locks_read_only`): a process that
  only reads a workspace (the language server) resolves without ever writing a
  ``kcl.mod.lock``; an out-of-date lock is left as it is, and is no error.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator

from kclpy.records import Record

DEFAULT_REGISTRY = "ghcr.io"
DEFAULT_REPOSITORY = "kcl-lang"
_LOCAL_HOSTS = ("localhost", "127.0.0.1", "[::1]", "::1")


def package_home() -> str:
    """The package cache folder (not created)."""
    configured = os.environ.get("KCL_PKG_PATH", "").split(os.pathsep)[0]
    if configured:
        return os.path.abspath(configured)
    return os.path.join(os.path.expanduser("~"), ".kcl", "kpm")


def config_dir() -> str:
    return os.path.join(package_home(), ".kpm", "config")


def credentials_file() -> str:
    return os.path.join(config_dir(), "config.json")


class Settings(Record):
    registry: str
    repository: str


def is_plain_http(host: str) -> bool:
    if os.environ.get("OCI_REG_PLAIN_HTTP", "").lower() in ("on", "true", "1"):
        return True
    name = host.rsplit(":", 1)[0] if not host.startswith("[") else host.split("]")[0] + "]"
    return name in _LOCAL_HOSTS


def load_settings() -> Settings:
    """The default registry and repository (environment, then kpm.json, then defaults)."""
    config: dict[str, object] = {}
    try:
        with open(os.path.join(config_dir(), "kpm.json"), encoding="utf-8") as stream:
            import json  # (only with a kpm.json: ~1 ms of every run's start-up otherwise)

            loaded = json.load(stream)
        if isinstance(loaded, dict):
            config = loaded
    except (OSError, ValueError):
        pass
    registry = os.environ.get("KPM_REG") or str(config.get("DefaultOciRegistry") or "")
    repository = os.environ.get("KPM_REPO") or str(config.get("DefaultOciRepo") or "")
    return Settings(registry or DEFAULT_REGISTRY, repository or DEFAULT_REPOSITORY)


_lock_frozen = [False]  # --locked in force in this process


def is_locked() -> bool:
    """Whether ``kcl.mod.lock`` files must stay as they are (``--locked``)."""
    return _lock_frozen[0]


_lock_read_only = [False]  # this process never writes a kcl.mod.lock


def read_only_locks() -> None:
    """From now on this process writes no ``kcl.mod.lock`` (and refuses nothing)."""
    _lock_read_only[0] = True


def locks_read_only() -> bool:
    return _lock_read_only[0]


@contextlib.contextmanager
def locked(frozen: bool = True) -> Iterator[None]:
    """Within the block, a change to any ``kcl.mod.lock`` is an error when ``frozen``."""
    previous = _lock_frozen[0]
    _lock_frozen[0] = frozen
    try:
        yield
    finally:
        _lock_frozen[0] = previous


_recorders: list[list[str]] = []  # the open recording_lock_writes blocks of this process


@contextlib.contextmanager
def recording_lock_writes() -> Iterator[list[str]]:
    """Within the block, the list receives the path of each ``kcl.mod.lock`` written."""
    written: list[str] = []
    _recorders.append(written)
    try:
        yield written
    finally:
        _recorders.remove(written)


def lock_written(path: str) -> None:
    """Tell the open recorders that ``path`` (a ``kcl.mod.lock``) was written."""
    for written in _recorders:
        written.append(path)
