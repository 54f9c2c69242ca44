"""Run-time errors of KCL programs: the typed error of a failing run and its locations.

Raised without a position by whatever fails while a program runs or its output is
written (builtins, the interpreter, the path selector, the emitter); the VM fills
``location`` and ``stack`` as the error unwinds through its frames, and the driver
(``pipeline.driver.runtime_diagnostic``) turns the fields into a diagnostic.
"""

from __future__ import annotations

Location = tuple[str, int, int]
"""Where a runtime error happened: (file path, start, end), offsets in code points."""


class KclRuntimeError(Exception):
    """A runtime failure of a KCL program (reported as ``EvaluationError`` by default).

    Raised without a position; the interpreter fills ``location`` at the failing
    instruction and appends a ``stack`` entry in every frame it unwinds through.
    ``api.runtime_diagnostic`` turns the fields into a diagnostic.
    """

    def __init__(self, message: str, kind: str = "EvaluationError") -> None:
        super().__init__(message)
        self.message = message
        self.kind = kind  # the diagnostic kind name (diag.codes.code_for_kind)
        self.location: Location | None = None  # the failing expression (the primary label)
        self.stack: list[Location] = []  # the KCL call sites, innermost first
        self.related: list[tuple[Location | None, str]] = []  # secondary labels
        self.primary_label = ""  # the primary label's text ("" for none)
        self.check_message = ""  # a failed check's own message (runtime.catch gives it)

    def locate(self, where: Location) -> None:
        """Record ``where`` as the failing position (first time) or as a call site."""
        if self.location is None:
            self.location = where
        elif not self.stack or self.stack[-1] != where:
            self.stack.append(where)


class CheckFailure(KclRuntimeError):
    """A failing ``check:`` condition (reported with the instantiation site)."""

    def __init__(self, message: str, check_message: str) -> None:
        super().__init__(message)
        self.check_message = check_message

    def at_instance(self) -> KclRuntimeError:
        """The error of the instantiation: at the caller, this check as a second label."""
        error = KclRuntimeError(self.message)
        error.check_message = self.check_message
        error.related = [(self.location, self.message)]
        error.primary_label = "Instance check failed"
        return error
