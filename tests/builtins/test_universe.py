"""The one declaration of the builtins (kclpy.syntax.universe) and what reads it.

Every declared name has an implementation in the VM and every implementation is
declared; every signature reads as a type; sema rejects an unknown member of every
system module before the program runs; the VM's plugin and builtin look-ups use the
same declaration.
"""

from __future__ import annotations

import keyword
import re
from collections.abc import Callable
from typing import Any

import pytest

from kclpy import api
from kclpy.diag import Code
from kclpy.sema.builtins import (
    BUILTIN_FUNCTIONS,
    DECORATORS,
    SCHEMA_MEMBER_FUNCTIONS,
    STRING_METHODS,
    module_member_types,
)
from kclpy.sema.types import FuncType
from kclpy.syntax import universe
from kclpy.values import Value
from kclpy.values.errors import KclRuntimeError
from kclpy.vm.builtins import adapt, registry
from kclpy.vm.builtins.core import BUILTINS
from kclpy.vm.builtins.strings import STRING_METHODS as STRING_IMPLEMENTATIONS

MODULES = sorted(universe.SYSTEM_MODULES)
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def test_every_builtin_function_is_implemented_and_every_implementation_declared() -> None:
    declared = universe.builtin_functions()
    registry.bind("builtins", declared, BUILTINS, registry.RUNTIME_BUILTINS)
    assert set(BUILTINS) | registry.RUNTIME_BUILTINS == set(declared)


def test_every_string_method_is_implemented_and_every_implementation_declared() -> None:
    declared = universe.string_methods()
    registry.bind("string methods", declared, STRING_IMPLEMENTATIONS)
    assert set(STRING_IMPLEMENTATIONS) == set(declared)


@pytest.mark.parametrize("module", MODULES)
def test_every_module_member_is_implemented_and_every_implementation_declared(
    module: str,
) -> None:
    members = registry.system_module(module)
    assert members is not None
    assert set(members) == set(universe.module_members(module))


def test_every_adapter_is_made_without_a_binding_error() -> None:
    """Adapters are made on first lookup: each table, read whole, makes all of them."""
    tables = [registry.builtin_functions(), registry.string_methods()]
    tables += [registry.system_module(module) or {} for module in MODULES]
    for table in tables:
        assert len(dict(table)) == len(table) > 0


def test_a_difference_between_declaration_and_implementation_is_a_binding_error() -> None:
    declared = {"encode": None, "decode": None}
    with pytest.raises(registry.BindingError) as caught:
        registry.bind("system module demo", declared, {"encode": len, "extra": len})
    message = str(caught.value)
    assert "system module demo" in message
    assert "not implemented: ['decode']" in message
    assert "not declared: ['extra']" in message
    assert registry.bind("m", declared, {"encode": len}, elsewhere=["decode"]) == {"encode": len}


Number = int | float  # an alias: its text is all an adapter sees


def _aliased(x: Number) -> Number:
    return x


def _untyped(x: list) -> int:  # type: ignore[type-arg]
    return len(x)


def _unchecked(x: Any) -> Value:  # Any: the parameter would go unchecked
    return x


def _checked(x: int | float, y: Value = None) -> int | float:
    return x


@pytest.mark.parametrize("function", [_aliased, _untyped, _unchecked])
def test_an_annotation_the_adapter_cannot_check_is_a_binding_error(
    function: Callable[..., Value],
) -> None:
    """A parameter typed with a name the adapter does not read would go unchecked."""
    with pytest.raises(registry.BindingError, match="cannot check the parameter type"):
        adapt.adapter("system module demo", "demo.f", "(x: number) -> number", function)
    call = adapt.adapter("demo", "demo.f", "(x: number, y?: any) -> number", _checked)
    assert call(None, None, [2.5], {}) == 2.5  # type: ignore[arg-type]
    with pytest.raises(KclRuntimeError, match="f\\(\\) expected number, got str"):
        call(None, None, ["2"], {})  # type: ignore[arg-type]


def _keys(data: dict[str, Value]) -> Value:
    return list(data)


class _Config(dict[str, Value]):
    """A dict of the runtime's own kind (configs and schema instances are dicts)."""


def test_a_parameter_typed_as_a_dict_only_is_checked() -> None:
    """Its exact types are none (every dict passes by isinstance): still checked."""
    call = adapt.adapter("demo", "demo.keys", "(data: {str:any}) -> [str]", _keys)
    assert call(None, None, [{"a": 1}], {}) == ["a"]  # type: ignore[arg-type]
    assert call(None, None, [_Config(b=2)], {}) == ["b"]  # type: ignore[arg-type]
    wrongs: list[Value] = [None, [], "a"]
    for wrong in wrongs:
        with pytest.raises(KclRuntimeError, match="keys\\(\\) expected \\{str:any\\}"):
            call(None, None, [wrong], {})  # type: ignore[arg-type]


def test_runtime_builtins_are_implemented_by_the_runtime() -> None:
    assert set(universe.builtin_functions()) >= registry.RUNTIME_BUILTINS
    result = api.run('a = option("k", default=3)\n', options=["k=4"])
    assert result.diagnostics == [] and result.text == "a: 4\n"


def test_every_declaration_reads_as_a_type_with_a_doc() -> None:
    tables = [BUILTIN_FUNCTIONS, STRING_METHODS, DECORATORS, SCHEMA_MEMBER_FUNCTIONS]
    tables += [module_member_types(module) or {} for module in MODULES]
    declarations = [
        universe.builtin_functions(),
        universe.string_methods(),
        universe.decorators(),
        universe.schema_member_functions(),
    ] + [universe.module_members(module) for module in MODULES]
    for types, declared in zip(tables, declarations, strict=True):
        assert list(types) == list(declared)
        for name, declaration in declared.items():
            assert _IDENTIFIER.fullmatch(name) and not keyword.iskeyword(name), name
            assert declaration.doc, f"{name} has no doc"
            kind = types[name]
            assert isinstance(kind, FuncType) == declaration.is_function, name
            if isinstance(kind, FuncType):
                assert kind.doc == declaration.doc


def test_a_long_signature_continues_on_indented_lines() -> None:
    dump = universe.module_members("json")["dump_to_file"]
    assert dump.signature == (
        "(data: any, filename: str, sort_keys?: bool, indent?: int, "
        "ignore_private?: bool, ignore_none?: bool) -> str"
    )
    assert dump.doc == "Write the value as JSON text to a file."
    kind = module_member_types("json")
    assert kind is not None and kind["dump_to_file"].ty_str() == (
        "(any, str, bool, int, bool, bool) -> str"
    )


def test_unknown_names_are_none() -> None:
    assert module_member_types("nosuch") is None
    assert registry.system_module("nosuch") is None
    with pytest.raises(KeyError):
        universe.module_members("nosuch")


@pytest.mark.parametrize("module", MODULES)
def test_an_unknown_member_fails_before_running(module: str) -> None:
    """In a lambda that is never called, so only the checker can see it."""
    member = next(iter(universe.module_members(module)))
    code = f"import {module}\n_f = lambda {{ [{module}.{member}, {module}.nosuch] }}\na = 1\n"
    result = api.run(code)
    assert [(d.code, d.message) for d in result.diagnostics] == [
        (Code.TYPE_ERROR, f"attribute 'nosuch' not found in 'module '{module}''")
    ]


def test_toml_calls_are_type_checked() -> None:
    result = api.run("import toml\n_f = lambda { toml.decode(1) }\na = 1\n")
    assert [(d.code, d.message) for d in result.diagnostics] == [
        (Code.TYPE_ERROR, "expected str, got int(1)")
    ]
    result = api.run('import toml\na = toml.decode("x = 1")\nb = toml.encode({y = 2})\n')
    assert result.diagnostics == [] and result.text == "a:\n  x: 1\nb: |\n  y = 2\n\n"


def test_plugin_imports_use_the_declared_prefix() -> None:
    assert universe.is_plugin(universe.PLUGIN_PREFIX + "hello")
    assert not universe.is_plugin(universe.PLUGIN_ROOT)
    result = api.run(f"import {universe.PLUGIN_PREFIX}nosuch_plugin\na = 1\n")
    assert [d.code for d in result.diagnostics] == [Code.CANNOT_FIND_MODULE]
