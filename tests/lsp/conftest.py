"""Fixtures for end-to-end tests: the real server process over stdio, one workspace each."""

from __future__ import annotations

import asyncio
import os
import sys
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient

REPO = Path(__file__).resolve().parents[2]

SERVER = ClientServerConfig(
    server_command=[sys.executable, "-m", "codequorum", "lsp"],
    server_env={**os.environ, "PYTHONPATH": str(REPO / "server"), "CQ_TEST_KEY": "sk-test"},
)


def capabilities(
    *, pull: bool = False, progress: bool = True, config: bool = True
) -> types.ClientCapabilities:
    """A client that supports what a modern editor does (pull diagnostics only if asked)."""
    return types.ClientCapabilities(
        general=types.GeneralClientCapabilities(
            position_encodings=[types.PositionEncodingKind.Utf16]
        ),
        window=types.WindowClientCapabilities(work_done_progress=progress),
        workspace=types.WorkspaceClientCapabilities(
            configuration=config,
            did_change_configuration=types.DidChangeConfigurationClientCapabilities(
                dynamic_registration=False
            ),
            diagnostics=types.DiagnosticWorkspaceClientCapabilities(refresh_support=pull),
            code_lens=types.CodeLensWorkspaceClientCapabilities(refresh_support=False),
        ),
        text_document=types.TextDocumentClientCapabilities(
            hover=types.HoverClientCapabilities(
                content_format=[types.MarkupKind.Markdown, types.MarkupKind.PlainText]
            ),
            publish_diagnostics=types.PublishDiagnosticsClientCapabilities(
                related_information=True
            ),
            code_action=types.CodeActionClientCapabilities(
                code_action_literal_support=types.ClientCodeActionLiteralOptions(
                    code_action_kind=types.ClientCodeActionKindOptions(
                        value_set=[
                            types.CodeActionKind.QuickFix,
                            types.CodeActionKind.RefactorRewrite,
                        ]
                    )
                ),
                is_preferred_support=True,
            ),
            code_lens=types.CodeLensClientCapabilities(),
            diagnostic=types.DiagnosticClientCapabilities() if pull else None,
        ),
    )


@asynccontextmanager
async def lsp_session(
    workspace: Path,
    *,
    init_options: Any = None,
    configuration: dict[str, Any] | None = None,
    pull: bool = False,
    progress: bool = True,
    pull_configuration: bool = True,
    before_start: Callable[[], None] | None = None,
) -> AsyncIterator[LanguageClient]:
    """Start ``codequorum lsp``, initialize it on ``workspace``, and shut it down after."""
    if before_start is not None:
        before_start()
    client = await SERVER.start()
    assert isinstance(client, LanguageClient)
    if configuration is not None:
        client.set_configuration(configuration)
    try:
        client.initialize_result = await client.initialize_session(  # type: ignore[attr-defined]
            types.InitializeParams(
                capabilities=capabilities(pull=pull, progress=progress, config=pull_configuration),
                root_uri=workspace.as_uri(),
                workspace_folders=[types.WorkspaceFolder(uri=workspace.as_uri(), name="ws")],
                initialization_options=init_options,
            )
        )
        yield client
        await asyncio.wait_for(client.shutdown_session(), timeout=20)
    finally:
        process = getattr(client, "_server", None)
        if process is not None and process.returncode is None:
            process.kill()  # the test failed before a clean shutdown
        # pytest-lsp leaves ``LanguageClient.stop`` unannotated: a coroutine returning None
        stop: Callable[[], Awaitable[None]] = client.stop
        await asyncio.wait_for(stop(), timeout=20)


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    """An empty workspace folder for one test."""
    ws = tmp_path / "ws"
    ws.mkdir()
    return ws
