"""Helpers of the ``kcl server`` tests: a real server process on 127.0.0.1 (a free
port the system chooses, ``--port 0``) in a folder of KCL files, a urllib client, and
kcl-lib's API answering the same requests in a subprocess."""

from __future__ import annotations

import json
import os
import queue
import signal
import subprocess
import sys
import threading
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path
from typing import Any

import pytest
from reference import ReferenceFailed, call_reference, reference_available

START_TIMEOUT = 60.0
STOP_TIMEOUT = 30.0

MAIN_K = '''\
schema Person:
    """A person.

    Attributes
    ----------
    name : str, required
        the name
    """
    name: str
    age?: int = 1
    tags: [str] = []
    labels: {str:str}
    kind: "a" | "b" = "a"

p = Person {name = "x", labels = {}}
a = option("env", type="str", default="dev", help="the env")
b: int = 2
items = [1, 2, {k = "v"}]
'''

NESTED_K = """\
schema Base:
    id: int

schema Node(Base):
    name: str
    child?: Node
    kids: [Base] = []
    f?: (int) -> int
    n?: int | str | None
    m: {str:[int]} = {}
"""

FILES = {
    "main.k": MAIN_K,
    "nested.k": NESTED_K,
    "bad.k": "a = 1 +\n",
    "unformatted.k": "a=1\nb =  [1,2]\n",
    "lint.k": "import math\na = 1\n",
    "tpkg/main.k": "x = 1\n",
    "tpkg/main_test.k": "test_a = lambda { assert x == 1 }\n"
    'test_b = lambda { assert x == 2, "nope" }\n',
    "kcl.yaml": "kcl_cli_configs:\n  files:\n    - main.k\n  disable_none: true\n"
    "  sort_keys: true\nkcl_options:\n  - key: env\n    value: prod\n  - key: n\n    value: 3\n",
}


class Server:
    """A ``kcl server`` process and a client for it."""

    def __init__(self, folder: Path, *options: str) -> None:
        self.folder = folder
        self.process = subprocess.Popen(
            [sys.executable, "-m", "kclpy", "server", "--port", "0", *options],
            cwd=folder,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        lines: queue.Queue[str] = queue.Queue()
        assert self.process.stdout is not None
        stdout = self.process.stdout
        threading.Thread(target=lambda: lines.put(stdout.readline()), daemon=True).start()
        try:
            first = lines.get(timeout=START_TIMEOUT)
        except queue.Empty:
            self.process.kill()
            raise AssertionError("kcl server did not start") from None
        assert first.startswith("listen on http://127.0.0.1:"), first
        self.url = first.split()[2]
        self.stopped: subprocess.CompletedProcess[str] | None = None

    def request(
        self, method: str, body: bytes | None = None, *, query: str = "", verb: str = "POST"
    ) -> tuple[int, dict[str, Any], str]:
        """(status, the envelope, the raw body) of one request."""
        url = f"{self.url}/api:protorpc/{method}" + (f"?{query}" if query else "")
        request = urllib.request.Request(url, data=body, method=verb)
        try:
            with urllib.request.urlopen(request, timeout=120) as answer:
                status, raw = answer.status, answer.read().decode()
                assert answer.headers["Content-Type"] == "application/json"
        except urllib.error.HTTPError as error:
            status, raw = error.code, error.read().decode()
        return status, json.loads(raw), raw

    def call(self, method: str, args: dict[str, Any]) -> dict[str, Any]:
        """The envelope of a POST of ``args`` to ``KclService.<method>``."""
        status, envelope, _ = self.request(f"KclService.{method}", json.dumps(args).encode())
        assert status == 200, envelope
        return envelope

    def stop(self) -> subprocess.CompletedProcess[str]:
        """SIGTERM, then the finished process (its exit code and output)."""
        if self.stopped is None:
            self.process.send_signal(signal.SIGTERM)
            out, err = self.process.communicate(timeout=STOP_TIMEOUT)
            self.stopped = subprocess.CompletedProcess(
                self.process.args, self.process.returncode, out, err
            )
        return self.stopped


_REFERENCE = r"""
import json, sys
import kcl_lib.api as api
from google.protobuf import json_format

REQUESTS = json.loads(sys.stdin.read())
answers = []
for method, message, args in REQUESTS:
    service = api.API()
    name = "".join("_" + c.lower() if c.isupper() else c for c in method).lstrip("_")
    try:
        request = json_format.ParseDict(args, getattr(api, message)())
        function = getattr(service, name)
        result = function() if method == "GetVersion" else function(request)
        shape = json_format.MessageToDict(result, preserving_proto_field_name=True)
        answers.append({"result": shape})
    except Exception as error:
        answers.append({"error": str(error)})
sys.stdout.write(json.dumps(answers))
"""

HAVE_REFERENCE = reference_available()
needs_reference = pytest.mark.skipif(not HAVE_REFERENCE, reason="kcl_lib is not installed")


def reference(requests: list[tuple[str, dict[str, Any]]], cwd: Path) -> list[dict[str, Any]]:
    """kcl-lib's answers to ``(method, args)`` requests, as ``{"result": ...}`` (its
    protobuf JSON, snake_case) or ``{"error": ...}``."""
    from kclpy.server import REQUESTS

    payload = [(method, REQUESTS[f"KclService.{method}"], args) for method, args in requests]
    try:
        answers: list[dict[str, Any]] = call_reference(_REFERENCE, payload, cwd=cwd)
    except ReferenceFailed as error:
        pytest.fail(f"the reference failed: {error}")
    return answers


def normal(value: Any) -> Any:
    """Numbers as protobuf's JSON writes 64-bit ones (strings), to compare answers."""
    if isinstance(value, dict):
        return {key: normal(item) for key, item in value.items()}
    if isinstance(value, list):
        return [normal(item) for item in value]
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    return value


def absolute(folder: Path, name: str) -> str:
    return os.path.join(str(folder), name)
