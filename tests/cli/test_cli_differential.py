"""Differential test of the command lines: ``kcl run`` of kclpy against the reference
CLI (``shared/conformance/kcl_ref.py``, a ``kcl run`` over ``kcl_lib`` with the real
CLI's options), on the documented options, each alone and combined.

The reference parses option values greedily (``-D a=1 main.k`` takes main.k as a
second argument), so it gets each case in one canonical order, files first; kclpy
gets the orders a user may write, and must print the same. Its ``--format json``
is compact where the real CLI indents, so JSON is compared as data.

Skipped when ``kcl_lib`` or the shared folder beside the repository is missing.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from cli_helpers import kcl, write

sys.path.insert(0, str(Path(__file__).parents[1]))
from reference import reference_available, reference_python

KCL_REF = Path(__file__).resolve().parents[3] / "shared" / "conformance" / "kcl_ref.py"

pytestmark = pytest.mark.skipif(
    not (KCL_REF.is_file() and reference_available()),
    reason=f"needs kcl_lib and {KCL_REF} (the shared folder beside the repository)",
)

PROGRAM = {
    "main.k": "schema App:\n    name: str\n    replicas: int = 1\n    _secret: str = 's'\n"
    "    tags?: [str]\n\n"
    'app = App {name = option("name", default="web"), replicas = option("n", default=1)}\n'
    'zoo = {b = 1, a = None}\nenv = option("env")\n',
    "extra.k": "more = {x = 1}\n",
    "settings.yaml": "kcl_cli_configs:\n  sort_keys: true\nkcl_options:\n"
    "  - key: env\n    value: staging\n",
    "dep/lib.k": 'greeting = "hello"\n',
    "uses_dep.k": "import dep_pkg.lib\nsaid = lib.greeting\n",
}

# (files, options): each option group stays together; kclpy also gets them reordered
CASES: list[tuple[list[str], list[list[str]]]] = [
    (["main.k"], [["-D", "name=api"], ["-D", "n=3"], ["-D", "env=prod"]]),
    (["main.k"], [["-D", 'env={"k": [1, 2]}']]),
    (["main.k", "extra.k"], [["-S", "app"], ["-S", "more"]]),
    (["main.k"], [["-O", "app.replicas=5"], ["-O", 'zoo.c="new"']]),
    (["main.k"], [["-n"], ["-k"]]),
    (["main.k"], [["-H"], ["--sort_keys"]]),
    (["main.k"], [["-Y", "settings.yaml"], ["-D", "env=cli"]]),
    (["main.k"], [["--format", "json"], ["-D", "n=2"]]),
    (["main.k"], [["-r"], ["-D", "n=4294967296"]]),
    (["uses_dep.k"], [["-E", "dep_pkg=dep"]]),
    (["main.k"], [["-D", "n=not_an_int"]]),
    (["main.k"], [["-S", "missing"]]),
]


def _orders(files: list[str], groups: list[list[str]]) -> list[list[str]]:
    """kclpy's spellings of a case: options before the files, files among the options,
    and ``kcl FILE ...`` without ``run`` (the options keep their order: the order of
    ``-S`` and ``-O`` values matters)."""
    flat = [item for group in groups for item in group]
    middle = [item for group in groups[:1] for item in group]
    rest = [item for group in groups[1:] for item in group]
    return [["run", *flat, *files], ["run", *middle, *files, *rest], [*files, *flat]]


def _reference(args: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [reference_python(), str(KCL_REF), "run", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )


def _same_output(ours: str, theirs: str, json_format: bool) -> bool:
    if json_format:
        return bool(json.loads(ours) == json.loads(theirs))
    return ours == theirs


@pytest.mark.parametrize(("files", "groups"), CASES, ids=[str(case) for case in CASES])
def test_kclpy_prints_what_the_reference_prints(
    tmp_path: Path, files: list[str], groups: list[list[str]]
) -> None:
    write(tmp_path, PROGRAM)
    canonical = [*files, *(item for group in groups for item in group)]
    theirs = _reference(canonical, tmp_path)
    json_format = "json" in canonical
    for order in _orders(files, groups):
        ours = kcl(*order, "--no_style", cwd=tmp_path)
        assert ours.returncode == theirs.returncode, (order, ours.stderr, theirs.stderr)
        if theirs.returncode == 0:
            assert _same_output(ours.stdout, theirs.stdout, json_format), order
        else:
            assert ours.stderr.split("\n")[0] == theirs.stderr.split("\n")[0], order


def test_output_file_matches(tmp_path: Path) -> None:
    write(tmp_path, PROGRAM)
    theirs = _reference(["main.k", "-o", "theirs.yaml", "-D", "env=x"], tmp_path)
    ours = kcl("run", "-o", "ours.yaml", "main.k", "-D", "env=x", cwd=tmp_path)
    assert theirs.returncode == ours.returncode == 0
    # kcl_lib's writer leaves out the final newline the real (Go) CLI writes
    assert (tmp_path / "ours.yaml").read_text() == (tmp_path / "theirs.yaml").read_text() + "\n"
