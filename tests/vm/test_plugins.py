"""Host plugins called from KCL: JSON-shaped values, errors at the call site."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

import kclpy.plugin
from kclpy.api import run


@pytest.fixture(autouse=True)
def hello_plugin() -> Iterator[None]:
    def add(x: int, y: int) -> int:
        return x + y

    def fail(message: str) -> None:
        raise ValueError(message)

    def shape(value: object) -> object:
        return {"got": value}

    kclpy.plugin.register("hello", {"add": add, "fail": fail, "shape": shape})
    yield
    kclpy.plugin.unregister("hello")


def test_plugin_function_is_called_with_kcl_values() -> None:
    result = run("import kcl_plugin.hello\na = hello.add(1, 2)\nb = hello.add(x=1.5, y=2)\n")
    assert result.ok, result.diagnostics
    assert result.text == "a: 3\nb: 3.5\n"


def test_values_cross_as_json() -> None:
    code = "import kcl_plugin.hello as h\nschema P:\n    n: int = 1\nv = h.shape(P {})\n"
    result = run(code)
    assert result.ok, result.diagnostics
    assert result.text == "v:\n  got:\n    'n': 1\n"


def test_plugin_exception_is_an_evaluation_error_at_the_call() -> None:
    result = run('import kcl_plugin.hello\n\na = hello.fail("boom")\n')
    assert not result.ok
    diagnostic = result.diagnostics[0]
    assert diagnostic.code.kind == "EvaluationError"
    assert diagnostic.message == "boom"
    assert diagnostic.span is not None and diagnostic.span.begin_pos.line == 3


def test_unknown_function_and_plugin_are_errors_not_none() -> None:
    result = run("import kcl_plugin.hello\na = hello.nothere(1)\n")
    assert not result.ok and "no function 'nothere'" in result.diagnostics[0].message
    # as the reference without plugin mode: the import itself fails, even unused
    for code in ("import kcl_plugin.missing\na = missing.f(1)\n", "import kcl_plugin.missing\n"):
        result = run(code)
        diagnostic = result.diagnostics[0]
        assert diagnostic.code.id == "E2F04" and diagnostic.code.kind == "CannotFindModule"
        assert diagnostic.message == (
            "the plugin package `kcl_plugin.missing` is not found, "
            "please confirm if plugin mode is enabled"
        )
        assert diagnostic.span is not None and diagnostic.span.begin_pos.line == 1


def test_values_are_converted_at_the_boundary_both_ways() -> None:
    seen: list[object] = []

    def echo(*args: object, **kwargs: object) -> object:
        seen.append((args, kwargs))
        return (1, {"k": [2.5, None]})  # a tuple comes back as a list

    def odd() -> object:
        return {1, 2}

    kclpy.plugin.register("edge", {"echo": echo, "odd": odd})
    try:
        code = "import kcl_plugin.edge\na = edge.echo(1Ki, [1, Undefined], d={x = 2})\n"
        result = run(code)
        assert result.ok, result.diagnostics
        assert result.text == "a:\n- 1\n- k:\n  - 2.5\n  - null\n"
        assert seen == [((1024, [1]), {"d": {"x": 2}})]
        result = run("import kcl_plugin.edge\nb = edge.odd()\n")
        assert not result.ok
        assert result.diagnostics[0].message.startswith(
            "kcl_plugin.edge.odd returned a value that is not JSON data"
        )
    finally:
        kclpy.plugin.unregister("edge")
