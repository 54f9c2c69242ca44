"""The language server on a konfig-shaped monorepo, through a real client (pytest-lsp).

The workspace (``monorepo.build``) holds stacks of kcl-lang/konfig's layout
(``kcl.mod`` profile entries: ``base.k`` + ``main.k`` + ``render.k``, two
environments sharing one ``base.k``) and of KusionStack/konfig's (``kcl.yaml``
settings files), shared models, and a registry package already in the package
cache: no network. The server starts after the workspace is written, as an editor
opening a checked-out repository.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities

from . import monorepo
from .helpers import change, codes, diagnostics, document, open_document, position

pytestmark = pytest.mark.asyncio


@pytest.fixture
def repo(tmp_path: Path) -> monorepo.Monorepo:
    return monorepo.build(tmp_path, stacks=3, settings_stacks=2, environments=("dev", "prod"))


@pytest_asyncio.fixture
async def client(repo: monorepo.Monorepo) -> AsyncIterator[LanguageClient]:
    """A client with VS Code's capabilities (progress included) on the monorepo."""
    environment = {**os.environ, "KCL_PKG_PATH": str(repo.cache), "KPM_REG": "127.0.0.1:9"}
    config = ClientServerConfig([sys.executable, "-m", "kclpy_lsp"], server_env=environment)
    lsp = await config.start()
    assert isinstance(lsp, LanguageClient)

    @lsp.feature(types.CLIENT_REGISTER_CAPABILITY)
    def register(params: types.RegistrationParams) -> None:
        """Accept the server's file watchers (as VS Code does)."""

    await lsp.initialize_session(
        types.InitializeParams(
            capabilities=client_capabilities("visual-studio-code"),
            root_uri=repo.root.as_uri(),
            workspace_folders=[types.WorkspaceFolder(repo.root.as_uri(), "workspace")],
        )
    )
    yield lsp
    await lsp.shutdown_session()
    await lsp.stop()


def opened(client: LanguageClient, path: Path) -> tuple[str, str]:
    text = path.read_text(encoding="utf-8")
    return open_document(client, path, text), text


async def test_stacks_are_checked_as_kcl_run_builds_them(
    client: LanguageClient, repo: monorepo.Monorepo
) -> None:
    """``main.k`` alone lacks the required ``mainContainer`` that ``base.k`` sets: no
    stack reports it, open or not, profile entries or kcl.yaml."""
    konfig_main, kusion_main = repo.stacks[0], repo.stacks[-1]
    for path in (konfig_main, kusion_main):
        uri, _ = opened(client, path)
        assert not await diagnostics(client, uri)
    await client.workspace_symbol_async(types.WorkspaceSymbolParams(query=""))  # all analysed
    for path in repo.stacks:
        found = await diagnostics(client, path.as_uri())
        assert [d.message for d in found] == [], path


async def test_opening_the_workspace_writes_no_file(
    client: LanguageClient, repo: monorepo.Monorepo
) -> None:
    """The stacks' kcl.mod.lock files are out of date: resolution must not rewrite
    them (nor anything else under the workspace)."""
    before = repo.snapshot()
    uri, _ = opened(client, repo.stacks[0])
    await diagnostics(client, uri)
    await client.workspace_symbol_async(types.WorkspaceSymbolParams(query=""))  # all analysed
    assert repo.snapshot() == before
    lock = repo.konfig / "examples" / "app0" / "dev" / "kcl.mod.lock"
    assert "kube_0.9.0" in lock.read_text(encoding="utf-8")


async def test_answers_right_after_open_are_complete(
    client: LanguageClient, repo: monorepo.Monorepo
) -> None:
    """References, workspace symbols and completion sent together with ``didOpen``
    wait for the analysis they need (with progress shown), never answer from part of
    the workspace."""
    uri, text = opened(client, repo.stacks[0])
    at = position(text, "frontend.Server", len("frontend."))
    references = await client.text_document_references_async(
        types.ReferenceParams(
            context=types.ReferenceContext(include_declaration=True),
            text_document=document(uri),
            position=at,
        )
    )
    symbols = await client.workspace_symbol_async(types.WorkspaceSymbolParams(query="Server"))
    line = text.split("\n").index("    replicas = 1")
    completion = await client.text_document_completion_async(
        types.CompletionParams(document(uri), types.Position(line, 4))
    )
    files = {Path(location.uri[len("file://") :]) for location in references or []}
    expected = {main for main in repo.stacks if repo.konfig in main.parents}
    expected |= {main.parent.parent / "base" / "base.k" for main in expected}
    expected |= {repo.konfig / "models/frontend/server.k", repo.konfig / "models/render/render.k"}
    assert files == expected
    containers = {symbol.container_name for symbol in symbols or [] if symbol.name == "Server"}
    assert containers == {"konfig.models.frontend", "base.pkg.models"}
    assert completion is not None
    items = completion.items if isinstance(completion, types.CompletionList) else completion
    assert "mainContainer" in {item.label for item in items}
    ended = [
        report
        for reports in client.progress_reports.values()
        for report in reports
        if isinstance(report, types.WorkDoneProgressEnd)
    ]
    assert ended, "the wait showed no progress"


async def test_rename_reaches_the_stacks_base_and_its_other_stacks(
    client: LanguageClient, repo: monorepo.Monorepo
) -> None:
    uri, text = opened(client, repo.stacks[0])
    edit = await client.text_document_rename_async(
        types.RenameParams(document(uri), position(text, "appConfiguration"), "app")
    )
    assert edit is not None and edit.changes is not None
    app = repo.stacks[0].parent.parent  # its base.k, and the other stack sharing it
    expected = {app / "dev" / "main.k", app / "base" / "base.k", app / "prod" / "main.k"}
    assert set(edit.changes) == {path.as_uri() for path in expected}


async def test_a_file_of_two_stacks_reports_each_error_once(
    client: LanguageClient, repo: monorepo.Monorepo
) -> None:
    base = repo.konfig / "examples" / "app0" / "base" / "base.k"
    uri, text = opened(client, base)
    change(client, uri, 2, text.replace('name = "app0"', "name = 0", 1))
    found = await diagnostics(client, uri, lambda found: bool(found))
    assert [d.code for d in found] == ["E2G22"]  # dev and prod both load it: one error
    assert found[0].range.start.line == text.split("\n").index('    name = "app0"')


async def test_a_restored_dependency_clears_its_error(
    client: LanguageClient, repo: monorepo.Monorepo
) -> None:
    """The models folder deleted, then restored (as a folder, the way VS Code reports
    it): the stack's ``main.k`` loses its "not found" without being edited."""
    uri, _ = opened(client, repo.stacks[-1])
    await diagnostics(client, uri, lambda found: not found)
    models = repo.kusion / "base" / "pkg" / "models"
    hidden = models.parent / ".models-away"
    models.rename(hidden)
    event = types.FileEvent(models.as_uri(), types.FileChangeType.Deleted)
    client.workspace_did_change_watched_files(types.DidChangeWatchedFilesParams([event]))
    await diagnostics(client, uri, lambda found: "E2F04" in codes(found))
    hidden.rename(models)
    event = types.FileEvent(models.as_uri(), types.FileChangeType.Created)
    client.workspace_did_change_watched_files(types.DidChangeWatchedFilesParams([event]))
    await diagnostics(client, uri, lambda found: not found)


async def test_a_package_of_unsaved_buffers_is_found(
    client: LanguageClient, repo: monorepo.Monorepo
) -> None:
    main = repo.kusion / "appops" / "fresh" / "main.k"
    thing = repo.kusion / "drafts" / "thing.k"  # neither exists on disk
    open_document(client, thing, "schema Thing:\n    size: int = 1\n")
    uri = open_document(client, main, "import drafts\n\nthing = drafts.Thing {}\n")
    assert not await diagnostics(client, uri)
    assert not thing.exists()


async def test_untitled_buffers_get_diagnostics_and_hover(client: LanguageClient) -> None:
    uri = "untitled:Untitled-1"
    text = "count = 1\nwrong = undefined_name\n"
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(types.TextDocumentItem(uri, "kcl", 1, text))
    )
    found = await diagnostics(client, uri, lambda found: bool(found))
    assert codes(found) == {"E2L23"}
    hover = await client.text_document_hover_async(
        types.HoverParams(document(uri), position(text, "count"))
    )
    assert hover is not None and "count: int" in str(hover.contents)


async def test_a_settings_file_decides_the_stacks_files(
    client: LanguageClient, repo: monorepo.Monorepo
) -> None:
    """Dropping ``base.k`` from a stack's kcl.yaml makes ``main.k`` lack what base.k
    set; putting it back clears the error."""
    path = repo.stacks[-1]
    uri, _ = opened(client, path)
    assert not await diagnostics(client, uri)
    settings = path.parent / "kcl.yaml"
    original = settings.read_text(encoding="utf-8")
    settings.write_text(original.replace("    - ../base/base.k\n", ""), encoding="utf-8")
    event = types.FileEvent(settings.as_uri(), types.FileChangeType.Changed)
    client.workspace_did_change_watched_files(types.DidChangeWatchedFilesParams([event]))
    found = await diagnostics(client, uri, lambda found: bool(found))
    assert "mainContainer" in found[0].message
    settings.write_text(original, encoding="utf-8")
    client.workspace_did_change_watched_files(types.DidChangeWatchedFilesParams([event]))
    await diagnostics(client, uri, lambda found: not found)


def run_settings(settings: Path) -> subprocess.CompletedProcess[str]:
    """``kcl run -Y kcl.yaml`` in the stack's folder (what the editor should report)."""
    command = [sys.executable, "-m", "kclpy", "run", "-Y", settings.name]
    return subprocess.run(
        command, cwd=settings.parent, capture_output=True, text=True, timeout=120, check=False
    )


def edited_settings(client: LanguageClient, settings: Path, text: str) -> None:
    settings.write_text(text, encoding="utf-8")
    event = types.FileEvent(settings.as_uri(), types.FileChangeType.Changed)
    client.workspace_did_change_watched_files(types.DidChangeWatchedFilesParams([event]))


async def test_a_settings_files_overrides_change_the_analysed_program(
    client: LanguageClient, repo: monorepo.Monorepo
) -> None:
    """Without ``base.k``, ``main.k`` lacks ``mainContainer``; an ``overrides`` entry
    of kcl.yaml that sets it clears the error (``kcl run -Y`` succeeds), one that
    sets a wrong value reports it where ``kcl run -Y`` does; no file is written."""
    path = repo.stacks[-1]
    uri, text = opened(client, path)
    assert not await diagnostics(client, uri)
    settings = path.parent / "kcl.yaml"
    original = settings.read_text(encoding="utf-8")
    without_base = original.replace("    - ../base/base.k\n", "")
    overridden = without_base.replace(
        "  disable_none: true\n",
        '  disable_none: true\n  overrides:\n    - web.mainContainer={name = "web"}\n',
    )
    edited_settings(client, settings, overridden)
    assert run_settings(settings).returncode == 0
    before = repo.snapshot()
    await diagnostics(client, uri, lambda found: not found)  # (it had none before either)
    edited_settings(client, settings, without_base)
    found = await diagnostics(client, uri, lambda found: bool(found))
    assert "mainContainer" in found[0].message
    edited_settings(client, settings, overridden)
    await diagnostics(client, uri, lambda found: not found)
    wrong = overridden.replace("  overrides:\n", "  overrides:\n    - web.image=1\n")
    edited_settings(client, settings, wrong)
    found = await diagnostics(client, uri, lambda found: bool(found))
    ran = run_settings(settings)
    assert ran.returncode == 1
    assert [d.code for d in found] == ["E2G22"]
    assert "got int(1)" in found[0].message and "got int(1)" in ran.stderr
    line = text.split("\n").index('    image = "registry.local/web1:prod"')
    assert found[0].range.start.line == line and f"main.k:{line + 1}:" in ran.stderr
    assert path.read_text(encoding="utf-8") == text
    changed = {p for p, state in repo.snapshot().items() if before.get(p) != state}
    assert changed == {str(settings)}  # only the test's own edit of kcl.yaml


async def test_a_settings_files_options_reach_option_calls(
    client: LanguageClient, repo: monorepo.Monorepo
) -> None:
    """``option()`` calls that always run get what ``kcl run -Y`` reports for the
    settings file's options: a required option missing, a value not of its type."""
    path = repo.stacks[-1]
    text = path.read_text(encoding="utf-8") + (
        'count = option("count", type="int")\n'
        'zone = option("zone", required=True)\n'
        'size: int = option("size")\n'
        'later = lambda { option("never", required=True) }\n'
    )
    path.write_text(text, encoding="utf-8")
    uri, _ = opened(client, path)
    settings = path.parent / "kcl.yaml"
    original = settings.read_text(encoding="utf-8")
    given = original + '  - key: count\n    value: "many"\n  - key: size\n    value: "big"\n'
    edited_settings(client, settings, given)
    found = await diagnostics(client, uri, lambda found: len(found) == 3)
    messages = sorted(d.message for d in found)
    assert messages == [
        "cannot use 'many' as type 'int'",
        "expect int, got str",
        "option('zone') must be initialized, try '-D zone=?' argument",
    ]
    ran = run_settings(settings)
    assert ran.returncode == 1 and any(message in ran.stderr for message in messages)
    fixed = original + (
        "  - key: count\n    value: 3\n  - key: size\n    value: 2\n  - key: zone\n    value: z1\n"
    )
    edited_settings(client, settings, fixed)
    await diagnostics(client, uri, lambda found: not found)
    assert run_settings(settings).returncode == 0


async def test_a_file_outside_the_workspace_is_checked_in_its_own_stacks(
    client: LanguageClient, repo: monorepo.Monorepo, tmp_path: Path
) -> None:
    """A monorepo outside the workspace roots: an application's ``base.k`` opened
    from it is checked in the stacks of its module that name it (kusion's ``base.k``
    alone lacks the required ``image`` its ``main.k`` sets), and a rename in konfig's
    ``base.k`` reaches both environments' ``main.k``."""
    other = monorepo.build(tmp_path / "elsewhere", stacks=1, settings_stacks=1)
    kusion_base = other.kusion / "appops" / "web0" / "base" / "base.k"
    uri, _ = opened(client, kusion_base)
    assert not await diagnostics(client, uri)
    konfig_base = other.konfig / "examples" / "app0" / "base" / "base.k"
    uri, text = opened(client, konfig_base)
    edit = await client.text_document_rename_async(
        types.RenameParams(document(uri), position(text, "appConfiguration"), "app")
    )
    assert edit is not None and edit.changes is not None
    app = konfig_base.parent.parent
    assert set(edit.changes) == {path.as_uri() for path in (konfig_base, app / "dev" / "main.k")}
