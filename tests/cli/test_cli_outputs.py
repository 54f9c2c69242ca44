"""``-o`` and in-place writes: atomic, through symlinks, into FIFOs and devices, clear
errors for folders and missing folders, nothing left behind after SIGTERM or SIGKILL."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from cli_helpers import kcl, write

RESULT = "a: 1\n"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return write(tmp_path, {"main.k": "a = 1\n"})


def _strays(folder: Path) -> list[str]:
    return sorted(path.name for path in folder.rglob(".kclpy-*"))


def test_a_new_file_and_a_replaced_one_keep_their_permissions(project: Path) -> None:
    assert kcl("run", "main.k", "-o", "out.yaml", cwd=project).returncode == 0
    out = project / "out.yaml"
    assert out.read_text() == RESULT
    out.chmod(0o640)
    assert kcl("run", "main.k", "-o", "out.yaml", cwd=project).returncode == 0
    assert out.stat().st_mode & 0o777 == 0o640 and _strays(project) == []


def test_a_symlink_is_written_through(project: Path) -> None:
    (project / "real").mkdir()
    link = project / "link.yaml"
    link.symlink_to(project / "real" / "target.yaml")  # dangling: the target is created
    assert kcl("run", "main.k", "-o", "link.yaml", cwd=project).returncode == 0
    assert link.is_symlink() and (project / "real" / "target.yaml").read_text() == RESULT
    write(project, {"source.k": "a=1\n"})
    (project / "alias.k").symlink_to("source.k")
    assert kcl("fmt", "alias.k", cwd=project).returncode == 0
    assert (project / "alias.k").is_symlink()
    assert (project / "source.k").read_text() == "a = 1\n"


def test_a_fifo_and_a_device_are_written_into(project: Path) -> None:
    fifo = project / "pipe"
    os.mkfifo(fifo)
    received: list[bytes] = []
    reader = threading.Thread(target=lambda: received.append(fifo.read_bytes()))
    reader.start()
    done = kcl("run", "main.k", "-o", str(fifo), cwd=project)
    reader.join(timeout=60)
    assert done.returncode == 0 and received == [RESULT.encode()]
    assert fifo.exists() and not fifo.is_file()
    assert kcl("run", "main.k", "-o", os.devnull, cwd=project).returncode == 0
    assert Path(os.devnull).is_char_device()


@pytest.mark.parametrize(
    ("target", "reason"),
    [("missing/out.yaml", "its folder does not exist"), (".", "it is a folder")],
)
def test_unwritable_places_are_plain_errors(project: Path, target: str, reason: str) -> None:
    done = kcl("run", "main.k", "-o", target, cwd=project)
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert done.stderr == f"error[E9001]: IOError\ncannot write {target}: {reason}\n"
    assert not (project / "missing").exists() and _strays(project) == []


@pytest.mark.parametrize("sent", [signal.SIGTERM, signal.SIGKILL])
def test_a_killed_run_leaves_the_old_output_and_no_temporary_file(
    project: Path, sent: signal.Signals
) -> None:
    write(project, {"slow.k": "a = len([i * 2 for i in range(100000000)])\n"})
    out = write(project, {"out.yaml": "old\n"}) / "out.yaml"
    process = subprocess.Popen(
        [sys.executable, "-m", "kclpy", "run", "slow.k", "-o", "out.yaml", "-v"],
        cwd=project,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stderr is not None
        line = process.stderr.readline()  # -v: the run has started
        assert "settings" in line or "entry files" in line
        process.send_signal(sent)
        process.wait(timeout=60)
    finally:
        process.kill()
        process.wait()
    assert process.returncode == (128 + sent if sent == signal.SIGTERM else -sent)
    assert out.read_text() == "old\n" and _strays(project) == []


def test_memory_exhaustion_is_a_program_error(project: Path) -> None:
    """A run that needs more memory than allowed (RLIMIT_AS) ends with exit 1 and a
    coded message, not the internal-error exit 3."""
    resource = pytest.importorskip("resource")
    write(project, {"big.k": "a = [[i] * 1000 for i in range(100000000)]\n"})
    limit = 700 * 1024 * 1024

    def limit_memory() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))

    done = subprocess.run(
        [sys.executable, "-m", "kclpy", "run", "big.k"],
        cwd=project,
        capture_output=True,
        text=True,
        check=False,
        timeout=600,
        preexec_fn=limit_memory,
    )
    assert done.returncode == 1, done.stderr
    # the run's own limit (the default follows RLIMIT_AS) or a MemoryError: both E3R01
    assert done.stderr.startswith("error[E3R01]: ResourceLimitError\n"), done.stderr


def test_xml_as_the_real_cli_shapes_it(tmp_path: Path) -> None:
    write(
        tmp_path,
        {
            "main.k": 'app = {name = "a<b>", n = 3, big = 1e6, on = True, off = None}\n'
            'tags = ["x", ["y"]]\n',
            "stream.k": "import manifests\nmanifests.yaml_stream([{a = 1.5}, {b = 'q'}])\n",
            "bad.k": 'app = {"a b" = 1}\n',
        },
    )
    done = kcl("run", "main.k", "--format", "xml", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout == (
        '<?xml version="1.0" encoding="UTF-8"?>\n<root><app><name>a&lt;b&gt;</name><n>3</n>'
        "<big>1e+06</big><on>true</on><off></off></app>"
        "<tags><item>x</item><item><item>y</item></item></tags></root>\n"
    )
    stream = kcl("run", "stream.k", "--format", "xml", cwd=tmp_path)
    assert stream.stdout.endswith(
        "<results>\n  <root><a>1.5</a></root>\n  <root><b>q</b></root>\n</results>\n"
    )
    bad = kcl("run", "bad.k", "--format", "xml", cwd=tmp_path)
    assert bad.returncode == 1 and "'a b' cannot be an XML element name" in bad.stderr
