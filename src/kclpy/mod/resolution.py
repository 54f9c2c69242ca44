"""Dependency resolution: from ``kcl.mod`` to a folder per package, downloading what is missing.

:func:`resolve` takes a module root (the folder of a ``kcl.mod``) and returns every
package the program can import, direct and transitive, as :class:`Resolved`
(import name, folder, locked entry). Sources:

- ``path``: the folder, relative to the package that declares it;
- a version string: ``<default registry>/<default repository>/<name>:<version>``;
- ``oci``: ``oci://HOST/REPO`` at ``tag`` (the highest semantic version when none);
- ``git``: a tag, commit or branch, cloned with ``git``.

Registry, OCI and git packages live in the package cache as ``<name>_<version>``
(:mod:`kclpy.mod.settings`); a missing one is downloaded into a temporary folder of
the cache, verified, and moved into place in one rename, so nothing is ever half
there. Once cached, resolution needs no network.

Versions: when two packages require different versions of one package, the highest
is selected (minimal version selection, as the real tool) if the major versions
agree; otherwise, or when the sources differ, it is a VERSION_CONFLICT naming both
requirers. The root's own declaration always wins over a transitive one.

Checksums: ``kcl.mod.lock``'s ``sum`` for a package must equal the package's
checksum (:func:`kclpy.mod.archive.checksum`), computed when it is downloaded (and
then remembered beside the cache in ``.kclpy/sums/<full_name>``, so a warm
resolution hashes nothing); a mismatch is a CHECKSUM_MISMATCH error, never a silent
reuse. ``kcl mod update`` re-downloads and re-hashes. The root's lock file is
rewritten (atomically) when what was resolved differs from it.
"""

from __future__ import annotations

import contextlib
import os
import re
from collections import deque
from collections.abc import Callable

from kclpy.diag import Code
from kclpy.mod import names, progress
from kclpy.mod import settings as settings_module
from kclpy.mod.errors import PackageError
from kclpy.mod.manifest import (
    Dependency,
    Locked,
    check_dependency,
    check_package,
    read_lock,
    read_mod,
    write_lock,
)
from kclpy.records import Record


class Resolved(Record):
    """A package of the program: its import name, folder and lock entry."""

    name: str
    path: str
    locked: Locked
    dependency: Dependency
    required_by: str


def version_key(version: str) -> tuple[tuple[int, object], ...]:
    """A sort key for semantic versions (``v`` prefix allowed, pre-releases first)."""
    core, _, pre = version.removeprefix("v").partition("-")
    parts: list[tuple[int, object]] = []
    for piece in re.split(r"[.+]", core):
        parts.append((1, int(piece)) if piece.isdigit() else (0, piece))
    parts.append((0, pre) if pre else (1, ""))
    return tuple(parts)


def highest(versions: list[str]) -> str:
    return max(versions, key=version_key) if versions else ""


def _major(version: str) -> str:
    return version.removeprefix("v").split(".")[0]


class Resolver:
    """Resolves one module root; ``update`` re-downloads and re-hashes every package."""

    def __init__(self, root: str, update: bool = False, offline: bool = False) -> None:
        self.root = os.path.abspath(root)
        self.update = update
        self.offline = offline
        self.home = settings_module.package_home()
        self.settings = settings_module.load_settings()
        self.mod = read_mod(self.root)
        self.lock = {} if update else read_lock(self.root)
        self.resolved: dict[str, Resolved] = {}
        self.edges: set[tuple[str, str]] = set()  # (requirer, import name); root: ""
        self.progress = progress.current()  # shows each download

    def resolve(self, given: frozenset[str] = frozenset()) -> dict[str, Resolved]:
        """Every package reachable from the root's ``[dependencies]``, by import name;
        packages named in ``given`` (``-E name=path``) are neither fetched nor followed.
        Each queued item: the dependency, the folder of the package declaring it, its
        import name, and the folder a path dependency must stay in ('' for the root's
        own tree: a package fetched into the cache may only point inside itself)."""
        queue: deque[tuple[Dependency, str, str, str]] = deque(
            (dependency, self.root, "", "") for dependency in self.mod.dependencies.values()
        )
        direct = set(self.mod.dependencies)
        while queue:
            dependency, owner_root, owner, confine = queue.popleft()
            if dependency.name in given:
                continue
            check_dependency(dependency)
            self.edges.add((owner, dependency.name))
            previous = self.resolved.get(dependency.name)
            if previous is not None and not self._replaces(
                previous, dependency, owner_root, owner, direct
            ):
                continue
            found = self._fetch(dependency, owner_root, owner, confine)
            self.resolved[dependency.name] = found
            package = read_mod(found.path)
            if dependency.kind != "path":
                check_package(package)
                confine = found.path
            for child in package.dependencies.values():
                queue.append((child, found.path, dependency.name, confine))
        return self.resolved

    def _replaces(
        self,
        previous: Resolved,
        dependency: Dependency,
        owner_root: str,
        owner: str,
        direct: set[str],
    ) -> bool:
        """Whether ``dependency`` (required by ``owner`` in ``owner_root``) replaces
        ``previous``; a conflict when neither can stand for the other."""
        if not previous.required_by and dependency.name in direct:
            return False  # the root's own declaration wins
        old, new = previous.dependency, dependency
        same_source = (old.kind, old.oci, old.git, old.package) == (
            new.kind, new.oci, new.git, new.package,
        )  # fmt: skip
        if same_source and old.kind == "path":
            if os.path.normpath(os.path.join(owner_root, new.path)) == previous.path:
                return False
        elif same_source and old.reference == new.reference:
            return False
        if (
            same_source
            and old.kind in ("registry", "oci")
            and _major(old.version) == _major(new.version)
        ):
            return version_key(new.version) > version_key(old.version)
        raise PackageError(
            Code.VERSION_CONFLICT,
            f"conflicting requirements for package '{dependency.name}': "
            f"{previous.required_by or self.mod.name} requires {old.describe()}, "
            f"{owner or self.mod.name} requires {new.describe()}",
            "declare the version to use in the root kcl.mod",
            dependency=dependency.name,
        )

    def _fetch(self, dependency: Dependency, owner_root: str, owner: str, confine: str) -> Resolved:
        if dependency.kind == "path":
            folder = os.path.normpath(os.path.join(owner_root, dependency.path))
            if confine:  # declared by a fetched package: it may not point outside itself
                names.inside(confine, os.path.join(folder, "kcl.mod"), f"package '{owner}'")
            if not os.path.isdir(folder):
                raise PackageError(
                    Code.PACKAGE_NOT_FOUND,
                    f"package '{dependency.name}' not found: no folder {folder}",
                    dependency=dependency.name,
                )
            version = read_mod(folder).version
            locked = Locked(dependency.package_name, version)
            return Resolved(dependency.name, folder, locked, dependency, owner)
        if dependency.kind == "git":
            return self._fetch_git(dependency, owner)
        return self._fetch_oci(dependency, owner)

    def _place(self, full_name: str, vendor_name: str) -> str:
        """Where a package lives: ``vendor/<vendor_name>`` of the root when it is there
        (vendored), else ``<cache>/<full_name>``; either proven inside its folder."""
        what = f"package {full_name}"
        vendor = os.path.join(self.root, "vendor")
        vendored = names.inside(vendor, os.path.join(vendor, vendor_name), what)
        if not self.update and os.path.isdir(vendored):
            return vendored
        return names.inside(self.home, os.path.join(self.home, full_name), what)

    def _oci_reference(self, dependency: Dependency) -> tuple[str, str]:
        if dependency.kind == "oci":
            from kclpy.mod.oci import Reference

            reference = Reference.parse(dependency.oci)
            return reference.host, reference.repository
        repository = f"{self.settings.repository}/{dependency.package_name}".strip("/")
        return self.settings.registry, repository

    def _fetch_oci(self, dependency: Dependency, owner: str) -> Resolved:
        host, repository = self._oci_reference(dependency)
        locked_version = self.lock[dependency.name].version if dependency.name in self.lock else ""
        version = dependency.version or locked_version or self._latest(host, repository, dependency)
        if names.version_problem(version):  # a tag the registry listed
            invalid = names.Invalid("version", version, names.version_problem(version))
            raise names.invalid_error(f"dependency '{dependency.name}'", invalid, "", [])
        source = {"reg": host, "repo": repository, "oci_tag": version}
        locked = Locked(dependency.package_name, version, "", source)
        folder = self._place(locked.full_name, locked.full_name)
        if self.update or not os.path.isdir(folder):
            self._download(
                folder,
                dependency,
                lambda staging, fetch: self._pull(
                    host, repository, version, staging, dependency, fetch
                ),
                version,
                f"{dependency.name} {version} from {host}/{repository}",
            )
        locked = Locked(
            locked.name, version, self._verified_sum(folder, dependency, version), source
        )
        return Resolved(dependency.name, folder, locked, dependency, owner)

    def _latest(self, host: str, repository: str, dependency: Dependency) -> str:
        from kclpy.mod.oci import Reference, tags

        self._online(dependency)
        found = highest(tags(Reference(host, repository), dependency.name))
        if not found:
            raise PackageError(
                Code.PACKAGE_NOT_FOUND,
                f"package '{dependency.name}' not found in '{host}/{repository}'",
                dependency=dependency.name,
            )
        return found

    def _pull(
        self,
        host: str,
        repository: str,
        tag: str,
        staging: str,
        dependency: Dependency,
        fetch: progress.Fetch,
    ) -> str:
        """Pull and unpack into ``staging``; the checksum the manifest announces ('')."""
        import shutil

        from kclpy.mod import archive
        from kclpy.mod.oci import ANNOTATION_SUM, Reference, pull

        self._online(dependency)
        downloads = os.path.join(staging, ".download")
        os.makedirs(downloads)
        path, manifest = pull(Reference(host, repository), tag, downloads, dependency.name, fetch)
        archive.unpack(path, staging, dependency.name)
        shutil.rmtree(downloads, ignore_errors=True)
        return str((manifest.get("annotations") or {}).get(ANNOTATION_SUM) or "")

    def _fetch_git(self, dependency: Dependency, owner: str) -> Resolved:
        from kclpy.mod import git

        reference = dependency.reference
        repository = git.repository_name(dependency.git)
        if names.name_problem(repository):
            reason = "the repository's name (its last part) must be " + names.NAME_RULE[2:]
            invalid = names.Invalid("git", dependency.git, reason)
            raise names.invalid_error(f"dependency '{dependency.name}'", invalid, "", [])
        full_name = names.folder_name(repository, reference or "HEAD")
        folder = self._place(full_name, _git_vendor_name(dependency, repository))
        if self.update or not os.path.isdir(folder):

            def clone(staging: str, fetch: progress.Fetch) -> str:
                self._online(dependency)
                git.fetch(
                    dependency.git, reference, staging, dependency.name, bool(dependency.branch)
                )
                return ""

            label = f"{dependency.name} {reference or 'HEAD'} from {dependency.git}"
            self._download(folder, dependency, clone, "", label)
        source = {"url": dependency.git}
        for key, lock_key in (("tag", "git_tag"), ("commit", "commit"), ("branch", "branch")):
            if getattr(dependency, key):
                source[lock_key] = getattr(dependency, key)
        version = _git_version(folder, dependency)
        known = self._verified_sum(folder, dependency, version)
        locked = Locked(dependency.package_name, version, known, source)
        return Resolved(dependency.name, folder, locked, dependency, owner)

    def _online(self, dependency: Dependency) -> None:
        if self.offline:
            raise PackageError(
                Code.PACKAGE_NOT_FOUND,
                f"package {dependency.describe()} is not in the package cache (offline)",
                dependency=dependency.name,
            )

    def _download(
        self,
        folder: str,
        dependency: Dependency,
        fill: Callable[[str, progress.Fetch], str],
        version: str,
        label: str,
    ) -> None:
        """Fill a staging folder with ``fill(staging, fetch)`` (which returns the checksum
        the source announces, or ''; ``fetch`` shows the download of ``label``), check the
        package's checksum against that and against ``kcl.mod.lock`` (``version``: '' for
        git, read from the package), then move it to ``folder``: a package that fails a
        check is never installed.
        A failure is remembered for a while in this process, so a long-lived caller (the
        language server, which loads on every edit) does not retry the network each time."""
        import shutil
        import time

        from kclpy.mod import archive

        failed = _RECENT_FAILURES.get(folder)
        if failed is not None and time.monotonic() - failed[0] < RETRY_SECONDS and not self.update:
            raise failed[1]
        staging = archive.staging_dir(self.home)
        try:
            fetch = self.progress.start(label)
            try:
                announced = fill(staging, fetch)
            except PackageError as error:
                fetch.fail()
                _RECENT_FAILURES[folder] = (time.monotonic(), error)
                raise
            except BaseException:
                fetch.fail()
                raise
            fetch.finish(None if fetch.received else _folder_size(staging))
            _RECENT_FAILURES.pop(folder, None)
            known = archive.checksum(staging)
            if announced and announced != known:
                raise PackageError(
                    Code.CHECKSUM_MISMATCH,
                    f"package {dependency.describe()} does not match the checksum its "
                    f"manifest announces ({announced}); the package has {known}",
                    dependency=dependency.name,
                )
            self._check_sum(dependency, version or _git_version(staging, dependency), known)
            full_name = os.path.basename(folder)
            _forget_sum(self.home, full_name)
            if os.path.lexists(folder):  # kcl mod update: replace the old copy
                names.remove_tree(self.home, folder, f"package {full_name}")
            archive.install(staging, names.inside(self.home, folder, f"package {full_name}"))
            _remember_sum(self.home, full_name, known)
        finally:
            shutil.rmtree(staging, ignore_errors=True)

    def _verified_sum(self, folder: str, dependency: Dependency, version: str) -> str:
        """The package's checksum, checked against the lock entry of the same version."""
        full_name = os.path.basename(folder)
        cached = os.path.dirname(folder) == self.home  # vendored copies are hashed every time
        known = _remembered_sum(self.home, full_name) if cached else ""
        if not known:
            from kclpy.mod.archive import checksum

            known = checksum(folder)
            if cached:
                _remember_sum(self.home, full_name, known)
        self._check_sum(dependency, version, known)
        return known

    def _check_sum(self, dependency: Dependency, version: str, known: str) -> None:
        """A CHECKSUM_MISMATCH when ``kcl.mod.lock`` records another sum for this
        version (and git ref) of the dependency."""
        expected = self.lock.get(dependency.name)
        if (
            expected is not None
            and expected.sum
            and expected.version == version
            and all(
                expected.source.get(key, value) == value for key, value in _git_refs(dependency)
            )
            and expected.sum != known
        ):
            raise PackageError(
                Code.CHECKSUM_MISMATCH,
                f"checksum mismatch for package {dependency.describe()}: "
                f"kcl.mod.lock says {expected.sum}, the package has {known}",
                "run 'kcl mod update' to download it again and record the new checksum",
                dependency=dependency.name,
            )


RETRY_SECONDS = 30.0
_RECENT_FAILURES: dict[str, tuple[float, PackageError]] = {}  # cache folder -> (when, error)


def _folder_size(folder: str) -> int:
    """The bytes of the files below ``folder`` (links not followed)."""
    total = 0
    for current, _, files in os.walk(folder):
        for name in files:
            with contextlib.suppress(OSError):
                total += os.lstat(os.path.join(current, name)).st_size
    return total


def _sum_path(home: str, full_name: str) -> str:
    return os.path.join(home, ".kclpy", "sums", full_name)


def _remembered_sum(home: str, full_name: str) -> str:
    try:
        with open(_sum_path(home, full_name), encoding="ascii") as stream:
            return stream.read().strip()
    except (OSError, UnicodeDecodeError):
        return ""


def _remember_sum(home: str, full_name: str, value: str) -> None:
    from kclpy.source import write_atomically

    path = _sum_path(home, full_name)
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        write_atomically(path, value + "\n")
    except OSError:
        pass  # a read-only cache: the sum is computed again next time


def _forget_sum(home: str, full_name: str) -> None:
    with contextlib.suppress(OSError):
        os.unlink(_sum_path(home, full_name))


def resolve(root: str, update: bool = False) -> dict[str, Resolved]:
    """Resolve the module at ``root`` and update its ``kcl.mod.lock``."""
    return _resolve_and_lock(Resolver(root, update=update))


def dependency_paths(
    root: str, given: frozenset[str] = frozenset()
) -> tuple[dict[str, str], list[PackageError]]:
    """Import name -> folder for every package of the module at ``root``, and the errors
    (for the loader: an error leaves the packages resolved so far). Packages in
    ``given`` come from ``-E``: not resolved, and the lock is left alone."""
    if not os.path.isfile(os.path.join(root, "kcl.mod")):
        return {}, []
    try:
        resolver = Resolver(root)
    except PackageError as error:
        return {}, [error]
    try:
        resolved = resolver.resolve(given) if given else _resolve_and_lock(resolver)
    except PackageError as error:
        return {name: item.path for name, item in resolver.resolved.items()}, [error]
    return {name: item.path for name, item in resolved.items()}, []


def _resolve_and_lock(resolver: Resolver) -> dict[str, Resolved]:
    resolved = resolver.resolve()
    inside_cache = resolver.root.startswith(os.path.join(resolver.home, ""))
    if os.path.isfile(os.path.join(resolver.root, "kcl.mod")) and not inside_cache:
        packages = {name: item.locked for name, item in resolved.items()}
        with contextlib.suppress(OSError):  # a read-only package (pulled into the cache)
            write_lock(resolver.root, packages)
    return resolved


def vendor_name(item: Resolved) -> str:
    """The folder of a fetched package under ``vendor/``, as the real tool names it:
    ``<name>_<version>`` (registry, OCI), ``<name>_<ref>`` (git; the repository's
    name when the dependency is renamed)."""
    if item.dependency.kind == "git":
        from kclpy.mod.git import repository_name

        return _git_vendor_name(item.dependency, repository_name(item.dependency.git))
    return item.locked.full_name


def _git_vendor_name(dependency: Dependency, repository: str) -> str:
    name = repository if dependency.package else dependency.name
    return names.folder_name(name, dependency.reference or "HEAD")


def _git_version(folder: str, dependency: Dependency) -> str:
    """A git package's version: its kcl.mod's, else the ref (a bad kcl.mod: the ref;
    it is reported when the package's own kcl.mod is read)."""
    try:
        version = read_mod(folder).package.get("version")
    except PackageError:
        version = None
    return str(version or dependency.reference)


def _git_refs(dependency: Dependency) -> list[tuple[str, str]]:
    refs = (
        ("git_tag", dependency.tag),
        ("commit", dependency.commit),
        ("branch", dependency.branch),
    )
    return [(key, value) for key, value in refs if value]
