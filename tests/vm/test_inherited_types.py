"""A schema that inherits from a schema of another package: the parent's attribute
types name schemas of the parent's package, and are resolved there (not in the
child's package, where the name means something else or nothing)."""

from __future__ import annotations

from pathlib import Path

import pytest

import kclpy
from tests.reference import reference_available, run_reference

MODELS = {
    "app/app.k": (
        "schema Port:\n    port: int\n\n"
        'schema Resources:\n    cpu: str = "100m"\n\n'
        'schema Container:\n    name: str = "main"\n    resources: Resources = Resources {}\n'
    ),
    "addons/a1/addon.k": (
        "import models.app as appmodel\n\n"
        'schema Sidecar1(appmodel.Container):\n    name: str = "x"\n\n'
        "sidecar = lambda n: str -> appmodel.Container {\n    Sidecar1 {name = n}\n}\n"
    ),
}
MAIN = (
    "import models.addons.a1 as addon1\n\n"
    "first = addon1.Sidecar1 {}\n"
    'second = addon1.sidecar("s")\n'
)
EXPECTED = (
    "first:\n  name: x\n  resources:\n    cpu: '100m'\n"
    "second:\n  name: s\n  resources:\n    cpu: '100m'\n"
)


@pytest.fixture
def program(tmp_path: Path) -> Path:
    for relative, text in MODELS.items():
        path = tmp_path / "models" / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    main = tmp_path / "stack" / "main.k"
    main.parent.mkdir()
    main.write_text(MAIN)
    return tmp_path


def test_parent_attribute_types_resolve_in_the_parents_package(program: Path) -> None:
    result = kclpy.run_files(
        [str(program / "stack/main.k")], external_pkgs={"models": str(program / "models")}
    )
    assert result.ok, [d.message for d in result.diagnostics]
    assert result.text == EXPECTED


@pytest.mark.skipif(not reference_available(), reason="kcl-lib (the reference) is not installed")
def test_the_reference_agrees(program: Path) -> None:
    reference = run_reference(
        files=["main.k"], args=["-E", f"models={program / 'models'}"], cwd=program / "stack"
    )
    assert reference.returncode == 0, reference.stderr
    assert reference.stdout == EXPECTED
