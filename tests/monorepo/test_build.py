"""kcl build: stack discovery, goldens (update/check/diff), failures isolated, worker
crashes retried, the report, the API and the installed command."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import attrs
import pytest

import kclpy
from kclpy.api import compile_stack
from kclpy.monorepo import BuildOptions, build
from kclpy.monorepo.stacks import discover
from tests.monorepo import crashing
from tests.monorepo.repo import write_repo

STACKS = ["stacks/a", "stacks/b", "stacks/c", "stacks/d"]


def _build(root: Path, **options: object) -> kclpy.monorepo.BuildReport:
    settings = BuildOptions(paths=[str(root)], root=str(root), jobs=0)
    return build(attrs.evolve(settings, **options), compile_stack)


def test_discovery_finds_every_kind_of_stack(tmp_path: Path) -> None:
    write_repo(tmp_path, broken=True)
    stacks = {s.name: s for s in discover([str(tmp_path)], str(tmp_path))}
    assert sorted(stacks) == ["broken/e", *STACKS]
    assert stacks["stacks/b"].files == ("main.k", "more.k")
    assert stacks["stacks/c"].files == (str(tmp_path / "stacks/c/app.k"),)
    assert stacks["stacks/c"].options == ('env="prod"',)
    assert dict(stacks["stacks/a"].externals) == {"models": str(tmp_path / "models")}
    assert stacks["stacks/d"].files == ("main.k",)


def test_update_then_check(tmp_path: Path) -> None:
    write_repo(tmp_path)
    report = _build(tmp_path, mode="update")
    assert [r.status for r in report.results] == ["updated"] * 4
    golden = tmp_path / "stacks/b/ci-test/stdout.golden.yaml"
    assert golden.read_text() == (
        "item:\n  name: b\n  owner: platform\n  size: 1\nother:\n  name: b2\n  owner: platform\n"
    )
    assert (tmp_path / "stacks/c/ci-test/stdout.golden.yaml").read_text() == "env: prod\n"
    report = _build(tmp_path, mode="check")
    assert report.ok and [r.status for r in report.results] == ["unchanged"] * 4
    assert report.summary().startswith("4 built, 0 changed, 0 failed in ")


def test_check_reports_the_changed_stacks_with_a_diff(tmp_path: Path) -> None:
    write_repo(tmp_path)
    _build(tmp_path, mode="update")
    extra = tmp_path / "models/extra/extra.k"
    extra.write_text(extra.read_text().replace("size: int = 1", "size: int = 2"))
    report = _build(tmp_path, mode="check", diff=True)
    changed = {r.stack: r for r in report.results if r.status == "changed"}
    assert list(changed) == ["stacks/b"]
    assert "-  size: 1\n+  size: 2\n" in changed["stacks/b"].diff
    assert not report.ok


def test_a_failing_stack_does_not_stop_the_others(tmp_path: Path) -> None:
    write_repo(tmp_path, broken=True)
    report = _build(tmp_path, mode="build", jobs=2)
    statuses = {r.stack: r.status for r in report.results}
    assert statuses == {"broken/e": "failed", **{name: "ok" for name in STACKS}}
    failed = next(r for r in report.results if r.status == "failed")
    assert "E2G22" in failed.diagnostics and "main.k:1" in failed.diagnostics
    assert report.summary().startswith("4 built, 0 changed, 1 failed")


def test_a_worker_crash_is_retried_once_then_reported(tmp_path: Path) -> None:
    write_repo(tmp_path)
    options = BuildOptions(paths=[str(tmp_path)], root=str(tmp_path), jobs=2)
    report = build(options, crashing.crash_on_d)
    statuses = {r.stack: r.status for r in report.results}
    assert statuses == {"stacks/a": "ok", "stacks/b": "ok", "stacks/c": "ok", "stacks/d": "failed"}
    assert "worker crashed (exit code 17)" in report.results[3].diagnostics
    retried = build(options, crashing.crash_once_on_d)
    assert [r.status for r in retried.results] == ["ok"] * 4


def test_outputs_equal_kcl_run_in_the_stack_folder(tmp_path: Path) -> None:
    write_repo(tmp_path)
    report = _build(tmp_path, mode="update", jobs=2)
    assert report.ok
    for name in ("stacks/a", "stacks/d"):
        run = subprocess.run(
            [sys.executable, "-m", "kclpy", "run", "main.k", "-E", f"models={tmp_path / 'models'}"],
            cwd=tmp_path / name,
            capture_output=True,
            text=True,
            check=True,
        )
        assert (tmp_path / name / "ci-test/stdout.golden.yaml").read_text() == run.stdout


def test_json_report_and_exit_codes_through_the_command(tmp_path: Path) -> None:
    write_repo(tmp_path, broken=True)
    kcl = [sys.executable, "-m", "kclpy", "build"]
    done = subprocess.run(
        [*kcl, "stacks", "--update", "-j", "1"], cwd=tmp_path, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[-1].startswith("4 built, 4 changed, 0 failed in ")
    done = subprocess.run(
        [*kcl, "--check", "--format", "json", "-j", "2"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 1
    report = json.loads(done.stdout)
    assert report["summary"]["stacks"] == 5 and report["summary"]["failed"] == 1
    by_name = {item["stack"]: item for item in report["stacks"]}
    assert by_name["stacks/a"]["status"] == "unchanged"
    assert len(by_name["stacks/a"]["output_sha256"]) == 64
    assert by_name["broken/e"]["status"] == "failed"
    done = subprocess.run([*kcl, "no-such-folder"], cwd=tmp_path, capture_output=True, text=True)
    assert done.returncode == 2 and "no such folder" in done.stderr


def test_the_api_function(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write_repo(tmp_path)
    monkeypatch.chdir(tmp_path)
    report = kclpy.build(["stacks"], jobs=0, update=True)
    assert [r.stack for r in report.results] == STACKS
    assert kclpy.build("stacks", jobs=0, check=True).ok


@pytest.mark.parametrize("mode", ["check", "update"])
def test_a_golden_that_cannot_be_read_fails_its_stack(tmp_path: Path, mode: str) -> None:
    write_repo(tmp_path)
    golden = tmp_path / "stacks/d/ci-test/stdout.golden.yaml"
    golden.parent.mkdir(parents=True)
    golden.write_bytes(b"\xff\xfe not utf-8")
    report = _build(tmp_path, mode=mode)
    result = {r.stack: r for r in report.results}["stacks/d"]
    assert result.status == "failed" and "golden file" in result.diagnostics
