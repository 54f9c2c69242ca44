"""The ``lsp`` fixture: a real pytest-lsp client on ``python -m kclpy_lsp`` over stdio,
with VS Code's capabilities, rooted in the test's temp dir."""

from __future__ import annotations

import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities


@pytest_lsp.fixture(config=ClientServerConfig(server_command=[sys.executable, "-m", "kclpy_lsp"]))
async def lsp(lsp_client: LanguageClient, tmp_path: Path) -> AsyncIterator[LanguageClient]:
    @lsp_client.feature(types.CLIENT_REGISTER_CAPABILITY)
    def register(params: types.RegistrationParams) -> None:
        """Accept the server's file watchers (as VS Code does)."""

    await lsp_client.initialize_session(
        types.InitializeParams(
            capabilities=client_capabilities("visual-studio-code"),
            root_uri=tmp_path.as_uri(),
            workspace_folders=[types.WorkspaceFolder(tmp_path.as_uri(), "root")],
        )
    )
    yield lsp_client
    await lsp_client.shutdown_session()
