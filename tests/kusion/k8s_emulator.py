"""An in-process Kubernetes API for the runtime tests: PyPI ``kmock`` extended.

``kmock.KubernetesEmulator`` serves discovery (with its bundled K3s resource
catalog), get, list and watch from memory, but stores every write naively.
``Cluster`` takes over the writes to behave like an API server where the
Kusion runtime depends on it:

- ``dryRun=All`` computes and returns the result without storing anything;
- every stored object gets ``uid``, ``creationTimestamp``, a fresh
  ``resourceVersion`` on each change, and ``generation`` bumped when ``spec`` changes;
- PATCH applies RFC 7386 JSON merge patch (``null`` deletes), PUT replaces;
- a tiny Deployment "controller" fills ``status`` after ``rollout_delay``
  seconds, so watching until ready really waits.

``EmulatorThread`` runs it on 127.0.0.1 in a background thread and writes a kubeconfig.
"""

from __future__ import annotations

import asyncio
import copy
import datetime
import itertools
import json
import threading
import uuid
from pathlib import Path
from typing import Any

import aiohttp.web
import attrs
import kmock
import yaml
from kmock import KubernetesEmulator, KubernetesNotFoundError, Server
from kmock._internal import k8s as kmock_k8s
from kmock._internal import parsing as kmock_parsing

WRITES = (kmock.action.CREATE, kmock.action.UPDATE, kmock.action.DELETE)
NAMESPACES = kmock.resource(group="", version="v1", plural="namespaces")


def merge_patch(target: Any, patch: Any) -> Any:
    """RFC 7386 JSON merge patch."""
    if not isinstance(patch, dict):
        return copy.deepcopy(patch)
    result = copy.deepcopy(target) if isinstance(target, dict) else {}
    for key, value in patch.items():
        if value is None:
            result.pop(key, None)
        else:
            result[key] = merge_patch(result.get(key), value)
    return result


@attrs.define(kw_only=True)
class Cluster(KubernetesEmulator):
    """The emulator with dry runs, object bookkeeping and a Deployment controller."""

    rollout_delay: float = 0.2
    versions: Any = attrs.field(factory=lambda: itertools.count(1000), init=False)
    tasks: set[asyncio.Task[None]] = attrs.field(factory=set, init=False)

    def __attrs_post_init__(self) -> None:
        super().__attrs_post_init__()
        self.resources.load_bundled()

    async def __call__(self, raw_request: aiohttp.web.BaseRequest) -> aiohttp.web.StreamResponse:
        parts = raw_request.path.strip("/").split("/")
        if parts[:3] == ["api", "v1", "namespaces"] and len(parts) <= 4:
            name = parts[3] if len(parts) == 4 else None
            try:
                return await self._namespaces(raw_request, name)
            except kmock.KubernetesError as error:
                return await self._render_error(error)
        return await super().__call__(raw_request)

    async def _namespaces(
        self, raw_request: aiohttp.web.BaseRequest, name: str | None
    ) -> aiohttp.web.StreamResponse:
        """kmock 0.8 misreads ``/api/v1/namespaces[/NAME]`` as a namespace prefix: serve it here."""
        method = kmock.method(raw_request.method)
        body = await raw_request.read()
        data = json.loads(body) if body else None
        parsed = kmock_parsing.ParsedPath("", "v1", "namespaces", None, name, None)
        action = kmock_parsing.guess_k8s(parsed, method, dict(raw_request.query))
        request = kmock.Request(
            method=method,
            params=dict(raw_request.query),
            data=data,
            action=action,
            resource=NAMESPACES,
            name=name,
        )
        if action in WRITES:
            return await self._handle(request)
        async with self._lock:
            if name is not None:
                current = self._current((NAMESPACES, None, name))
                if current is None:
                    raise KubernetesNotFoundError()
                return aiohttp.web.json_response(current)
            items = [self._current(key) for key in self.objects if key[0] == NAMESPACES]
        listing = {
            "apiVersion": "v1",
            "kind": "NamespaceList",
            "metadata": {},
            "items": [item for item in items if item is not None],
        }
        return aiohttp.web.json_response(listing)

    async def _handle(self, request: kmock.Request) -> aiohttp.web.StreamResponse:
        if request.resource is None or request.action not in WRITES or request.subresource:
            return await super()._handle(request)
        dry_run = request.params.get("dryRun") == "All"
        async with self._lock:
            status, payload = self._write(request, dry_run)
        return aiohttp.web.json_response(payload, status=status)

    def _key(self, request: kmock.Request) -> tuple[Any, Any, Any]:
        body = request.data if isinstance(request.data, dict) else {}
        metadata = body.get("metadata") or {}
        namespace = request.namespace or metadata.get("namespace")
        return request.resource, namespace, request.name or metadata.get("name")

    def _current(self, key: tuple[Any, str | None, str]) -> dict[str, Any] | None:
        if key not in self.objects or self.objects[key].deleted:
            return None
        return copy.deepcopy(self.objects[key].raw)

    def _write(self, request: kmock.Request, dry_run: bool) -> tuple[int, dict[str, Any]]:
        key = self._key(request)
        current = self._current(key)
        if request.action == kmock.action.DELETE:
            if current is None:
                raise KubernetesNotFoundError()
            if not dry_run:
                self.objects[key].delete()
                self._publish(key, "DELETED", current)
            return 200, current
        if request.action == kmock.action.CREATE:
            if current is not None:
                raise kmock_k8s.KubernetesObjectConflictError()
            created = self._stamp(copy.deepcopy(request.data), None, key)
            if not dry_run:
                self._store(key, created, "ADDED")
            return 201, created
        if current is None:
            raise KubernetesNotFoundError()
        if request.method == kmock.method.PUT:
            changed = copy.deepcopy(request.data)
        else:
            changed = merge_patch(current, request.data)
        updated = self._stamp(changed, current, key)
        if not dry_run and updated != current:
            self._store(key, updated, "MODIFIED")
        return 200, updated if updated != current else current

    def _stamp(self, obj: dict[str, Any], old: dict[str, Any] | None, key: Any) -> dict[str, Any]:
        metadata = obj.setdefault("metadata", {})
        if key[1]:
            metadata["namespace"] = key[1]
        if old is None:
            metadata["uid"] = str(uuid.uuid4())
            now = datetime.datetime.now(datetime.UTC)
            metadata["creationTimestamp"] = now.strftime("%Y-%m-%dT%H:%M:%SZ")
            metadata["generation"] = 1
            metadata["resourceVersion"] = str(next(self.versions))
            return obj
        old_metadata = old.get("metadata") or {}
        for field in ("uid", "creationTimestamp", "generation", "resourceVersion"):
            metadata[field] = old_metadata.get(field)
        if "status" in old and "status" not in obj:
            obj["status"] = old["status"]
        if obj == old:
            return obj
        if obj.get("spec") != old.get("spec"):
            metadata["generation"] = int(old_metadata.get("generation") or 1) + 1
        metadata["resourceVersion"] = str(next(self.versions))
        return obj

    def _store(self, key: Any, obj: dict[str, Any], event: str) -> None:
        if key in self.objects:
            self.objects[key].create(obj)
        else:
            self.objects[key] = obj
        self._publish(key, event, obj)
        if obj.get("kind") == "Deployment":
            task = asyncio.get_running_loop().create_task(self._roll_out(key))
            self.tasks.add(task)
            task.add_done_callback(self.tasks.discard)

    def _publish(self, key: Any, event: str, obj: dict[str, Any]) -> None:
        bus = self._buses[key[0]]
        task = asyncio.get_running_loop().create_task(bus.put({"type": event, "object": obj}))
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)

    async def _roll_out(self, key: Any) -> None:
        """The Deployment controller: after a delay, every replica is up to date and available."""
        await asyncio.sleep(self.rollout_delay)
        async with self._lock:
            current = self._current(key)
            if current is None:
                return
            replicas = (current.get("spec") or {}).get("replicas", 1)
            current["status"] = {
                "observedGeneration": current["metadata"]["generation"],
                "replicas": replicas,
                "updatedReplicas": replicas,
                "readyReplicas": replicas,
                "availableReplicas": replicas,
            }
            current["metadata"]["resourceVersion"] = str(next(self.versions))
            self.objects[key].create(current)
            self._publish(key, "MODIFIED", current)


class EmulatorThread:
    """Runs a ``Cluster`` on 127.0.0.1 in a daemon thread until ``stop``."""

    def __init__(self, rollout_delay: float = 0.2) -> None:
        self.rollout_delay = rollout_delay
        self.cluster: Cluster | None = None
        self.url = ""
        self._ready = threading.Event()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stop: asyncio.Event | None = None
        self._thread = threading.Thread(target=self._run, name="k8s-emulator", daemon=True)

    def start(self) -> EmulatorThread:
        self._thread.start()
        if not self._ready.wait(15):
            raise RuntimeError("the Kubernetes emulator did not start")
        return self

    def _run(self) -> None:
        asyncio.run(self._main())

    async def _main(self) -> None:
        self._loop = asyncio.get_running_loop()
        self._stop = asyncio.Event()
        async with Cluster(rollout_delay=self.rollout_delay) as cluster, Server(cluster) as server:
            self.cluster = cluster
            self.url = f"http://{server.host}:{server.port}"
            self._ready.set()
            await self._stop.wait()

    def stop(self) -> None:
        if self._loop is not None and self._stop is not None:
            self._loop.call_soon_threadsafe(self._stop.set)
        self._thread.join(10)

    def write_kubeconfig(self, path: Path) -> Path:
        config = {
            "apiVersion": "v1",
            "kind": "Config",
            "clusters": [{"name": "emulator", "cluster": {"server": self.url}}],
            "users": [{"name": "tester", "user": {}}],
            "contexts": [
                {"name": "emulator", "context": {"cluster": "emulator", "user": "tester"}}
            ],
            "current-context": "emulator",
        }
        path.write_text(yaml.safe_dump(config), encoding="utf-8")
        return path
