"""Stack discovery: which folders under the build paths are stacks, and how each runs.

A stack is a folder that holds one of, in this order of precedence for its files:

* a ``kcl.yaml`` settings file whose ``kcl_cli_configs.files`` names the entry files
  (its options, ``-D`` values and flags apply too);
* a ``kcl.mod`` whose ``[profile] entries`` name the entry files;
* a ``main.k``.

Takes build paths (folders or stack folders); returns ``Stack`` records sorted by
path. Folders that never hold stacks are not entered: hidden ones, ``vendor``,
``node_modules``, ``ci-test`` (goldens) and ``external``.
"""

from __future__ import annotations

import os
import tomllib
from collections.abc import Iterable

import attrs

from kclpy.loader import mod_dependencies
from kclpy.settings import SettingsError, load_settings

SETTINGS_FILE = "kcl.yaml"
MOD_FILE = "kcl.mod"
MAIN_FILE = "main.k"
_SKIPPED = frozenset({"vendor", "node_modules", "ci-test", "external", "__pycache__"})
_FLAGS = ("disable_none", "sort_keys", "show_hidden", "strict_range_check")


class StackError(Exception):
    """A stack whose definition cannot be read (bad kcl.mod or settings file)."""


@attrs.frozen
class Stack:
    """One stack: its folder, entry files (as written), options and external packages."""

    path: str
    name: str
    files: tuple[str, ...]
    options: tuple[str, ...] = ()
    externals: tuple[tuple[str, str], ...] = ()
    flags: tuple[str, ...] = ()
    definition: tuple[str, ...] = ()  # the files that define the stack (kcl.mod, kcl.yaml)
    error: str = ""

    @property
    def golden_path(self) -> str:
        return os.path.join(self.path, "ci-test", "stdout.golden.yaml")


@attrs.define
class _Definition:
    files: list[str] = attrs.field(factory=list)
    options: list[str] = attrs.field(factory=list)
    externals: dict[str, str] = attrs.field(factory=dict)
    flags: list[str] = attrs.field(factory=list)
    sources: list[str] = attrs.field(factory=list)


def discover(paths: Iterable[str], root: str | None = None) -> list[Stack]:
    """Every stack at or under ``paths``; names are relative to ``root`` (default: the
    current folder)."""
    base = os.path.abspath(root or os.getcwd())
    found: dict[str, Stack] = {}
    for path in paths:
        top = os.path.abspath(path)
        if not os.path.isdir(top):
            raise StackError(f"no such folder: {path}")
        for folder, subfolders, names in os.walk(top):
            subfolders[:] = sorted(
                name for name in subfolders if not (name.startswith(".") or name in _SKIPPED)
            )
            stack = read_stack(folder, set(names), base)
            if stack is not None:
                found[folder] = stack
    return [found[key] for key in sorted(found)]


def read_stack(folder: str, names: set[str], base: str) -> Stack | None:
    """The stack defined in ``folder`` (whose entries are ``names``), or None."""
    if not names & {SETTINGS_FILE, MOD_FILE, MAIN_FILE}:
        return None
    name = os.path.relpath(folder, base)
    definition = _Definition()
    try:
        if MOD_FILE in names:
            _read_mod(os.path.join(folder, MOD_FILE), definition)
        if SETTINGS_FILE in names:
            _read_settings(os.path.join(folder, SETTINGS_FILE), definition)
    except StackError as error:
        return Stack(folder, name, (), definition=tuple(definition.sources), error=str(error))
    if not definition.files:
        if MAIN_FILE not in names:
            return None
        definition.files = [MAIN_FILE]
    return Stack(
        path=folder,
        name=name,
        files=tuple(definition.files),
        options=tuple(definition.options),
        externals=tuple(sorted(definition.externals.items())),
        flags=tuple(definition.flags),
        definition=tuple(definition.sources),
    )


def _read_mod(path: str, definition: _Definition) -> None:
    definition.sources.append(path)
    try:
        with open(path, "rb") as handle:
            data = tomllib.loads(handle.read().decode("utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as error:
        raise StackError(f"cannot read {path}: {error}") from None
    profile = data.get("profile") or {}
    entries = profile.get("entries") if isinstance(profile, dict) else None
    if isinstance(entries, list) and all(isinstance(item, str) for item in entries):
        definition.files = list(entries)
    # the stack's packages, resolved (downloaded when missing) as `kcl run` in its folder
    # does; a resolution error (a bad kcl.mod, a lock that --locked keeps) fails the stack
    packages, problems = mod_dependencies(os.path.dirname(path))
    if problems:
        from kclpy.diag.render import render_all

        raise StackError(render_all(problems, "human", False).rstrip("\n"))
    definition.externals.update(packages)


def _read_settings(path: str, definition: _Definition) -> None:
    definition.sources.append(path)
    try:
        settings = load_settings([path])
    except SettingsError as error:
        raise StackError(str(error)) from None
    files = settings.get("files")
    if files:
        definition.files = [str(item) for item in files]
    definition.options.extend(str(item) for item in settings.get("options", []))
    for item in settings.get("external", []):
        key, _, target = str(item).partition("=")
        definition.externals[key] = os.path.join(os.path.dirname(path), target)
    definition.flags.extend(flag for flag in _FLAGS if settings.get(flag))
