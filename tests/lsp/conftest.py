"""Fixtures for end-to-end tests: the real server process over stdio, one workspace each."""

from __future__ import annotations

import asyncio
import os
import sys
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Union, cast

import pytest
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient

REPO = Path(__file__).resolve().parents[2]

SERVER = ClientServerConfig(
    server_command=[sys.executable, "-m", "codequorum", "lsp"],
    server_env={**os.environ, "PYTHONPATH": str(REPO / "server"), "CQ_TEST_KEY": "sk-test"},
)


def capabilities(
    *,
    pull: bool = False,
    progress: bool = True,
    config: bool = True,
    lens_refresh: bool = False,
    hover_formats: tuple[types.MarkupKind, ...] = (
        types.MarkupKind.Markdown,
        types.MarkupKind.PlainText,
    ),
    lenses: bool = True,
    show_document: bool = False,
) -> types.ClientCapabilities:
    """A client that supports what a modern editor does (pull diagnostics only if asked).
    ``hover_formats``: its hover ``contentFormat``; ``lenses``: False for a client without
    code lenses (neither ``textDocument.codeLens`` nor ``workspace.codeLens``);
    ``show_document``: it opens documents the server names (``window/showDocument``)."""
    return types.ClientCapabilities(
        general=types.GeneralClientCapabilities(
            position_encodings=[types.PositionEncodingKind.Utf16]
        ),
        window=types.WindowClientCapabilities(
            work_done_progress=progress,
            show_document=types.ShowDocumentClientCapabilities(support=True)
            if show_document
            else None,
        ),
        workspace=types.WorkspaceClientCapabilities(
            configuration=config,
            did_change_configuration=types.DidChangeConfigurationClientCapabilities(
                dynamic_registration=False
            ),
            diagnostics=types.DiagnosticWorkspaceClientCapabilities(refresh_support=pull),
            code_lens=types.CodeLensWorkspaceClientCapabilities(refresh_support=lens_refresh)
            if lenses
            else None,
        ),
        text_document=types.TextDocumentClientCapabilities(
            hover=types.HoverClientCapabilities(content_format=list(hover_formats)),
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
            code_lens=types.CodeLensClientCapabilities() if lenses else None,
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
    answer: str | None = None,
    lens_refresh: bool = False,
    folders: list[Path] | None = None,
    log_file: Path | None = None,
    folder_configuration: dict[Path, dict[str, Any]] | None = None,
    env: dict[str, str] | None = None,
    client_capabilities: types.ClientCapabilities | None = None,
    launcher: list[str] | None = None,
) -> AsyncIterator[LanguageClient]:
    """Start ``codequorum lsp``, initialize it on ``workspace``, and shut it down after.

    The server's user configuration (approvals) lives in :func:`config_home`; questions it
    asks (``window/showMessageRequest``) are kept in ``questions(client).asked``, answered with
    the action titled ``questions(client).answer`` (``answer`` at first; None: dismissed; a
    title that is no action's is sent as it is, as clients do with free input).
    ``lens_refresh``: the client takes ``workspace/codeLens/refresh`` (counted in
    ``lens_refreshes(client)``). ``folders``: the workspace folders (default: ``workspace``).
    ``log_file``: the server writes its log (level INFO) there. ``folder_configuration``:
    what ``workspace/configuration`` answers for items scoped to a folder. ``env``: more
    environment variables of the server (``HOME``, say). ``client_capabilities``: what the
    client says it supports (default: :func:`capabilities` with the options above).
    ``launcher``: a command the server is started through (``tests/support/
    without_namespaces.py``: on a machine that refuses namespaces).
    """
    if before_start is not None:
        before_start()
    server_env = {
        **(SERVER.server_env or {}),
        "XDG_CONFIG_HOME": str(config_home(workspace)),
        "XDG_CACHE_HOME": str(cache_home(workspace)),
        **(env or {}),
    }
    command = [*(launcher or []), *SERVER.server_command]
    if log_file is not None:
        command += ["--log-file", str(log_file), "--log-level", "INFO"]
    config = ClientServerConfig(server_command=command, server_env=server_env)
    client = await config.start()
    assert isinstance(client, LanguageClient)
    read_code_actions_by_their_command(client)
    asked = Questions(answer=answer)
    _QUESTIONS[id(client)] = asked

    def show_message_request(
        params: types.ShowMessageRequestParams,
    ) -> types.MessageActionItem | None:
        asked.asked.append(params)
        if asked.answer is None:
            return None
        return next(
            (a for a in params.actions or [] if a.title == asked.answer),
            types.MessageActionItem(title=asked.answer),
        )

    register = cast(
        Callable[[Callable[..., Any]], Any], client.feature(types.WINDOW_SHOW_MESSAGE_REQUEST)
    )
    register(show_message_request)

    refreshes: list[float] = []
    _LENS_REFRESHES[id(client)] = refreshes

    def code_lens_refresh(params: None) -> None:
        refreshes.append(asyncio.get_running_loop().time())

    cast(Callable[[Callable[..., Any]], Any], client.feature(types.WORKSPACE_CODE_LENS_REFRESH))(
        code_lens_refresh
    )

    if configuration is not None:
        client.set_configuration(configuration)
    for folder, value in (folder_configuration or {}).items():
        client.set_configuration(value, scope_uri=folder.as_uri())
    try:
        client.initialize_result = await client.initialize_session(  # type: ignore[attr-defined]
            types.InitializeParams(
                capabilities=client_capabilities
                or capabilities(
                    pull=pull,
                    progress=progress,
                    config=pull_configuration,
                    lens_refresh=lens_refresh,
                ),
                root_uri=workspace.as_uri(),
                workspace_folders=[
                    types.WorkspaceFolder(uri=f.as_uri(), name=f.name)
                    for f in (folders or [workspace])
                ],
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


def read_code_actions_by_their_command(client: LanguageClient) -> None:
    """Make the client read a code action the way the protocol tells them apart: a
    ``Command`` has a ``command`` string, a ``CodeAction`` may carry a ``command`` object.
    (lsprotocol's own hook takes any object with a ``command`` key for a ``Command``.)"""
    converter = client.protocol._converter

    def structure(value: Any, _: type) -> types.Command | types.CodeAction:
        if isinstance(value.get("command"), str):
            return converter.structure(value, types.Command)
        return converter.structure(value, types.CodeAction)

    converter.register_structure_hook(types.Command | types.CodeAction, structure)
    converter.register_structure_hook(Union[types.Command, types.CodeAction], structure)  # noqa: UP007


@dataclass
class Questions:
    """What the server asked a test client (``window/showMessageRequest``) and the title
    of the action the client picks (None: it dismisses the question)."""

    answer: str | None
    asked: list[types.ShowMessageRequestParams] = field(default_factory=list)

    @property
    def messages(self) -> list[str]:
        """The questions' texts."""
        return [q.message for q in self.asked]


_QUESTIONS: dict[int, Questions] = {}
_LENS_REFRESHES: dict[int, list[float]] = {}


def lens_refreshes(client: LanguageClient) -> list[float]:
    """When (event-loop time) the server asked a client started by :func:`lsp_session` to
    refresh its code lenses."""
    return _LENS_REFRESHES[id(client)]


def questions(client: LanguageClient) -> Questions:
    """The questions of a client started by :func:`lsp_session`."""
    return _QUESTIONS[id(client)]


def config_home(workspace: Path) -> Path:
    """The server's ``XDG_CONFIG_HOME`` in a test: next to the workspace, never the user's."""
    return workspace.parent / "user-config"


def cache_home(workspace: Path) -> Path:
    """The server's ``XDG_CACHE_HOME`` in a test: next to the workspace, never the user's."""
    return workspace.parent / "user-cache"


def approve_endpoint(workspace: Path, base_url: str, key_env: str) -> None:
    """Approve sending the key in ``key_env`` to ``base_url`` for servers on ``workspace``."""
    from codequorum.options.approvals import APPROVALS_NAME, Approvals

    Approvals(config_home(workspace) / "codequorum" / APPROVALS_NAME).approve_endpoint(
        base_url, key_env
    )


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    """An empty workspace folder for one test."""
    ws = tmp_path / "ws"
    ws.mkdir()
    return ws
