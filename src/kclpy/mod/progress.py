"""What the user sees while a package is fetched: a progress bar or two plain lines.

The resolver (:mod:`kclpy.mod.resolution`) starts a :class:`Fetch` for each package it
downloads through :func:`current`, the :class:`Reporter` in force in this process;
the registry client tells it the archive's size and each chunk received. The command
line installs a reporter on standard error for the run of a command
(:func:`reporting`), none under ``-q``; a library caller, the language server
included, hears nothing unless it installs one.

On a terminal the fetch is a ``tqdm`` bar; elsewhere (a log, CI) it is
``fetching k8s 1.31.2 from ghcr.io/kcl-lang/k8s ...`` when it starts and
``... done in 2.1 s, 3.4 MB`` (or ``... failed after 10.0 s``) when it ends.
"""

from __future__ import annotations

import contextlib
import sys
import time
from collections.abc import Iterator

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import IO, Any


def size_text(count: int) -> str:
    """``3400000`` -> ``3.4 MB`` (decimal units, as download sizes are given)."""
    if count < 1000:
        return f"{count} B"
    units = ("kB", "MB", "GB")
    amount, index = count / 1000, 0
    while amount >= 1000 and index < len(units) - 1:
        amount, index = amount / 1000, index + 1
    return f"{amount:.1f} {units[index]}"


class Fetch:
    """One download: hears its size and progress, then how it ended."""

    def __init__(self, reporter: Reporter, label: str) -> None:
        self.reporter = reporter
        self.label = label
        self.started = time.monotonic()
        self.received = 0
        self.total: int | None = None
        self._bar: Any = None
        if reporter.stream() is not None:
            self._begin()

    def _begin(self) -> None:
        stream = self.reporter.stream()
        if stream is None:
            return
        if self.reporter.is_terminal(stream):
            from tqdm import tqdm

            self._bar = tqdm(
                desc=f"fetching {self.label}", total=None, unit="B", unit_scale=True,
                unit_divisor=1000, file=stream, leave=True, dynamic_ncols=True,
            )  # fmt: skip
        else:
            stream.write(f"fetching {self.label} ...\n")
            stream.flush()

    def expect(self, total: int) -> None:
        """The number of bytes the download will bring."""
        self.total = total
        if self._bar is not None:
            self._bar.total = total
            self._bar.refresh()

    def advance(self, count: int) -> None:
        """``count`` more bytes arrived."""
        self.received += count
        if self._bar is not None:
            self._bar.update(count)

    def finish(self, size: int | None = None) -> None:
        """The download ended well; ``size``: the bytes it brought, when not counted."""
        if size is not None and not self.received:
            self.received = size
        seconds = time.monotonic() - self.started
        if self._bar is not None:
            self._bar.close()
            self._bar = None
            return
        self._line(f"... done in {seconds:.1f} s, {size_text(self.received)}")

    def fail(self) -> None:
        """The download failed (the error is reported by whoever catches it)."""
        seconds = time.monotonic() - self.started
        if self._bar is not None:
            self._bar.leave = False
            self._bar.close()
            self._bar = None
            self._line(f"fetching {self.label} failed after {seconds:.1f} s")
            return
        self._line(f"... failed after {seconds:.1f} s")

    def _line(self, text: str) -> None:
        stream = self.reporter.stream()
        if stream is not None:
            stream.write(text + "\n")
            stream.flush()


class Reporter:
    """Where fetches are shown: standard error as it is when written to (``None``:
    nowhere); ``terminal`` forces or forbids the bar (None: when the stream is one)."""

    def __init__(self, enabled: bool = True, terminal: bool | None = None) -> None:
        self.enabled = enabled
        self.terminal = terminal

    def stream(self) -> IO[str] | None:
        return sys.stderr if self.enabled else None

    def is_terminal(self, stream: IO[str]) -> bool:
        if self.terminal is not None:
            return self.terminal
        isatty = getattr(stream, "isatty", None)
        try:
            return bool(isatty and isatty())
        except ValueError:  # a closed stream
            return False

    def start(self, label: str) -> Fetch:
        """A fetch of ``label`` (``NAME VERSION from SOURCE``) begins."""
        return Fetch(self, label)


SILENT = Reporter(enabled=False)
_current = [SILENT]


def current() -> Reporter:
    """The reporter in force (silent unless a caller installed one)."""
    return _current[0]


@contextlib.contextmanager
def reporting(reporter: Reporter) -> Iterator[Reporter]:
    """Within the block, fetches are shown by ``reporter`` (in every thread)."""
    previous = _current[0]
    _current[0] = reporter
    try:
        yield reporter
    finally:
        _current[0] = previous
