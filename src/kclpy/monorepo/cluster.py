"""``kcl build --cluster tcp://HOST:PORT``: the same build on a Dask distributed cluster.

Dask is the engine: stacks are sent in batches as tasks (``Client.submit``), the
results streamed back in completion order (``as_completed``). A batch whose task
fails (its worker died more often than the scheduler allows, or it raised) is
split: each of its stacks is submitted once more on its own. A stack whose own task
fails too is only a suspect (the scheduler fails every task queued on a worker that
dies, so a neighbour's crash can take it down): once everything else is done the
suspects run one at a time, alone on the cluster, and a stack that fails then is
reported as failed; the others are unaffected.

The workers need kclpy installed. The repository is either at the same path on
every worker (the default), or shipped (``ship=True``): a content-addressed
``tar.gz`` of the build root is scattered to the workers once, each unpacks it into
``$TMPDIR/kclpy-build/<sha256>/`` (atomically, once per machine) and compiles the
stacks from there.

Takes jobs, the compile function, the scheduler address; calls ``on_output`` per job.
"""

from __future__ import annotations

import hashlib
import io
import os
import tarfile
import tempfile
from collections.abc import Sequence
from typing import Any

import attrs

from kclpy.monorepo.report import CompileStack, StackJob, StackOutput, crashed
from kclpy.monorepo.workers import OnOutput, compile_guarded
from kclpy.release import install_hint

DEFAULT_BATCH = 8
CONNECT_TIMEOUT = "10s"
_SKIPPED = {".git", "node_modules", "__pycache__", ".venv"}


class ClusterError(Exception):
    """The cluster cannot be reached or used (no dask, bad address, no workers)."""


def compile_batch(
    compile_stack: CompileStack,
    jobs: Sequence[StackJob],
    archive: bytes | None = None,
    root: str = "",
) -> list[StackOutput]:
    """Run on a Dask worker: compile every job of a batch (from the shipped copy of
    the repository when ``archive`` is given)."""
    if archive is not None:
        local = unpack(archive)
        jobs = [relocate(job, root, local) for job in jobs]
    return [compile_guarded(compile_stack, job) for job in jobs]


def run_cluster(
    jobs: Sequence[StackJob],
    compile_stack: CompileStack,
    address: str,
    on_output: OnOutput,
    batch_size: int = DEFAULT_BATCH,
    ship_root: str | None = None,
) -> None:
    """Compile ``jobs`` on the Dask cluster at ``address``."""
    try:
        from distributed import Client, as_completed
    except ImportError:
        message = f"--cluster needs dask distributed: {install_hint('cluster')}"
        raise ClusterError(message) from None
    try:
        client = Client(address, timeout=CONNECT_TIMEOUT)  # type: ignore[no-untyped-call]
    except (OSError, TimeoutError, ValueError) as error:
        raise ClusterError(f"cannot connect to the Dask scheduler at {address}: {error}") from None
    with client:
        extra: tuple[Any, ...] = ()
        if ship_root is not None:
            shipped = client.scatter(archive(ship_root), broadcast=True)  # type: ignore[no-untyped-call]
            extra = (shipped, ship_root)

        def submit(batch: Sequence[StackJob], retries: int) -> Any:
            return client.submit(
                compile_batch, compile_stack, list(batch), *extra, pure=False, retries=retries
            )

        # each future's jobs; a failed batch of several is split into single-stack tasks
        pending = {
            submit(jobs[i : i + batch_size], 1): jobs[i : i + batch_size]
            for i in range(0, len(jobs), batch_size)
        }
        suspects: list[StackJob] = []
        completed = as_completed(list(pending))  # type: ignore[no-untyped-call]
        for future in completed:
            batch = pending.pop(future)
            try:
                outputs: list[StackOutput] = future.result()
            except Exception:
                if len(batch) > 1:
                    for job in batch:
                        retry = submit([job], 0)
                        pending[retry] = [job]
                        completed.add(retry)  # type: ignore[no-untyped-call]
                else:
                    suspects.extend(batch)
                continue
            for job, output in zip(batch, outputs, strict=True):
                on_output(job, output)
        for job in suspects:
            try:
                [output] = submit([job], 0).result()
            except Exception as error:
                output = crashed(job, f"{type(error).__name__}: {error}")
            on_output(job, output)


def archive(root: str) -> bytes:
    """A deterministic ``tar.gz`` of the ``.k``, ``kcl.mod*`` and settings files under
    ``root`` (its name is its sha256)."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz", compresslevel=6) as tar:
        for folder, subfolders, names in os.walk(root):
            subfolders[:] = sorted(name for name in subfolders if name not in _SKIPPED)
            for name in sorted(names):
                if name.endswith((".k", ".mod", ".lock", ".yaml", ".yml", ".json")):
                    path = os.path.join(folder, name)
                    info = tar.gettarinfo(path, os.path.relpath(path, root))
                    info.mtime, info.uid, info.gid, info.uname, info.gname = 0, 0, 0, "", ""
                    with open(path, "rb") as handle:
                        tar.addfile(info, handle)
    return buffer.getvalue()


def unpack(data: bytes) -> str:
    """Unpack a shipped archive once per machine; returns its folder."""
    digest = hashlib.sha256(data).hexdigest()
    base = os.path.join(tempfile.gettempdir(), "kclpy-build")
    target = os.path.join(base, digest)
    if os.path.isdir(target):
        return target
    os.makedirs(base, exist_ok=True)
    scratch = tempfile.mkdtemp(prefix=f".{digest[:12]}-", dir=base)
    with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as tar:
        tar.extractall(scratch, filter="data")
    try:
        os.rename(scratch, target)
    except OSError:  # another task on this machine unpacked it first
        import shutil

        shutil.rmtree(scratch, ignore_errors=True)
    return target


def relocate(job: StackJob, root: str, local: str) -> StackJob:
    """``job`` with its paths under ``root`` moved under ``local``."""

    def move(path: str) -> str:
        relative = os.path.relpath(path, root)
        return path if relative.startswith("..") else os.path.join(local, relative)

    return attrs.evolve(
        job,
        path=move(job.path),
        externals=tuple((name, move(path)) for name, path in job.externals),
    )
