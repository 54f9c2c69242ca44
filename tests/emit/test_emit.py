"""Golden and unit tests of kclpy.emit: what ``kcl run`` prints.

Expected texts were recorded from kcl_lib 0.13.2 (``pytest --update-goldens`` rewrites them); these
tests do not need the reference installed.
"""

from __future__ import annotations

from typing import Any

import pytest

from kclpy.emit import (
    EmitError,
    EmitOptions,
    plan,
    render,
    render_stream,
    schema_type_path,
    stream_documents,
)
from kclpy.values import UNDEFINED, Config
from kclpy.values.errors import KclRuntimeError

from .cases import EMIT_CASES, TOML_CASES, EmitCase
from .goldens_io import load
from .oracle import FakeSchema, schema_instance

EMIT_GOLDENS = load("emit.json")
TOML_GOLDENS = load("toml.json")


def rendered(case: EmitCase) -> str:
    return render(case.documents(), case.options, case.stream_options_for_render())


@pytest.mark.parametrize("case", EMIT_CASES, ids=lambda case: case.id)
def test_emit_golden(case: EmitCase) -> None:
    assert rendered(case) == EMIT_GOLDENS[case.id]


@pytest.mark.parametrize("case", TOML_CASES, ids=lambda case: case.id)
def test_toml_golden(case: EmitCase) -> None:
    expected = TOML_GOLDENS[case.id]
    if isinstance(expected, dict):
        with pytest.raises(EmitError) as error:
            rendered(case)
        assert str(error.value) == expected["error"]
    else:
        assert rendered(case) == expected


def test_goldens_cover_every_case() -> None:
    assert set(EMIT_GOLDENS) == {case.id for case in EMIT_CASES}
    assert set(TOML_GOLDENS) == {case.id for case in TOML_CASES}


def test_plan_filters() -> None:
    inner = schema_instance("Q", {"x": 1, "_p": 2})
    value: dict[str, Any] = {
        "_hidden": 1,
        "a": None,
        "u": UNDEFINED,
        "f": len,
        "l": [None, UNDEFINED, {"_k": 1, "k": None}, inner],
        "s": schema_instance("P", {"q": inner}),
    }
    assert plan(value, EmitOptions()) == {
        "a": None,
        "l": [None, {"k": None}, {"x": 1}],
        "s": {"q": {"x": 1}},
    }
    assert plan(value, EmitOptions(disable_none=True, include_schema_type_path=True)) == {
        "l": [{}, {"x": 1, "_type": "Q"}],
        "s": {"q": {"x": 1, "_type": "Q"}, "_type": "P"},
    }
    shown = plan(value, EmitOptions(show_hidden=True))
    assert shown["_hidden"] == 1
    assert shown["l"][1] == {"_k": 1, "k": None}


def test_plan_root_schema_has_no_type() -> None:
    root = schema_instance("P", {"a": 1, "q": schema_instance("Q", {"b": 2})})
    assert plan(root, EmitOptions(include_schema_type_path=True)) == {
        "a": 1,
        "q": {"b": 2, "_type": "Q"},
    }


def test_plan_root_list_is_partial() -> None:
    value = [None, [None, {"_a": 1}], {"_b": 1, "c": None}]
    assert plan(value, EmitOptions(disable_none=True)) == [None, [None, {"_a": 1}], {}]


def test_schema_type_path() -> None:
    assert schema_type_path(schema_instance("P", {})) == "P"
    from kclpy.values import SchemaInstance

    assert schema_type_path(SchemaInstance(FakeSchema("S", "sub"), {})) == "sub.S"
    assert schema_type_path(SchemaInstance(FakeSchema("S", "a.b"), {})) == "a.b.S"


def test_stream_documents() -> None:
    assert stream_documents([{"a": 1}, Config(b=2)]) == [{"a": 1}, {"b": 2}]
    assert stream_documents([]) == []
    assert stream_documents([{"a": 1}, None]) is None
    assert stream_documents([{"a": 1}, UNDEFINED]) is None


def test_render_basics() -> None:
    assert render([{}], EmitOptions()) == "{}\n"
    assert render([], EmitOptions()) == ""
    assert render([{"a": 1}, {"b": 2}], EmitOptions()) == "a: 1\n---\nb: 2\n"
    assert render([{"a": 1}, {"b": 2}], EmitOptions(format="json")) == '{"a": 1}\n{"b": 2}\n'
    assert render(["x"], EmitOptions()) == "x\n"


def test_render_errors_are_runtime_errors() -> None:
    with pytest.raises(KclRuntimeError):
        render([{"a": 1}, {"b": 2}], EmitOptions(format="toml"))
    with pytest.raises(EmitError):
        render([{"a": 1}], EmitOptions(format="xml"))


def test_render_stream() -> None:
    assert render_stream([{"a": 1}, {"b": 2}]) == "a: 1\n---\nb: 2\n"
    assert render_stream([{"a": 1}, {"b": 2}], sep="--- # x") == "a: 1\n--- # x\nb: 2\n"
    assert render_stream([]) == ""
    assert render_stream([1, {"a": 1}], format="json") == '{"a": 1}\n'
    assert render_stream(["x"], format="json") == '"x"\n'
    assert render_stream([[1]], format="json") == ""
    assert render(
        [{"b": 1, "a": None}], EmitOptions(), {"sort_keys": True, "ignore_none": True}
    ) == ("b: 1\n")
