"""``kcl server`` against kcl-lib's API: the same requests, the same answers.

Each test posts requests to a real server over HTTP and asks kcl-lib (in a
subprocess) the same; it compares the fields a client reads. Where kcl-lib raises,
the envelope's ``error`` must be set (and ``result`` null); where it answers, the
result must match (``err_message`` by presence: the texts are each tool's own).
"""

from __future__ import annotations

import base64
import shutil
from pathlib import Path
from typing import Any

from server_helpers import Server, absolute, needs_reference, normal, reference

pytestmark = needs_reference


def _both(
    server: Server, folder: Path, requests: list[tuple[str, dict[str, Any]]]
) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    """(our envelope, the reference's answer) for each request."""
    theirs = reference(requests, folder)
    ours = [server.call(method, args) for method, args in requests]
    return list(zip(ours, theirs, strict=True))


def _same_outcome(ours: dict[str, Any], theirs: dict[str, Any]) -> None:
    assert bool(ours["error"]) == ("error" in theirs), (ours, theirs)
    assert (ours["result"] is None) == ("error" in theirs)


def test_exec_program(server: Server, workspace: Path) -> None:
    main = absolute(workspace, "main.k")
    requests: list[tuple[str, dict[str, Any]]] = [
        ("ExecProgram", {"k_filename_list": [main]}),
        ("ExecProgram", {"k_filename_list": [main], "args": [{"name": "env", "value": "prod"}]}),
        ("ExecProgram", {"k_filename_list": [main], "sort_keys": True}),
        ("ExecProgram", {"k_filename_list": [main], "path_selector": ["p.name"]}),
        ("ExecProgram", {"k_filename_list": [main], "overrides": ["b=3"]}),
        ("ExecProgram", {"k_filename_list": [main], "disable_yaml_result": True}),
        ("ExecProgram", {"work_dir": str(workspace), "k_filename_list": ["main.k"]}),
        ("ExecProgram", {"k_filename_list": ["x.k"], "k_code_list": ["a = None\nb = [1]"]}),
        (
            "ExecProgram",
            {"k_filename_list": ["x.k"], "k_code_list": ["a = None\nb = 1"], "disable_none": True},
        ),
        ("ExecProgram", {"k_filename_list": ["x.k"], "k_code_list": ["print('hi')\na = 1"]}),
        ("ExecProgram", {"k_filename_list": ["x.k"], "k_code_list": ["_h = 1\na = 2"]}),
        (
            "ExecProgram",
            {"k_filename_list": ["x.k"], "k_code_list": ["_h = 1\na = 2"], "show_hidden": True},
        ),
        ("ExecProgram", {"k_filename_list": ["x.k"], "k_code_list": ["assert False, 'boom'"]}),
        ("ExecProgram", {"k_filename_list": [absolute(workspace, "bad.k")]}),
        ("ExecProgram", {"k_filename_list": [absolute(workspace, "missing.k")]}),
        ("ExecProgram", {}),
    ]
    for (ours, theirs), (_, args) in zip(_both(server, workspace, requests), requests, strict=True):
        _same_outcome(ours, theirs)
        if "error" in theirs:
            continue
        result, expected = ours["result"], theirs["result"]
        for name in ("yaml_result", "json_result", "log_message"):
            assert result.get(name, "") == expected.get(name, ""), (name, args)
        assert ("err_message" in result) == ("err_message" in expected), args


def test_format_code(server: Server, workspace: Path) -> None:
    sources = ["a=1", "schema  P :\n  x:int=1\n", "a = [1,\n2]\n", "a=1 +", ""]
    requests = [("FormatCode", {"source": source}) for source in sources]
    for ours, theirs in _both(server, workspace, requests):
        _same_outcome(ours, theirs)
        expected = base64.b64decode(theirs["result"].get("formatted", "")).decode()
        assert base64.b64decode(ours["result"].get("formatted", "")).decode() == expected


def test_format_path_and_override_file(server: Server, workspace: Path) -> None:
    for name in ("ours", "theirs"):
        copy = workspace / name
        copy.mkdir(exist_ok=True)
        shutil.copy(workspace / "unformatted.k", copy / "u.k")
        shutil.copy(workspace / "main.k", copy / "o.k")

    def requests(name: str) -> list[tuple[str, dict[str, Any]]]:
        folder = workspace / name
        return [
            ("FormatPath", {"path": str(folder / "u.k"), "dry_run": True}),
            ("FormatPath", {"path": str(folder / "u.k")}),
            ("FormatPath", {"path": str(folder / "missing.k")}),
            ("OverrideFile", {"file": str(folder / "o.k"), "specs": ["b=5", "a=1"]}),
            ("OverrideFile", {"file": str(folder / "o.k"), "specs": ["b"]}),
            ("OverrideFile", {"file": str(folder / "missing.k"), "specs": ["b=1"]}),
        ]

    theirs = reference(requests("theirs"), workspace)
    ours = [server.call(method, args) for method, args in requests("ours")]
    for mine, expected in zip(ours, theirs, strict=True):
        _same_outcome(mine, expected)
        if "error" not in expected:
            mine_result = str(mine["result"]).replace("/ours/", "/")
            assert mine_result == str(expected["result"]).replace("/theirs/", "/")
    for name in ("u.k", "o.k"):
        assert (workspace / "ours" / name).read_text() == (workspace / "theirs" / name).read_text()


def test_lint_path(server: Server, workspace: Path) -> None:
    paths = ["bad.k", "lint.k", "main.k"]
    requests = [("LintPath", {"paths": [absolute(workspace, path)]}) for path in paths]
    for ours, theirs in _both(server, workspace, requests):
        _same_outcome(ours, theirs)
        assert ours["result"].get("results", []) == theirs["result"].get("results", [])


def test_list_variables_and_options(server: Server, workspace: Path) -> None:
    main, bad = absolute(workspace, "main.k"), absolute(workspace, "bad.k")
    requests: list[tuple[str, dict[str, Any]]] = [
        ("ListVariables", {"files": [main], "specs": ["p", "a", "b"]}),
        ("ListVariables", {"files": [main], "specs": ["p.name", "p.labels", "nope"]}),
        ("ListOptions", {"paths": [main]}),
    ]
    for ours, theirs in _both(server, workspace, requests):
        _same_outcome(ours, theirs)
        assert normal(ours["result"]) == normal(theirs["result"])
    (ours, theirs), *_ = _both(server, workspace, [("ListVariables", {"files": [bad]})])
    _same_outcome(ours, theirs)
    (our_error,) = ours["result"]["parse_errors"]
    (their_error,) = theirs["result"]["parse_errors"]
    assert our_error["code"] == their_error["code"] == "Error(InvalidSyntax)"
    assert our_error["messages"][0]["pos"]["filename"] == bad


def test_schema_type_mapping(server: Server, workspace: Path) -> None:
    main, nested = absolute(workspace, "main.k"), absolute(workspace, "nested.k")
    requests: list[tuple[str, dict[str, Any]]] = [
        ("GetSchemaTypeMapping", {"exec_args": {"k_filename_list": [main]}}),
        ("GetSchemaTypeMapping", {"exec_args": {"k_filename_list": [nested]}}),
        (
            "GetSchemaTypeMapping",
            {"exec_args": {"k_filename_list": [main]}, "schema_name": "Person"},
        ),
        ("GetSchemaTypeMapping", {"exec_args": {"k_filename_list": [main]}, "schema_name": "X"}),
    ]
    for ours, theirs in _both(server, workspace, requests):
        _same_outcome(ours, theirs)
        assert normal(ours["result"]) == normal(theirs["result"])


def test_validate_code(server: Server, workspace: Path) -> None:
    code = "schema P:\n    a: int\n    check:\n        a > 0\n"
    data = ['{"a": 1}', '{"a": "x"}', '{"a": -1}', "{", '{"a": 1, "b": 2}']
    requests = [("ValidateCode", {"code": code, "data": text}) for text in data]
    requests.append(("ValidateCode", {"code": code, "data": "a: 1", "format": "yaml"}))
    requests.append(("ValidateCode", {"code": code, "datafile": "missing.json"}))
    for ours, theirs in _both(server, workspace, requests):
        _same_outcome(ours, theirs)
        assert ours["result"].get("success", False) == theirs["result"].get("success", False)
        assert ("err_message" in ours["result"]) == ("err_message" in theirs["result"])


def test_test_method(server: Server, workspace: Path) -> None:
    requests: list[tuple[str, dict[str, Any]]] = [
        ("Test", {"pkg_list": [absolute(workspace, "tpkg")]}),
        ("Test", {"pkg_list": [absolute(workspace, "tpkg")], "run_regexp": "test_a"}),
        ("Test", {"pkg_list": [absolute(workspace, "missing")]}),
    ]
    for ours, theirs in _both(server, workspace, requests):
        _same_outcome(ours, theirs)
        mine = [(i["name"], "error" in i) for i in ours["result"].get("info", [])]
        expected = [(i["name"], "error" in i) for i in theirs["result"].get("info", [])]
        assert mine == expected


def test_settings_version_and_ping(server: Server, workspace: Path) -> None:
    requests: list[tuple[str, dict[str, Any]]] = [
        ("LoadSettingsFiles", {"work_dir": str(workspace), "files": ["kcl.yaml"]}),
        ("GetVersion", {}),
        ("Ping", {"value": "hello"}),
    ]
    (settings, their_settings), (version, their_version), (ping, their_ping) = _both(
        server, workspace, requests
    )
    assert settings["result"] == their_settings.get("result"), (settings, their_settings)
    assert version["result"]["version"] == their_version["result"]["version"]
    assert ping["result"] == their_ping["result"] == {"value": "hello"}
