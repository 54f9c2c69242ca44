"""The members of each system module, against the reference KCL (kcl-lib).

For every system module, one program references a long list of candidate names
(every member declared for any module, every builtin function, names no module
has) inside a lambda that is never called, so only the checker sees them. The
reference and kclpy must reject the same names (``attribute 'x' not found in
'module 'm''``), and what the reference accepts must be exactly what
kclpy.syntax.universe declares. ``toml`` is kclpy's own module
(docs/differences-modules.md): the reference has no such module at all.
Skipped when ``kcl_lib`` cannot be imported.
"""

from __future__ import annotations

import importlib.util
import re

import pytest
from reference import run_reference

from kclpy import api
from kclpy.syntax import universe

pytestmark = pytest.mark.skipif(
    importlib.util.find_spec("kcl_lib") is None, reason="the reference (kcl_lib) is not installed"
)

EXTENSIONS = {"toml"}  # kclpy's own system modules
MODULES = sorted(universe.SYSTEM_MODULES - EXTENSIONS)
_REJECTED = re.compile(r"attribute '(\w+)' not found in 'module '(\w+)''")


def candidates() -> list[str]:
    """Every name some module, builtin or string method declares, and a few none does."""
    names = set(universe.builtin_functions()) | set(universe.string_methods())
    for module in universe.SYSTEM_MODULES:
        names |= set(universe.module_members(module))
    return sorted(names | {"nosuch", "Encode", "to_k", "encode_to_file", "version"})


def program(module: str, names: list[str]) -> str:
    references = "".join(f"    {module}.{name}\n" for name in names)
    return f"import {module}\n_f = lambda {{\n    [\n{references}    ]\n}}\na = 1\n"


def rejected(messages: str, module: str) -> set[str]:
    return {name for name, owner in _REJECTED.findall(messages) if owner == module}


@pytest.mark.parametrize("module", MODULES)
def test_the_reference_accepts_exactly_the_declared_members(module: str) -> None:
    names = candidates()
    code = program(module, names)
    reference = run_reference(code)
    assert not reference.timed_out
    by_reference = rejected(reference.stderr, module)
    assert by_reference, reference.stderr  # the reference did check the names
    assert set(names) - by_reference == set(universe.module_members(module))
    ours = api.run(code)
    by_kclpy = rejected("\n".join(d.message for d in ours.diagnostics), module)
    assert by_kclpy == by_reference
    assert len(ours.diagnostics) == len(by_kclpy)


def test_toml_is_a_kclpy_extension() -> None:
    reference = run_reference('import toml\na = toml.decode("x = 1")\n')
    assert "CannotFindModule" in reference.stderr
    ours = api.run('import toml\na = toml.decode("x = 1")\n')
    assert ours.diagnostics == [] and ours.text == "a:\n  x: 1\n"
