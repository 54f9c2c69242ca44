"""The containment rule of packages: which names, versions and refs a ``kcl.mod`` or a
``kcl.mod.lock`` may hold, and where a package may be written or removed.

Every value that becomes part of a path is checked against a strict grammar before
it is used (as cargo, npm and Go check theirs):

- a package name or dependency key (``k8s``, ``argo-cd``, ``json_merge_patch``,
  ``gke.secret-sync``): ASCII letters, digits, ``_``, ``-`` and ``.``, starting with a
  letter, digit or ``_``, at most 128 characters;
- a version or OCI tag (``1.31.2``, ``v0.1.0``, ``0.1.0-alpha.1``): the same, plus
  ``+``; an OCI tag is at most 128 characters;
- a git tag or branch: git's own rules (``/`` separates its parts; no ``..``, no part
  starting with ``.``, no control characters, no ``\\``, at most 255 characters);
  a commit: 4 to 64 hexadecimal digits.

So no value can hold a path separator (but a git ref's ``/``, which
:func:`folder_name` encodes), ``.`` or ``..``, or a control character. A bad value
is a MOD_FILE_ERROR located at the value in its file (:func:`located`).

Destinations: :func:`inside` resolves a path (through any symbolic links of its
folders) and proves it lies strictly under its root before anything is written,
renamed or removed there; :func:`remove_tree` is the one way a package folder is
removed. Takes strings; returns strings or raises
:class:`~kclpy.mod.errors.PackageError`.
"""

from __future__ import annotations

import os

from kclpy.diag import Code
from kclpy.mod.errors import PackageError
from kclpy.patterns import compiled
from kclpy.records import Record
from kclpy.source import SourceFile, Span

_NAME = compiled(r"[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}")
_VERSION = compiled(r"[A-Za-z0-9_][A-Za-z0-9_.+-]{0,127}")
_REF_PART = compiled(r"[A-Za-z0-9_+@#,=~][A-Za-z0-9_.+@#,=~-]*")
_COMMIT = compiled(r"[0-9a-fA-F]{4,64}")
_REF_LIMIT = 255

NAME_RULE = (
    "a name is ASCII letters, digits, '_', '-' and '.', starting with a letter, "
    "a digit or '_', at most 128 characters"
)
VERSION_RULE = (
    "a version is ASCII letters, digits, '.', '_', '+' and '-', starting with a letter, "
    "a digit or '_', at most 128 characters"
)
REF_RULE = (
    "a git tag or branch is parts of ASCII letters, digits and '._+-@#,=~' separated by "
    "'/', no part starting with '.', no '..', at most 255 characters"
)
COMMIT_RULE = "a git commit is 4 to 64 hexadecimal digits"


def name_problem(value: str) -> str:
    """Why ``value`` is not a valid package name or dependency key ('' when it is)."""
    return "" if _NAME.fullmatch(value) else NAME_RULE


def version_problem(value: str) -> str:
    """Why ``value`` is not a valid version or OCI tag ('' when it is)."""
    return "" if _VERSION.fullmatch(value) else VERSION_RULE


def ref_problem(value: str) -> str:
    """Why ``value`` is not a valid git tag or branch ('' when it is)."""
    parts = value.split("/")
    valid = (
        0 < len(value) <= _REF_LIMIT
        and ".." not in value
        and not value.endswith((".lock", "."))
        and all(_REF_PART.fullmatch(part) for part in parts)
    )
    return "" if valid else REF_RULE


def commit_problem(value: str) -> str:
    return "" if _COMMIT.fullmatch(value) else COMMIT_RULE


def folder_name(name: str, reference: str) -> str:
    """``<name>_<reference>``, one path component: a git ref's ``/`` is written
    ``%2F`` (and ``%`` as ``%25``), so that ``release/v1`` stays one folder."""
    encoded = reference.replace("%", "%25").replace("/", "%2F")
    return f"{name}_{encoded}"


class Invalid(Record):
    """A value that breaks the rule: the field it is in, the value, and why."""

    field: str
    value: str
    reason: str


def dependency_problem(
    key: str, package: str, version: str, git_refs: dict[str, str]
) -> Invalid | None:
    """The first invalid part of one dependency: its key, ``package``, version or OCI
    tag, and its git ``tag``/``branch``/``commit`` (None when all are valid)."""
    checks = [("name", key, name_problem), ("package", package, name_problem)]
    checks.append(("version", version, version_problem))
    checks += [
        (field, value, commit_problem if field == "commit" else ref_problem)
        for field, value in git_refs.items()
    ]
    for field, value, problem in checks:
        if (value or field == "name") and problem(value):
            return Invalid(field, value, problem(value))
    return None


def located(path: str, places: list[tuple[str, str]], value: str) -> Span | None:
    """Where ``value`` is in the TOML file at ``path``: on the first line of one of
    ``places`` (table, key), e.g. ``("dependencies", "k8s")`` for an inline entry or
    ``("dependencies.k8s", "version")`` for a table; the span covers ``value`` on that
    line, else the key. None when the file cannot be read; line 1 when no such line is
    found (an unusual spelling)."""
    try:
        with open(path, "rb") as stream:
            text = stream.read().decode("utf-8", errors="replace")
    except OSError:
        return None
    source = SourceFile(path, text)
    table = ""
    offset = 0
    header: Span | None = None  # a [table.KEY] header: the place when no line names the value
    for line in text.split("\n"):
        stripped = line.strip()
        if stripped.startswith("["):
            table = _table_name(stripped)
            parent, _, last = table.rpartition(".")
            if header is None and (parent, last) in places:
                header = Span(source, offset + line.find("["), offset + len(line.rstrip()))
        elif "=" in stripped:
            written = stripped.split("=", 1)[0].strip()
            if (table, written.strip("\"'")) in places:
                start = line.find(written)
                found = line.find(value, line.find("=") + 1) if value else -1
                if found >= 0:
                    return Span(source, offset + found, offset + found + len(value))
                return Span(source, offset + start, offset + start + len(written))
        offset += len(line) + 1
    if header is not None:
        return header
    end = text.find("\n")
    return Span(source, 0, end if end > 0 else len(text))


def _table_name(header: str) -> str:
    inner = header.strip("[] \t")
    return ".".join(part.strip().strip("\"'") for part in inner.split("."))


def invalid_error(
    what: str, invalid: Invalid, path: str, places: list[tuple[str, str]], dependency: str = ""
) -> PackageError:
    """The MOD_FILE_ERROR for ``invalid`` (found in ``what``, e.g. ``dependency 'k8s'``),
    located at one of ``places`` (see :func:`located`) of the file at ``path``."""
    span = located(path, places, invalid.value) if path else None
    where = f" in {path}" if path else ""
    return PackageError(
        Code.MOD_FILE_ERROR,
        f"invalid {invalid.field} {invalid.value!r} of {what}{where}: {invalid.reason}",
        "a name, version or ref becomes part of a folder's path; it may not leave that folder",
        dependency=dependency,
        span=span,
    )


def inside(root: str, path: str, what: str) -> str:
    """``path`` made absolute, its folders' links resolved, once proven to lie strictly
    under ``root`` (also resolved); else an IO_ERROR naming ``what``. The last part is
    not followed: a link there is itself what is written, renamed or removed."""
    real_root = os.path.realpath(root)
    absolute = os.path.abspath(path)
    last = os.path.basename(absolute)
    final = os.path.join(os.path.realpath(os.path.dirname(absolute)), last)
    if (
        last in ("", ".", "..")
        or final == real_root
        or os.path.commonpath([real_root, final]) != real_root
    ):
        raise PackageError(
            Code.IO_ERROR,
            f"refusing {what} at '{path}': it is not inside '{root}'",
            dependency=what,
        )
    return final


def remove_tree(root: str, path: str, what: str) -> None:
    """Remove the folder ``path`` once :func:`inside` proved it under ``root``; a link
    there is removed as a link, never followed."""
    final = inside(root, path, what)
    if not os.path.lexists(final):
        return
    if os.path.islink(final) or not os.path.isdir(final):
        os.unlink(final)
    else:
        import shutil  # (here: shutil imports zlib, bz2 and lzma, 1.6 ms of every run)

        shutil.rmtree(final)
