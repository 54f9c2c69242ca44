"""The Kubernetes runtime: the official ``kubernetes`` client's dynamic client.

Resources are found through API discovery (any kind the cluster serves,
CRDs included). Like Kusion, updates are not server-side apply but a
three-way JSON merge patch computed from the last-applied attributes (prior
state), the planned attributes and the live object, sent as
``application/merge-patch+json``; creation is a POST; preview is the same
request with ``dryRun=All``. State records the planned manifest (the intent),
which is what the next three-way patch needs as "original".

``watch`` waits (watch API, falling back to polling) until a Deployment,
StatefulSet, DaemonSet or Job is ready. The kubeconfig is
``extensions.kubeConfig`` of the resource, else ``$KUBECONFIG``, else
``~/.kube/config``. Connecting, discovery and every request are bounded by
``timeout`` seconds (``kubeclient``); a cluster that does not answer fails
each resource with a message naming its server and context.
"""

from __future__ import annotations

import copy
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from kclpy.kusion.extras import require
from kclpy.kusion.model import JsonObject, Resource, RuntimeFailure
from kclpy.kusion.runtimes.base import Rejection, refuse
from kclpy.kusion.runtimes.kubeclient import DEFAULT_TIMEOUT, RUNTIME, Connection, connect
from kclpy.request_deadline import within

FIELD_MANAGER = "kclpy"
MERGE_PATCH = "application/merge-patch+json"
VOLATILE_METADATA = (
    "resourceVersion",
    "uid",
    "generation",
    "creationTimestamp",
    "managedFields",
    "selfLink",
)
LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration"


def three_way_merge_patch(original: Any, modified: Any, current: Any) -> JsonObject:
    """A JSON merge patch turning ``current`` into ``modified``.

    Keys set in ``modified`` are added or changed where ``current`` differs;
    keys that were in ``original`` (last applied) but are gone from
    ``modified`` are deleted (``null``); keys only the server or other
    managers set (present in ``current`` only) are left alone. Lists are
    replaced as a whole, as JSON merge patch does.
    """
    original = original if isinstance(original, dict) else {}
    current = current if isinstance(current, dict) else {}
    patch: JsonObject = {}
    for key, value in modified.items():
        if key not in current:
            patch[key] = value
        elif isinstance(value, dict) and isinstance(current[key], dict):
            nested = three_way_merge_patch(original.get(key), value, current[key])
            if nested:
                patch[key] = nested
        elif value != current[key]:
            patch[key] = value
    for key in original:
        if key not in modified and key in current:
            patch[key] = None
    return patch


def normalize(live: JsonObject) -> JsonObject:
    """The object without server bookkeeping (versions, managed fields, status)."""
    result = copy.deepcopy(live)
    result.pop("status", None)
    metadata = result.get("metadata")
    if isinstance(metadata, dict):
        for key in VOLATILE_METADATA:
            metadata.pop(key, None)
        annotations = metadata.get("annotations")
        if isinstance(annotations, dict):
            annotations.pop(LAST_APPLIED, None)
            if not annotations:
                metadata.pop("annotations")
    return result


def is_ready(live: JsonObject) -> tuple[bool, str]:
    """Whether a workload is ready, and what it is waiting for if not."""
    kind = live.get("kind")
    spec = live.get("spec") or {}
    status = live.get("status") or {}
    metadata = live.get("metadata") or {}
    generation = metadata.get("generation")
    if kind in ("Deployment", "StatefulSet", "DaemonSet") and generation is not None:
        observed = status.get("observedGeneration")
        if observed is None or observed < generation:
            return False, "waiting for the controller to observe the new generation"
    if kind == "Deployment":
        wanted = spec.get("replicas", 1)
        updated = status.get("updatedReplicas", 0)
        available = status.get("availableReplicas", 0)
        return (
            updated >= wanted and available >= wanted,
            f"{available}/{wanted} replicas available, {updated} updated",
        )
    if kind == "StatefulSet":
        wanted = spec.get("replicas", 1)
        ready = status.get("readyReplicas", 0)
        return ready >= wanted, f"{ready}/{wanted} replicas ready"
    if kind == "DaemonSet":
        wanted = status.get("desiredNumberScheduled", 0)
        ready = status.get("numberReady", 0)
        return ready >= wanted, f"{ready}/{wanted} pods ready"
    if kind == "Job":
        conditions = status.get("conditions") or []
        if any(c.get("type") == "Failed" and c.get("status") == "True" for c in conditions):
            raise RuntimeFailure(f"job {metadata.get('name')} failed")
        done = any(c.get("type") == "Complete" and c.get("status") == "True" for c in conditions)
        return done, "waiting for the job to complete"
    return True, ""


def check_manifest(resource: Resource) -> list[Rejection]:
    """What ``apply`` refuses without asking the cluster: a manifest without a string
    ``apiVersion``, ``kind`` or ``metadata.name``, a ``kind: List``, a bad kubeConfig."""
    attributes = resource.attributes
    rejected = [
        Rejection(f"a Kubernetes manifest needs a string {key!r}", ("attributes", key))
        for key in ("apiVersion", "kind")
        if not isinstance(attributes.get(key), str) or not attributes[key]
    ]
    if attributes.get("kind") == "List":
        message = "a kind: List is not a resource; give its items as resources"
        rejected.append(Rejection(message, ("attributes", "kind")))
    metadata = attributes.get("metadata")
    if not isinstance(metadata, dict):
        message = "a Kubernetes manifest needs metadata with a name"
        rejected.append(Rejection(message, ("attributes", "metadata")))
    else:
        for key, required in (("name", True), ("namespace", False)):
            value = metadata.get(key)
            if (required or value is not None) and (not isinstance(value, str) or not value):
                message = f"metadata.{key} of a Kubernetes manifest must be a non-empty string"
                where = ("attributes", "metadata", *((key,) if key in metadata else ()))
                rejected.append(Rejection(message, where))
    kubeconfig = resource.extensions.get("kubeConfig")
    if kubeconfig is not None and (not isinstance(kubeconfig, str) or not kubeconfig):
        message = "extensions.kubeConfig must be the path of a kubeconfig file"
        rejected.append(Rejection(message, ("extensions", "kubeConfig")))
    return rejected


class KubernetesRuntime:
    """Resources of type ``Kubernetes``."""

    def __init__(
        self,
        kubeconfig: str | None = None,
        poll_interval: float = 0.5,
        timeout: float = DEFAULT_TIMEOUT,
        cache_directory: Path | None = None,
    ) -> None:
        self.kubeconfig = kubeconfig
        self.poll_interval = poll_interval
        self.timeout = timeout  # seconds for connecting, discovery and each API request
        self.cache_directory = cache_directory
        self._connections: dict[str | None, Connection | RuntimeFailure] = {}
        self._lock = threading.Lock()
        require("kubernetes.dynamic", RUNTIME)  # missing: the install hint, once, up front

    # -- connection ----------------------------------------------------------------
    def _connection(self, resource: Resource) -> Connection:
        """The resource's cluster connection; a failed connect is remembered, not retried."""
        path = resource.extensions.get("kubeConfig") or self.kubeconfig
        with self._lock:
            found = self._connections.get(path)
            if found is None:
                try:
                    found = connect(path, self.timeout, self.cache_directory)
                except RuntimeFailure as failure:
                    found = failure
                self._connections[path] = found
        if isinstance(found, RuntimeFailure):
            raise RuntimeFailure(found.message)
        return found

    def _api(self, resource: Resource) -> Any:
        attributes = resource.attributes
        api_version, kind = attributes.get("apiVersion"), attributes.get("kind")
        if not api_version or not kind:
            raise RuntimeFailure(f"{resource.id}: a manifest needs apiVersion and kind")
        exceptions = require("kubernetes.dynamic.exceptions", RUNTIME)
        connection = self._connection(resource)
        try:
            return connection.guarded(
                f"discover {resource.id}",
                lambda: connection.client.resources.get(api_version=api_version, kind=kind),
            )
        except exceptions.ResourceNotFoundError:
            return None
        except RuntimeFailure:
            raise
        except Exception as error:  # network errors from urllib3 and friends
            raise RuntimeFailure(f"discover {resource.id}: {error}") from None

    def _address(self, resource: Resource, api: Any) -> tuple[str, str | None]:
        metadata = resource.attributes.get("metadata") or {}
        name = metadata.get("name")
        if not name:
            raise RuntimeFailure(f"{resource.id}: a manifest needs metadata.name")
        namespace = (metadata.get("namespace") or "default") if api.namespaced else None
        return str(name), namespace

    def _call(self, what: str, resource: Resource, action: Callable[[], Any]) -> Any:
        exceptions = require("kubernetes.dynamic.exceptions", RUNTIME)
        connection = self._connection(resource)
        try:
            return connection.guarded(f"{what} {resource.id}", action)
        except exceptions.NotFoundError:
            return None
        except exceptions.DynamicApiError as error:
            raise RuntimeFailure(f"{what} {resource.id}: {_api_message(error)}") from None
        except RuntimeFailure:
            raise
        except Exception as error:  # network errors from urllib3 and friends
            raise RuntimeFailure(f"{what} {resource.id}: {error}") from None

    # -- the Runtime interface -------------------------------------------------------
    def check(self, resource: Resource) -> list[Rejection]:
        return check_manifest(resource)

    def read(self, prior: Resource | None, planned: Resource | None) -> Resource | None:
        reference = planned or prior
        if reference is None:
            return None
        live = self._live(reference)
        if live is None:
            return None
        return Resource(
            reference.id,
            reference.type,
            normalize(live),
            list(reference.depends_on),
            dict(reference.extensions),
        )

    def _live(self, resource: Resource) -> JsonObject | None:
        api = self._api(resource)
        if api is None:
            return None
        name, namespace = self._address(resource, api)
        found = self._call(
            "read",
            resource,
            lambda: api.get(name=name, namespace=namespace, _request_timeout=self.timeout),
        )
        return None if found is None else dict(found.to_dict())

    def apply(self, prior: Resource | None, planned: Resource, dry_run: bool) -> Resource:
        refuse(check_manifest(planned))
        api = self._api(planned)
        if api is None:
            if dry_run:  # the kind may come from a CRD that an earlier resource installs
                return planned.copy()
            raise RuntimeFailure(f"apply {planned.id}: the cluster does not serve this kind")
        name, namespace = self._address(planned, api)
        live = self._live(planned)
        dry = "All" if dry_run else None
        if live is None:
            body = copy.deepcopy(planned.attributes)
            response = self._call(
                "create",
                planned,
                lambda: api.create(
                    body=body,
                    namespace=namespace,
                    dry_run=dry,
                    field_manager=FIELD_MANAGER,
                    _request_timeout=self.timeout,
                ),
            )
        else:
            original = prior.attributes if prior else _last_applied(live)
            patch = three_way_merge_patch(original, planned.attributes, live)
            response = (
                live
                if not patch
                else self._call(
                    "patch",
                    planned,
                    lambda: api.patch(
                        body=patch,
                        name=name,
                        namespace=namespace,
                        content_type=MERGE_PATCH,
                        dry_run=dry,
                        field_manager=FIELD_MANAGER,
                        _request_timeout=self.timeout,
                    ),
                )
            )
        if response is None:
            raise RuntimeFailure(f"apply {planned.id}: the object vanished during the update")
        result = planned.copy()
        if dry_run:
            result.attributes = normalize(
                response if isinstance(response, dict) else dict(response.to_dict())
            )
        return result

    def delete(self, resource: Resource) -> None:
        api = self._api(resource)
        if api is None:
            return
        name, namespace = self._address(resource, api)
        self._call(
            "delete",
            resource,
            lambda: api.delete(name=name, namespace=namespace, _request_timeout=self.timeout),
        )

    def watch(self, resource: Resource, timeout: float) -> None:
        api = self._api(resource)
        if api is None:
            return
        name, namespace = self._address(resource, api)
        deadline = time.monotonic() + timeout
        waiting_for = ""
        while True:
            live = self._live(resource)
            if live is None:
                raise RuntimeFailure(f"watch {resource.id}: the object disappeared")
            ready, waiting_for = is_ready(live)
            if ready:
                return
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise RuntimeFailure(f"{resource.id} not ready after {timeout:.0f}s: {waiting_for}")
            self._wait_for_event(api, name, namespace, min(remaining, 10.0))

    def _wait_for_event(self, api: Any, name: str, namespace: str | None, seconds: float) -> None:
        """Block until the object changes (watch API) or ``seconds`` pass."""
        watch = require("kubernetes.watch", RUNTIME)
        watcher = watch.Watch()
        started = time.monotonic()
        try:
            with within(seconds + 1):
                self._next_change(watcher, api, name, namespace, seconds)
        except Exception:  # watch unsupported or timed out: fall back to polling
            time.sleep(max(0.0, min(self.poll_interval, seconds - (time.monotonic() - started))))
        finally:
            watcher.stop()

    @staticmethod
    def _next_change(
        watcher: Any, api: Any, name: str, namespace: str | None, seconds: float
    ) -> None:
        """Read the watch stream of the object until it is modified (or the stream ends)."""
        for event in watcher.stream(
            api.get,
            namespace=namespace,
            field_selector=f"metadata.name={name}",
            serialize=False,
            timeout_seconds=max(1, int(seconds)),
            _request_timeout=seconds + 1,
        ):
            metadata = (event.get("object") or {}).get("metadata") or {}
            if event.get("type") == "MODIFIED" and metadata.get("name") == name:
                return


def _last_applied(live: JsonObject) -> JsonObject:
    import json

    annotations = (live.get("metadata") or {}).get("annotations") or {}
    try:
        value = json.loads(annotations.get(LAST_APPLIED) or "{}")
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


def _api_message(error: Any) -> str:
    summary = getattr(error, "summary", None)
    if callable(summary):
        return str(summary())
    return str(error)
