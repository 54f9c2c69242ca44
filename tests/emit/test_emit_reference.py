"""Differential tests of the emitter against the reference KCL (``kcl_lib``).

Every golden case, plus seeded random documents under every output option, is run
through the reference in a subprocess (a few batches) and compared with
``kclpy.emit.render`` / the writers of ``kclpy.values``. Skipped when ``kcl_lib`` is
missing.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from kclpy.emit import EmitError, EmitOptions, render
from kclpy.values.json_writer import to_json
from kclpy.values.yaml_writer import to_yaml
from tests.reference import reference_available

from . import goldens_io
from .cases import EMIT_CASES, ENCODE_CASES, TOML_CASES, EmitCase, encode_cases_program
from .generate import Generator
from .oracle import reference_goldens, run_programs

pytestmark = pytest.mark.skipif(not reference_available(), reason="kcl_lib is not installed")

OPTION_SETS = [
    EmitOptions(),
    EmitOptions(sort_keys=True),
    EmitOptions(disable_none=True, show_hidden=True),
    EmitOptions(include_schema_type_path=True),
    EmitOptions(sort_keys=True, disable_none=True, include_schema_type_path=True),
    EmitOptions(format="json"),
    EmitOptions(format="json", show_hidden=True, include_schema_type_path=True),
]


def _render(case: EmitCase) -> str:
    try:
        return render(case.documents(), case.options, case.stream_options_for_render())
    except EmitError as error:
        return f"error: {error}"


def _compare(cases: list[EmitCase], toml: bool = False) -> None:
    results = run_programs([(case.program(), case.flags()) for case in cases], toml=toml)
    failures = []
    for case, result in zip(cases, results, strict=True):
        if result.error:
            expected = f"error: {result.error}"
        elif toml:
            expected = result.yaml
        else:
            expected = result.cli_text(case.options.format)
        mine = _render(case)
        if mine != expected and not (toml and result.error and mine.startswith("error")):
            failures.append(
                f"{case.id}\n  program: {case.program()!r}\n"
                f"  reference: {expected!r}\n  kclpy:     {mine!r}"
            )
    assert not failures, f"{len(failures)} of {len(cases)} differ:\n" + "\n".join(failures[:5])


def test_goldens_are_the_references_answers(update_goldens: bool) -> None:
    """The goldens test_emit.py compares with are what the reference says now
    (``pytest --update-goldens`` rewrites them from it)."""
    for name, answers in reference_goldens().items():
        if update_goldens:
            goldens_io.write(name, answers)
        assert goldens_io.load(name) == answers, f"{name} differs from the reference's answers"


def test_golden_cases_still_match_the_reference() -> None:
    _compare(EMIT_CASES)


def test_toml_cases_still_match_the_reference() -> None:
    _compare(TOML_CASES, toml=True)


def test_encode_cases_still_match_the_reference() -> None:
    [result] = run_programs([(encode_cases_program(ENCODE_CASES), {})])
    assert not result.error
    expected = json.loads(result.json)["out"]
    for case, text in zip(ENCODE_CASES, expected, strict=True):
        kwargs = dict(case.kwargs)
        if case.function == "yaml.encode":
            mine = to_yaml(case.value, **kwargs)
        elif case.function == "json.encode":
            mine = to_json(case.value, **kwargs)
        else:
            mine = "\n---\n".join(to_yaml(value, **kwargs) for value in case.value)
        assert mine == text, case.id


@pytest.mark.parametrize("seed", range(len(OPTION_SETS)))
def test_random_documents(seed: int) -> None:
    generator = Generator(seed)
    options = OPTION_SETS[seed]
    cases = [
        EmitCase(f"random-{seed}-{index}", "document", generator.document(), options)
        for index in range(120)
    ]
    cases += [
        EmitCase(
            f"random-stream-{seed}-{index}",
            "stream",
            [generator.document() for _ in range(generator.random.randint(0, 3))],
            options,
        )
        for index in range(20)
    ]
    _compare(cases)


@pytest.mark.parametrize("seed", [100, 101])
def test_random_encode(seed: int) -> None:
    generator = Generator(seed)
    calls: list[tuple[str, Any, dict[str, Any]]] = []
    for _ in range(150):
        kwargs = {
            "sort_keys": generator.random.random() < 0.5,
            "ignore_private": generator.random.random() < 0.5,
            "ignore_none": generator.random.random() < 0.5,
        }
        function = generator.random.choice(["yaml.encode", "json.encode"])
        if function == "json.encode" and generator.random.random() < 0.5:
            kwargs["indent"] = generator.random.choice([0, 1, 2, 4])
        calls.append((function, generator.value(), kwargs))
    from .oracle import encode_program

    [result] = run_programs([(encode_program(calls), {})])
    assert not result.error, result.error
    expected = json.loads(result.json)["out"]
    for (function, value, kwargs), text in zip(calls, expected, strict=True):
        mine = to_yaml(value, **kwargs) if function == "yaml.encode" else to_json(value, **kwargs)
        assert mine == text, (function, value, kwargs)
