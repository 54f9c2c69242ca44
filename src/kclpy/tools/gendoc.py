"""``kcl doc generate``: a package's documentation as the real CLI writes it.

``collect(path)`` walks the package (``path``: its root folder, where ``kcl.mod`` is,
or one ``.k`` file) and describes the schemas of every folder that holds KCL files,
as kpm's Swagger export does: each folder is checked as a main package on its own
(its imports and the ``kcl.mod`` dependencies resolved; errors do not stop it: what
cannot be typed is ``any``). It returns a ``Spec``: the package's title and version
(``kcl.mod``'s ``[package]``) and its schemas by id. ``render(spec, options)`` gives
the document's file name and text:

* ``md``: ``# NAME`` (``main`` when unnamed), an ``## Index`` of the schemas and
  sub-packages (nested lists), then ``## Schemas``: for each schema ``### Name``, its
  summary and an ``#### Attributes`` table (name with `` `required` ``/`` `readOnly` ``,
  type, description, default; an ``**[index]**`` row for an index signature), then its
  ``#### Examples``; ``escape_html`` escapes ``<``, ``>``, ``&`` and quotes in
  descriptions and defaults (``|`` and line breaks always are);
* ``html``: that Markdown converted as CommonMark (no tables; raw HTML omitted);
* ``openapi``: an OpenAPI 3.0 document (``NAME.json``), compact, keys sorted, schemas
  under ``components.schemas``.

``generate(...)`` renders and writes ``TARGET/docs/FILE``, replacing ``docs/`` whole
once the new one is ready, as the real tool does; unlike it, a ``docs`` holding
anything but this package's documents (a project's own ``docs/``, a link) is refused.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import tomllib
from collections.abc import Callable

import attrs

from kclpy.loader import package_files
from kclpy.pipeline import driver
from kclpy.source import write_atomically
from kclpy.tools.gendoc_model import ApiType, convert, schema_id
from kclpy.tools.gendoc_render import FORMATS, Options, render_document
from kclpy.tools.kcl_types import schema_type_mapping

__all__ = ["FORMATS", "DocError", "Options", "Spec", "collect", "generate", "render"]


class DocError(Exception):
    """The path, the target or the options cannot be used (the message says why)."""


@attrs.frozen
class Spec:
    """A package's schemas by id (``pkg.sub.Name``), with its title and version."""

    title: str = ""
    version: str = ""
    definitions: dict[str, ApiType] = attrs.field(factory=dict)


def _package_info(root: str) -> tuple[str, str]:
    """``kcl.mod``'s package name and version ("" when absent)."""
    path = os.path.join(root, "kcl.mod")
    if not os.path.isfile(path):
        return "", ""
    try:
        with open(path, "rb") as stream:
            data = tomllib.load(stream)
    except (OSError, tomllib.TOMLDecodeError, UnicodeDecodeError) as error:
        raise DocError(f"could not load 'kcl.mod' in '{root}': {error}") from None
    package = data.get("package")
    if not isinstance(package, dict):
        return "", ""
    return str(package.get("name") or ""), str(package.get("version") or "")


def _folders(root: str) -> list[str]:
    """Every folder under ``root`` (itself first), without following links."""
    found = []
    for folder, dirs, _ in os.walk(root, followlinks=False):
        dirs.sort()
        found.append(folder)
    return found


def collect(path: str) -> Spec:
    """The schemas of the package at ``path`` (a folder, or one ``.k`` file)."""
    absolute = os.path.abspath(path)
    if not os.path.exists(absolute):
        raise DocError(f"invalid file path({path}) to generate document from, path not exists")
    if os.path.isdir(absolute):
        root = absolute
        folders = [(folder, package_files(folder)) for folder in _folders(root)]
    else:
        root = os.path.dirname(absolute)
        folders = [(root, [absolute])]
    title, version = _package_info(root)
    spec = Spec(title, version)
    for folder, files in folders:
        if not files:
            continue
        mapping = schema_type_mapping(driver.load(driver.Inputs(files, folder)))
        relative = os.path.relpath(folder, root)
        for name, kcl_type in mapping.items():
            if kcl_type.get("type") == "schema" and kcl_type.get("schema_name") == name:
                spec.definitions[schema_id(relative, kcl_type)] = convert(relative, kcl_type, False)
    return spec


def render(spec: Spec, options: Options) -> tuple[str, str]:
    """The document's file name and text."""
    if options.format not in FORMATS:
        raise DocError(f"invalid generate format. Allow values: [{' '.join(FORMATS)}]")
    definitions = spec.definitions
    if options.ignore_deprecated:
        definitions = {
            name: kind
            for name, kind in definitions.items()
            if not any(d.get("name") == "deprecated" for d in kind.decorators)
        }
    return render_document(spec.title, spec.version, definitions, options)


def docs_folder(target: str) -> str:
    """``TARGET/docs`` (TARGET: the current folder when ""), checked to be usable."""
    if target:
        if not os.path.exists(target):
            raise DocError(
                f"invalid target directory({target}) to output the doc files, path not exists"
            )
        if not os.path.isdir(target):
            raise DocError(
                f"invalid target directory({target}) to output the doc files: not a directory"
            )
        return os.path.join(target, "docs")
    return os.path.join(os.getcwd(), "docs")


def generate(path: str, target: str, options: Options, say: Callable[[str], None] = print) -> str:
    """Write the documentation of ``path`` into ``TARGET/docs/``; the file written."""
    docs = docs_folder(target)
    spec = collect(path)
    name, text = render(spec, options)
    if os.path.lexists(docs):
        _check_replaceable(docs, spec.title or "main")
        say(f"[Warn] path {docs} exists, all the content will be overwritten")
    say(f"generating doc for package {spec.title or 'main'}")
    _replace_folder(docs, {name: text})
    return os.path.join(docs, name)


def _check_replaceable(docs: str, name: str) -> None:
    """Refuse to replace a ``docs`` that holds anything this command did not write
    (the real tool removes whatever is there: a project's own ``docs/`` with it)."""
    ours = {f"{name}.md", f"{name}.html", f"{name}.json"}
    if os.path.islink(docs) or not os.path.isdir(docs):
        others = [docs]
    else:
        with os.scandir(docs) as entries:
            others = [
                entry.name
                for entry in entries
                if entry.name not in ours or not entry.is_file(follow_symlinks=False)
            ]
    if others:
        listed = ", ".join(sorted(others)[:5]) + (", ..." if len(others) > 5 else "")
        raise DocError(
            f"{docs} holds files that kcl doc generate did not write ({listed}): "
            "remove them or choose another --target"
        )


def _replace_folder(folder: str, files: dict[str, str]) -> None:
    """Make ``folder`` hold exactly ``files``: built beside it, then swapped in (the
    old folder, or a link or file in its place, is removed only after the swap)."""
    parent = os.path.dirname(os.path.abspath(folder))
    work = tempfile.mkdtemp(prefix=".kclpy-docs-", dir=parent)
    try:
        fresh = os.path.join(work, "new")
        os.mkdir(fresh)
        for name, text in files.items():
            write_atomically(os.path.join(fresh, name), text)
        if os.path.lexists(folder):
            os.rename(folder, os.path.join(work, "old"))  # (a link is moved, not followed)
        os.rename(fresh, folder)
    finally:
        shutil.rmtree(work, ignore_errors=True)  # the old folder, or the unused new one
