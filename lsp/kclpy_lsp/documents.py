"""Documents as the protocol sees them: text, versions, lines and positions.

Owns the open buffers (``Documents``: URI -> ``Document`` with its text and
version, changed by whole or ranged edits) and the conversion between kclpy's
code-point offsets and LSP positions. LSP lines end at ``\\n``, ``\\r\\n`` or
``\\r`` only (not at U+2028, U+0085 or form feed as ``str.splitlines`` would
have it), and a position's character counts units of the negotiated encoding
(UTF-16 unless the client asked for ``utf-8`` or ``utf-32``). A character past
the end of its line is the line's end (as the protocol says); a line past the end
of the document is no position of it (``Lines.holds``: the server answers -32602),
and is clamped where a conversion meets one.

Also: ``path_of``/``uri_of`` between ``file:`` URIs and paths (percent-encoded
both ways; an ``untitled:`` buffer, which has no file, gets a path of its own under
``/untitled:/`` that no scan visits, so it is analysed alone), and ``read_text``,
which reads a file that is not open (None for a missing file, a folder, or bytes
that are not UTF-8 text).
"""

from __future__ import annotations

import hashlib
import os
import re
import threading
from bisect import bisect_right
from collections.abc import Sequence
from pathlib import Path
from urllib.parse import unquote, urlparse

from lsprotocol import types

_LINE_BREAK = re.compile(r"\r\n|\r|\n")


UNTITLED = os.path.join(os.sep, "untitled:")  # where untitled buffers are placed
_untitled: dict[str, str] = {}  # the path of an untitled buffer -> its URI


def path_of(uri: str) -> str:
    """The absolute file system path of a ``file:`` URI, a path of its own for an
    ``untitled:`` one (the URI itself otherwise)."""
    parsed = urlparse(uri)
    if parsed.scheme == "untitled":
        name = re.sub(r"[^\w.-]", "_", unquote(parsed.path))[:60] or "untitled"
        digest = hashlib.sha256(uri.encode("utf-8", "surrogatepass")).hexdigest()[:16]
        path = os.path.join(UNTITLED, digest, name.removesuffix(".k") + ".k")
        _untitled[path] = uri
        return path
    if parsed.scheme != "file":
        return uri
    return os.path.abspath(unquote(parsed.path))


def uri_of(path: str) -> str:
    """The ``file:`` URI of a path, percent-encoded (spaces, non-ASCII letters); the
    ``untitled:`` URI of an untitled buffer's path."""
    path = os.path.abspath(path)
    return _untitled.get(path) or Path(path).as_uri()


def read_text(path: str) -> str | None:
    """A file's text, or None when it is missing, a folder, or not UTF-8 text."""
    try:
        with open(path, "rb") as handle:
            data = handle.read()
    except OSError:
        return None
    if b"\0" in data:
        return None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return None
    return text.removeprefix("\ufeff")


class Lines:
    """Line starts of a text by the protocol's rules; conversions both ways."""

    def __init__(self, text: str, encoding: str = types.PositionEncodingKind.Utf16) -> None:
        self.text = text
        self.encoding = encoding
        self.starts = [0] + [match.end() for match in _LINE_BREAK.finditer(text)]

    @property
    def count(self) -> int:
        """The number of lines (the empty one after a final line break included)."""
        return len(self.starts)

    def holds(self, position: types.Position) -> bool:
        """Whether a position lies in the text: on one of its lines."""
        return position.line < self.count

    def line_end(self, line: int) -> int:
        """The offset where a line's text ends (before its line break)."""
        if line + 1 < len(self.starts):
            end = self.starts[line + 1] - 1
            if end > self.starts[line] and self.text[end] == "\n" and self.text[end - 1] == "\r":
                end -= 1
            return end
        return len(self.text)

    def line_text(self, line: int) -> str:
        line = max(0, min(line, len(self.starts) - 1))
        return self.text[self.starts[line] : self.line_end(line)]

    def position(self, offset: int) -> types.Position:
        """The LSP position of a code-point offset."""
        offset = max(0, min(offset, len(self.text)))
        line = bisect_right(self.starts, offset) - 1
        start = self.starts[line]
        offset = min(offset, self.line_end(line))
        return types.Position(line, self._units(self.text[start:offset]))

    def offset(self, position: types.Position) -> int:
        """The code-point offset of an LSP position (clamped into the text)."""
        if position.line >= len(self.starts):
            return len(self.text)
        start = self.starts[max(0, position.line)]
        end = self.line_end(max(0, position.line))
        wanted = position.character
        if self.encoding == types.PositionEncodingKind.Utf32:
            return min(start + wanted, end)
        counted = 0
        index = start
        while index < end and counted < wanted:
            counted += self._width(self.text[index])
            if counted > wanted:  # inside a character: stay before it
                break
            index += 1
        return index

    def range(self, start: int, end: int) -> types.Range:
        return types.Range(self.position(start), self.position(end))

    def _width(self, char: str) -> int:
        if self.encoding == types.PositionEncodingKind.Utf8:
            return len(char.encode("utf-8"))
        if self.encoding == types.PositionEncodingKind.Utf32:
            return 1
        return 2 if ord(char) > 0xFFFF else 1

    def _units(self, text: str) -> int:
        if self.encoding == types.PositionEncodingKind.Utf8:
            return len(text.encode("utf-8"))
        if self.encoding == types.PositionEncodingKind.Utf32:
            return len(text)
        return len(text) + sum(1 for char in text if ord(char) > 0xFFFF)


class Document:
    """One open buffer: its text and version."""

    def __init__(self, uri: str, text: str, version: int | None, encoding: str) -> None:
        self.uri = uri
        self.path = path_of(uri)
        self.version = version
        self.encoding = encoding
        self._lines = Lines(text, encoding)

    @property
    def text(self) -> str:
        return self._lines.text

    @property
    def lines(self) -> Lines:
        return self._lines

    def apply(self, change: types.TextDocumentContentChangeEvent) -> None:
        """Apply a whole-text or ranged change."""
        if isinstance(change, types.TextDocumentContentChangePartial):
            start = self._lines.offset(change.range.start)
            end = max(start, self._lines.offset(change.range.end))
            text = self.text[:start] + change.text + self.text[end:]
        else:
            text = change.text
        self._lines = Lines(text, self.encoding)


class Documents:
    """The open buffers by URI, and the text of any file (buffer or disk)."""

    def __init__(self) -> None:
        self.encoding: str = types.PositionEncodingKind.Utf16
        self.open: dict[str, Document] = {}
        self._lock = threading.Lock()  # the analysis thread reads while requests edit

    def did_open(self, uri: str, text: str, version: int) -> Document:
        document = Document(uri, text, version, self.encoding)
        with self._lock:
            self.open[uri] = document
        return document

    def did_change(
        self, uri: str, version: int, changes: Sequence[types.TextDocumentContentChangeEvent]
    ) -> Document | None:
        document = self.open.get(uri)
        if document is None:
            return None
        with self._lock:
            for change in changes:
                document.apply(change)
            document.version = version
        return document

    def did_close(self, uri: str) -> None:
        with self._lock:
            self.open.pop(uri, None)

    def get(self, uri: str) -> Document | None:
        """The open buffer, or the file read from disk (None when it cannot be read)."""
        document = self.open.get(uri)
        if document is not None:
            return document
        text = read_text(path_of(uri))
        if text is None:
            return None
        return Document(uri, text, None, self.encoding)

    def by_path(self, path: str) -> Document | None:
        """The open buffer of a path (whatever its URI's spelling), else the file."""
        return self.open_by_path(path) or self.get(uri_of(path))

    def open_by_path(self, path: str) -> Document | None:
        path = os.path.abspath(path)
        with self._lock:
            for document in self.open.values():
                if document.path == path:
                    return document
        return None

    def overlay(self) -> dict[str, str]:
        """Unsaved texts by absolute path, for the loader."""
        with self._lock:
            return {document.path: document.text for document in self.open.values()}
