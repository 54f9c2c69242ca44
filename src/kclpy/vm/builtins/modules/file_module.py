"""The ``file`` system module: reading and changing files from a KCL program.

Relative paths are resolved against the directory of the .k file that makes the
call. Every path is checked by the run's file-system policy (:mod:`kclpy.vm.fs_policy`):
as in the reference, it must stay inside the module root (``modpath()``: the kcl.mod
directory, or the entry file's directory), symlinks included: a path with a ``..``
component, an absolute path outside the root or a symlink out of it fails with
``path '../x' escapes module root '/root'``; ``--allow-fs-read``/``--allow-fs-write``
widen it, ``--no-fs`` closes it (``read_env`` too). Errors name the resolved path
and the system's reason as the reference does (``failed to access the file
'/home/x': No such file or directory (os error 2)``). Unlike the reference, only
regular files are read, copied or appended to: a FIFO, a socket or a device is
refused before it is read (it could block the run for ever, or never end), and a file
larger than the memory left under the run's limit is refused (E3R01) before it is read.

* ``read(filepath)``, ``exists(filepath)``, ``size(filepath)`` (bytes),
  ``abs(filepath)`` (canonical path; the file must exist);
* ``glob(pattern)``: matching paths, absolute, sorted; ``*`` and ``?`` stay within a
  path component and match dot files, ``[...]``/``[!...]`` classes, ``**`` as a whole
  component matches any depth (at the end of a pattern it matches directories only);
* ``modpath()``, ``workdir()`` (the ``work_dir`` setting, ``""`` when unset),
  ``current()`` (this .k file);
* ``write(filepath, content)``, ``append(filepath, content)`` (creates the file),
  ``mkdir(directory, exists=False)`` (with parents; an existing directory is fine,
  an existing file is an error unless ``exists``), ``delete(filepath)`` (files only),
  ``cp(src, dest)`` (files or whole directories), ``mv(src, dest)``: all return None;
* ``read_env(key)``: the environment variable, or Undefined.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Final

from kclpy.values import UNDEFINED, Value
from kclpy.values.errors import KclRuntimeError
from kclpy.vm.builtins.marks import Fail, needs_context, on_mismatch
from kclpy.vm.fs_policy import READ, WRITE, Access, replace_in

if TYPE_CHECKING:
    from kclpy.vm.builtins.context import BuiltinContext


# a path that is not a string (the adapter's check): the reference's words
_PATHS: Final = on_mismatch(Fail("expected a path string, got {kcl}"))


def _reason(error: OSError) -> str:
    if error.errno is None:
        return str(error)
    return f"{os.strerror(error.errno)} (os error {error.errno})"


def _access(ctx: BuiltinContext) -> Access:
    return Access(ctx.fs_policy, ctx.root, ctx.current_file)


def _resolve(ctx: BuiltinContext, path: str, mode: str = READ) -> str:
    """``path`` joined to the current file's folder, checked by the run's policy."""
    return _access(ctx).resolve(path, mode)


@needs_context
@_PATHS
def read(ctx: BuiltinContext, filepath: str) -> str:
    """The text of a file."""
    path = _resolve(ctx, filepath)
    try:
        return _access(ctx).read_bytes(path).decode("utf-8")
    except OSError as error:
        raise KclRuntimeError(f"failed to access the file '{path}': {_reason(error)}") from None
    except UnicodeDecodeError:
        raise KclRuntimeError(
            f"failed to access the file '{path}': stream did not contain valid UTF-8"
        ) from None


def _check_glob(pattern: str) -> None:
    """Raise the reference's error for a pattern its glob library rejects."""
    index = 0
    while index < len(pattern):
        char = pattern[index]
        if char == "[":
            close = pattern.find(
                "]", index + 2 if pattern[index + 1 : index + 2] != "!" else index + 3
            )
            if close < 0:
                _glob_error(index, "invalid range pattern")
            index = close + 1
            continue
        if char == "*":
            end = index
            while end < len(pattern) and pattern[end] == "*":
                end += 1
            count = end - index
            if count > 2:
                _glob_error(index + 2, "wildcards are either regular `*` or recursive `**`")
            if count == 2:
                if index > 0 and pattern[index - 1] != "/":
                    _glob_error(index - 1, "recursive wildcards must form a single path component")
                if end < len(pattern) and pattern[end] != "/":
                    _glob_error(end, "recursive wildcards must form a single path component")
            index = end
            continue
        index += 1


def _glob_error(position: int, message: str) -> None:
    raise KclRuntimeError(
        f"Failed to read glob pattern: Pattern syntax error near position {position}: {message}"
    )


@needs_context
@_PATHS
def glob(ctx: BuiltinContext, pattern: str) -> list[str]:
    """Paths matching ``pattern``, absolute and sorted."""
    import glob as glob_lib

    access = _access(ctx)
    access.resolve(pattern)
    full = access.joined(pattern)
    _check_glob(full)
    dirs_only = full.endswith("/**")
    found = glob_lib.glob(full, recursive=True, include_hidden=True)
    results: set[str] = set()
    base = full[: -len("**")] if dirs_only else ""
    for path in found:
        if not (access.inside(path) or access.inside(os.path.dirname(path.rstrip("/")) or "/")):
            continue  # found by going through a symlink to a folder outside the roots
        if dirs_only and (not os.path.isdir(path) or path.rstrip("/") == base.rstrip("/")):
            continue
        trimmed = path.rstrip("/") if len(path) > 1 else path
        results.add(trimmed or "/")
    return sorted(results, key=lambda item: item.split("/"))


@needs_context
@_PATHS
def exists(ctx: BuiltinContext, filepath: str) -> bool:
    return os.path.exists(_resolve(ctx, filepath))


@needs_context
@_PATHS
def size(ctx: BuiltinContext, filepath: str) -> int:
    path = _resolve(ctx, filepath)
    try:
        return os.stat(path).st_size
    except OSError as error:
        raise KclRuntimeError(f"failed to get size of '{path}': {_reason(error)}") from None


@needs_context
def modpath(ctx: BuiltinContext) -> str:
    return ctx.root


@needs_context
def workdir(ctx: BuiltinContext) -> str:
    return ctx.workdir


@needs_context
def current(ctx: BuiltinContext) -> str:
    return ctx.current_file


@needs_context
@_PATHS
def abs(ctx: BuiltinContext, filepath: str) -> str:
    path = _resolve(ctx, filepath)
    if not os.path.exists(path):
        raise KclRuntimeError(f"Could not get the absolute path of {path}")
    return os.path.realpath(path)


@needs_context
@_PATHS
def write(ctx: BuiltinContext, filepath: str, content: Value) -> None:
    path = _resolve(ctx, filepath, WRITE)
    try:
        _access(ctx).write_text(path, _content(content))
    except OSError as error:
        raise KclRuntimeError(f"Failed to create file '{path}': {_reason(error)}") from None


@needs_context
@_PATHS
def append(ctx: BuiltinContext, filepath: str, content: Value) -> None:
    path = _resolve(ctx, filepath, WRITE)
    try:
        _access(ctx).write_text(path, _content(content), append=True)
    except OSError as error:
        raise KclRuntimeError(f"Failed to open or create file '{path}': {_reason(error)}") from None


def _content(content: Value) -> str:
    from kclpy.vm.builtins.convert import to_str

    return content if isinstance(content, str) else to_str(content)


@needs_context
@_PATHS
def mkdir(ctx: BuiltinContext, directory: str, exists: Value = False) -> None:
    from kclpy.vm.builtins.convert import truthy

    path = _resolve(ctx, directory, WRITE)
    if truthy(exists) and os.path.exists(path):
        return
    try:
        _make_folders(_access(ctx), path)
    except OSError as error:
        raise KclRuntimeError(f"Failed to create directory '{path}': {_reason(error)}") from None


@needs_context
@_PATHS
def delete(ctx: BuiltinContext, filepath: str) -> None:
    path = _resolve(ctx, filepath, WRITE)
    try:
        with _access(ctx).parent(path, WRITE) as (folder, name):
            if os.path.isdir(path) and not os.path.islink(path):
                raise IsADirectoryError(21, os.strerror(21))
            os.unlink(name, dir_fd=folder)
    except OSError as error:
        raise KclRuntimeError(f"failed to delete '{path}': {_reason(error)}") from None


@needs_context
@_PATHS
def cp(ctx: BuiltinContext, src: str, dest: str) -> None:
    access = _access(ctx)
    source = _resolve(ctx, src)
    target = _resolve(ctx, dest, WRITE)
    try:
        _copy(access, source, target)
    except OSError as error:
        raise KclRuntimeError(
            f"Failed to copy from '{source}' to '{target}': {_reason(error)}"
        ) from None


@needs_context
@_PATHS
def mv(ctx: BuiltinContext, src: str, dest: str) -> None:
    access = _access(ctx)
    source = _resolve(ctx, src, WRITE)
    target = _resolve(ctx, dest, WRITE)
    try:
        with (
            access.parent(source, WRITE) as (old, old_name),
            access.parent(target, WRITE) as (new, new_name),
        ):
            os.rename(old_name, new_name, src_dir_fd=old, dst_dir_fd=new)
    except OSError as error:
        raise KclRuntimeError(
            f"Failed to move '{source}' to '{target}': {_reason(error)}"
        ) from None


def _make_folders(access: Access, path: str) -> None:
    """``mkdir -p`` below the root, each folder created or entered without following
    a symlink (an existing folder is fine, an existing file is an error)."""
    missing: list[str] = []
    folder = path
    while not os.path.isdir(folder) and os.path.dirname(folder) != folder:
        missing.append(folder)
        folder = os.path.dirname(folder)
    if not missing and not os.path.isdir(path):
        raise FileExistsError(17, os.strerror(17))
    for item in reversed(missing):
        with access.parent(item, WRITE) as (parent, name):
            os.mkdir(name, 0o777, dir_fd=parent)


def _copy(access: Access, source: str, target: str) -> None:
    """Copy a file or a folder tree; every file read and written through ``access``
    (a symlink in the tree is followed only when it stays inside the roots)."""
    if not os.path.isdir(source):
        data = access.read_bytes(source)
        with access.parent(target, WRITE) as (folder, name):
            replace_in(folder, name, data)
        return
    if not os.path.isdir(target):
        _make_folders(access, target)
    for entry in sorted(os.listdir(source)):
        inner = os.path.join(source, entry)
        real = os.path.realpath(inner)
        if not access.inside(real):
            raise access.escape(inner, access.policy.roots(access.module_root, READ))
        _copy(access, real, os.path.join(target, entry))


@needs_context
def read_env(ctx: BuiltinContext, key: Value) -> Value:
    """The environment variable ``key``, or Undefined when it is not set (``--no-fs``
    closes the host's environment too)."""
    _access(ctx).check_enabled(f"read the environment variable '{key}'")
    if type(key) is not str or not key:
        return UNDEFINED
    value = os.environ.get(key)
    return UNDEFINED if value is None else value


MEMBERS: Final[dict[str, object]] = {
    "read": read,
    "glob": glob,
    "exists": exists,
    "size": size,
    "modpath": modpath,
    "workdir": workdir,
    "current": current,
    "abs": abs,
    "write": write,
    "append": append,
    "mkdir": mkdir,
    "delete": delete,
    "cp": cp,
    "mv": mv,
    "read_env": read_env,
}
