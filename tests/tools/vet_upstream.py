"""The ``kcl vet`` cases of kcl-lang/kcl (``crates/tools/src/vet/tests.rs``), run through
kclpy and through the reference kcl-lib, from the git-ignored corpus
(``.corpus/kcl-vet``, written by ``benchmarks/prepare_corpus.py``).

Each case is what one call of the upstream ``validate`` checks: a data file (JSON or
YAML, read with a given loader), the KCL code (a file, a text, or a text standing for a
file), the schema, and whether validation must succeed; an invalid case must also name
the case's files (the upstream "pos" cases) or merely fail (the "only code" cases).

Run as a script to count the cases each side meets:

    python tests/tools/vet_upstream.py [--corpus .corpus/kcl-vet] [--no-reference]

(with another interpreter, e.g. an older checkout's ``.venv/bin/python``, it measures
that checkout's kclpy). The pytest module ``test_vet_upstream.py`` compares the two.
"""

from __future__ import annotations

import argparse
import re
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT / ".corpus" / "kcl-vet"

# the order and the lists of tests.rs
_VALID = [
    "test.k",
    "simple.k",
    "list.k",
    "plain_value.k",
    "complex.k",
    "with_import.k",
    "lambda_check.k",
]
_ONLY_CODE = ["test.k", "simple.k", "list.k", "plain_value.k", "complex.k"]


@dataclass(frozen=True)
class VetCase:
    """One upstream validation: the data file and its loader, the code file (None: the
    code is a text only) and whether the code text is passed besides the file."""

    name: str
    data: Path
    format: str
    code_file: Path | None
    code_text: Path | None
    schema: str | None
    valid: bool

    @property
    def folder(self) -> Path:
        return self.data.parent


@dataclass(frozen=True)
class Outcome:
    """How one side answered: success, or the error's kind and its first position (the
    file, line and column of the first ``-->``; None when it has none)."""

    ok: bool
    kind: str = ""
    file: str | None = None
    line: int = 0
    column: int = 0
    text: str = ""

    @property
    def position(self) -> tuple[str | None, int, int]:
        return (self.file, self.line, self.column)


def cases(corpus: Path = CORPUS) -> list[VetCase]:
    """The 50 validations of tests.rs, in its order."""
    found: list[VetCase] = []
    valid = corpus / "validate_cases"
    for fmt in ("json", "yaml"):
        for name in _VALID:
            found.append(_case(f"valid/{name}.{fmt}", valid, name, fmt, fmt, True))
    pkg = valid / "pkg_with_kcl_mod"
    for fmt in ("json", "yaml"):
        found.append(
            VetCase(
                f"pkg_with_kcl_mod/person.k.{fmt}",
                pkg / f"person.k.{fmt}",
                fmt,
                pkg / "person.k",
                None,
                "Person",
                True,
            )
        )
    found.append(_case("single_file/test.k.json", valid, "test.k", "json", "json", True))
    for fmt in ("json", "yaml"):
        found.append(_case(f"lambda/lambda_check.k.{fmt}", valid, "lambda_check.k", fmt, fmt, True))
    json_pos = corpus / "invalid_vet_cases_json"
    for loader in ("json", "yaml"):
        for name in _VALID:
            case = _case(f"json_pos[{loader}]/{name}", json_pos, name, "json", loader, False)
            found.append(_with_text(case))
    yaml_pos = corpus / "invalid_vet_cases_yaml"
    for name in _VALID:
        found.append(_with_text(_case(f"yaml_pos/{name}", yaml_pos, name, "yaml", "yaml", False)))
    only_code = corpus / "invalid_validate_cases"
    for fmt in ("json", "yaml"):
        for name in _ONLY_CODE:
            case = _case(f"only_code/{name}.{fmt}", only_code, name, fmt, fmt, False)
            found.append(VetCase(case.name, case.data, fmt, None, only_code / name, None, False))
    return found


def _case(label: str, folder: Path, name: str, ext: str, loader: str, valid: bool) -> VetCase:
    data = folder / f"{name}.{ext}"
    return VetCase(label, data, loader, folder / name, None, None, valid)


def _with_text(case: VetCase) -> VetCase:
    return VetCase(
        case.name, case.data, case.format, case.code_file, case.code_file, case.schema, case.valid
    )


def meets(case: VetCase, outcome: Outcome) -> bool:
    """Whether ``outcome`` is what tests.rs expects of ``case``: success for a valid
    case; for an invalid one, a failure naming the case's files (``<folder>/<name>``,
    which the data file's path also starts with) when the code is a file, else any
    failure."""
    if case.valid or outcome.ok:
        return case.valid == outcome.ok
    if case.code_file is None:
        return True
    return str(case.code_file) in outcome.text


# --- kclpy ------------------------------------------------------------------------


def run_kclpy(case: VetCase) -> Outcome:
    """``case`` through ``kclpy.validate`` (files) or ``kclpy.validate_code`` (texts)."""
    import kclpy

    if case.code_text is None and case.code_file is not None:
        diagnostics = kclpy.validate(
            str(case.data), str(case.code_file), format=case.format, schema=case.schema
        )
    else:
        assert case.code_text is not None
        options: dict[str, Any] = {"data_filename": str(case.data), "format": case.format}
        if case.code_file is not None:
            options["filename"] = str(case.code_file)
        diagnostics = kclpy.validate_code(
            case.code_text.read_text(encoding="utf-8"),
            case.data.read_text(encoding="utf-8"),
            schema=case.schema,
            **options,
        )
    errors = [d for d in diagnostics if d.is_error]
    if not errors:
        return Outcome(True)
    first = errors[0]
    text = "\n\n".join(d.render() for d in errors)
    span = first.span
    if span is None:
        return Outcome(False, first.code.kind, text=text)
    line, column = span.begin_pos
    return Outcome(False, first.code.kind, span.file.path, line, column, text)


# --- the reference ----------------------------------------------------------------

REFERENCE_SCRIPT = r"""
import json, re, sys
import kcl_lib.api as api

service = api.API()
for line in sys.stdin:
    request = json.loads(line)
    args = api.ValidateCodeArgs(
        datafile=request["datafile"], file=request["file"], code=request["code"],
        schema=request["schema"], attribute_name="value", format=request["format"])
    try:
        result = service.validate_code(args)
        answer = {"success": result.success, "message": result.err_message}
    except Exception as error:
        answer = {"success": False, "message": str(error)}
    answer["message"] = re.sub(r"\x1b\[[0-9;]*m", "", answer["message"])
    sys.stdout.write(json.dumps(answer) + "\n")
    sys.stdout.flush()
"""

_ARROW = re.compile(r"-->\s*(.+?):(\d+):(\d+)\s*$", re.MULTILINE)
_KIND = re.compile(r"^(?:error\[\w+\]: )?(\w+Error)\b", re.MULTILINE)


def reference_request(case: VetCase) -> dict[str, str]:
    return {
        "datafile": str(case.data),
        "file": "" if case.code_file is None else str(case.code_file),
        "code": "" if case.code_text is None else case.code_text.read_text(encoding="utf-8"),
        "schema": case.schema or "",
        "format": case.format,
    }


def reference_outcome(answer: dict[str, Any]) -> Outcome:
    """The reference's answer (``{success, message}``, or ``{crash}``) as an Outcome."""
    if "crash" in answer:
        return Outcome(False, "crash", text=str(answer["crash"]))
    if answer["success"]:
        return Outcome(True)
    message = str(answer["message"])
    kind = _KIND.search(message)
    arrow = _ARROW.search(message)
    if arrow is None:
        return Outcome(False, kind.group(1) if kind else "", text=message)
    return Outcome(
        False,
        kind.group(1) if kind else "",
        arrow.group(1),
        int(arrow.group(2)),
        int(arrow.group(3)),
        message,
    )


def run_reference_cases(found: list[VetCase]) -> list[Outcome]:
    """Every case through the reference, in one subprocess (``tests/reference.py``)."""
    sys.path.insert(0, str(ROOT / "tests"))
    from reference import call_reference_lines

    answers = call_reference_lines(REFERENCE_SCRIPT, [reference_request(c) for c in found])
    return [reference_outcome(answer) for answer in answers]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", type=Path, default=CORPUS)
    parser.add_argument("--no-reference", action="store_true")
    parser.add_argument("-v", "--verbose", action="store_true")
    ns = parser.parse_args(argv)
    if not ns.corpus.is_dir():
        print(f"no corpus at {ns.corpus}: run benchmarks/prepare_corpus.py")
        return 0
    found = cases(ns.corpus.resolve())
    mine = [run_kclpy(case) for case in found]
    theirs = [None] * len(found) if ns.no_reference else run_reference_cases(found)
    for case, outcome, reference in zip(found, mine, theirs, strict=True):
        marks = "ok " if meets(case, outcome) else "BAD"
        if reference is not None:
            marks += " ref-ok " if meets(case, reference) else " ref-BAD"
        print(f"{marks} {case.name}: kclpy {_short(outcome)}")
        if reference is not None:
            print(f"        reference {_short(reference)}")
        if ns.verbose and not meets(case, outcome):
            print("        " + outcome.text.replace("\n", "\n        "))
    print(f"kclpy meets {sum(meets(c, o) for c, o in zip(found, mine, strict=True))}/{len(found)}")
    if not ns.no_reference:
        met = sum(meets(c, o) for c, o in zip(found, theirs, strict=True) if o is not None)
        print(f"reference meets {met}/{len(found)}")
    return 0


def _short(outcome: Outcome) -> str:
    if outcome.ok:
        return "success"
    where = (
        ""
        if outcome.file is None
        else f" at {Path(outcome.file).name}:{outcome.line}:{outcome.column}"
    )
    return f"{outcome.kind or 'failure'}{where}"


if __name__ == "__main__":
    sys.exit(main())
