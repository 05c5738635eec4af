"""What command handlers and the watch use of the language server.

:class:`Host` is the small face of :class:`~codequorum.lsp.server.CodequorumServer` those
modules see: the engines and settings of the workspace folders, the documents, the ways to
reach the user (messages, questions, documents, progress) and background work. They type
against it, so nothing in ``lsp/`` imports the server but the command that starts it.
A handler unpacks what a function below it uses (:func:`questions`, :func:`screen`, an
engine, settings, a progress bar, a callable), so those functions never take the server.
"""

from __future__ import annotations

from collections.abc import Coroutine
from typing import TYPE_CHECKING, Any, Protocol

from codequorum.lsp.gates import Questions
from codequorum.lsp.views import Screen

if TYPE_CHECKING:
    import asyncio

    from lsprotocol import types
    from pygls.progress import Progress
    from pygls.protocol import JsonRPCProtocol

    from codequorum.lsp.documents import Snapshot
    from codequorum.lsp.engine import Engine
    from codequorum.lsp.settings import Settings


class Host(Protocol):
    """The language server as its handlers use it."""

    @property
    def engine(self) -> Engine:
        """The first workspace folder's engine (it serves documents outside every folder)."""

    @property
    def folders(self) -> dict[str, Engine]:
        """One engine per workspace folder, by the folder's path."""

    @property
    def dynamic_jobs(self) -> dict[str, asyncio.Future[None]]:
        """Behaviour runs under way, by job name."""

    @property
    def trusted(self) -> bool:
        """False once the client said the workspace is not trusted."""

    @property
    def client_capabilities(self) -> types.ClientCapabilities:
        """What the client said it can do."""

    @property
    def work_done_progress(self) -> Progress:
        """The client's progress bars."""

    @property
    def protocol(self) -> JsonRPCProtocol:
        """The connection (for notifications of codequorum's own)."""

    def answering(self) -> bool:
        """Whether a request of the client's is being answered (one begun in the last
        second): background work that holds the interpreter waits for it. Any thread."""
        ...

    def quiet(self, seconds: float) -> bool:
        """Whether the client sent nothing for ``seconds`` and no request of its is being
        answered. Any thread."""
        ...

    def show(self, kind: types.MessageType, message: str) -> None:
        """A message to the user, made safe, from any thread."""

    def warn_once(self, message: str) -> None:
        """A warning the user has not seen yet."""

    def in_background(self, work: Coroutine[Any, Any, Any], what: str) -> None:
        """Run ``work`` after the request that started it is answered."""

    async def settled(self) -> None:
        """Wait until the folders' settings were read."""

    def engine_for(self, uri: str) -> Engine:
        """The engine of the workspace folder holding a document."""

    def settings_for(self, uri: str) -> Settings:
        """The settings of the workspace folder holding a document."""

    def file_key(self, uri: str) -> str:
        """The store's name for a document."""

    def snapshot(self, uri: str) -> Snapshot | None:
        """The current snapshot of a document; None if unreadable."""

    def read_snapshot(self, uri: str) -> Snapshot:
        """The current snapshot of a document, or :class:`RefusedFile` saying why not."""

    def refresh(self, uri: str | None = None) -> None:
        """Diagnostics and lenses may have changed: push them again or have them pulled."""

    async def window_show_message_request_async(
        self, params: types.ShowMessageRequestParams
    ) -> types.MessageActionItem | None:
        """Ask the user (``window/showMessageRequest``)."""

    async def window_show_document_async(
        self, params: types.ShowDocumentParams
    ) -> types.ShowDocumentResult:
        """Open a document in the client (``window/showDocument``)."""


def questions(ls: Host) -> Questions:
    """What the gates use of the server: its trust, its questions, its warnings and the
    first folder's worker thread."""
    return Questions(ls.trusted, ls.window_show_message_request_async, ls.warn_once, ls.engine)


def screen(ls: Host) -> Screen:
    """What showing a view uses of the server: the client's capabilities, the first
    folder's worker thread, ``window/showDocument`` and a message in its place."""
    return Screen(ls.client_capabilities, ls.engine, ls.window_show_document_async, ls.show)
