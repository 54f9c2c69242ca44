"""Builtin behaviours added after the first round: template raw helper, typed reduce."""

from __future__ import annotations

from kclpy.vm.builtins.modules.template_module import execute


def test_raw_helper_does_not_escape() -> None:
    data = {"value": '<div a="1">x</div>'}
    assert execute("{{value}}", data) == "&lt;div a&#x3D;&quot;1&quot;&gt;x&lt;/div&gt;"
    assert execute("{{raw value}}", data) == '<div a="1">x</div>'
    assert execute("{{{value}}}", data) == '<div a="1">x</div>'


def test_reduce_of_empty_list_with_typed_accumulator_is_an_error() -> None:
    import kclpy

    assert kclpy.run("r = reduce(lambda acc, item { acc + item }, [])\n").text == "r: null\n"
    result = kclpy.run("r = reduce(lambda acc: int, item: int -> int { acc + item }, [])\n")
    assert not result.ok
    assert "non-nullable accumulator type 'int'" in result.diagnostics[0].message
