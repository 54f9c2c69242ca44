"""kcl build --cluster: the same build on a real Dask LocalCluster (worker processes)."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import attrs
import pytest

from kclpy.api import compile_stack
from kclpy.monorepo import BuildError, BuildOptions, build
from tests.monorepo import crashing
from tests.monorepo.repo import write_repo

distributed = pytest.importorskip("distributed", reason="dask distributed is not installed")
dask = pytest.importorskip("dask")


@pytest.fixture(scope="module")
def cluster() -> Iterator[str]:
    # a killed worker's task fails at once (no rescheduling), so the crash test is quick
    with (
        dask.config.set({"distributed.scheduler.allowed-failures": 0}),
        distributed.LocalCluster(
            n_workers=2,
            threads_per_worker=1,
            processes=True,
            host="127.0.0.1",
            dashboard_address=None,
            silence_logs=40,
        ) as local,
    ):
        yield local.scheduler_address


def _options(root: Path, address: str, **extra: object) -> BuildOptions:
    options = BuildOptions(paths=[str(root)], root=str(root), cluster=address, batch_size=2)
    return attrs.evolve(options, **extra)


def test_cluster_build_equals_local_build(tmp_path: Path, cluster: str) -> None:
    write_repo(tmp_path, broken=True)
    local = build(BuildOptions(paths=[str(tmp_path)], root=str(tmp_path), jobs=0), compile_stack)
    remote = build(_options(tmp_path, cluster), compile_stack)
    assert [(r.stack, r.status, r.output_sha256) for r in remote.results] == [
        (r.stack, r.status, r.output_sha256) for r in local.results
    ]
    assert remote.failed == 1


def test_shipped_repository(tmp_path: Path, cluster: str) -> None:
    write_repo(tmp_path)
    build(
        BuildOptions(paths=[str(tmp_path)], root=str(tmp_path), jobs=0, mode="update"),
        compile_stack,
    )
    report = build(_options(tmp_path, cluster, ship=True, mode="check"), compile_stack)
    assert report.ok and [r.status for r in report.results] == ["unchanged"] * 4


@pytest.mark.parametrize("batch_size", [1, 2])
def test_a_crashing_stack_is_isolated(tmp_path: Path, cluster: str, batch_size: int) -> None:
    # a dying worker fails every task queued on it: the neighbours of d rerun alone
    write_repo(tmp_path)
    report = build(_options(tmp_path, cluster, batch_size=batch_size), crashing.crash_on_d)
    statuses = {r.stack: r.status for r in report.results}
    assert statuses == {"stacks/a": "ok", "stacks/b": "ok", "stacks/c": "ok", "stacks/d": "failed"}
    assert "worker crashed" in report.results[3].diagnostics


def test_command_with_cluster_and_unreachable_scheduler(tmp_path: Path, cluster: str) -> None:
    write_repo(tmp_path)
    done = subprocess.run(
        [sys.executable, "-m", "kclpy", "build", "--cluster", cluster, "--update"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[-1].startswith("4 built, 4 changed, 0 failed")
    with pytest.raises(BuildError, match="cannot connect"):
        build(_options(tmp_path, "tcp://127.0.0.1:9"), compile_stack)
