"""The local journal: resource outcomes that could not be written to the state backend.

When the state database goes away in the middle of an apply, the runtime has
already created, changed or deleted a real resource; that outcome must not be
lost. ``Journal.add`` appends it to a JSON-lines file under
``<workdir>/.kusion/journal/`` (one file per project and workspace, flushed
and fsynced line by line), and the next operation on this machine replays the
file into its release (``replay``) before doing anything else, then removes it.
The journal holds resources with their secrets: its folder is 0700, the file 0600.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from kclpy.kusion.model import JsonObject, Resource
from kclpy.kusion.private import private_directory, private_file, safe_name

PUT = "put"
REMOVE = "remove"


class Journal:
    """Pending outcomes of one project/workspace on this machine."""

    def __init__(self, directory: Path, project: str, workspace: str) -> None:
        self.path = directory / safe_name(project) / f"{safe_name(workspace)}.jsonl"

    def add(self, operation: str, resource_id: str, resource: Resource | None = None) -> None:
        entry: JsonObject = {"operation": operation, "id": resource_id}
        if resource is not None:
            entry["resource"] = resource.to_json()
        private_directory(self.path.parent)
        private_file(self.path)
        with open(self.path, "a", encoding="utf-8") as handle:
            handle.write(json.dumps(entry, sort_keys=True) + "\n")
            handle.flush()
            os.fsync(handle.fileno())

    def entries(self) -> list[JsonObject]:
        try:
            lines = self.path.read_text(encoding="utf-8").splitlines()
        except FileNotFoundError:
            return []
        found: list[JsonObject] = []
        for line in lines:
            try:
                entry: Any = json.loads(line)
            except ValueError:
                continue  # a line cut short by a crash: its outcome is reconciled instead
            if isinstance(entry, dict) and entry.get("operation") in (PUT, REMOVE):
                found.append(entry)
        return found

    def replay(self, resources: dict[str, Resource]) -> list[str]:
        """Apply the journal to ``resources`` (id -> resource); return one note per entry."""
        notes = []
        for entry in self.entries():
            resource_id = str(entry.get("id"))
            if entry["operation"] == PUT and isinstance(entry.get("resource"), dict):
                resources[resource_id] = Resource.from_json(entry["resource"])
                notes.append(f"journal: recorded {resource_id} (applied while state was down)")
            elif entry["operation"] == REMOVE:
                resources.pop(resource_id, None)
                notes.append(f"journal: removed {resource_id} (deleted while state was down)")
        return notes

    def clear(self) -> None:
        self.path.unlink(missing_ok=True)
