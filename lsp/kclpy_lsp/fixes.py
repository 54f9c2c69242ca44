"""Quick fixes (``textDocument/codeAction``, kind ``quickfix``) for the diagnostics of
the analysis that saw the document's current text, in the requested range.

* **Lint repairs**: a finding ``kcl lint --fix`` can repair (an unused or a repeated
  import) gets the same edit.
* **Close names**: a misspelled name, schema attribute, config key, keyword argument
  or module member gets one action per close name, replacing the misspelling
  (the quoted name of the message) inside the diagnostic's span. The names come
  from the message's ``did you mean`` hint, which sema writes as the reference
  does; a module member's message has none (the reference prints none), so its
  close names are taken from the module's members by sema's closeness rule.
"""

from __future__ import annotations

import os
import re

from lsprotocol import types

from kclpy.diag import Diagnostic
from kclpy.sema.base import close_names, suggested_names
from kclpy.sema.builtins import module_member_types
from kclpy.sema.model import Model
from kclpy.source import Span
from kclpy.tools.lint_rules import Finding
from kclpy_lsp.app import analysed, server, to_lsp_diagnostic, to_range
from kclpy_lsp.documents import Document
from kclpy_lsp.navigation import name_span

_QUOTED = re.compile(r"'([A-Za-z_$][\w$]*)'")
_MODULE_MEMBER = re.compile(r"^attribute '([\w$]+)' not found in 'module '([\w.]+)''$")


@server.feature(
    types.TEXT_DOCUMENT_CODE_ACTION,
    types.CodeActionOptions(code_action_kinds=[types.CodeActionKind.QuickFix]),
)
async def code_actions(params: types.CodeActionParams) -> list[types.CodeAction]:
    found = await analysed(params.text_document.uri, exact=True)
    if found is None:
        return []
    document, analysis = found
    wanted = params.range
    actions = []
    for finding in analysis.findings:
        span = finding.diagnostic.span
        if span is None or os.path.abspath(span.file.path) != document.path:
            continue
        where = to_range(document, span)
        if where.end.line < wanted.start.line or where.start.line > wanted.end.line:
            continue
        actions.extend(_lint_repair(document, finding))
        actions.extend(_close_names(document, analysis.model, finding.diagnostic))
    return actions


def _lint_repair(document: Document, finding: Finding) -> list[types.CodeAction]:
    diagnostic, edit = finding.diagnostic, finding.edit
    if edit is None or diagnostic.span is None or os.path.abspath(edit.path) != document.path:
        return []
    where = to_range(document, Span(diagnostic.span.file, edit.start, edit.end))
    return [
        _action(
            f"Remove: {diagnostic.message}",
            document,
            diagnostic,
            types.TextEdit(where, edit.text),
        )
    ]


def _close_names(
    document: Document, model: Model, diagnostic: Diagnostic
) -> list[types.CodeAction]:
    misspelled = _QUOTED.search(diagnostic.message)
    span = diagnostic.span
    if misspelled is None or span is None:
        return []
    name = misspelled.group(1)
    names = suggested_names(diagnostic.message) or _close_members(model, diagnostic.message)
    where = name_span(span, name)
    if where.file.text[where.start : where.end] != name:
        return []
    place = to_range(document, where)
    actions = [
        _action(f"Change '{name}' to '{other}'", document, diagnostic, types.TextEdit(place, other))
        for other in names
    ]
    if actions:
        actions[0].is_preferred = True
    return actions


def _close_members(model: Model, message: str) -> list[str]:
    """Close names among a module's members, for ``attribute 'x' not found in 'module 'm''``."""
    found = _MODULE_MEMBER.match(message)
    if found is None:
        return []
    name, pkgpath = found.groups()
    members = module_member_types(pkgpath)
    candidates = list(members) if members is not None else list(model.package_symbols(pkgpath))
    return close_names(name, [c for c in candidates if not c.startswith("_")])


def _action(
    title: str, document: Document, diagnostic: Diagnostic, edit: types.TextEdit
) -> types.CodeAction:
    return types.CodeAction(
        title=title,
        kind=types.CodeActionKind.QuickFix,
        diagnostics=[to_lsp_diagnostic(document, diagnostic)],
        edit=types.WorkspaceEdit(changes={document.uri: [edit]}),
    )
