"""The file-system policy of a run: where KCL builtins may read and write, and how.

Every builtin that touches a file (``file.*``, ``json``/``yaml`` ``dump_to_file``,
``crypto.filesha*``) goes through this module; ``file.read_env`` asks it whether the
host may be read at all. It takes a path as the KCL program wrote it, the run's
:class:`FsPolicy` and the module root, and returns checked real paths and opened
files; a refusal is a :class:`KclRuntimeError` naming the path and the root(s).

* A path is joined to the running file's folder, then resolved with its real path
  (every symlink followed) and must lie inside an allowed root: the module root, as
  in the reference, plus ``--allow-fs-read`` folders for reading and
  ``--allow-fs-write`` folders for reading and writing. ``--no-fs`` closes it all.
  As in the reference, a path with a ``..`` component is always refused.
* Race-safe opening: between the check and the use, a folder on the way could be
  swapped for a symlink. Files are therefore opened by walking from the root's
  descriptor one component at a time with ``O_NOFOLLOW`` (the checked real path has
  no symlink left in it, so any symlink met on the way is a swap and fails).
* Regular files only: a FIFO, a socket or a device could block the run for ever
  (a FIFO without a writer) or never end (``/dev/zero``), out of reach of
  ``--timeout`` (a blocked system call cannot be interrupted). Files are opened with
  ``O_NONBLOCK`` and their type checked on the open descriptor before any read or
  write; anything but a regular file (or a folder, whose reading fails as in the
  reference) is refused. A file is read in bounded steps: one larger than the memory
  left under the run's limit is refused before it is read (``kclpy.vm.limits``).
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator, Sequence
from contextlib import contextmanager, suppress

from kclpy.records import Record
from kclpy.source import temporary_name
from kclpy.values.errors import KclRuntimeError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Final

READ: Final = "read"
WRITE: Final = "write"
_DIRECTORY: Final = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0)
_NOFOLLOW: Final = getattr(os, "O_NOFOLLOW", 0)
_CLOEXEC: Final = getattr(os, "O_CLOEXEC", 0)
_NONBLOCK: Final = getattr(os, "O_NONBLOCK", 0)
_STEP: Final = 1 << 20


class FsPolicy(Record):
    """Which folders a run may read and write besides its module root."""

    read_roots: tuple[str, ...] = ()
    write_roots: tuple[str, ...] = ()
    disabled: bool = False

    @classmethod
    def from_options(
        cls, allow_read: Sequence[str] = (), allow_write: Sequence[str] = (), no_fs: bool = False
    ) -> FsPolicy:
        """A policy from the CLI / API options (folders made absolute and real)."""
        return cls(
            tuple(os.path.realpath(path) for path in allow_read),
            tuple(os.path.realpath(path) for path in allow_write),
            no_fs,
        )

    def roots(self, module_root: str, mode: str) -> tuple[str, ...]:
        """The real folders ``mode`` may reach: the module root first."""
        extra = self.write_roots if mode == WRITE else self.read_roots + self.write_roots
        first = (os.path.realpath(module_root),) if module_root else ()
        return first + extra


DEFAULT_POLICY: Final = FsPolicy()


class Access:
    """One builtin's view of the policy: the module root and the running file."""

    def __init__(self, policy: FsPolicy, module_root: str, current_file: str) -> None:
        self.policy = policy
        self.module_root = module_root
        self.current_file = current_file

    def check_enabled(self, what: str) -> None:
        if self.policy.disabled:
            raise KclRuntimeError(f"file system access is disabled (--no-fs): cannot {what}")

    def joined(self, text: str) -> str:
        """``text`` joined to the running file's folder (not yet checked); a final
        ``/`` (or an empty ``text``: the folder itself) is kept."""
        base = self.current_file and os.path.dirname(self.current_file)
        path = os.path.normpath(os.path.join(base or self.module_root or os.getcwd(), text))
        return path + "/" if (not text or text.endswith("/")) and path != "/" else path

    def resolve(self, text: str, mode: str = READ) -> str:
        """The real path of ``text``, checked against the roots of ``mode``."""
        self.check_enabled(f"{mode} '{text}'")
        roots = self.policy.roots(self.module_root, mode)
        if ".." in text.replace("\\", "/").split("/"):
            raise self.escape(text, roots)
        path = self.joined(text)
        if not roots:
            return path
        if (
            os.path.isabs(text)
            and root_of(path.rstrip("/"), roots + self._textual_roots(mode)) is None
        ):
            raise self.escape(text, roots)
        real = os.path.realpath(path)
        if root_of(real, roots) is None:
            raise self.escape(text, roots)
        return real + "/" if path.endswith("/") and real != "/" else real

    def _textual_roots(self, mode: str) -> tuple[str, ...]:
        """The roots as written (an absolute path may name the root through a symlink)."""
        extra = self.policy.write_roots if mode == WRITE else ()
        return ((os.path.abspath(self.module_root),) if self.module_root else ()) + extra

    def escape(self, text: str, roots: tuple[str, ...]) -> KclRuntimeError:
        if len(roots) <= 1:
            root = self.module_root or (roots[0] if roots else "")
            return KclRuntimeError(f"path '{text}' escapes module root '{root}'")
        listed = ", ".join(f"'{root}'" for root in roots)
        return KclRuntimeError(f"path '{text}' escapes the allowed roots {listed}")

    def inside(self, path: str, mode: str = READ) -> bool:
        """Whether the real path of ``path`` lies inside a root of ``mode``."""
        roots = self.policy.roots(self.module_root, mode)
        return not roots or root_of(os.path.realpath(path), roots) is not None

    # ------------------------------------------------------------------ safe opening

    @contextmanager
    def parent(self, real: str, mode: str = READ) -> Iterator[tuple[int, str]]:
        """``(descriptor of the parent folder, last name)`` of a checked real path,
        reached from the root without following any symlink."""
        roots = self.policy.roots(self.module_root, mode)
        real = real.rstrip("/") or "/"
        root = root_of(real, roots) if roots else None
        folder, name = os.path.split(real)
        if root is None or real == root:
            descriptor = os.open(folder or "/", _DIRECTORY | _CLOEXEC)
        else:
            descriptor = os.open(root, _DIRECTORY | _CLOEXEC)
            relative = os.path.relpath(folder, root)
            for part in [] if relative == "." else relative.split(os.sep):
                try:
                    step = os.open(part, _DIRECTORY | _NOFOLLOW | _CLOEXEC, dir_fd=descriptor)
                finally:
                    os.close(descriptor)
                descriptor = step
        try:
            yield descriptor, name or "."
        finally:
            os.close(descriptor)

    def open(self, real: str, flags: int, mode: str = READ, permissions: int = 0o666) -> int:
        """A descriptor of the checked real path ``real``, opened without following
        a symlink anywhere on the way; a FIFO, socket or device is refused (before it
        is opened where it can be seen, else on the open descriptor)."""
        with self.parent(real, mode) as (folder, name):
            with suppress(FileNotFoundError):  # (created by the open, or reported by it)
                _refuse_special(real, os.stat(name, dir_fd=folder, follow_symlinks=False))
            flags |= _NOFOLLOW | _CLOEXEC | _NONBLOCK
            descriptor = os.open(name, flags, permissions, dir_fd=folder)
        try:
            _refuse_special(real, os.fstat(descriptor))
        except BaseException:
            os.close(descriptor)
            raise
        return descriptor

    def read_bytes(self, real: str) -> bytes:
        """The content of a regular file, refused when it would not fit in the memory
        left under the run's limit."""
        from kclpy.vm.limits import check_allocation

        descriptor = self.open(real, os.O_RDONLY)
        with os.fdopen(descriptor, "rb", buffering=0) as handle:
            size = os.fstat(descriptor).st_size
            check_allocation(size, 2)  # the bytes, then their text
            chunks = [handle.read(size)] if size else []
            total = len(chunks[0]) if chunks else 0
            while chunk := handle.read(_STEP):  # grown since, or sized 0 (/proc, /sys)
                total += len(chunk)
                check_allocation(total, 2)
                chunks.append(chunk)
            return b"".join(chunks)

    def write_text(self, real: str, text: str, append: bool = False) -> None:
        """Write (or append) ``text``; a write replaces the file in one step."""
        if append:
            flags = os.O_WRONLY | os.O_CREAT | os.O_APPEND
            with os.fdopen(self.open(real, flags, WRITE), "a", encoding="utf-8") as handle:
                handle.write(text)
            return
        with self.parent(real, WRITE) as (folder, name):
            replace_in(folder, name, text.encode("utf-8"))


_KINDS: Final = (
    (stat.S_ISFIFO, "a FIFO (named pipe)"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)


def _refuse_special(real: str, status: os.stat_result) -> None:
    """Refuse a FIFO, a device or a socket: reading it could block or never end."""
    for test, kind in _KINDS:
        if test(status.st_mode):
            raise KclRuntimeError(
                f"cannot use '{real}': it is {kind}, not a regular file "
                f"(file builtins read and write regular files only)"
            )


def replace_in(folder: int, name: str, data: bytes) -> None:
    """Write ``data`` to a temporary file in ``folder`` and rename it over ``name``."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW | _CLOEXEC
    try:
        permissions = os.stat(name, dir_fd=folder, follow_symlinks=False).st_mode & 0o7777
    except OSError:
        permissions = 0o666
    while True:
        temporary = temporary_name()
        try:
            descriptor = os.open(temporary, flags, permissions, dir_fd=folder)
            break
        except FileExistsError:
            continue
    try:
        with os.fdopen(descriptor, "wb") as handle:
            handle.write(data)
        os.replace(temporary, name, src_dir_fd=folder, dst_dir_fd=folder)
    except BaseException:
        with suppress(OSError):
            os.unlink(temporary, dir_fd=folder)
        raise


def root_of(path: str, roots: tuple[str, ...]) -> str | None:
    """The first of ``roots`` that contains ``path`` (or is it), else None."""
    for root in roots:
        if path == root or path.startswith(root.rstrip(os.sep) + os.sep):
            return root
    return None
