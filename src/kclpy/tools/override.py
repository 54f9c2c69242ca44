"""Overrides (``kcl run -O``, ``kcl run -d -O`` and the API's ``override_file``).

The spec grammar and values are in :mod:`kclpy.tools.override_spec`. A spec changes
the main package's syntax trees as the reference does:

* ``a = v`` / ``a : v`` / ``a += v`` changes every top-level statement binding ``a``
  (``=`` replaces the value; ``:`` with a config merges it entry by entry, with a
  schema of the same name merges its config, with anything else replaces; ``+=``
  with a list extends a list); when none changes, a statement is appended;
* ``a.b.c op v`` changes the config (or schema) value of the first statement binding
  ``a``: every entry ``b`` of it, and in each the entries ``c`` (an entry kept with
  its own operator, the value changed as above), or adds ``b: {c op v}`` where no
  entry matched; a missing ``a`` is appended as ``a = {b: {c op v}}``;
* ``a-`` deletes the statements binding ``a``, ``a.b-`` the entries at that path in
  the first statement where there are some.

Dotted entries (``a.b.c = 1``) are read as the nested ``a: {b: {c = 1}}`` they stand
for, and written so in a file that an override changes.

``apply_overrides(program, specs)`` rewrites the ASTs before type checking (new nodes
get the span of what they replace, so errors point into the program).
``override_source`` / ``override_file`` apply specs to a file's text: every spec is
one pass of text edits (new values laid out as the reference lays them out, see
:mod:`kclpy.tools.override_layout`), the result must parse (else nothing is written
and the spec is named in an error) and is then formatted as ``kcl fmt`` formats, as
the reference rewrites the file. A file with syntax errors is left alone and its
errors are the answer.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import attrs

from kclpy.diag import Code, Diagnostic, make_error
from kclpy.loader import MAIN, Program
from kclpy.source import read_source, write_atomically
from kclpy.syntax import ast, parse_source
from kclpy.tools.override_edits import Edits, normalize, stmt_binds
from kclpy.tools.override_rewrite import Rewriter
from kclpy.tools.override_spec import (
    OP_DELETE,
    OverrideError,
    OverrideSpec,
    parse_override_spec,
    value_source,
)

__all__ = [
    "OP_DELETE",
    "OverrideError",
    "OverrideResult",
    "OverrideSpec",
    "apply_overrides",
    "override_edit",
    "override_file",
    "override_files",
    "override_source",
    "parse_override_spec",
]


@attrs.frozen
class OverrideResult:
    """What ``override_file`` did: ``result`` (whether the file changed; also the
    truth value), the file's ``parse_errors`` (then it is left alone) and warnings."""

    result: bool
    parse_errors: list[Diagnostic] = attrs.field(factory=list)
    warnings: list[Diagnostic] = attrs.field(factory=list)

    def __bool__(self) -> bool:
        return self.result


@attrs.frozen
class _Prepared:
    spec: OverrideSpec
    value: str  # the value's KCL source ("" for a delete)


def _prepare(specs: list[str]) -> tuple[list[_Prepared], list[Diagnostic]]:
    """Read every spec and its value; raises OverrideError for the first bad one."""
    prepared: list[_Prepared] = []
    warnings: list[Diagnostic] = []
    for text in specs:
        spec = parse_override_spec(text)
        value = ""
        if not spec.is_delete:
            value, notes = value_source(spec)
            warnings.extend(notes)
        prepared.append(_Prepared(spec, value))
    return prepared, warnings


# --------------------------------------------------------------------------- programs


def override_edit(specs: Sequence[str]) -> Callable[[Program], list[Diagnostic]]:
    """The ``-O`` specs as the pipeline's edit of a loaded program
    (``kclpy.pipeline.driver.Inputs.edit``): :func:`apply_overrides` before checking."""
    listed = list(specs)
    return lambda program: apply_overrides(program, listed)


def apply_overrides(program: Program, specs: list[str]) -> list[Diagnostic]:
    """Rewrite the main package's ASTs with ``-O`` specs; returns the spec errors."""
    diagnostics: list[Diagnostic] = []
    modules = program.packages.get(MAIN, [])
    if not modules:
        return diagnostics
    for module in modules:
        normalize(module, None)
    for text in specs:
        try:
            [item], _ = _prepare([text])
        except OverrideError as error:
            diagnostics.extend(error.diagnostics)
            continue
        Rewriter(modules, item.spec, item.value, None).run()
    return diagnostics


# --------------------------------------------------------------------------- file text


def override_source(
    text: str, specs: list[str], path: str = "<string>", import_paths: list[str] | None = None
) -> tuple[str, OverrideResult]:
    """Apply specs to one file's text: the new text and what was done. The
    ``import_paths`` (``pkg.mod`` or ``pkg.mod as m``) are added as imports where
    missing, as the reference adds them, when a spec changes the file.

    Raises OverrideError for a bad spec or value, or when a spec would leave text
    that does not parse. A text with syntax errors is returned unchanged, with
    them as ``parse_errors``.
    """
    prepared, warnings = _prepare(specs)
    _, diagnostics = parse_source(text, path)
    errors = [d for d in diagnostics if d.is_error]
    if errors:
        return text, OverrideResult(False, errors, warnings)
    original = text
    changed = False
    if import_paths:
        paths = list(import_paths)
        text, _ = _pass(text, path, None, lambda module, edits: _add_imports(module, edits, paths))
    for item in prepared:
        text, _ = _pass(text, path, item.spec, normalize)

        def rewrite(module: ast.Module, edits: Edits, item: _Prepared = item) -> bool:
            return Rewriter([module], item.spec, item.value, edits).run()

        text, did = _pass(text, path, item.spec, rewrite)
        changed = changed or did
    if not changed:
        return original, OverrideResult(False, [], warnings)
    from kclpy.tools.format import format_code

    return format_code(text, filename=path), OverrideResult(True, [], warnings)


def _pass(
    text: str,
    path: str,
    spec: OverrideSpec | None,
    change: Callable[[ast.Module, Edits], bool],
) -> tuple[str, bool]:
    """One round of edits: parse ``text``, let ``change`` edit it, check that the new
    text parses. Raises OverrideError (naming ``spec``) when it does not."""
    module, _ = parse_source(text, path)
    edits = Edits(module)
    did = change(module, edits)
    if not edits.items:
        return text, did
    new = edits.apply()
    _, diagnostics = parse_source(new, path)
    errors = [d for d in diagnostics if d.is_error]
    if errors:
        line, col = errors[0].span.begin_pos if errors[0].span else (0, 0)
        what = f"the override '{spec.text}'" if spec else "the imports"
        message = (
            f"{what} would leave {path} unparsable ({errors[0].message} at line {line}, "
            f"column {col} of the new text); the file is left as it was"
        )
        raise OverrideError([make_error(Code.INVALID_SYNTAX, message, None)])
    return new, did


def _add_imports(module: ast.Module, edits: Edits, import_paths: list[str]) -> bool:
    """Add ``import path`` statements that are missing, each at the index it has in
    ``import_paths`` among the statements, as the reference does."""
    present = set()
    for stmt in module.body:
        if isinstance(stmt, ast.ImportStmt):
            present.add(f"{stmt.path} as {stmt.alias}" if stmt.alias else stmt.path)
    order: list[ast.Stmt | str] = list(module.body)
    for index, path in enumerate(import_paths):
        if path not in present:
            order.insert(index, path)
    added = False
    previous: ast.Stmt | None = None
    for position, item in enumerate(order):
        if not isinstance(item, str):
            previous = item
            continue
        if previous is not None:
            edits.insert_statement_after(previous, f"import {item}")
        else:
            following = next((s for s in order[position:] if not isinstance(s, str)), None)
            edits.insert_statement_before(following, f"import {item}")
        added = True
    return added


def override_file(
    path: str, specs: list[str], import_paths: list[str] | None = None
) -> OverrideResult:
    """Apply specs to a file on disk (written atomically when it changes).

    Raises OverrideError for a bad spec or value, an unreadable file, or a change
    that would not parse (then nothing is written). A file with syntax errors is
    left alone: its errors are the result's ``parse_errors``.
    """
    text = _read(path)
    new, result = override_source(text, specs, path, import_paths)
    if result.result and new != text:
        write_atomically(path, new)
    return result


def override_files(paths: list[str], specs: list[str]) -> list[str]:
    """``kcl run -d -O``: write the specs into the files of the main package; returns
    the paths that changed. A spec goes to the first file binding its variable at the
    top level; a new variable is appended to the last file. (The reference applies
    every spec to every file, so a multi-file package gets duplicate statements.)

    Raises OverrideError like :func:`override_file`, also for a file with syntax
    errors; then no file is written.
    """
    texts = {path: _read(path) for path in paths}
    changed: list[str] = []
    for spec_text in specs:
        name = parse_override_spec(spec_text).path[0]
        target = next((p for p in paths if _file_binds(texts[p], p, name)), paths[-1])
        new, result = override_source(texts[target], [spec_text], target)
        if result.parse_errors:
            raise OverrideError(result.parse_errors)
        if result.result and new != texts[target]:
            texts[target] = new
            if target not in changed:
                changed.append(target)
    for path in changed:
        write_atomically(path, texts[path])
    return changed


def _file_binds(text: str, path: str, name: str) -> bool:
    module, _ = parse_source(text, path)
    return any(stmt_binds(stmt, name) for stmt in module.body)


def _read(path: str) -> str:
    file, problem = read_source(path)
    if problem is not None:
        raise OverrideError([make_error(Code.IO_ERROR, problem, None)])
    return file.text
