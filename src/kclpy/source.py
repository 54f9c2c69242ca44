"""Source text and positions: the lowest layer, shared by every stage.

Offsets are code-point indices into the text; lines and columns are 1-based code
points (only the language server converts to UTF-16).
"""

from __future__ import annotations

import os
from bisect import bisect_right
from typing import NamedTuple


class Pos(NamedTuple):
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
    """Replace ``path``'s content in one step: a temporary file beside it (keeping the
    old file's permissions) renamed over it, so a failure leaves the old file whole."""
    import tempfile

    folder = os.path.dirname(os.path.abspath(path))
    handle, temporary = tempfile.mkstemp(prefix=".kclpy-", dir=folder)
    try:
        with os.fdopen(handle, "w", encoding="utf-8", newline="") as stream:
            stream.write(text)
        try:
            os.chmod(temporary, os.stat(path).st_mode & 0o7777)
        except OSError:  # a new file: the default permissions
            os.chmod(temporary, 0o666 & ~_umask())
        os.replace(temporary, path)
    except BaseException:
        if os.path.exists(temporary):
            os.unlink(temporary)
        raise


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask
