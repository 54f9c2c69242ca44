"""The language's last mile against the reference (kcl-lib, in a subprocess).

Bare call statements, the reference's stricter syntax rules and the dict
``filter`` order: each program runs through kclpy and the reference; the
outputs (or the fact and kind of an error) must agree. Skipped without kcl-lib.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from kclpy.api import run, run_files

try:
    from reference import reference_available, run_reference
except ImportError:  # tests/ imported as a package
    from tests.reference import reference_available, run_reference  # type: ignore[no-redef]

needs_reference = pytest.mark.skipif(not reference_available(), reason="kcl_lib not installed")

SAME_OUTPUT = {
    "call statement emits nothing": "make = lambda {{a = 1}}\nmake()\nb = 1\n",
    "call after an expression": "f = lambda {{a = 1}}\nx = 1\n{a = 2}\nf()\n",
    "schema call statement": "schema S:\n    a: int = 1\nS()\nz = 2\n",
    "parenthesized call is an expression": "f = lambda {{a = 1}}\n(f())\nz = 2\n",
    "print statement": 'print("hello")\nz = 2\n',
    "dict filter": "x = filter k, v in {a = 1, b = 2, c = 3} {v >= 2}\n",
    "dict filter keeps the keys": "x = filter k, v in {a = 1, b = 2, c = 3, d = 4} {k != 'b'}\n",
    "call arguments on their own lines": "f = lambda a, b {a}\nx = f(\n    1,\n    2\n)\n",
}

SAME_REJECTION = {
    "else on a new line": ("x = 1 if True\nelse 2\n", "InvalidSyntax"),
    "call arguments broken after a comma": (
        "f = lambda a, b {a}\nx = f(1,\n2)\n",
        "InvalidSyntax",
    ),
    "a second mixin clause": (
        "schema AMixin:\n    a: int = 1\nschema BMixin:\n    b: int = 2\n"
        "schema S:\n    mixin [AMixin]\n    mixin [BMixin]\n    c: int = 1\ns = S{}\n",
        "CompileError",
    ),
}


@needs_reference
@pytest.mark.parametrize("name", sorted(SAME_OUTPUT))
def test_same_output_as_the_reference(name: str) -> None:
    code = SAME_OUTPUT[name]
    reference = run_reference(code)
    assert reference.returncode == 0, reference.stderr
    mine = run(code)
    assert mine.ok, mine.diagnostics
    assert mine.log + mine.text == reference.stdout


@needs_reference
@pytest.mark.parametrize("name", sorted(SAME_REJECTION))
def test_same_rejection_as_the_reference(name: str) -> None:
    code, kind = SAME_REJECTION[name]
    reference = run_reference(code)
    assert reference.returncode != 0
    assert kind in reference.stderr
    mine = run(code)
    assert not mine.ok
    assert mine.diagnostics[0].code.kind == kind
    assert mine.diagnostics[0].span is not None


UNPACK = """\
schema Meta:
    labels?: {str:str}
    name: str = "n"

schema Server:
    podMetadata?: Meta

s = Server {
    podMetadata.labels: {"env" = "myenv"}
}
united = {
    labels = {name = "x", env = "prod"}
    **s.podMetadata
}
m = Meta {labels = {a = "1"}}
replaced = {
    labels = {b = "2"}
    name = "x"
    **m
}
"""


@needs_reference
def test_unpacking_an_instance_unites_what_its_config_united() -> None:
    reference = run_reference(UNPACK)
    assert reference.returncode == 0, reference.stderr
    mine = run(UNPACK)
    assert mine.ok, mine.diagnostics
    assert mine.text == reference.stdout
    assert "    name: x\n    env: myenv\n" in mine.text


PACKAGES = {
    "kcl.mod": '[package]\nname = "same_names"\n',
    "frontend/affinity.k": "schema Affinity:\n    zone?: str\n",
    "k8s/pod.k": "schema Affinity:\n    zone?: str\n\nschema Pod:\n    affinity?: Affinity\n",
}


@needs_reference
@pytest.mark.parametrize(
    "main",
    [
        # konfig's frontend Affinity reaches the k8s model's Affinity through {str:}
        "attributes: {str:} = {affinity = frontend.Affinity {zone = 'a'}}\n"
        "pod = k8s.Pod {**attributes}\n"
        "cast = attributes.affinity as frontend.Affinity\n",
        # `as` compares the schemas' full identity (package and name)
        "x = frontend.Affinity {zone = 'a'} as k8s.Affinity\n",
    ],
)
def test_same_named_schemas_of_two_packages(main: str, tmp_path: Path) -> None:
    for name, text in PACKAGES.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text, encoding="utf-8")
    (tmp_path / "main.k").write_text("import frontend\nimport k8s\n" + main, encoding="utf-8")
    reference = run_reference(files=["main.k"], cwd=tmp_path)
    mine = run_files([str(tmp_path / "main.k")], work_dir=str(tmp_path))
    assert mine.ok == (reference.returncode == 0), (mine.diagnostics, reference.stderr)
    if mine.ok:
        assert mine.text == reference.stdout
    else:
        assert mine.diagnostics[0].code.kind in reference.stderr
