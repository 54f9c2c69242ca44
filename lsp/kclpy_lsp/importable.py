"""Schemas a file can use once it imports their package: completion items that
insert ``pkg.Name`` and add ``import a.b.pkg`` after the file's imports.

Where they come from:

* **the workspace's packages**: every analysed package folder under the file's
  program root (the ``kcl.mod`` folder) other than the file's own, and every
  package a program of the workspace loaded (a stack loads the shared models) that
  the file's program would import under the same path; the schemas come from the
  semantic models (with their docs);
* **kcl.mod dependencies**: every package folder of each dependency the loader
  resolved for the file's program; their schema names are read from the files
  (``schema Name`` statements), since no program loads a dependency package that
  nothing imports yet. Read once per dependency folder, and again after files that
  are not open change on disk (the workspace counts those changes).

Packages the file already imports are left out (``pkg.`` completes those), as are
private names. Takes the document, its latest analysis and every analysis of the
workspace; returns LSP completion items.
"""

from __future__ import annotations

import os
import re

import attrs
from lsprotocol import types

from kclpy.loader import package_files
from kclpy.sema.symbols import MAIN, SymbolKind
from kclpy_lsp.documents import Document, read_text
from kclpy_lsp.ranking import matches
from kclpy_lsp.workspace import Analysis, Workspace

_SCHEMA = re.compile(r"^schema\s+([A-Za-z_$][\w$]*)", re.MULTILINE)
_DEPTH = 6  # package folders nested deeper in a dependency are not listed


@attrs.frozen
class Importable:
    """A schema of a package the file does not import yet."""

    name: str
    pkgpath: str  # as an import statement spells it: ``models.web``, ``k8s.api.core.v1``
    doc: str = ""


_by_dependency: dict[str, tuple[int, list[Importable]]] = {}  # folder -> (disk changes, schemas)


def importable_items(
    document: Document, analysis: Analysis, workspace: Workspace, word: str = ""
) -> list[types.CompletionItem]:
    """Completion items for the schemas of packages ``document`` does not import
    (those ``word`` matches, as ``ranking.matches`` has it)."""
    imported = _imported(document, analysis)
    folder = os.path.dirname(document.path)
    dependencies = [
        schema
        for name, root in sorted(analysis.externals.items())
        for schema in _dependency_schemas(name, root, workspace.disk_changes)
    ]
    found = [
        schema
        for schema in _workspace_schemas(analysis, workspace.all_analyses(), word) + dependencies
        if schema.pkgpath not in imported
        and schema.pkgpath != _package_of(analysis, folder)
        and matches(schema.name, word)
    ]
    edit_at = import_position(document) if found else types.Position(0, 0)
    items: dict[tuple[str, str], types.CompletionItem] = {}
    for schema in found:
        alias = schema.pkgpath.rsplit(".", 1)[-1]
        line = types.TextEdit(types.Range(edit_at, edit_at), f"import {schema.pkgpath}\n")
        items.setdefault(
            (schema.pkgpath, schema.name),
            types.CompletionItem(
                label=schema.name,
                label_details=types.CompletionItemLabelDetails(
                    description=f"import {schema.pkgpath}"
                ),
                kind=types.CompletionItemKind.Class,
                detail=f"schema {schema.pkgpath}.{schema.name}",
                documentation=schema.doc or None,
                sort_text=f"~{schema.name}",
                filter_text=schema.name,
                insert_text=f"{alias}.{schema.name}",
                additional_text_edits=[line],
            ),
        )
    return list(items.values())


def import_position(document: Document) -> types.Position:
    """Where a new import line goes: after the last top-level import, else at the top
    (after a module docstring)."""
    text = document.text
    last = max(text.rfind("\nimport ") + 1, text.rfind("\nimport\t") + 1)
    if last or text.startswith(("import ", "import\t")):
        return types.Position(document.lines.position(last).line + 1, 0)
    docstring = re.match(r"\s*(\"\"\"|''')", text)
    if docstring is not None:
        close = text.find(docstring.group(1), docstring.end())
        if close != -1:
            return types.Position(document.lines.position(close).line + 1, 0)
    return types.Position(0, 0)


def _imported(document: Document, analysis: Analysis) -> set[str]:
    found = analysis.program.home_of(document.path)
    return set(analysis.program.imports_of(found[1]).values()) if found is not None else set()


def _package_of(analysis: Analysis, folder: str) -> str:
    relative = os.path.relpath(folder, analysis.program.root)
    return relative.replace(os.sep, ".") if relative != "." else MAIN


def _workspace_schemas(analysis: Analysis, analyses: list[Analysis], word: str) -> list[Importable]:
    """Schemas of the workspace's packages as ``analysis``'s program would import them:
    the package folders analysed on their own (under its root), and every package any
    program loaded, when it lies under the same root or in the same external package
    (the shared models of a monorepo are loaded by its stacks, not analysed alone);
    those whose name matches the ``word`` typed."""
    root = analysis.program.root
    found = []
    done: set[str] = set()
    for other in analyses:
        if (other.unit is None or not other.unit.stack) and other.folder.startswith(
            root.rstrip(os.sep) + os.sep
        ):
            pkgpath = os.path.relpath(other.folder, root).replace(os.sep, ".")
            done.add(pkgpath)
            found.extend(_schemas_of(other, MAIN, pkgpath))
        for pkgpath in other.model.packages():
            head = pkgpath.split(".", 1)[0]
            if pkgpath == MAIN or pkgpath in done:
                continue
            external = other.externals.get(head)
            if external is not None and analysis.externals.get(head) != external:
                continue  # another version of the package, or one this program lacks
            if external is None and other.program.root != root:
                continue
            done.add(pkgpath)
            found.extend(_schemas_of(other, pkgpath, pkgpath))
    return [schema for schema in found if matches(schema.name, word)]


def _schemas_of(analysis: Analysis, package: str, pkgpath: str) -> list[Importable]:
    return [
        Importable(name, pkgpath, analysis.model.doc(symbol))
        for name, symbol in analysis.model.package_symbols(package).items()
        if symbol.kind == SymbolKind.SCHEMA and not name.startswith("_")
    ]


def _dependency_schemas(dependency: str, root: str, disk_changes: int) -> list[Importable]:
    """The schemas of every package folder of one dependency (cached until files on
    disk change)."""
    cached = _by_dependency.get(root)
    if cached is not None and cached[0] == disk_changes:
        return cached[1]
    found: list[Importable] = []
    for current, dirs, _files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if not d.startswith((".", "_")))
        if current.count(os.sep) - root.count(os.sep) >= _DEPTH:
            dirs[:] = []
        relative = os.path.relpath(current, root)
        pkgpath = dependency if relative == "." else f"{dependency}.{relative}"
        for path in package_files(current):
            names = _SCHEMA.findall(read_text(path) or "")
            found.extend(
                Importable(name, pkgpath.replace(os.sep, "."))
                for name in names
                if not name.startswith("_")
            )
    _by_dependency[root] = (disk_changes, found)
    return found
