"""The ``kcl mod`` operations on a module folder, for the command line and the Python API.

Each takes the module root (the folder of ``kcl.mod``) and returns plain data;
failures raise :class:`~kclpy.mod.errors.PackageError`. ``kcl.mod`` and
``kcl.mod.lock`` are only rewritten after the new dependency resolved, so a failed
``add`` leaves both files as they were.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile

from kclpy.diag import Code
from kclpy.mod import archive, names, oci
from kclpy.mod.errors import PackageError
from kclpy.mod.manifest import (
    MOD_FILE,
    Dependency,
    check_package,
    edit_dependencies,
    init_text,
    lock_out_of_date,
    lock_would_change,
    read_mod,
    write_lock,
)
from kclpy.mod.resolution import Resolved, Resolver, resolve, vendor_name
from kclpy.mod.settings import is_locked, load_settings
from kclpy.mod.sources import is_git_url
from kclpy.source import write_atomically


def init(folder: str, name: str = "") -> str:
    """Create ``kcl.mod`` (and an empty ``kcl.mod.lock`` and ``main.k`` when missing)."""
    if name and names.name_problem(name):
        invalid = names.Invalid("name", name, names.name_problem(name))
        raise names.invalid_error("the new package", invalid, "", [])
    folder = os.path.abspath(folder)
    os.makedirs(folder, exist_ok=True)
    path = os.path.join(folder, MOD_FILE)
    if os.path.exists(path):
        raise PackageError(Code.MOD_FILE_ERROR, f"'{path}' already exists")
    write_atomically(path, init_text(name or os.path.basename(folder)))
    write_atomically(os.path.join(folder, "kcl.mod.lock"), "")
    main = os.path.join(folder, "main.k")
    if not os.path.exists(main):
        write_atomically(main, "The_first_kcl_program = 'Hello World!'\n")
    return path


def parse_spec(
    spec: str = "",
    *,
    git: str = "",
    tag: str = "",
    commit: str = "",
    branch: str = "",
    path: str = "",
    oci_url: str = "",
    rename: str = "",
) -> Dependency:
    """A dependency from ``kcl mod add`` arguments: ``NAME[:VERSION]``, an ``oci://`` URL,
    ``--git URL`` with a ref, or ``--path``; ``rename`` is the import name."""
    if spec.startswith("oci://"):
        oci_url, spec = spec, ""
    if git:
        dependency = Dependency("", "git", git=git, tag=tag, commit=commit, branch=branch)
        from kclpy.mod.git import repository_name

        name = repository_name(git)
    elif oci_url:
        reference = oci.Reference.parse(oci_url)
        dependency = Dependency("", "oci", oci=f"oci://{reference}", version=tag)
        name = reference.repository.rsplit("/", 1)[-1]
    elif path or (spec and os.path.isdir(spec)):
        folder = path or spec
        dependency = Dependency("", "path", path=folder)
        name = read_mod(os.path.abspath(folder)).name
    elif spec:
        name, _, version = spec.partition(":")
        dependency = Dependency("", "registry", version=version or tag)
    else:
        raise PackageError(
            Code.USAGE_ERROR, "give a package: NAME[:VERSION], oci://..., --git or --path"
        )
    if rename:
        return dependency._replace(name=rename, package=name)
    return dependency._replace(name=name)


def add(root: str, dependency: Dependency) -> Resolved:
    """Add ``dependency`` to ``root/kcl.mod`` (downloading it), update the lock."""
    resolver = Resolver(root)
    if dependency.kind == "path" and not os.path.isabs(dependency.path):
        relative = os.path.relpath(os.path.abspath(dependency.path), resolver.root)
        dependency = dependency._replace(path=relative)
    resolver.mod.dependencies[dependency.name] = dependency
    resolved = resolver.resolve()
    found = resolved[dependency.name]
    if dependency.kind in ("registry", "oci") and not dependency.version:
        dependency = dependency._replace(version=found.locked.version)
    packages = {name: item.locked for name, item in resolved.items()}
    if is_locked() and lock_would_change(resolver.root, packages):
        raise lock_out_of_date(resolver.root, packages)  # before kcl.mod is edited
    edit_dependencies(resolver.root, add=[dependency])
    write_lock(resolver.root, packages)
    return found


def remove(root: str, name: str) -> None:
    """Drop ``name`` from ``root/kcl.mod`` and rewrite the lock; the new resolution is
    made (and checked against ``--locked``) before either file changes."""
    resolver = Resolver(root)
    if name not in resolver.mod.dependencies:
        raise PackageError(
            Code.PACKAGE_NOT_FOUND, f"dependency '{name}' is not in kcl.mod", dependency=name
        )
    del resolver.mod.dependencies[name]
    packages = {key: item.locked for key, item in resolver.resolve().items()}
    if is_locked() and lock_would_change(resolver.root, packages):
        raise lock_out_of_date(resolver.root, packages)
    edit_dependencies(resolver.root, remove=[name])
    write_lock(resolver.root, packages)


def update(root: str) -> dict[str, Resolved]:
    """Download every dependency again, re-hash it and rewrite the lock."""
    return resolve(root, update=True)


def metadata(root: str) -> str:
    """``kcl mod metadata``: the resolved packages as JSON, as the real tool prints them."""
    packages = {
        name: {"name": item.locked.name, "manifest_path": item.path}
        for name, item in sorted(resolve(root).items())
    }
    return json.dumps({"packages": packages}, separators=(",", ":"))  # compact, as the real tool


def graph(root: str) -> list[str]:
    """``kcl mod graph``: one ``requirer@version dependency@version`` line per edge."""
    resolver = Resolver(root)
    resolved = resolver.resolve()
    top = f"{resolver.mod.name}@{resolver.mod.version}"

    def label(name: str) -> str:
        item = resolved[name]
        return f"{item.locked.name}@{item.locked.version}"

    lines = {f"{label(owner) if owner else top} {label(name)}" for owner, name in resolver.edges}
    return sorted(lines)


def package(root: str, target: str = "", vendor: bool = False) -> str:
    """``kcl mod package``: the module as ``<name>_<version>.tar`` in its folder (or at
    ``target``), with ``vendor/`` filled first in vendor mode; returns the archive path.
    The name and version must follow :mod:`kclpy.mod.names`: the archive stays inside."""
    mod = read_mod(os.path.abspath(root))
    check_package(mod)
    if vendor:
        vendor_dependencies(mod.root)
    if not target:
        archive_name = f"{mod.name}_{mod.version}.tar"
        target = names.inside(mod.root, os.path.join(mod.root, archive_name), "the archive")
    include = [str(p) for p in mod.package.get("include") or []]
    exclude = [str(p) for p in mod.package.get("exclude") or []]
    return archive.pack(mod.root, target, include, exclude)


def vendor_dependencies(root: str) -> None:
    """Copy every package fetched from a registry or git into ``root/vendor/`` under
    the real tool's names (see :func:`~kclpy.mod.resolution.vendor_name`); path
    packages are used where they are. Symbolic links are never followed out of a
    package (:func:`~kclpy.mod.archive.copy_tree`): a link to a file inside it is copied
    as that file, any other is refused with an error."""
    vendor = os.path.join(os.path.abspath(root), "vendor")
    for item in resolve(root).values():
        if item.dependency.kind == "path":
            continue
        name = vendor_name(item)
        target = names.inside(vendor, os.path.join(vendor, name), f"package {name}")
        if os.path.abspath(item.path) == target or os.path.isdir(target):
            continue
        staging = archive.staging_dir(vendor)
        try:
            archive.copy_tree(item.path, os.path.join(staging, "package"))
            archive.install(os.path.join(staging, "package"), target)
        finally:
            shutil.rmtree(staging, ignore_errors=True)


def push(root: str, url: str = "", force: bool = False) -> str:
    """Push the module at ``root`` to ``url`` (``oci://HOST/REPO/NAME``; default: the
    default registry and repository) with its kcl.mod version as the tag."""
    mod = read_mod(os.path.abspath(root))
    if not os.path.isfile(mod.path):
        raise PackageError(Code.MOD_FILE_ERROR, f"no kcl.mod in '{mod.root}'")
    check_package(mod)
    if not url:
        defaults = load_settings()
        url = f"oci://{defaults.registry}/{defaults.repository}/{mod.name}"
    reference = oci.Reference.parse(url)
    tag = mod.version
    what = f"{mod.name}:{tag}"
    if not force and tag in oci.tags(reference, what):
        raise PackageError(
            Code.REGISTRY_ERROR,
            f"package version '{tag}' already exists in '{reference}'",
            "change the version in kcl.mod",
            dependency=mod.name,
        )
    annotations = {
        oci.ANNOTATION_NAME: mod.name,
        oci.ANNOTATION_VERSION: tag,
        oci.ANNOTATION_DESCRIPTION: str(mod.package.get("description") or ""),
        oci.ANNOTATION_SUM: archive.checksum(mod.root),
    }
    with tempfile.TemporaryDirectory(prefix="kclpy-push-") as folder:
        tar_path = package(mod.root, os.path.join(folder, f"{mod.name}_{tag}.tar"))
        return oci.push(reference, tag, tar_path, annotations, what)


def pull(source: str, tag: str = "") -> Resolved:
    """``kcl mod pull``: download a package (``NAME[:VERSION]``, ``oci://...``, a git URL)
    into the package cache; returns where it is."""
    git = source if is_git_url(source) else ""
    dependency = parse_spec("" if git else source, git=git, tag=tag)
    with tempfile.TemporaryDirectory(prefix="kclpy-pull-") as scratch:
        resolver = Resolver(scratch)
        resolver.mod.dependencies[dependency.name] = dependency
        return resolver.resolve()[dependency.name]


def login(host: str, username: str, password: str) -> None:
    oci.login(host, username, password)


def logout(host: str) -> bool:
    return oci.logout(host)
