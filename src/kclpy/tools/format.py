"""``kcl fmt``: KCL source pretty-printed from its syntax tree.

The layout follows the reference formatter (4-space indentation, one space around
binary operators and ``=``, ``{str:str}`` dict types, its blank lines between
statements (:mod:`kclpy.tools.format_printer`); multi-line lists and configs lose
their commas and put one item per line, single-line ones stay single-line; a lambda
body is always a block). Where the reference changes a program's meaning or loses
text, kclpy keeps the source (see docs/differences.md, "Formatter"):

* literals keep their spelling (``0x1F``, ``1_000``, ``2.0``, ``1e3``, string quotes
  and escapes): numbers, strings and names are copied from the source;
* comments stay where they were: a trailing comment stays on its line (also on list
  items and check lines), a comment at the end of a block stays in the block;
* blank lines inside configs and lists are kept (runs collapse to one).

Comments are put back by position (:mod:`kclpy.tools.format_printer`). Input with
syntax errors is refused (:class:`FormatError`).
"""

from __future__ import annotations

import difflib
import os

from kclpy.diag import Diagnostic
from kclpy.source import write_atomically
from kclpy.syntax import parse_source
from kclpy.tools.format_printer import Printer


class FormatError(Exception):
    """The source has syntax errors; ``diagnostics`` says which."""

    def __init__(self, diagnostics: list[Diagnostic]) -> None:
        super().__init__("; ".join(d.message for d in diagnostics))
        self.diagnostics = diagnostics


def format_code(text: str, *, filename: str = "<string>") -> str:
    """The formatted text of KCL source; raises FormatError on syntax errors."""
    text = text.replace("\r\n", "\n")
    module, diagnostics = parse_source(text, filename)
    errors = [d for d in diagnostics if d.is_error]
    if errors:
        raise FormatError(errors)
    if not text.replace("\\", "").strip():
        return ""  # (blank, or line continuations alone: nothing to print)
    return Printer(module).module()


def format_path(path: str, *, check: bool = False) -> list[str]:
    """Format a ``.k`` file, a folder's ``.k`` files, or ``folder/...`` recursively,
    rewriting changed files atomically (``check``: write nothing). Returns the paths
    that changed (or would change). Raises FormatError for a file with syntax errors
    and OSError (UnicodeDecodeError: ValueError) for unreadable paths; no file is
    written then (``kcl fmt`` instead formats the other files)."""
    files = kcl_files(path)
    changed: list[tuple[str, str]] = []
    for file in files:
        text = read_verbatim(file)
        formatted = format_code(text, filename=file)
        if formatted != text:
            changed.append((file, formatted))
    if not check:
        for file, formatted in changed:
            write_atomically(file, formatted)
    return [file for file, _ in changed]


def read_verbatim(path: str) -> str:
    """A file's text as it is (``\r\n`` kept, so that fmt sees it and changes it)."""
    with open(path, encoding="utf-8", newline="") as handle:
        return handle.read()


def kcl_files(path: str) -> list[str]:
    """The ``.k`` files a path names: itself, a folder's files, ``folder/...`` below."""
    recursive = path.endswith("...")
    if recursive:
        path = path[:-3].rstrip("/\\") or "."
    if os.path.isfile(path):
        return [path]
    if not os.path.isdir(path):
        raise FileNotFoundError(f"no such file or folder: {path}")
    if not recursive:
        return sorted(
            os.path.join(path, name)
            for name in os.listdir(path)
            if name.endswith(".k") and os.path.isfile(os.path.join(path, name))
        )
    found: list[str] = []
    for folder, dirs, names in os.walk(path):
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d != "vendor")
        found.extend(os.path.join(folder, name) for name in sorted(names) if name.endswith(".k"))
    return found


def unified_diff(path: str, before: str, after: str) -> str:
    lines = difflib.unified_diff(
        before.splitlines(keepends=True), after.splitlines(keepends=True), path, path
    )
    return "".join(lines)
