"""Real `kcl kusion` processes for the fault-injection tests, and what to check after them.

``KusionProcess`` starts ``python -m kclpy kusion ARGS`` in its own session
(so the signals a test sends reach only it), optionally held at a pause point
(see ``kclpy.kusion.faults``). ``chain`` writes a chain of Terraform
``terraform_data`` resources whose create and destroy provisioners append
their name to ``created.log`` / ``destroyed.log``: the real count of each
resource's creations and deletions, which must be exactly one.
"""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import yaml

PREFIX = "hashicorp:terraform:terraform_data:"
WAIT_SECONDS = 120.0


def chain(workdir: Path, names: list[str], slow: str = "", seconds: float = 2.0) -> Path:
    """A spec of terraform_data resources, each depending on the previous by reference.

    The create provisioner of ``slow`` touches ``started-<name>`` and sleeps
    ``seconds`` first, so a test can kill kclpy while Terraform is applying it.
    """
    resources = []
    for index, name in enumerate(names):
        create = f"echo {name} >> {workdir / 'created.log'}"
        if name == slow:
            create = f"touch {workdir / ('started-' + name)} && sleep {seconds} && {create}"
        attributes: dict[str, Any] = {
            "input": name if index == 0 else f"$kusion_path.{PREFIX}{names[index - 1]}.output",
            "provisioner": [
                {"local-exec": {"command": create}},
                {
                    "local-exec": {
                        "when": "destroy",
                        "command": f"echo {name} >> {workdir / 'destroyed.log'}",
                    }
                },
            ],
        }
        resources.append({"id": PREFIX + name, "type": "Terraform", "attributes": attributes})
    spec = workdir / "spec.yaml"
    spec.write_text(yaml.safe_dump({"resources": resources}), encoding="utf-8")
    return spec


def lines(path: Path) -> list[str]:
    try:
        return sorted(path.read_text(encoding="utf-8").split())
    except FileNotFoundError:
        return []


class KusionProcess:
    """One `kcl kusion` command running as a real child process."""

    def __init__(self, workdir: Path, *args: str, pause_at: str = "", env: Any = None) -> None:
        environment = dict(os.environ if env is None else env)
        self.pause_file = workdir / "paused"
        if pause_at:
            environment["KCLPY_KUSION_PAUSE_AT"] = pause_at
            environment["KCLPY_KUSION_PAUSE_FILE"] = str(self.pause_file)
        command = [sys.executable, "-m", "kclpy", "kusion", *args, "--workdir", str(workdir)]
        self.process = subprocess.Popen(
            command,
            cwd=workdir,
            env=environment,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            start_new_session=True,
        )

    def wait_for(self, path: Path) -> None:
        """Block until ``path`` exists (the process reached a point), or fail the test."""
        deadline = time.monotonic() + WAIT_SECONDS
        while not path.exists():
            if self.process.poll() is not None:
                out, err = self.process.communicate()
                raise AssertionError(f"exited {self.process.returncode} first:\n{out}\n{err}")
            assert time.monotonic() < deadline, f"{path} never appeared"
            time.sleep(0.02)

    def send(self, number: signal.Signals) -> None:
        os.kill(self.process.pid, number)

    def finish(self, timeout: float = WAIT_SECONDS) -> tuple[int, str, str]:
        try:
            out, err = self.process.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.process.kill()  # never leave it running; its Terraform child ends on its own
            out, err = self.process.communicate()
            raise AssertionError(f"still running after {timeout}s:\n{out}\n{err}") from None
        return self.process.returncode, out, err


def run(
    workdir: Path, *args: str, env: Any = None, timeout: float = WAIT_SECONDS
) -> tuple[int, str, str]:
    return KusionProcess(workdir, *args, env=env).finish(timeout)


def latest_release(workdir: Path) -> dict[str, Any]:
    """The latest release row of the default SQLite state, read directly."""
    with sqlite3.connect(workdir / ".kusion" / "state.db") as connection:
        row = connection.execute(
            "SELECT revision, phase, state FROM kusion_releases ORDER BY revision DESC LIMIT 1"
        ).fetchone()
        intents = connection.execute("SELECT resource_id FROM kusion_intents").fetchall()
    if row is None:  # no release at all (an apply stopped before it changed anything)
        return {"revision": 0, "phase": None, "ids": [], "intents": [i[0] for i in intents]}
    return {
        "revision": row[0],
        "phase": row[1],
        "ids": sorted(item["id"].removeprefix(PREFIX) for item in json.loads(row[2])),
        "intents": [item[0] for item in intents],
    }


def terraform_reality(workdir: Path) -> list[str]:
    """The resources Terraform's own states hold, over every workspace of the project."""
    found = []
    for state in (workdir / ".kusion" / "terraform").rglob("terraform.tfstate"):
        document = json.loads(state.read_text(encoding="utf-8"))
        for resource in document.get("resources") or []:
            if resource.get("instances"):
                found.append(resource["name"])
    return sorted(found)
