"""``kcl server``'s HTTP side: routes, the envelope, hostile requests, bounds,
unsupported methods, the command line and a clean stop."""

from __future__ import annotations

import json
import signal
import socket
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from server_helpers import Server, absolute

from kclpy.server import METHODS, REQUESTS, UNSUPPORTED


def test_envelope_is_kcl_gos(server: Server) -> None:
    status, envelope, raw = server.request("BuiltinService.Ping", b'{"value": "a<b&c"}')
    assert status == 200 and envelope == {"error": "", "result": {"value": "a<b&c"}}
    assert raw == '{\n\t"error": "",\n\t"result": {\n\t\t"value": "a\\u003cb\\u0026c"\n\t}\n}\n'


def test_every_method_is_routed_and_answers_or_says_unsupported(server: Server) -> None:
    assert set(REQUESTS) == set(METHODS) | set(UNSUPPORTED)
    for method in UNSUPPORTED:
        status, envelope, _ = server.request(method, b"{}")
        assert status == 200 and envelope["result"] is None
        assert envelope["error"].startswith(f"{method} is not supported by kclpy's server")


def test_list_method_and_get_with_query(server: Server, workspace: Path) -> None:
    _, listed, _ = server.request("BuiltinService.ListMethod", b"")
    assert "KclService.ExecProgram" in listed["result"]["method_name_list"]
    main = absolute(workspace, "main.k")
    _, by_post, _ = server.request("KclService.ListOptions", json.dumps({"paths": [main]}).encode())
    status, by_get, _ = server.request("KclService.ListOptions", query=f"paths={main}", verb="GET")
    assert status == 200 and by_get == by_post and by_get["result"]["options"][0]["name"] == "env"
    query = f"exec_args.k_filename_list={main}&exec_args.sortKeys=true"
    _, schema, _ = server.request("KclService.GetSchemaTypeMapping", query=query, verb="GET")
    assert "Person" in schema["result"]["schema_type_mapping"]


@pytest.mark.parametrize(
    ("body", "status", "message"),
    [
        (b'{"k_filename_list"', 400, "not JSON"),
        (b"[1, 2]", 400, "cannot unmarshal array into message ExecProgramArgs"),
        (b'{"k_filename_list": "main.k"}', 400, "k_filename_list of type repeated string"),
        (b'{"sort_keys": "yes"}', 400, "sort_keys of type bool"),
        (b'{"verbose": 99999999999}', 400, "out of range"),
        (b'{"args": [{"name": 1}]}', 400, "args[0].name of type string"),
        (b"\xff\xfe", 400, "not UTF-8"),
        (b'{"unknown": 1}', 200, "No input KCL files or paths"),
    ],
)
def test_bad_requests_get_an_envelope(
    server: Server, body: bytes, status: int, message: str
) -> None:
    answered, envelope, _ = server.request("KclService.ExecProgram", body)
    assert answered == status
    assert message in envelope["error"] and envelope["result"] is None


def test_unknown_routes_and_verbs(server: Server) -> None:
    status, envelope, _ = server.request("KclService.Nope", b"{}")
    assert status == 404 and "no such route" in envelope["error"]
    status, envelope, _ = server.request("KclService.Ping", b"{}", verb="PUT")
    assert status == 405 and envelope["result"] is None


def test_concurrent_requests(server: Server, workspace: Path) -> None:
    body = json.dumps({"k_filename_list": [absolute(workspace, "main.k")]}).encode()
    with ThreadPoolExecutor(8) as pool:
        send = lambda _: server.request("KclService.ExecProgram", body)  # noqa: E731
        answers = list(pool.map(send, range(16)))
    assert {answer[1]["result"]["yaml_result"] for answer in answers} == {
        answers[0][1]["result"]["yaml_result"]
    }
    assert all(answer[0] == 200 for answer in answers)


def test_body_cap_and_timeout(workspace: Path) -> None:
    bounded = Server(workspace, "--max-body", "1K", "--timeout", "1")
    try:
        status, envelope, _ = bounded.request("KclService.FormatCode", b" " * 2048)
        assert status == 413 and "over the limit" in envelope["error"]
        slow = "a = len([1 for i in range(5000) for j in range(5000)])"
        body = json.dumps({"k_filename_list": ["slow.k"], "k_code_list": [slow]}).encode()
        status, envelope, _ = bounded.request("KclService.ExecProgram", body)
        assert status == 200 and "ResourceLimitError" in envelope["result"]["err_message"]
        ping = bounded.request("KclService.Ping", b'{"value": "still here"}')
        assert ping[1]["result"] == {"value": "still here"}
    finally:
        stopped = bounded.stop()
    assert stopped.returncode == 128 + signal.SIGTERM and "Traceback" not in stopped.stderr


def test_sigint_stops_cleanly(workspace: Path) -> None:
    running = Server(workspace)
    running.process.send_signal(signal.SIGINT)
    _, err = running.process.communicate(timeout=30)
    assert running.process.returncode == 128 + signal.SIGINT and "Traceback" not in err


def test_address_in_use_and_bad_port(workspace: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        busy = subprocess.run(
            [sys.executable, "-m", "kclpy", "server", "--http", f":{port}"],
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
    assert busy.returncode == 1 and f"cannot listen on 127.0.0.1:{port}" in busy.stderr
    assert "E9001" in busy.stderr and "Traceback" not in busy.stderr
    bad = subprocess.run(
        [sys.executable, "-m", "kclpy", "server", "--port", "70000"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert bad.returncode == 2 and "invalid port" in bad.stderr


def test_help() -> None:
    shown = subprocess.run(
        [sys.executable, "-m", "kclpy", "server", "--help"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert shown.returncode == 0
    for text in ("--http", "--port", "--timeout", "--max-body", "examples:", "exit codes:"):
        assert text in shown.stdout, text
