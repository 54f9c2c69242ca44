"""``kcl registry login`` and ``kcl mod pull`` under ``-q`` and ``-v`` against a real
registry (the docker-registry of conftest.py): no success message, and the ``-v``
lines say where credentials and packages go, never the password."""

from __future__ import annotations

from pathlib import Path

from tests.mod.conftest import kcl


def test_login_quiet_and_verbose(registry: str, home: Path, tmp_path: Path) -> None:
    loud = kcl("registry", "login", registry, "-u", "me", "-p", "pw-secret", cwd=tmp_path)
    assert loud.returncode == 0 and loud.stdout == "Login succeeded\n"
    quiet = kcl("registry", "login", registry, "-u", "me", "-p", "pw-secret", "-q", "-v",
                cwd=tmp_path)  # fmt: skip
    assert quiet.returncode == 0 and quiet.stdout == ""
    assert f"kcl: storing the credentials of {registry} in {home}" in quiet.stderr
    assert "pw-secret" not in quiet.stderr


def test_pull_quiet_and_verbose(registry: str, home: Path, tmp_path: Path) -> None:
    package = tmp_path / "demo"
    assert kcl("mod", "init", "demo", "-q", cwd=tmp_path).returncode == 0
    pushed = kcl("mod", "push", f"oci://{registry}/kcl/demo", "-q", cwd=package)
    assert pushed.returncode == 0 and pushed.stdout == "", pushed.stderr
    pulled = kcl("mod", "pull", f"oci://{registry}/kcl/demo", "--tag", "0.0.1", "-q", "-v",
                 cwd=tmp_path)  # fmt: skip
    assert pulled.returncode == 0, pulled.stderr
    assert pulled.stdout == ""
    assert f"into the package cache {home}" in pulled.stderr
