"""Regenerate ``goldens/*.json`` from the reference KCL (needs ``kcl_lib``).

    python tests/emit/update_goldens.py

``encode.json``: id -> text of ``yaml.encode``/``json.encode``; ``emit.json``: id ->
what ``kcl run`` prints; ``toml.json``: id -> TOML text or ``{"error": message}``.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1]))

from tests.emit.cases import (  # noqa: E402
    EMIT_CASES,
    ENCODE_CASES,
    TOML_CASES,
    EmitCase,
    encode_cases_program,
)
from tests.emit.oracle import Result, reference_available, run_programs  # noqa: E402

GOLDENS = HERE / "goldens"


def encode_expectations() -> dict[str, str]:
    [result] = run_programs([(encode_cases_program(ENCODE_CASES), {})])
    if result.error:
        raise SystemExit(f"reference failed: {result.error}")
    texts = json.loads(result.json)["out"]
    return {case.id: text for case, text in zip(ENCODE_CASES, texts, strict=True)}


def emit_expectation(case: EmitCase, result: Result) -> str | dict[str, str]:
    if result.error:
        return {"error": result.error}
    return result.cli_text(case.options.format)


def emit_expectations() -> dict[str, str | dict[str, str]]:
    results = run_programs([(case.program(), case.flags()) for case in EMIT_CASES])
    return {
        case.id: emit_expectation(case, result)
        for case, result in zip(EMIT_CASES, results, strict=True)
    }


def toml_expectations() -> dict[str, str | dict[str, str]]:
    results = run_programs([(case.program(), case.flags()) for case in TOML_CASES], toml=True)
    return {
        case.id: {"error": result.error} if result.error else result.yaml
        for case, result in zip(TOML_CASES, results, strict=True)
    }


def write(name: str, data: object) -> None:
    path = GOLDENS / name
    path.write_text(json.dumps(data, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {path}")


def main() -> None:
    if not reference_available():
        raise SystemExit("kcl_lib is not installed")
    GOLDENS.mkdir(exist_ok=True)
    write("encode.json", encode_expectations())
    write("emit.json", emit_expectations())
    write("toml.json", toml_expectations())


if __name__ == "__main__":
    main()
