"""The reference importers' own test data, compared schema by schema with kclpy's output.

``benchmarks/prepare_corpus.py`` exports it into the git-ignored ``.corpus/``:
``kcl-openapi/`` (kcl-lang/kcl-openapi: each case folder holds an OpenAPI ``.yaml``
beside the ``models/`` the reference generated from it) and ``kcl-jsonschema/``
(kcl-lang/kcl-go: each case folder holds ``input.json`` beside ``expect.k``).

``openapi_cases()`` / ``jsonschema_cases()`` list the cases (as the upstream tests
find them: folders not starting with ``.``, ``_`` or ``fix_me_``);
``compare_openapi(case)`` / ``compare_jsonschema(case)`` import a case's input with
kclpy and compare every expected schema with the generated one of the same file and
name (``published.schema_shapes``), returning a ``CaseResult``. The kcl-openapi
cases were generated keeping the document's property order, which ``kcl import``
does not (it sorts them): they are imported with ``keep_order``.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from published import SchemaShape, difference, schema_shapes

from kclpy.tools.importer.convert import ImportOptions, import_path

CORPUS = Path(__file__).resolve().parents[3] / ".corpus"
OPENAPI = CORPUS / "kcl-openapi"
JSONSCHEMA = CORPUS / "kcl-jsonschema"


@dataclass
class CaseResult:
    """How the generated schemas of one case compare with the expected ones."""

    expected: int = 0
    matched: int = 0
    differences: Counter[str] = field(default_factory=Counter)
    examples: list[str] = field(default_factory=list)

    def add(self, where: str, theirs: SchemaShape, mine: SchemaShape | None, order: bool) -> None:
        self.expected += 1
        found = difference(theirs, mine, order=order)
        if found is None:
            self.matched += 1
        else:
            self.differences[found[0]] += 1
            self.examples.append(f"{where} {theirs.name}: {found[0]} {found[1]}")


def _cases(root: Path, pattern: str) -> list[Path]:
    if not root.is_dir():
        return []
    return sorted(
        folder
        for folder in root.rglob("*")
        if folder.is_dir()
        and not folder.name.startswith((".", "_", "fix_me_", "tmp_"))
        and any(folder.glob(pattern))
    )


def openapi_cases() -> list[Path]:
    """The kcl-openapi cases: folders with an input ``.yaml`` and ``models/``."""
    return [case for case in _cases(OPENAPI, "*.yaml") if (case / "models").is_dir()]


def jsonschema_cases() -> list[Path]:
    """The kcl-go JSON Schema cases: folders with ``input.json`` and ``expect.k``."""
    return [case for case in _cases(JSONSCHEMA, "input.json") if (case / "expect.k").is_file()]


def compare_openapi(case: Path) -> CaseResult:
    """Import each input of ``case`` with ``-m openapi`` and compare its models."""
    result = CaseResult()
    for spec in sorted(case.glob("*.yaml")):
        try:
            made = import_path(str(spec), ImportOptions("openapi", keep_order=True))
        except Exception as error:  # the case fails as a whole; counted below
            made = {}
            result.examples.append(f"{spec.name}: {type(error).__name__}: {error}")
        ours = {
            Path(relative).relative_to("models").as_posix(): schema_shapes(text, relative)
            for relative, text in made.items()
        }
        for expected in sorted((case / "models").rglob("*.k")):
            relative = expected.relative_to(case / "models").as_posix()
            mine = ours.get(relative, {})
            for name, shape in schema_shapes(expected.read_text(), str(expected)).items():
                result.add(f"{case.name}/{relative}", shape, mine.get(name), order=True)
    return result


def compare_jsonschema(case: Path) -> CaseResult:
    """Import ``input.json`` of ``case`` with ``-m jsonschema`` and compare it with
    ``expect.k``."""
    result = CaseResult()
    try:
        [text] = import_path(str(case / "input.json"), ImportOptions("jsonschema")).values()
        mine = schema_shapes(text, "input.k")
    except Exception as error:
        mine = {}
        result.examples.append(f"{case.name}: {type(error).__name__}: {error}")
    for name, shape in schema_shapes((case / "expect.k").read_text(), "expect.k").items():
        result.add(case.name, shape, mine.get(name), order=True)
    return result
