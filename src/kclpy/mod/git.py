"""Git sources: a package at a tag, commit or branch of a repository, by the ``git`` program.

:func:`fetch` clones into a temporary folder inside the package cache, checks out
the reference, drops ``.git`` and returns the folder (the caller moves it into
place). Any failure (no ``git``, an unreachable URL, an unknown reference) is a
GIT_ERROR naming the dependency.
"""

from __future__ import annotations

import os
import shutil
import subprocess

from kclpy.diag import Code
from kclpy.mod.errors import PackageError


def repository_name(url: str) -> str:
    """``https://host/org/name.git`` -> ``name``."""
    return os.path.basename(url.rstrip("/")).removesuffix(".git") or "package"


def _git(arguments: list[str], folder: str, what: str) -> str:
    environment = dict(os.environ, GIT_TERMINAL_PROMPT="0", GIT_ASKPASS="true")
    try:
        done = subprocess.run(
            ["git", *arguments], cwd=folder, capture_output=True, text=True,
            env=environment, timeout=600, check=False,
        )  # fmt: skip
    except FileNotFoundError:
        raise PackageError(
            Code.GIT_ERROR, f"cannot fetch {what}: the git program is not installed"
        ) from None
    except subprocess.TimeoutExpired:
        raise PackageError(Code.GIT_ERROR, f"git timed out fetching {what}") from None
    if done.returncode != 0:
        reason = (done.stderr.strip().splitlines() or ["git failed"])[-1]
        raise PackageError(Code.GIT_ERROR, f"cannot fetch {what}: {reason}", dependency=what)
    return done.stdout.strip()


def fetch(url: str, reference: str, folder: str, what: str, branch: bool = False) -> str:
    """Clone ``url`` into ``folder`` (empty, existing) at ``reference`` (a tag or commit,
    or a branch when ``branch``; the default branch when empty); returns the commit."""
    if url.startswith("-") or reference.startswith("-"):  # never an option to git
        raise PackageError(
            Code.GIT_ERROR, f"cannot fetch {what}: '{url}' at '{reference}' is not a git source"
        )
    _git(["clone", "--quiet", "--no-checkout", "--", url, "."], folder, what)
    if reference:
        reference = f"origin/{reference}" if branch else reference
        _git(["checkout", "--quiet", "--detach", reference], folder, what)
    else:
        _git(["checkout", "--quiet"], folder, what)
    commit = _git(["rev-parse", "HEAD"], folder, what)
    shutil.rmtree(os.path.join(folder, ".git"), ignore_errors=True)
    return commit
