"""Waiting for the analysis a request needs, with ``window/workDoneProgress`` shown.

``whole_workspace(token)`` returns once every program of the workspace is analysed
(references, rename and workspace symbols need all of them: an answer from part of
the workspace would be silently partial); ``first_analysis(path)`` once some
analysis holds a file (completion and signature help right after opening a file).
While they wait, the client sees a progress bar: on the request's own
``workDoneToken`` when it sent one, else on a token the server creates
(``window/workDoneProgress/create``) when the client supports it. A wait is
bounded: after ``WHOLE_WAIT`` seconds the request fails with -32803 (RequestFailed)
and says why, rather than answering with part of the workspace.
"""

from __future__ import annotations

import asyncio
import itertools
from types import TracebackType

from lsprotocol import types
from pygls.exceptions import JsonRpcException

from kclpy_lsp.app import server, workspace
from kclpy_lsp.workspace import Analysis

WHOLE_WAIT = 120.0  # seconds a request waits for the whole workspace at most
FIRST_WAIT = 10.0  # seconds completion waits for the first analysis of its file
CREATE_WAIT = 5.0  # seconds the client gets to accept a progress token
_tokens = itertools.count(1)


class RequestFailed(JsonRpcException):
    """LSP's RequestFailed: the workspace could not be analysed in time."""

    CODE = -32803


class Progress:
    """A progress bar for one wait, begun on entry and ended on exit."""

    def __init__(self, title: str, token: types.ProgressToken | None = None) -> None:
        self.title = title
        self.token = token
        self.shown: tuple[int, int] | None = None

    async def __aenter__(self) -> Progress:
        if self.token is None and _client_shows_progress():
            token = f"kclpy-analysis-{next(_tokens)}"
            try:
                await asyncio.wait_for(server.work_done_progress.create_async(token), CREATE_WAIT)
                self.token = token
            except (TimeoutError, JsonRpcException):
                self.token = None
        if self.token is not None:
            begin = types.WorkDoneProgressBegin(self.title, percentage=0, cancellable=False)
            server.work_done_progress.begin(self.token, begin)
        return self

    def report(self, done: int, total: int) -> None:
        if self.token is None or (done, total) == self.shown:
            return
        self.shown = (done, total)
        percentage = min(100, done * 100 // max(total, 1))
        message = f"{done} of {total} programs"
        server.work_done_progress.report(
            self.token, types.WorkDoneProgressReport(message=message, percentage=percentage)
        )

    async def __aexit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        if self.token is not None:
            server.work_done_progress.end(self.token, types.WorkDoneProgressEnd())
            server.work_done_progress.tokens.pop(self.token, None)


def _client_shows_progress() -> bool:
    window = server.client_capabilities.window
    return bool(window is not None and window.work_done_progress)


async def whole_workspace(token: types.ProgressToken | None = None) -> None:
    """Return once every program of the workspace is analysed (progress meanwhile);
    -32803 after ``WHOLE_WAIT`` seconds."""
    if workspace.pending() is None:
        return
    async with Progress("Analysing the KCL workspace", token) as progress:
        if not await workspace.complete(progress.report, WHOLE_WAIT):
            raise RequestFailed(
                f"the workspace is still being analysed after {WHOLE_WAIT:.0f} s; "
                "ask again when the progress bar is gone"
            )


async def first_analysis(path: str) -> Analysis | None:
    """The latest analysis holding ``path``; right after a file opens (no analysis
    yet) the one that saw its text, waited for with progress shown."""
    analysis = workspace.latest(path)
    if analysis is not None:
        return analysis
    async with Progress("Analysing the KCL program"):
        return await workspace.fresh(path, FIRST_WAIT)
