"""The Local runtime: a resource of type ``Local`` is one text file.

Attributes: ``path`` (relative to the working directory, or absolute) and
``content`` (text, default empty). Read returns the file as it is on disk,
apply writes it (atomically: a temporary file beside it, then a rename),
delete removes it. Useful for offline demos and for tests of the engine that
need real, observable side effects without any service.

Confinement: a spec is input, and its paths are checked before any read,
write or removal. The path, with every symbolic link resolved, must lie inside
the working directory or inside one of the ``roots`` the user allowed
(``--allow-local-path DIR``); anything else (``../x``, ``/etc/x``, a link
pointing out) fails the resource without touching the file. The same check
guards destroy, so a path recorded in state is never removed outside either.
"""

from __future__ import annotations

import os
import secrets
from collections.abc import Sequence
from pathlib import Path

from kclpy.kusion.model import Resource, RuntimeFailure
from kclpy.kusion.runtimes.base import Rejection, refuse

ALLOWED = frozenset({"path", "content"})


class LocalRuntime:
    """Files under a base directory (and the extra roots the user allowed)."""

    def __init__(self, base: Path, roots: Sequence[Path] = ()) -> None:
        self.base = base
        self.roots = [Path(os.path.realpath(root)) for root in (base, *roots)]

    def check(self, resource: Resource) -> list[Rejection]:
        """What ``apply`` refuses: unknown attributes, a bad or outside path, non-text content."""
        rejected = [
            Rejection(f"Local resource has unknown attribute {key!r}", ("attributes", key))
            for key in resource.attributes
            if key not in ALLOWED
        ]
        path = resource.attributes.get("path")
        if not isinstance(path, str) or not path or "\0" in path:
            message = "Local resource needs a non-empty string attribute 'path'"
            rejected.append(Rejection(message, ("attributes", "path")))
        else:
            resolved = Path(os.path.realpath(self.base / path))
            if not any(resolved.is_relative_to(root) and resolved != root for root in self.roots):
                allowed = ", ".join(str(root) for root in self.roots)
                message = (
                    f"Local path {path!r} resolves to {resolved}, outside the working "
                    f"directory (allowed: {allowed}); pass --allow-local-path DIR to allow "
                    "another folder"
                )
                rejected.append(Rejection(message, ("attributes", "path")))
        if not isinstance(resource.attributes.get("content", ""), str):
            message = "Local resource attribute 'content' must be a string"
            rejected.append(Rejection(message, ("attributes", "content")))
        return rejected

    def _path(self, resource: Resource) -> Path:
        """The resource's file, resolved and checked to be inside an allowed root."""
        refuse([item for item in self.check(resource) if item.path != ("attributes", "content")])
        return Path(os.path.realpath(self.base / resource.attributes["path"]))

    def read(self, prior: Resource | None, planned: Resource | None) -> Resource | None:
        reference = prior or planned
        if reference is None:
            return None
        path = self._path(reference)
        try:
            content = path.read_text(encoding="utf-8")
        except (FileNotFoundError, NotADirectoryError):
            return None
        except (OSError, UnicodeDecodeError) as error:
            raise RuntimeFailure(f"cannot read {path}: {_reason(error)}") from None
        attributes = {"path": reference.attributes["path"], "content": content}
        return Resource(reference.id, reference.type, attributes, list(reference.depends_on))

    def apply(self, prior: Resource | None, planned: Resource, dry_run: bool) -> Resource:
        refuse(self.check(planned))
        path = self._path(planned)
        content = planned.attributes.get("content", "")
        result = planned.copy()
        result.attributes = {"path": planned.attributes["path"], "content": content}
        if dry_run:
            return result
        if prior is not None and prior.attributes.get("path") != planned.attributes["path"]:
            self.delete(prior)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            _write(self._path(planned), content)  # checked again: the folders now exist
        except OSError as error:
            raise RuntimeFailure(f"cannot write {path}: {_reason(error)}") from None
        return result

    def delete(self, resource: Resource) -> None:
        path = self._path(resource)
        try:
            path.unlink(missing_ok=True)
        except OSError as error:
            raise RuntimeFailure(f"cannot delete {path}: {_reason(error)}") from None

    def watch(self, resource: Resource, timeout: float) -> None:
        return None


def _write(path: Path, content: str) -> None:
    """Replace ``path`` atomically; a new file gets the usual mode (0666 less the umask)."""
    temporary = path.parent / f".{path.name}.{secrets.token_hex(6)}.tmp"
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW
    try:
        mode = path.stat().st_mode & 0o777
    except FileNotFoundError:
        mode = None
    descriptor = os.open(temporary, flags, 0o666 if mode is None else mode)
    try:
        with os.fdopen(descriptor, "w", encoding="utf-8") as handle:
            handle.write(content)
        os.replace(temporary, path)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise


def _reason(error: BaseException) -> str:
    return getattr(error, "strerror", None) or str(error)
