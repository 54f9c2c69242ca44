"""Which attributes of a Terraform resource type are sensitive, from the provider's schema.

``sensitive_paths(schema_document, source)`` reads the output of ``terraform
providers schema -json`` and returns, for each resource type of the provider
``source`` (``registry.terraform.io/hashicorp/aws``), the paths of its
attributes marked ``"sensitive": true`` - inside nested attributes and nested
blocks too (``*`` for the items of a list, set or map).

``SchemaCache`` keeps those paths per provider: in memory for the run, and on
disk in ``<cache>/terraform-schemas/<provider>.json`` (folder 0700, file 0600)
when the provider is pinned to an exact version, since the schema of
``hashicorp/aws/5.100.0`` never changes - the next run asks Terraform nothing.
A provider without an exact version (``~> 5.0``) is asked once per run.
"""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from kclpy.kusion.model import JsonObject
from kclpy.kusion.private import private_directory, safe_name, write_private

SensitivePath = tuple[str, ...]
TypePaths = dict[str, list[SensitivePath]]
EXACT_VERSION = re.compile(r"^\d+\.\d+\.\d+([-+][0-9A-Za-z.-]+)?$")
CACHE_FORMAT = 1
REPEATED = ("list", "set", "map")


def block_paths(block: Any, prefix: SensitivePath = ()) -> list[SensitivePath]:
    """The sensitive attribute paths of one schema block (attributes and nested blocks)."""
    if not isinstance(block, dict):
        return []
    found: list[SensitivePath] = []
    for name, attribute in (block.get("attributes") or {}).items():
        if not isinstance(attribute, dict):
            continue
        if attribute.get("sensitive"):
            found.append((*prefix, name))
        elif isinstance(attribute.get("nested_type"), dict):
            nested = attribute["nested_type"]
            found += block_paths(nested, _inner(prefix, name, nested.get("nesting_mode")))
    for name, block_type in (block.get("block_types") or {}).items():
        if isinstance(block_type, dict):
            inner = _inner(prefix, name, block_type.get("nesting_mode"))
            found += block_paths(block_type.get("block"), inner)
    return found


def _inner(prefix: SensitivePath, name: str, mode: Any) -> SensitivePath:
    return (*prefix, name, "*") if mode in REPEATED else (*prefix, name)


def sensitive_paths(document: Any, source: str) -> TypePaths:
    """``{resource type: paths}`` of provider ``source`` (types without any left out)."""
    schemas = (document or {}).get("provider_schemas") or {}
    provider = schemas.get(source)
    if provider is None:  # an older Terraform names providers without the host
        provider = next((v for k, v in schemas.items() if k.endswith("/" + source)), None)
    found: TypePaths = {}
    for resource_type, schema in ((provider or {}).get("resource_schemas") or {}).items():
        paths = block_paths((schema or {}).get("block"))
        if paths:
            found[str(resource_type)] = paths
    return found


class SchemaCache:
    """Sensitive paths per provider, in memory and (for exact versions) on disk."""

    def __init__(self, directory: Path | None) -> None:
        self.directory = directory
        self._known: dict[str, TypePaths] = {}
        self._lock = threading.Lock()

    def paths(
        self, provider: str, resource_type: str, fetch: Callable[[], JsonObject]
    ) -> list[SensitivePath]:
        """The sensitive paths of ``resource_type``; ``fetch`` gives the schema if unknown.

        ``provider`` is ``host/namespace/name/version``.
        """
        with self._lock:  # one fetch per provider, not one per resource
            known = self._known.get(provider)
            if known is None:
                known = self._load(provider)
                if known is None:
                    source = provider.rsplit("/", 1)[0]
                    known = sensitive_paths(fetch(), source)
                    self._store(provider, known)
                self._known[provider] = known
        return list(known.get(resource_type, []))

    def _file(self, provider: str) -> Path | None:
        version = provider.rsplit("/", 1)[-1]
        if self.directory is None or not EXACT_VERSION.match(version):
            return None
        return self.directory / "terraform-schemas" / f"{safe_name(provider)}.json"

    def _load(self, provider: str) -> TypePaths | None:
        path = self._file(provider)
        if path is None:
            return None
        try:
            document = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        if not isinstance(document, dict) or document.get("format") != CACHE_FORMAT:
            return None
        if document.get("provider") != provider or not isinstance(document.get("types"), dict):
            return None
        return {
            str(name): [tuple(str(key) for key in path) for path in paths]
            for name, paths in document["types"].items()
            if isinstance(paths, list)
        }

    def _store(self, provider: str, known: TypePaths) -> None:
        path = self._file(provider)
        if path is None:
            return
        private_directory(path.parent)
        document = {"format": CACHE_FORMAT, "provider": provider, "types": known}
        write_private(path, json.dumps(document, sort_keys=True))
