"""Checks of the reference oracle helper (tests/reference.py) on tiny programs.

Skipped when the reference KCL (``kcl_lib``) is not installed.
"""

from __future__ import annotations

from pathlib import Path

import pytest

try:
    from reference import (
        ReferenceFailed,
        build_request,
        call_reference,
        reference_available,
        run_reference,
    )
except ImportError:  # tests/ imported as a package
    from tests.reference import (  # type: ignore[no-redef]
        ReferenceFailed,
        build_request,
        call_reference,
        reference_available,
        run_reference,
    )

needs_reference = pytest.mark.skipif(not reference_available(), reason="kcl_lib not installed")


@needs_reference
def test_schema_program_prints_yaml() -> None:
    code = (
        "schema Person:\n"
        "    name: str\n"
        "    age: int = 30\n"
        "\n"
        'alice = Person {name = "alice"}\n'
        "_hidden = 1\n"
        "total = alice.age + 12\n"
    )
    result = run_reference(code)
    assert result.ok, result.stderr
    assert result.stdout == "alice:\n  name: alice\n  age: 30\ntotal: 42\n"
    assert result.documents() == [{"alice": {"name": "alice", "age": 30}, "total": 42}]


@needs_reference
def test_files_and_options(tmp_path: Path) -> None:
    (tmp_path / "base.k").write_text('config = {env = option("env"), replicas = 1}\n')
    (tmp_path / "extra.k").write_text('port = option("port", default=80)\nprint("port is", port)\n')
    result = run_reference(
        files=["base.k", "extra.k"], args=["-D", "env=prod", "-D", "port=8080"], cwd=tmp_path
    )
    assert result.ok, result.stderr
    assert result.stdout == ("port is 8080\nconfig:\n  env: prod\n  replicas: 1\nport: 8080\n")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["base.k", "extra.k"]


@needs_reference
def test_error_goes_to_stderr() -> None:
    result = run_reference('a = 1\nassert a > 1, "a must be greater than one"\n')
    assert result.returncode == 1
    assert result.stdout == ""
    assert "a must be greater than one" in result.stderr
    assert result.stderr.startswith("error[")
    assert "\x1b[" not in result.stderr


def test_build_request_parses_run_options() -> None:
    request = build_request(
        ["main.k"],
        [
            "-D",
            "n=1",
            "-D",
            "s=text",
            "-E",
            "k8s=/m",
            "-S",
            "a.b",
            "-k",
            "--format",
            "json",
            "extra.k",
        ],
    )
    assert request["files"] == ["main.k", "extra.k"]
    assert request["options"] == [["n", "1"], ["s", '"text"']]
    assert request["externals"] == [["k8s", "/m"]]
    assert request["selectors"] == ["a.b"]
    assert request["sort_keys"] is True and request["disable_none"] is False
    assert request["format"] == "json"
    with pytest.raises(ValueError):
        build_request([], ["-D", "novalue"])


@needs_reference
def test_call_reference_sends_and_returns_json() -> None:
    script = "import json, sys, kcl_lib.api\njson.dump(json.load(sys.stdin)[::-1], sys.stdout)"
    assert call_reference(script, [1, "two"]) == ["two", 1]


def test_call_reference_reports_a_failing_script() -> None:
    with pytest.raises(ReferenceFailed, match="boom"):
        call_reference("import sys\nsys.exit('boom')", None)
    with pytest.raises(ReferenceFailed, match="no JSON"):
        call_reference("print('not json')", None)
