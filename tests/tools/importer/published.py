"""The kcl-lang/modules corpus: CRDs beside the models the reference importer made.

``export(mirror, target)`` copies, for every module of a kcl-lang/modules git
directory (a folder with a ``kcl.mod``) that holds CRDs under ``crd/`` or
``crds/``, those CRD files and the module's generated ``.k`` files into
``target/<module>/`` (``.corpus/`` of the checkout is git-ignored: third-party
files are never committed). ``schema_shapes(text)`` reads the schemas of a KCL
file as comparable shapes (name, docstring, attributes with type, optional mark
and default, index signature, check lines); ``compare_module(folder)`` imports a
module's CRDs with kclpy and compares each published schema with the generated
one of the same file and name, returning a ``ModuleResult``.

Run as a script to export: ``python tests/tools/importer/published.py [mirror]``.
"""

from __future__ import annotations

import re
import subprocess
import sys
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from kclpy.syntax import ast, parse_source
from kclpy.tools.importer.convert import ImportOptions, import_path

CORPUS = Path(__file__).resolve().parents[3] / ".corpus" / "kcl-modules"
_CRD_FILE = re.compile(r"(^|/)crds?/[^/]+\.ya?ml$")


@dataclass(frozen=True)
class AttributeShape:
    """One attribute as compared: name, optional mark, type, default (whitespace
    removed from the type and the default)."""

    name: str
    optional: bool
    type: str
    default: str | None


@dataclass(frozen=True)
class SchemaShape:
    """One schema as compared."""

    name: str
    doc: str
    attributes: tuple[AttributeShape, ...]
    index_signature: str
    checks: tuple[str, ...]


def _squeeze(text: str) -> str:
    return re.sub(r"\s+", "", text)


def _doc(text: str) -> str:
    return " ".join(text.split())


def schema_shapes(text: str, path: str = "<published>") -> dict[str, SchemaShape]:
    """The schemas of a KCL file by name (an unparsable file has none)."""
    module, diagnostics = parse_source(text, path)
    if any(d.severity.name == "ERROR" for d in diagnostics):
        return {}
    shapes: dict[str, SchemaShape] = {}
    for statement in module.body:
        if not isinstance(statement, ast.SchemaStmt):
            continue
        source = statement.span.file.text

        def piece(node: ast.Node | None, source: str = source) -> str:
            return "" if node is None else _squeeze(source[node.span.start : node.span.end])

        attributes = tuple(
            AttributeShape(
                attribute.name,
                attribute.optional,
                piece(attribute.type),
                None if attribute.value is None else piece(attribute.value),
            )
            for attribute in statement.body
            if isinstance(attribute, ast.SchemaAttr)
        )
        signature = statement.index_signature
        shapes[statement.name] = SchemaShape(
            statement.name,
            _doc(statement.doc or ""),
            attributes,
            piece(signature) if signature is not None else "",
            tuple(piece(check) for check in statement.checks or []),
        )
    return shapes


def export(mirror: Path, target: Path = CORPUS) -> list[str]:
    """Copy each module's CRDs and published models from the git directory
    ``mirror`` into ``target``; returns the modules exported."""
    names = _git(mirror, "ls-tree", "-r", "HEAD", "--name-only").decode().splitlines()
    roots = sorted(name[: -len("/kcl.mod")] for name in names if name.endswith("/kcl.mod"))
    exported: list[str] = []
    for root in roots:
        inside = [
            name
            for name in names
            if name.startswith(root + "/")
            and not any(
                other != root and other.startswith(root + "/") and name.startswith(other + "/")
                for other in roots
            )
        ]
        crds = [name for name in inside if _CRD_FILE.search(name[len(root) :])]
        models = [name for name in inside if name.endswith(".k")]
        if not crds or not models:
            continue
        for name in crds + models:
            destination = target / root / name[len(root) + 1 :]
            destination.parent.mkdir(parents=True, exist_ok=True)
            destination.write_bytes(_git(mirror, "show", f"HEAD:{name}"))
        exported.append(root)
    return exported


def _git(mirror: Path, *args: str) -> bytes:
    return subprocess.run(
        ["git", f"--git-dir={mirror}", *args], capture_output=True, check=True, timeout=300
    ).stdout


def modules(corpus: Path = CORPUS) -> list[Path]:
    """The exported modules (folders with CRDs) under ``corpus``."""
    if not corpus.is_dir():
        return []
    return sorted({path.parent.parent for path in corpus.rglob("crd*/*.y*ml")})


@dataclass
class ModuleResult:
    """How the generated schemas of one module compare with the published ones."""

    published: int = 0
    matched: int = 0
    differences: Counter[str] = field(default_factory=Counter)
    examples: dict[str, str] = field(default_factory=dict)


def generated_files(module: Path) -> dict[str, str]:
    """kclpy's files for the CRDs of ``module``, by file name (later CRD files
    of the same name win, as re-running the importer over them would)."""
    files: dict[str, str] = {}
    for crd in sorted(module.glob("crd*/*.y*ml")):
        try:
            made = import_path(str(crd), ImportOptions("crd"))
        except Exception as error:
            files[f"!{crd.name}"] = f"{type(error).__name__}: {error}"
            continue
        for relative, text in made.items():
            files[Path(relative).name] = text
    return files


def compare_module(module: Path) -> ModuleResult:
    """Compare every published schema of ``module`` with kclpy's."""
    result = ModuleResult()
    ours: dict[str, dict[str, SchemaShape]] = {
        name: schema_shapes(text, name) for name, text in generated_files(module).items()
    }
    for published in sorted(module.rglob("*.k")):
        theirs = schema_shapes(published.read_text(errors="replace"), str(published))
        mine = ours.get(published.name, {})
        for name, shape in theirs.items():
            result.published += 1
            found = difference(shape, mine.get(name))
            if found is None:
                result.matched += 1
            else:
                result.differences[found[0]] += 1
                result.examples.setdefault(found[0], f"{published.name} {name}: {found[1]}")
    return result


def difference(
    theirs: SchemaShape, mine: SchemaShape | None, order: bool = True
) -> tuple[str, str] | None:
    """The first kind of difference between two schemas, with a detail (the order
    of the attributes compared only with ``order``)."""
    if mine is None:
        return "missing schema", ""
    their_names = [a.name for a in theirs.attributes]
    my_names = [a.name for a in mine.attributes]
    if sorted(their_names) != sorted(my_names):
        return "attribute names", f"{sorted(set(their_names) ^ set(my_names))[:4]}"
    mine_by_name = {a.name: a for a in mine.attributes}
    for kind in ("type", "optional", "default"):
        for attribute in theirs.attributes:
            their_value = getattr(attribute, kind)
            my_value = getattr(mine_by_name[attribute.name], kind)
            if their_value != my_value:
                return f"attribute {kind}", f"{attribute.name}: {their_value!r} != {my_value!r}"
    if order and their_names != my_names:
        return "attribute order", ""
    if theirs.index_signature != mine.index_signature:
        return "index signature", f"{theirs.index_signature!r} != {mine.index_signature!r}"
    if theirs.checks != mine.checks:
        extra = sorted(set(theirs.checks) ^ set(mine.checks))[:2]
        return "checks", f"{extra}"
    if theirs.doc != mine.doc:
        return "docstring", _first_difference(theirs.doc, mine.doc)
    return None


def _first_difference(left: str, right: str) -> str:
    index = next(
        (i for i, (a, b) in enumerate(zip(left, right, strict=False)) if a != b),
        min(len(left), len(right)),
    )
    return (
        f"{left[max(0, index - 30) : index + 50]!r} != {right[max(0, index - 30) : index + 50]!r}"
    )


if __name__ == "__main__":
    beside = Path(__file__).resolve().parents[5] / ".mirror" / "kcl-lang+modules" / "repo"
    source = Path(sys.argv[1]) if len(sys.argv) > 1 else beside
    print(f"exported {len(export(source))} modules to {CORPUS}")
