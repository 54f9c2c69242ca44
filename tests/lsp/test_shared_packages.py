"""Checked packages shared by the editor's programs (``kclpy_lsp.workspace``: its
query database stores them by content key, ``kclpy.sema.interface``): every
program's diagnostics, references and scopes are what checking it alone gives,
before and after an edit in a shared model, and an edit re-checks the package it
changes and every package above it, nothing else.

The workspaces run in this process, on a generated konfig-shaped monorepo
(``monorepo.build``): one sharing its checked packages, one checking every
program's packages itself."""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from kclpy_lsp.documents import Documents
from kclpy_lsp.workspace import Analysis, Workspace

from kclpy.sema.model import Model

from . import monorepo

WAIT = 120.0  # seconds an analysis of the whole workspace may take at most
FRONTEND = "konfig.models.frontend"
CONTAINER = "konfig.models.frontend.container"


@pytest.fixture(autouse=True)
def package_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KCL_PKG_PATH", str(tmp_path / "cache"))
    monkeypatch.setenv("KPM_REG", "127.0.0.1:9")


@pytest.fixture
def repo(tmp_path: Path) -> monorepo.Monorepo:
    return monorepo.build(tmp_path, stacks=3, settings_stacks=2, environments=("dev", "prod"))


@pytest.fixture
def workspaces(repo: monorepo.Monorepo) -> Iterator[tuple[Workspace, Workspace]]:
    """(sharing, alone), both analysing the whole monorepo."""
    made = []
    for shared in (True, False):
        workspace = Workspace(Documents(), lambda path, found, version: None, shared=shared)
        workspace.roots = [str(repo.root)]
        workspace.scan()
        made.append(workspace)
    try:
        for workspace in made:
            settled(workspace)
        yield made[0], made[1]
    finally:
        for workspace in made:
            workspace.stop()


def settled(workspace: Workspace) -> None:
    deadline = time.monotonic() + WAIT
    while workspace.pending() is not None or not workspace.all_analyses():
        assert time.monotonic() < deadline, "the workspace was not analysed in time"
        time.sleep(0.02)


def _scope_names(model: Model, path: str, offset: int, pkgpath: str) -> list[tuple[str, bool]]:
    """The names visible at an offset, innermost first, each with whether it is the
    package's (``Model.names_at``: the resolver's declarations of each region)."""
    return [(symbol.name, own) for symbol, own in model.names_at(path, offset, pkgpath)]


def facts(analysis: Analysis) -> dict[str, object]:
    """What an editor reads of one analysis, by position: diagnostics and lint
    findings; per definition or use, its symbol's definition and references; the
    names in scope there."""
    model = analysis.model
    diagnostics = sorted(
        (path, d.code.id, d.message, d.span.start if d.span else -1)
        for path, found in analysis.diagnostics.items()
        for d in found
    )
    uses: dict[tuple[str, int, int], object] = {}
    for pkgpath, modules in analysis.program.packages.items():
        for module in modules:
            path = module.file.path
            for start, end, symbol in model.occurrences(path):
                spans = model.references(symbol)
                uses[(path, start, end)] = (
                    symbol.name,
                    symbol.kind,
                    symbol.type.ty_str(),
                    sorted((span.file.path, span.start, span.end) for span in spans),
                    _scope_names(model, path, start, pkgpath),
                )
    order = [(d.code.id, d.message) for d in model.diagnostics]
    return {"diagnostics": diagnostics, "order": order, "uses": uses}


def compare(sharing: Workspace, alone: Workspace) -> None:
    mine = {a.folder: a for a in sharing.all_analyses()}
    theirs = {a.folder: a for a in alone.all_analyses()}
    assert sorted(mine) == sorted(theirs) and len(mine) == 8  # the stacks
    for folder in sorted(mine):
        assert facts(mine[folder]) == facts(theirs[folder]), folder


def _stack_models(workspace: Workspace, repo: monorepo.Monorepo) -> list[Model]:
    return [
        a.model
        for a in workspace.all_analyses()
        if a.unit is not None and a.unit.stack and repo.konfig in Path(a.folder).parents
    ]


def test_shared_packages_answer_as_checking_each_program_alone(
    workspaces: tuple[Workspace, Workspace], repo: monorepo.Monorepo
) -> None:
    sharing, alone = workspaces
    compare(sharing, alone)
    models = _stack_models(sharing, repo)
    assert len(models) == 6
    scopes = {id(model.packages_names[FRONTEND]) for model in models}
    assert len(scopes) == 1, "every konfig stack reads the one check of the shared model"
    apart = {id(model.packages_names[FRONTEND]) for model in _stack_models(alone, repo)}
    assert len(apart) == 6
    # a use in one stack is a reference in that stack's model only (uses are read off
    # each program's modules, never recorded on the shared symbol)
    main = str(repo.stacks[0])
    holders = [model for model in models if main in model.files]
    others = [model for model in models if main not in model.files]
    assert holders and others
    server = next(s for _, _, s in holders[0].occurrences(main) if s.name == "Server")
    for model in holders:
        assert main in {span.file.path for span in model.references(server)}
    for model in others:
        assert main not in {span.file.path for span in model.references(server)}


def test_an_edit_in_a_shared_model_checks_it_and_what_imports_it_again(
    workspaces: tuple[Workspace, Workspace], repo: monorepo.Monorepo
) -> None:
    sharing, alone = workspaces
    before = _stack_models(sharing, repo)[0]
    frontend, kube = before.packages_names[FRONTEND], before.packages_names["kube.core.v1"]
    model = repo.konfig / "models" / "frontend" / "container" / "main.k"
    text = model.read_text(encoding="utf-8")
    model.write_text(text.replace('name: str = "main"', 'name: int = "main"'), encoding="utf-8")
    for workspace in (sharing, alone):
        workspace.changed(str(model))  # as the file watcher reports it
        settled(workspace)
    compare(sharing, alone)
    after = _stack_models(sharing, repo)
    assert all(m.packages_names[FRONTEND] is not frontend for m in after)  # above the edit
    assert all(m.packages_names["kube.core.v1"] is kube for m in after)  # beside it
    assert len({id(m.packages_names[CONTAINER]) for m in after}) == 1
    found = [
        d.message
        for a in sharing.all_analyses()
        for d in a.diagnostics.get(os.path.abspath(model), [])
    ]
    assert found, "the edited model's error is reported"
