"""Diagnostics: the one way every stage reports a problem to the user.

Stages collect :class:`Diagnostic` objects and return them; only the driver decides
to stop, and only :mod:`kclpy.diag.render` turns them into text.
"""

from kclpy.diag.codes import Code
from kclpy.diag.diagnostic import Diagnostic, Label, Severity, Suggestion, make_error

__all__ = ["Code", "Diagnostic", "Label", "Severity", "Suggestion", "make_error"]
