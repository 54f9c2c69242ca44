"""End to end: packages pushed to a local registry, stacks run with plain ``kcl run``.

With the benchmarks corpus, the k8s 1.31 models and konfig are pushed to the local
registry and konfig stacks run in (a copy of) their folders, compared with the
reference given the same packages through ``-E`` (the reference does not read
``kcl.mod`` dependencies). Without the corpus a small package of the test's own
plays konfig's part, so CI stands without it.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from .conftest import kcl, make_package

try:
    from tests.reference import reference_available, run_reference
except ImportError:  # tests/ on sys.path
    from reference import reference_available, run_reference  # type: ignore[no-redef]

CORPUS = Path(__file__).parents[2] / ".corpus"
STACKS = ["appops/guestbook/prod", "appops/nginx-example/dev"]


def compare_with_reference(stack: Path, externals: dict[str, Path], kclpy_stdout: str) -> None:
    if not reference_available():
        return
    import tomllib

    entries = tomllib.loads((stack / "kcl.mod").read_text())["profile"]["entries"]
    args = [item for name, path in externals.items() for item in ("-E", f"{name}={path}")]
    expected = run_reference(files=entries, args=args, cwd=stack, timeout=600)
    assert expected.returncode == 0, expected.stderr
    assert kclpy_stdout == expected.stdout


def test_konfig_stacks_from_the_local_registry(registry: str, tmp_path: Path, home: Path) -> None:
    if not (CORPUS / "k8s" / "kcl.mod").is_file() or not (CORPUS / "konfig-compat").is_dir():
        pytest.skip("the benchmarks corpus is absent: test_a_stack_of_our_own covers the flow")
    environment = {"KCL_PKG_PATH": str(home), "KPM_REG": registry, "KPM_REPO": "kcl-lang"}
    for name, source in (("k8s", CORPUS / "k8s"), ("konfig", CORPUS / "konfig-compat" / "konfig")):
        copy = tmp_path / "push" / name
        shutil.copytree(source, copy, ignore=shutil.ignore_patterns(".git", "examples"))
        pushed = kcl(
            "mod", "push", f"oci://{registry}/kcl-lang/{name}", "--force", cwd=copy, env=environment
        )
        assert pushed.returncode == 0, pushed.stderr
    konfig = tmp_path / "konfig"
    shutil.copytree(
        CORPUS / "konfig-compat" / "konfig", konfig, ignore=shutil.ignore_patterns(".git")
    )
    for relative in STACKS:
        stack = konfig / "examples" / relative
        ran = kcl("run", cwd=stack, env=environment)
        assert ran.returncode == 0, ran.stderr
        assert "kind: Deployment" in ran.stdout
        assert (home / "k8s_1.31.2" / "kcl.mod").is_file()
        compare_with_reference(stack, {"konfig": konfig, "k8s": home / "k8s_1.31.2"}, ran.stdout)
    # konfig itself from the registry, by version, in a stack of the test's own
    app = make_package(
        tmp_path / "app", "app", "0.0.1",
        "import konfig.models.kube.metadata\nname = metadata.META_APP_NAME\n",
        'konfig = "0.14.0"\n',
    )  # fmt: skip
    ran = kcl("run", "-D", "__META_APP_NAME=demo", cwd=app, env=environment)
    assert ran.returncode == 0, ran.stderr
    assert "konfig_0.14.0" in (app / "kcl.mod.lock").read_text()


def test_a_stack_of_our_own(registry: str, tmp_path: Path, home: Path) -> None:
    """konfig's shape in small: a path framework, a registry package, profile entries."""
    environment = {"KCL_PKG_PATH": str(home), "KPM_REG": registry, "KPM_REPO": "kcl-lang"}
    base = make_package(
        tmp_path / "base", "base", "1.0.0", "schema App:\n    name: str\n    replicas: int = 1\n"
    )
    pushed = kcl(
        "mod", "push", f"oci://{registry}/kcl-lang/base", "--force", cwd=base, env=environment
    )
    assert pushed.returncode == 0, pushed.stderr
    frame = make_package(tmp_path / "frame", "frame", "0.1.0", "", 'base = "1.0.0"\n')
    (frame / "render.k").write_text(
        "import base\nrendered = base.App {name = app.name + '-rendered'}\n"
    )
    (frame / "main.k").unlink()
    stack = make_package(
        tmp_path / "stack", "stack", "0.0.1", "import base\napp = base.App {name = 'demo'}\n",
        'frame = { path = "../frame" }\nbase = "1.0.0"\n',
    )  # fmt: skip
    with (stack / "kcl.mod").open("a") as stream:
        stream.write('[profile]\nentries = ["main.k", "${frame:KCL_MOD}/render.k"]\n')
    ran = kcl("run", cwd=stack, env=environment)
    assert ran.returncode == 0, ran.stderr
    compare_with_reference(
        stack, {"frame": tmp_path / "frame", "base": home / "base_1.0.0"}, ran.stdout
    )
