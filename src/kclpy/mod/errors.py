"""The one error type of package management, and its conversion to a diagnostic.

Every failure of ``kclpy.mod`` (a bad ``kcl.mod``, a missing package or version, an
unreachable registry, an authentication failure, a corrupt archive, a checksum
mismatch, a git failure) is raised as :class:`PackageError` carrying a code of
:mod:`kclpy.diag.codes` and the dependency it concerns; callers turn it into a
:class:`~kclpy.diag.Diagnostic` with :meth:`PackageError.diagnostic`.
"""

from __future__ import annotations

from kclpy.diag import Code, Diagnostic, make_error
from kclpy.source import Span


class PackageError(Exception):
    """A package-management failure: ``code``, a message naming the dependency, notes."""

    def __init__(
        self, code: Code, message: str, *notes: str, dependency: str = "", span: Span | None = None
    ) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.notes = list(notes)
        self.dependency = dependency
        self.span = span

    def diagnostic(self) -> Diagnostic:
        return make_error(self.code, self.message, self.span, *self.notes)
