"""``kcl.mod`` and ``kcl.mod.lock``: reading, editing and writing them in the real tool's formats.

``kcl.mod`` (TOML): ``[package]`` (name, edition, version, description, include,
exclude), ``[dependencies]`` and ``[profile]`` (``entries`` and run options). A
dependency is a version string (the default registry), or a table: ``{ oci =
"oci://HOST/REPO", tag = }``, ``{ git = URL, tag | commit | branch = }``, ``{ path =
}``; ``package =`` names the real package when the dependency is renamed.
Editing (``kcl mod add/remove``) goes through ``tomlkit`` so comments and other
sections survive.

``kcl.mod.lock``: one ``[dependencies.NAME]`` table per resolved package with
``name``, ``full_name`` (``name_version``), ``version``, ``sum`` (see
:func:`kclpy.mod.archive.checksum`) and the source: ``reg``/``repo``/``oci_tag``,
``url`` with ``git_tag``/``commit``/``branch``, or ``path``; written by
:func:`write_lock`, indented as the real tool writes it.
"""

from __future__ import annotations

import os

from kclpy.diag import Code
from kclpy.mod import names, simple_toml
from kclpy.mod.errors import PackageError
from kclpy.records import Record
from kclpy.source import SourceFile, Span, write_atomically

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

MOD_FILE = "kcl.mod"
LOCK_FILE = "kcl.mod.lock"
EDITION = "v0.11.0"


class Dependency(Record):
    """One ``[dependencies]`` entry; ``kind`` is registry, oci, git or path."""

    name: str
    kind: str
    version: str = ""  # registry version, or the oci tag
    oci: str = ""  # oci://HOST/REPO (for kind oci)
    git: str = ""
    tag: str = ""
    commit: str = ""
    branch: str = ""
    path: str = ""
    package: str = ""  # the package's own name when the dependency is renamed

    @property
    def package_name(self) -> str:
        return self.package or self.name

    @property
    def reference(self) -> str:
        """The git ref (tag, commit or branch) or the registry version."""
        return self.tag or self.commit or self.branch or self.version

    def describe(self) -> str:
        if self.kind == "path":
            return f"{self.name} (path {self.path})"
        if self.kind == "git":
            return f"{self.name} ({self.git} {self.reference or 'HEAD'})"
        if self.kind == "oci":
            return f"{self.name} ({self.oci}:{self.version})"
        return f"{self.name} {self.version}"

    def toml_value(self) -> str | dict[str, str]:
        """The value of this dependency in ``kcl.mod``."""
        if self.kind == "registry" and not self.package:
            return self.version
        value: dict[str, str] = {}
        if self.kind == "path":
            value["path"] = self.path
        elif self.kind == "git":
            value["git"] = self.git
            for key in ("tag", "commit", "branch"):
                if getattr(self, key):
                    value[key] = getattr(self, key)
        elif self.kind == "oci":
            value["oci"] = self.oci
            value["tag"] = self.version
        else:
            value["version"] = self.version
        if self.package:
            value["package"] = self.package
        return value


class ModFile:
    """A parsed ``kcl.mod``: the folder holding it, its sections. A hand-written slotted
    class, not an attrs one: a run with a ``kcl.mod`` reads it, and ``kcl run`` imports
    no attrs (it costs milliseconds of every start; see docs/design.md, Records)."""

    __slots__ = ("dependencies", "package", "profile", "root")

    def __init__(
        self,
        root: str,
        package: dict[str, Any] | None = None,
        dependencies: dict[str, Dependency] | None = None,
        profile: dict[str, Any] | None = None,
    ) -> None:
        self.root = root
        self.package = package or {}
        self.dependencies = dependencies or {}
        self.profile = profile or {}

    @property
    def name(self) -> str:
        return str(self.package.get("name") or os.path.basename(self.root))

    @property
    def version(self) -> str:
        return str(self.package.get("version") or "0.0.1")

    @property
    def path(self) -> str:
        return os.path.join(self.root, MOD_FILE)


class Locked(Record):
    """One resolved package of ``kcl.mod.lock``; ``source``: reg/repo/oci_tag, or url
    with git_tag/commit/branch (empty for a path)."""

    name: str
    version: str
    sum: str = ""
    source: dict[str, str] = {}  # noqa: RUF012 (never mutated)

    @property
    def full_name(self) -> str:
        return f"{self.name}_{self.version}"


def _span_of(path: str, text: str, needle: str) -> Span:
    """A span on the first line of ``text`` that mentions ``needle`` (else line 1)."""
    source = SourceFile(path, text)
    offset = max(text.find(needle), 0) if needle else 0
    end = text.find("\n", offset)
    return Span(source, offset, end if end > offset else len(text))


def parse_dependency(name: str, value: Any) -> Dependency:
    """One ``[dependencies]`` entry; raises ValueError with the reason when malformed."""
    if isinstance(value, str):
        return Dependency(name, "registry", version=value)
    if not isinstance(value, dict):
        raise ValueError("a dependency is a version string or a table")
    strings = {key: item for key, item in value.items() if isinstance(item, str)}
    package = strings.get("package", "")
    if "path" in strings:
        return Dependency(name, "path", path=strings["path"], package=package)
    if "git" in strings:
        refs = {key: strings.get(key, "") for key in ("tag", "commit", "branch")}
        if sum(1 for ref in refs.values() if ref) > 1:
            raise ValueError("give only one of tag, commit and branch")
        return Dependency(name, "git", git=strings["git"], package=package, **refs)
    if "oci" in strings:
        url = strings["oci"]
        if not url.startswith("oci://"):
            raise ValueError(f"'{url}' is not an oci:// URL")
        return Dependency(name, "oci", oci=url, version=strings.get("tag", ""), package=package)
    if "version" in strings:
        return Dependency(name, "registry", version=strings["version"], package=package)
    raise ValueError("expected one of path, git, oci or version")


def read_mod(root: str) -> ModFile:
    """Parse ``root/kcl.mod``; a missing file is an empty module, a bad one an error."""
    path = os.path.join(root, MOD_FILE)
    try:
        with open(path, "rb") as handle:
            raw = handle.read()
    except OSError:
        return ModFile(root)
    text = raw.decode("utf-8", errors="replace")
    data = simple_toml.loads(text)
    if data is None:  # outside the plain subset (or invalid): the full parser
        import tomllib

        try:
            data = tomllib.loads(text)
        except tomllib.TOMLDecodeError as error:
            raise PackageError(
                Code.MOD_FILE_ERROR, f"invalid kcl.mod: {error}", span=_span_of(path, text, "")
            ) from None
    mod = ModFile(root, _table(data.get("package")), {}, _table(data.get("profile")))
    for name, value in _table(data.get("dependencies")).items():
        try:
            mod.dependencies[name] = parse_dependency(name, value)
        except ValueError as error:
            raise PackageError(
                Code.MOD_FILE_ERROR,
                f"invalid dependency '{name}' in kcl.mod: {error}",
                dependency=name,
                span=_span_of(path, text, name),
            ) from None
        check_dependency(mod.dependencies[name], path)
    return mod


def check_dependency(dependency: Dependency, path: str = "") -> None:
    """Refuse a dependency whose key, ``package``, version or git ref breaks the
    containment rule (:mod:`kclpy.mod.names`); located in the ``kcl.mod`` at ``path``."""
    refs = {key: getattr(dependency, key) for key in ("tag", "branch", "commit")}
    refs = {key: value for key, value in refs.items() if value}
    version = "" if dependency.kind == "git" else dependency.version
    invalid = names.dependency_problem(dependency.name, dependency.package, version, refs)
    if invalid is not None:
        field = "tag" if dependency.kind == "oci" and invalid.field == "version" else invalid.field
        places = [("dependencies", dependency.name), (f"dependencies.{dependency.name}", field)]
        what = f"dependency '{dependency.name}'"
        raise names.invalid_error(what, invalid, path, places, dependency.name)


def check_package(mod: ModFile) -> None:
    """Refuse a ``[package]`` name or version (as written) that breaks the rule."""
    for field, problem in (("name", names.name_problem), ("version", names.version_problem)):
        value = mod.package.get(field)
        if value is None:
            continue
        reason = problem(str(value))
        if reason:
            invalid = names.Invalid(field, str(value), reason)
            what = f"package '{mod.name}'" if field == "version" else "the package"
            raise names.invalid_error(what, invalid, mod.path, [("package", field)])


def _table(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def read_lock(root: str) -> dict[str, Locked]:
    """The packages of ``root/kcl.mod.lock`` by name ({} when there is none)."""
    path = os.path.join(root, LOCK_FILE)
    try:
        with open(path, "rb") as handle:
            raw = handle.read()
    except OSError:
        return {}
    text = raw.decode("utf-8", errors="replace")
    data = simple_toml.loads(text)
    if data is None:
        import tomllib

        try:
            data = tomllib.loads(text)
        except tomllib.TOMLDecodeError as error:
            raise PackageError(Code.MOD_FILE_ERROR, f"invalid kcl.mod.lock: {error}") from None
    locked: dict[str, Locked] = {}
    for key, entry in _table(data.get("dependencies")).items():
        if not isinstance(entry, dict):
            continue
        values = {k: str(v) for k, v in entry.items() if isinstance(v, str)}
        source = {k: v for k, v in values.items() if k in _SOURCE_KEYS}
        locked[key] = Locked(
            values.get("name", key), values.get("version", ""), values.get("sum", ""), source
        )
        _check_locked(path, key, locked[key])
    return locked


def _check_locked(path: str, key: str, entry: Locked) -> None:
    """Refuse a lock entry whose key, name, version or git ref breaks the rule."""
    checks = [("key", key, names.name_problem), ("name", entry.name, names.name_problem)]
    if "url" in entry.source:  # git: the version may be the ref
        checks.append(("version", entry.version, names.ref_problem))
    elif entry.source:  # a registry: the version is an OCI tag (path packages: any)
        checks.append(("version", entry.version, names.version_problem))
    for field in ("git_tag", "branch"):
        checks.append((field, entry.source.get(field, ""), names.ref_problem))
    checks.append(("commit", entry.source.get("commit", ""), names.commit_problem))
    checks.append(("oci_tag", entry.source.get("oci_tag", ""), names.version_problem))
    for field, value, problem in checks:
        reason = problem(value) if value or field in ("key", "name") else ""
        if reason:
            places = [("dependencies", key)] if field == "key" else []
            places.append((f"dependencies.{key}", field))
            invalid = names.Invalid(field, value, reason)
            raise names.invalid_error(f"locked package '{key}'", invalid, path, places, key)


_SOURCE_KEYS = ("reg", "repo", "oci_tag", "url", "git_tag", "commit", "branch", "path")


def render_lock(packages: dict[str, Locked]) -> str:
    """The text of ``kcl.mod.lock`` for ``packages`` (keyed by dependency name)."""
    lines = ["[dependencies]"]
    for key in sorted(packages):
        package = packages[key]
        lines.append(f"  [dependencies.{_key(key)}]")
        fields = [("name", package.name), ("full_name", package.full_name)]
        fields += [("version", package.version), ("sum", package.sum)]
        fields += [(name, package.source[name]) for name in _SOURCE_KEYS if name in package.source]
        lines.extend(f"    {name} = {_string(value)}" for name, value in fields if value)
    return "\n".join(lines) + "\n"


def write_lock(root: str, packages: dict[str, Locked]) -> bool:
    """Write ``root/kcl.mod.lock`` when its content changes; True when written. Under
    ``--locked`` (:func:`kclpy.mod.settings.is_locked`) a change is refused instead:
    a MOD_FILE_ERROR saying what would change. In a process with read-only locks
    (:func:`kclpy.mod.settings.read_only_locks`) nothing is written."""
    from kclpy.mod.settings import is_locked, lock_written, locks_read_only

    if locks_read_only() or not lock_would_change(root, packages):
        return False
    if is_locked():
        raise lock_out_of_date(root, packages)
    write_atomically(os.path.join(root, LOCK_FILE), render_lock(packages))
    lock_written(os.path.join(root, LOCK_FILE))
    return True


def lock_would_change(root: str, packages: dict[str, Locked]) -> bool:
    """Whether :func:`write_lock` would rewrite ``root/kcl.mod.lock`` (the real tool's
    rule: when the text it would write differs from the file's; with no package to
    lock, only when the file locks some)."""
    try:
        with open(os.path.join(root, LOCK_FILE), encoding="utf-8") as stream:
            if stream.read() == render_lock(packages):
                return False
    except (OSError, UnicodeDecodeError):
        pass
    return bool(packages) or bool(read_lock(root))


def lock_out_of_date(root: str, packages: dict[str, Locked]) -> PackageError:
    """The ``--locked`` error for a ``kcl.mod.lock`` that would become ``packages``."""
    path = os.path.join(root, LOCK_FILE)
    if not os.path.exists(path):
        changes, span = [f"it is missing; it would lock {len(packages)} package(s)"], None
    else:
        old = read_lock(root)
        keys = sorted({*old, *packages})
        changes = [_change(key, old.get(key), packages.get(key)) for key in keys]
        changes = [change for change in changes if change]
        first = next((key for key in keys if old.get(key) != packages.get(key)), "")
        span = names.located(path, [("dependencies", first)], "") if first else None
        changes = changes or ["its layout differs from the one kcl writes"]
    return PackageError(
        Code.MOD_FILE_ERROR,
        f"{path} is out of date and --locked forbids changing it: " + "; ".join(changes),
        "run the command again without --locked to update it, and commit kcl.mod.lock",
        span=span,
    )


def _change(key: str, old: Locked | None, new: Locked | None) -> str:
    """One package's change, e.g. ``k8s: version 1.30.0 -> 1.31.2`` ('' when none)."""
    if old is None and new is not None:
        return f"{key} {new.version} would be added"
    if new is None and old is not None:
        return f"{key} {old.version} would be removed"
    if old is None or new is None or old == new:
        return ""
    fields = [("name", old.name, new.name), ("version", old.version, new.version)]
    fields.append(("sum", old.sum, new.sum))
    for name in _SOURCE_KEYS:
        fields.append((name, old.source.get(name, ""), new.source.get(name, "")))
    differences = [f"{name} {a or '(none)'} -> {b or '(none)'}" for name, a, b in fields if a != b]
    return f"{key}: " + ", ".join(differences)


def _string(value: str) -> str:
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _key(name: str) -> str:
    bare = name.replace("_", "").replace("-", "").isalnum()
    return name if bare else _string(name)


def init_text(name: str, version: str = "0.0.1") -> str:
    """The ``kcl.mod`` of ``kcl mod init``."""
    return (
        f"[package]\nname = {_string(name)}\nedition = {_string(EDITION)}\n"
        f"version = {_string(version)}\n\n[dependencies]\n"
    )


def edit_dependencies(
    root: str, add: list[Dependency] | None = None, remove: list[str] | None = None
) -> None:
    """Add (or replace) and remove ``[dependencies]`` entries of ``root/kcl.mod`` in place."""
    import tomlkit

    path = os.path.join(root, MOD_FILE)
    try:
        with open(path, encoding="utf-8") as stream:
            original = stream.read()
        document = tomlkit.parse(original)
    except OSError as error:
        raise PackageError(Code.MOD_FILE_ERROR, f"cannot read {path}: {error}") from None
    except Exception as error:  # tomlkit's parse errors have no common public base
        raise PackageError(Code.MOD_FILE_ERROR, f"invalid kcl.mod: {error}") from None
    if "dependencies" not in document:
        document["dependencies"] = tomlkit.table()
    table: Any = document["dependencies"]
    for name in remove or []:
        if name not in table:
            raise PackageError(
                Code.PACKAGE_NOT_FOUND, f"dependency '{name}' is not in kcl.mod", dependency=name
            )
        del table[name]
    for dependency in add or []:
        value = dependency.toml_value()
        if isinstance(value, dict):  # spelled as the real tool does: { key = "value" }
            pairs = ", ".join(f"{key} = {_string(item)}" for key, item in value.items())
            table[dependency.name] = tomlkit.parse(f"value = {{ {pairs} }}")["value"]
        else:
            table[dependency.name] = value
    text = tomlkit.dumps(document)
    if original.endswith("\n") and not text.endswith("\n"):  # tomlkit drops it after a last entry
        text += "\n"
    write_atomically(path, text)
