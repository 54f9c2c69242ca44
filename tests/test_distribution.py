"""The distribution as a user gets it: the sdist and the wheel built with a standard PEP 517
front end (``python -m build``, the wheel from the sdist), the wheel installed (not
editable) into a fresh virtual environment, and the installed product smoke-tested there
from a folder outside the checkout: ``kcl version``, ``kcl run`` of the shipped example,
``import kclpy``, a ``kcl lsp`` initialize handshake and ``kcl kusion preview`` of a Local
spec. Also: the distribution's name is ``kclpy-toolchain`` (``kclpy`` on package indexes is
an unrelated project) and every install hint uses it."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest

import kclpy

ROOT = Path(__file__).resolve().parents[1]
NAME = "kclpy-toolchain"
HINT = re.compile(r"pip install [\"']?kclpy\[")


def test_every_install_hint_names_the_distribution() -> None:
    assert kclpy.DISTRIBUTION == NAME
    assert kclpy.install_hint("lsp") == f"pip install '{NAME}[lsp]'"
    wrong = []
    for folder in ("src", "lsp", "docs", "README.md", "pyproject.toml"):
        path = ROOT / folder
        files = [path] if path.is_file() else path.rglob("*")
        for file in files:
            if "node_modules" in file.parts or not file.is_file():
                continue
            if file.suffix not in {".py", ".md", ".ts", ".toml", ".json"}:
                continue
            text = file.read_text(encoding="utf-8", errors="replace")
            wrong.extend(f"{file}: {m.group(0)}" for m in HINT.finditer(text))
    assert not wrong


def _run(command: list[str], cwd: Path, **kwargs: object) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(
        command,
        cwd=cwd,
        capture_output=True,
        text=True,
        check=False,
        timeout=600,
        **kwargs,  # type: ignore[call-overload]
    )
    assert done.returncode == 0, f"{command}\n{done.stdout}\n{done.stderr}"
    return done


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh venv with the built wheel (and its lsp extra) installed; its bin folder."""
    pytest.importorskip("build", reason="the PEP 517 front end `build` (test extra) is missing")
    work = tmp_path_factory.mktemp("dist")
    outdir = work / "dist"
    _run([sys.executable, "-m", "build", "--outdir", str(outdir), str(ROOT)], work)
    wheels = list(outdir.glob("*.whl"))
    sdists = list(outdir.glob("*.tar.gz"))
    assert len(wheels) == 1 and len(sdists) == 1, os.listdir(outdir)
    version = kclpy.__version__
    assert wheels[0].name == f"kclpy_toolchain-{version}-py3-none-any.whl"
    assert sdists[0].name == f"kclpy_toolchain-{version}.tar.gz"
    venv = work / "venv"
    _run([sys.executable, "-m", "venv", str(venv)], work)
    pip = [str(venv / "bin" / "python"), "-m", "pip", "install", "-q"]
    _run([*pip, f"{wheels[0]}[lsp]"], work)
    return venv / "bin"


def test_the_wheel_holds_the_product_and_nothing_else(installed: Path) -> None:
    wheel = next((installed.parent.parent / "dist").glob("*.whl"))
    names = zipfile.ZipFile(wheel).namelist()
    tops = {name.split("/")[0] for name in names}
    assert tops == {"kclpy", "kclpy_lsp", f"kclpy_toolchain-{kclpy.__version__}.dist-info"}
    for needed in ("kclpy/py.typed", "kclpy/syntax/parsetab.py", "kclpy/patterntab.py"):
        assert needed in names
    metadata = next(n for n in names if n.endswith("dist-info/METADATA"))
    text = zipfile.ZipFile(wheel).read(metadata).decode()
    assert f"Name: {NAME}\n" in text and f"Version: {kclpy.__version__}\n" in text
    sdist = next((installed.parent.parent / "dist").glob("*.tar.gz"))
    with tarfile.open(sdist) as archive:
        members = archive.getnames()
    assert any(m.endswith("src/kclpy/__init__.py") for m in members)


def test_installed_commands_work_outside_the_checkout(installed: Path, tmp_path: Path) -> None:
    kcl = str(installed / "kcl")
    env = {k: v for k, v in os.environ.items() if k not in {"PYTHONPATH", "VIRTUAL_ENV"}}
    env["KCLPY_NO_CACHE"] = "1"
    done = _run([kcl, "version"], tmp_path, env=env)
    assert done.stdout.startswith(f"kclpy {kclpy.__version__} ")
    (tmp_path / "main.k").write_text((ROOT / "examples/hello/main.k").read_text())
    ran = _run([kcl, "run", "main.k"], tmp_path, env=env)
    expected = _run([sys.executable, "-m", "kclpy", "run", "main.k"], tmp_path, env=env)
    assert ran.stdout == expected.stdout and ran.stdout
    where = _run(
        [str(installed / "python"), "-c", "import kclpy; print(kclpy.__file__)"], tmp_path, env=env
    )
    assert str(installed.parent) in where.stdout and str(ROOT) not in where.stdout
    spec = tmp_path / "spec.yaml"
    spec.write_text(
        "resources:\n- id: hello\n  type: Local\n  attributes: {path: hello.txt, content: hi}\n"
    )
    preview = _run([kcl, "kusion", "preview", "--spec", str(spec)], tmp_path, env=env)
    assert "hello" in preview.stdout and "Create" in preview.stdout
    assert not (tmp_path / "hello.txt").exists()


def test_installed_language_server_answers_initialize(installed: Path, tmp_path: Path) -> None:
    body = json.dumps(
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {"processId": None, "rootUri": None, "capabilities": {}},
        }
    ).encode()
    exit_messages = [
        {"jsonrpc": "2.0", "id": 2, "method": "shutdown"},
        {"jsonrpc": "2.0", "method": "exit"},
    ]
    stream = b"Content-Length: %d\r\n\r\n%s" % (len(body), body)
    for message in exit_messages:
        data = json.dumps(message).encode()
        stream += b"Content-Length: %d\r\n\r\n%s" % (len(data), data)
    done = subprocess.run(
        [str(installed / "kcl"), "lsp"],
        input=stream,
        capture_output=True,
        cwd=tmp_path,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr.decode()
    header, _, rest = done.stdout.partition(b"\r\n\r\n")
    fields = dict(line.split(b": ", 1) for line in header.split(b"\r\n"))
    length = int(fields[b"Content-Length"])
    answer = json.loads(rest[:length])
    assert answer["id"] == 1 and "capabilities" in answer["result"]
    assert answer["result"]["serverInfo"]["version"] == kclpy.__version__
