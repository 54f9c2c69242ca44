"""Impact analysis: which stacks a set of changed files reaches.

For every stack the loader resolves the program's imports (no checking, no
compiling) and records what the stack depends on: every file it parsed, every
place it looked for a package (a folder, or ``name.k``, found or not), the
``kcl.mod``/``kcl.mod.lock`` of the stack and of the packages it uses, and its
definition files (``kcl.yaml``). A changed file reaches a stack when it is one of
those files, when it is a ``.k`` file in (or the ``.k`` file of) a place the
loader probed (a file added to or removed from a package), or when it lies in the
stack's own folder or its ``ci-test`` folder. A change to a shared model thus
reaches every stack that imports it, directly or transitively.

The loader's record of a program's reads (``Program.reads``) gives those files and
places. Parsing is shared between stacks through the query layer's parse query
(``kclpy.pipeline.inputs.Files``): each file is parsed once per analysis.
Takes stacks and changed paths; returns the affected stacks. ``changed_since``
asks git for the files changed since a revision (committed, staged, unstaged and
untracked).
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterable, Sequence

import attrs

from kclpy.loader import Loader
from kclpy.monorepo.stacks import MOD_FILE, Stack
from kclpy.pipeline.inputs import Files

_LOCK_FILE = "kcl.mod.lock"


class ImpactError(Exception):
    """The changed files cannot be found (not a git repository, unknown revision)."""


@attrs.frozen
class Dependencies:
    """What one stack depends on (real paths: symlinks resolved, as git reports them)."""

    files: frozenset[str]
    probes: frozenset[str]
    folders: frozenset[str]

    def reached_by(self, path: str) -> bool:
        if path in self.files:
            return True
        folder = os.path.dirname(path)
        if folder in self.folders:
            return True
        # a .k file added to or removed from a package folder, or a one-file package
        return path.endswith(".k") and (folder in self.probes or path[:-2] in self.probes)


def dependencies(stacks: Sequence[Stack]) -> dict[str, Dependencies]:
    """The dependencies of every stack, keyed by the stack's path."""
    parses = Files(keyed=True)  # the parse query, shared by the stacks
    result: dict[str, Dependencies] = {}
    for stack in stacks:
        loader = Loader(stack.path, dict(stack.externals), texts=parses.view({}))
        if stack.files:
            loader.load(list(stack.files))
        reads = loader.program.reads
        roots = {stack.path, *(path for _, path in stack.externals), *loader.externals.values()}
        files = {os.path.realpath(path) for path, _ in reads.files}
        files.update(os.path.realpath(p) for p in stack.definition)
        for root in map(os.path.realpath, roots):
            files.add(os.path.join(root, MOD_FILE))
            files.add(os.path.join(root, _LOCK_FILE))
        folder = os.path.realpath(stack.path)
        result[stack.path] = Dependencies(
            files=frozenset(files),
            probes=frozenset(os.path.realpath(base) for base, _ in reads.probes),
            folders=frozenset({folder, os.path.join(folder, "ci-test")}),
        )
    return result


def affected(stacks: Sequence[Stack], changed: Iterable[str]) -> list[Stack]:
    """The stacks that any of the ``changed`` paths reaches, in the given order."""
    paths = [os.path.realpath(path) for path in changed]
    if not paths:
        return []
    graph = dependencies(stacks)
    return [stack for stack in stacks if any(graph[stack.path].reached_by(p) for p in paths)]


def changed_since(revision: str, folder: str) -> list[str]:
    """Absolute paths of the files changed since ``revision`` in the git repository
    holding ``folder``: committed, staged, unstaged, deleted and untracked files."""
    top = _git(folder, "rev-parse", "--show-toplevel").strip()
    names = _git(top, "diff", "--name-only", "-z", revision, "--").split("\0")
    names += _git(top, "ls-files", "--others", "--exclude-standard", "-z").split("\0")
    return sorted({os.path.join(top, name) for name in names if name})


def _git(folder: str, *arguments: str) -> str:
    try:
        completed = subprocess.run(
            ["git", *arguments],
            cwd=folder,
            capture_output=True,
            text=True,
            check=False,
        )
    except OSError as error:
        raise ImpactError(f"cannot run git: {error}") from None
    if completed.returncode != 0:
        message = completed.stderr.strip().splitlines()
        raise ImpactError(f"git {arguments[0]} failed: {message[-1] if message else 'error'}")
    return completed.stdout
