"""Source text and positions: the lowest layer, shared by every stage.

Offsets are code-point indices into the text; lines and columns are 1-based code
points (only the language server converts to UTF-16).
"""

from __future__ import annotations

import os
import time
from bisect import bisect_right
from collections.abc import Callable

from kclpy.records import Record


class Pos(Record):
    """A 1-based line and column."""

    line: int
    col: int


class SourceFile:
    """The text of one file and the offsets where its lines start."""

    __slots__ = ("_line_starts", "path", "text")

    def __init__(self, path: str, text: str) -> None:
        self.path = path
        self.text = text
        self._line_starts: list[int] | None = None

    @property
    def line_starts(self) -> list[int]:
        starts = self._line_starts
        if starts is None:
            starts = [0]
            find = self.text.find
            index = find("\n")
            while index >= 0:
                starts.append(index + 1)
                index = find("\n", index + 1)
            self._line_starts = starts
        return starts

    def pos(self, offset: int) -> Pos:
        """The line and column of a code-point offset."""
        starts = self.line_starts
        line = bisect_right(starts, offset)
        return Pos(line, offset - starts[line - 1] + 1)

    def offset(self, line: int, col: int) -> int:
        """The offset of a 1-based line and column (clamped to the text)."""
        starts = self.line_starts
        if line < 1:
            return 0
        if line > len(starts):
            return len(self.text)
        return min(starts[line - 1] + col - 1, len(self.text))

    def line_text(self, line: int) -> str:
        """The text of a 1-based line without its line break."""
        starts = self.line_starts
        if line < 1 or line > len(starts):
            return ""
        start = starts[line - 1]
        end = starts[line] - 1 if line < len(starts) else len(self.text)
        return self.text[start:end].rstrip("\r")

    def __repr__(self) -> str:
        return f"SourceFile({self.path!r})"


class Span:
    """A range ``[start, end)`` of code points in one file."""

    __slots__ = ("end", "file", "start")

    def __init__(self, file: SourceFile, start: int, end: int) -> None:
        self.file = file
        self.start = start
        self.end = end

    @property
    def begin_pos(self) -> Pos:
        return self.file.pos(self.start)

    @property
    def end_pos(self) -> Pos:
        return self.file.pos(self.end)

    def to(self, other: Span) -> Span:
        """The span from the start of this one to the end of ``other``."""
        return Span(self.file, self.start, other.end)

    def __repr__(self) -> str:
        line, col = self.begin_pos
        return f"{self.file.path}:{line}:{col}"

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, Span)
            and self.file is other.file
            and self.start == other.start
            and self.end == other.end
        )

    def __hash__(self) -> int:
        return hash((id(self.file), self.start, self.end))


def nearest_holding(
    start: str, name: str, found: Callable[[str], bool] = os.path.isfile
) -> str | None:
    """The nearest folder at or above ``start`` holding ``name`` as ``found`` tells (a
    file, by default: ``kcl.mod``; ``os.path.lexists`` for ``.git``), or None."""
    current = os.path.abspath(start)
    while not found(os.path.join(current, name)):
        parent = os.path.dirname(current)
        if parent == current:
            return None
        current = parent
    return current


def read_source(path: str) -> tuple[SourceFile, str | None]:
    """Read a file as UTF-8; returns the file and an error message instead of raising.

    Invalid UTF-8 is decoded with replacement characters so that later stages can
    still report positions; the message says where the first bad byte is.
    """
    try:
        with open(path, "rb") as handle:
            data = handle.read()
    except OSError as error:
        return SourceFile(path, ""), f"cannot read {path}: {error.strerror or error}"
    return decode_source(path, data)


def decode_source(path: str, data: bytes) -> tuple[SourceFile, str | None]:
    """Decode bytes as UTF-8 (BOM allowed); bad bytes become U+FFFD and an error message."""
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    try:
        return SourceFile(path, data.decode("utf-8")), None
    except UnicodeDecodeError as error:
        text = data.decode("utf-8", errors="replace")
        return SourceFile(path, text), f"invalid UTF-8 byte at offset {error.start}"


def write_atomically(path: str, text: str) -> None:
    """Replace the content of ``path`` in one step, so a failure or a signal leaves the
    old content whole and no stray file behind.

    A symlink is followed: its target gets the new content. A regular file (or a new
    one) is replaced by a file written beside it (keeping the old permissions): on
    Linux an unnamed ``O_TMPFILE`` given a name only just before the rename, so even
    SIGKILL leaves nothing behind; elsewhere a ``.kclpy-*`` temporary file removed on
    any exception. A FIFO or a device is written into as a stream. A folder raises
    ``IsADirectoryError``; other problems raise ``OSError`` as ``open`` does.
    """
    import stat

    target = os.path.realpath(path)
    try:
        mode: int | None = os.stat(target).st_mode
    except FileNotFoundError:
        mode = None
    if mode is not None and stat.S_ISDIR(mode):
        raise IsADirectoryError(21, "Is a directory", path)
    if mode is not None and not stat.S_ISREG(mode):
        with open(target, "w", encoding="utf-8", newline="") as stream:
            stream.write(text)
        return
    permissions = mode & 0o7777 if mode is not None else 0o666 & ~_umask()
    _replace(target, text.encode("utf-8"), permissions)


def temporary_name(prefix: str = ".kclpy-") -> str:
    """A file name no other writer is using now (this process's id and a clock reading;
    the caller creates it with ``O_EXCL`` and asks again if it exists): what ``tempfile``
    or ``secrets`` would give, without importing them (and ``random``) on every run."""
    return f"{prefix}{os.getpid()}-{time.monotonic_ns()}"


def create_temporary(folder: str, prefix: str = ".kclpy-", suffix: str = "") -> tuple[int, str]:
    """A new empty file in ``folder`` under a :func:`temporary_name`, open for writing."""
    while True:
        path = os.path.join(folder, temporary_name(prefix) + suffix)
        try:
            return os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600), path
        except FileExistsError:
            continue


def _replace(target: str, data: bytes, permissions: int) -> None:
    folder = os.path.dirname(target)
    temporary: str | None = None
    try:
        handle = os.open(folder, os.O_TMPFILE | os.O_WRONLY, 0o600)
    except (AttributeError, OSError):  # not Linux, or a file system without O_TMPFILE
        handle, temporary = create_temporary(folder)
    try:
        with os.fdopen(handle, "wb", closefd=False) as stream:
            stream.write(data)
        os.fchmod(handle, permissions)
        if temporary is None:
            temporary = _name_anonymous(handle, folder)
        os.replace(temporary, target)
        temporary = None
    finally:
        os.close(handle)
        if temporary is not None and os.path.lexists(temporary):
            os.unlink(temporary)


def _name_anonymous(handle: int, folder: str) -> str:
    """Link an ``O_TMPFILE`` file into ``folder`` under a fresh ``.kclpy-*`` name."""
    # linkat(AT_SYMLINK_FOLLOW) through /proc/self/fd; os.link uses it only when given
    # a directory descriptor
    descriptors = os.open("/proc/self/fd", os.O_RDONLY | os.O_DIRECTORY)
    try:
        while True:
            name = os.path.join(folder, temporary_name())
            try:
                os.link(str(handle), name, src_dir_fd=descriptors, follow_symlinks=True)
            except FileExistsError:
                continue
            return name
    finally:
        os.close(descriptors)


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask
