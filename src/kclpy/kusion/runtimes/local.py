"""The Local runtime: a resource of type ``Local`` is one text file.

Attributes: ``path`` (relative to the working directory, or absolute) and
``content`` (text, default empty). Read returns the file as it is on disk,
apply writes it, delete removes it. Useful for offline demos and for tests of
the engine that need real, observable side effects without any service.
"""

from __future__ import annotations

from pathlib import Path

from kclpy.kusion.model import Resource, RuntimeFailure

ALLOWED = frozenset({"path", "content"})


class LocalRuntime:
    """Files under a base directory."""

    def __init__(self, base: Path) -> None:
        self.base = base

    def _path(self, resource: Resource) -> Path:
        unknown = sorted(set(resource.attributes) - ALLOWED)
        if unknown:
            raise RuntimeFailure(f"Local resource has unknown attribute(s): {', '.join(unknown)}")
        path = resource.attributes.get("path")
        if not isinstance(path, str) or not path:
            raise RuntimeFailure("Local resource needs a non-empty string attribute 'path'")
        return self.base / path

    def read(self, prior: Resource | None, planned: Resource | None) -> Resource | None:
        reference = prior or planned
        if reference is None:
            return None
        path = self._path(reference)
        try:
            content = path.read_text(encoding="utf-8")
        except (FileNotFoundError, NotADirectoryError):
            return None
        except OSError as error:
            raise RuntimeFailure(f"cannot read {path}: {error.strerror}") from None
        attributes = {"path": reference.attributes["path"], "content": content}
        return Resource(reference.id, reference.type, attributes, list(reference.depends_on))

    def apply(self, prior: Resource | None, planned: Resource, dry_run: bool) -> Resource:
        path = self._path(planned)
        content = planned.attributes.get("content", "")
        if not isinstance(content, str):
            raise RuntimeFailure("Local resource attribute 'content' must be a string")
        result = planned.copy()
        result.attributes = {"path": planned.attributes["path"], "content": content}
        if dry_run:
            return result
        if prior is not None and prior.attributes.get("path") != planned.attributes["path"]:
            self.delete(prior)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(content, encoding="utf-8")
        except OSError as error:
            raise RuntimeFailure(f"cannot write {path}: {error.strerror or error}") from None
        return result

    def delete(self, resource: Resource) -> None:
        path = self._path(resource)
        try:
            path.unlink(missing_ok=True)
        except OSError as error:
            raise RuntimeFailure(f"cannot delete {path}: {error.strerror}") from None

    def watch(self, resource: Resource, timeout: float) -> None:
        return None
