"""The codequorum language server: features registered as thin handlers over the engine.

Handlers find the document and function, ask :class:`~codequorum.lsp.engine.Engine` for
analyses (computed on worker threads, cached by content hash) and hand them to the
renderers (:mod:`diagnostics`, :mod:`hover`, :mod:`lenses`, :mod:`actions`). Settings are
read into one :class:`~codequorum.lsp.settings.Settings` object.
"""

from __future__ import annotations

import asyncio
import functools
import importlib
import logging
import sys
import threading
import time
from collections.abc import Callable, Coroutine, Generator, Sequence
from concurrent.futures import Future
from pathlib import Path
from typing import Any, BinaryIO
from urllib.parse import unquote

import attrs
from lsprotocol import types
from pygls.exceptions import FeatureRequestError, JsonRpcInvalidParams
from pygls.io_ import StdinAsyncReader, StdoutWriter
from pygls.lsp.server import LanguageServer
from pygls.protocol import LanguageServerProtocol, default_converter
from pygls.protocol.json_rpc import MsgId
from pygls.protocol.language_server import lsp_method

from codequorum import __version__
from codequorum.behaviour.runtimes import runtime_for
from codequorum.core.file_uris import path_text
from codequorum.core.limits import MAX_DOCUMENT_BYTES, MAX_MESSAGE_BYTES, size_words
from codequorum.core.safe_text import MESSAGE_LIMIT, plain_message, safe_text
from codequorum.ingest.workspace import file_key_for
from codequorum.lsp import (
    commands,  # noqa: F401 - registers every handler
    contract,
    transport,
)
from codequorum.lsp.actions import (
    COMMAND_KIND,
    CommandOffer,
    command_actions,
    function_actions,
    lensed_commands,
)
from codequorum.lsp.autorun import not_run_note
from codequorum.lsp.commands.registry import HANDLERS, CommandError
from codequorum.lsp.commands.run_dynamic import run_arrived
from codequorum.lsp.diagnostics import SOURCE, document_diagnostics, result_id
from codequorum.lsp.documents import (
    FunctionEntry,
    Snapshot,
    SnapshotCache,
    language_of,
    normalize_encoding,
)
from codequorum.lsp.editor_watch import EDIT_REASON, Watch, WatchClient, WatchFolders
from codequorum.lsp.engine import Engine, FunctionAnalysis, Items
from codequorum.lsp.files import RefusedFile, path_of, read_inside
from codequorum.lsp.hover import computing_doc, hover_doc
from codequorum.lsp.lenses import document_lenses, lens_commands
from codequorum.lsp.lines import LineIndex, SplitLines
from codequorum.lsp.progress import REQUEST_TOKEN, WorkProgress
from codequorum.lsp.rendering import Format, client_format, markup_content
from codequorum.lsp.settings import Settings, file_settings, folder_settings, parse_settings
from codequorum.lsp.views import shows_documents
from codequorum.pipeline.session import AnalysisKey
from codequorum.pipeline.watch.edits import Edit

log = logging.getLogger(__name__)

#: How long a hover, a lens or a code action waits for an analysis before it answers with
#: what is ready (the rest is computed in the background and the client refreshed).
ANSWER_BUDGET = 0.15
#: A document with more functions to analyse than this gets its diagnostics in two steps:
#: those of the first ones (in the document's order, computed first) as soon as they are
#: ready, then all of them, so a large module shows its first findings early.
FIRST_STEP = 24
#: How long work a request left in the background waits after the answer went out, so
#: what it sends next (a question) reaches the client in a read of its own: Emacs 28's
#: jsonrpc stops reading at the answer it waited for and leaves the rest of that read
#: unread until more output comes.
AFTER_ANSWER = 0.25
#: Seconds a request counts as being answered (:meth:`CodequorumProtocol.answering`): work
#: in the background waits for requests younger than this, never for a slow one.
ANSWERING = 1.0
#: Seconds without a message from the client after which it counts as quiet
#: (:meth:`CodequorumServer.wait_quiet`): work that may wait for it (the kernels' warm-up)
#: waits, so a burst of edits and the requests sent with them never queue behind it.
QUIET = 1.0
QUIET_STEP = 0.05
#: Requests noted at once (their ids are the client's).
MAX_NOTED_REQUESTS = 1024
#: Characters of a document's texts before each change of one ``didChange`` kept for the
#: watch, at most: a message of thousands of changes to a large text would otherwise keep
#: every text between them (memory growing as their square); past it the watch is told
#: of changes it cannot follow, as of a change without a range.
MAX_KEPT_BEFORE_CHARS = 32 * 1024 * 1024
#: A message shown to the user is bounded: it may quote names and text from a repository.
MAX_MESSAGE_CHARS = MESSAGE_LIMIT


class CodequorumProtocol(LanguageServerProtocol):
    """Remembers the ``workDoneToken`` of each ``workspace/executeCommand`` request, and
    when each of the client's requests began until it is answered."""

    def __init__(self, server: Any, converter: Any) -> None:
        super().__init__(server, converter)
        self.begun: dict[MsgId, float] = {}
        #: When the client's last message was handed on (``time.monotonic``).
        self.heard = time.monotonic()
        #: Per open document (pygls's key), its text and that text's lines by offset.
        self._lines: dict[str, tuple[str, LineIndex | None]] = {}

    def handle_message(self, msg: Any) -> None:
        """Note when the client last said something (:meth:`quiet`), then handle it."""
        self.heard = time.monotonic()
        super().handle_message(msg)  # type: ignore[no-untyped-call]

    def quiet(self, seconds: float) -> bool:
        """Whether the client sent nothing for ``seconds`` and no request of its is being
        answered (any thread)."""
        return time.monotonic() - self.heard >= seconds and not self.answering()

    @lsp_method(types.WORKSPACE_EXECUTE_COMMAND)
    def lsp_workspace__execute_command(
        self, params: types.ExecuteCommandParams
    ) -> Generator[Any, Any, Any]:
        """Set the request's progress token; read the arguments in either form (one object,
        or positional) and say plainly what is wrong with them; then run the command."""
        REQUEST_TOKEN.set(params.work_done_token)
        name = contract.command_named(params.command)
        if name is not None:
            try:
                arguments = contract.normalize(name, params.arguments)
                contract.check(self._converter, name, arguments)
            except contract.ArgumentError as exc:
                raise CommandError(str(exc)) from exc
            params = attrs.evolve(params, arguments=arguments)
        result = yield from super().lsp_workspace__execute_command(params)
        return result

    @lsp_method(types.TEXT_DOCUMENT_DID_CHANGE)
    def lsp_text_document__did_change(
        self, params: types.DidChangeTextDocumentParams
    ) -> Generator[Any, Any, None]:
        """Apply the changes one after the other, as pygls does, noting what each replaced,
        and tell the watch; then the server's own handler. A change with a range is made
        by its offsets (one copy of the text), not line by line as pygls makes it: the
        event loop spends on a change of a long document what a copy costs."""
        uri = params.text_document.uri
        doc = self.workspace.text_documents.get(unquote(uri))
        if doc is None:  # never opened: pygls would read the file its URI names, unbounded
            log.info("a change of %s, which is not open, was ignored", uri)
            return
        befores: list[str] = []
        edits: list[Edit | None] = []
        kept = 0
        for change in params.content_changes:
            before = doc.source
            kept += len(before)
            index = self.lines_of(unquote(uri), before)
            edit = edit_of(doc, change, index)
            if kept <= MAX_KEPT_BEFORE_CHARS:
                befores.append(before)
                edits.append(edit)
            elif edits[-1:] != [None]:  # the watch cannot follow these: it is told so once
                befores.append("")
                edits.append(None)
            made = change if edit is None else types.TextDocumentContentChangeWholeDocument(
                text=edit.applied(before))
            self.workspace.update_text_document(params.text_document, made)
            if edit is not None and index is not None:
                self._lines[unquote(uri)] = (doc.source, index.edited(edit, doc.source))
        server = self._server
        if isinstance(server, CodequorumServer):
            language = language_of(uri, doc.language_id)
            server.watch.changed(uri, params.text_document.version, language, befores, edits,
                                 doc.source)
        handler = self.fm.features.get(types.TEXT_DOCUMENT_DID_CHANGE)
        if handler is not None:
            yield handler, (params,), None

    def lines_of(self, key: str, text: str) -> LineIndex | None:
        """The lines of an open document's ``text`` by their offsets (kept through its
        changes; made once for a text it was not kept for); None when ``text`` has line
        breaks other than ``"\\n"``."""
        kept = self._lines.get(key)
        if kept is not None and kept[0] is text:
            return kept[1]
        index = LineIndex.of(text)
        self._lines[key] = (text, index)
        return index

    def forget_lines(self, key: str) -> None:
        """A document closed: its lines are not kept."""
        self._lines.pop(key, None)

    def _handle_request(self, msg_id: MsgId, method_name: str, params: Any) -> None:
        """Note when each of the client's requests began, until it is answered
        (:meth:`answering`)."""
        self.begun[msg_id] = time.monotonic()
        while len(self.begun) > MAX_NOTED_REQUESTS:  # ids are the client's word: bounded
            del self.begun[next(iter(self.begun))]
        super()._handle_request(msg_id, method_name, params)  # type: ignore[no-untyped-call]

    def _send_response(self, msg_id: MsgId, result: Any = None, error: Any = None) -> None:
        """Answer a request; it is no longer being answered."""
        self.begun.pop(msg_id, None)
        super()._send_response(msg_id, result, error)  # type: ignore[no-untyped-call]

    def answering(self) -> bool:
        """Whether a request of the client's begun within :data:`ANSWERING` seconds is not
        answered yet (any thread)."""
        recent = time.monotonic() - ANSWERING
        return any(began > recent for began in list(self.begun.values()))

    def _run_generator(
        self,
        future: Future[Any] | None,
        *,
        gen: Generator[Any, Any, Any],
        result_future: Future[Any],
    ) -> None:
        """Go on with a handler after the step it waited for; a step cut short (the client
        said ``exit`` while it ran, or cancelled the request) cancels the handler instead of
        leaving a traceback in the log."""
        if future is not None and future.cancelled():
            result_future.cancel()
            return
        super()._run_generator(future, gen=gen, result_future=result_future)  # type: ignore[no-untyped-call]

    def _send_handler_result(self, future: Future[Any], *, msg_id: MsgId) -> None:
        """Answer a request; an expected refusal (bad arguments, no such function) is one
        log line and a -32602 error, not a traceback."""
        if not future.cancelled():
            exc = future.exception()
            if isinstance(exc, JsonRpcInvalidParams):
                self._request_futures.pop(msg_id, None)
                log.info("request %s refused: %s", msg_id, exc.message)
                self._send_response(msg_id, error=exc.to_response_error())
                return
        super()._send_handler_result(future, msg_id=msg_id)  # type: ignore[no-untyped-call]


def edit_of(doc: Any, change: types.TextDocumentContentChangeEvent,
            index: LineIndex | None = None) -> Edit | None:
    """One content change as an :class:`~codequorum.pipeline.watch.edits.Edit` of ``doc``'s text
    before it (None for a change without a range: the whole document). ``index``: the
    text's lines by their offsets, when it has them (else it is split, as pygls splits it
    to apply a change)."""
    if not isinstance(change, types.TextDocumentContentChangePartial):
        return None
    lines: LineIndex | SplitLines = index if index is not None else SplitLines(doc.lines)
    codec = doc.position_codec
    first = codec.position_from_client_units(lines, change.range.start)
    last = codec.position_from_client_units(lines, change.range.end)
    start = lines.offset(first.line) + _column(lines, first.line, first.character)
    end = lines.offset(last.line) + _column(lines, last.line, last.character)
    return Edit(start, max(start, end), change.text)


def _column(lines: Sequence[str], row: int, character: int) -> int:
    """A column as pygls applies it: past the end of its line (the line end included) it is
    the end of the line; past the last line, 0."""
    return min(character, len(lines[row])) if row < len(lines) else 0


class CodequorumServer(LanguageServer):
    """Language server state: settings, the engine, document snapshots, background jobs."""

    def __init__(self) -> None:
        super().__init__(
            "codequorum",
            __version__,
            protocol_cls=CodequorumProtocol,
            converter_factory=lambda: contract.register_hooks(default_converter()),  # type: ignore[no-untyped-call]
            text_document_sync_kind=types.TextDocumentSyncKind.Incremental,
            max_workers=2,
        )
        self.settings = Settings()
        self.base_settings = Settings()
        self.initially_trusted = True
        self.engine = Engine(self._notify_from_engine)
        #: One engine (store, session, settings) per workspace folder, by the folder's path;
        #: ``engine`` is the first folder's, and serves documents outside every folder.
        self.folders: dict[str, Engine] = {}
        self.snapshots = SnapshotCache()
        self.watch = Watch(self._watch_client(), self._watch_folders())
        self.pending: dict[str, asyncio.Task[None]] = {}
        self.dynamic_jobs: dict[str, asyncio.Future[None]] = {}
        #: Work that goes on after the request that started it was answered.
        self.background: set[asyncio.Future[None]] = set()
        #: Each document as it opened or was last saved (renames are found against it).
        self._saved: dict[str, Snapshot] = {}
        self._shown: set[str] = set()
        self._noted: set[str] = set()  # the lines of the start-up warnings
        self._startup_messages: list[tuple[types.MessageType, str]] = []
        self._loop: asyncio.AbstractEventLoop | None = None
        self._configured = asyncio.Event()
        #: True once the client sent ``shutdown``: ``exit`` then ends the process with 0.
        self.shutdown_requested = False

    def _watch_client(self) -> WatchClient:
        """What the watch uses of the client, asked each time it is used."""
        return WatchClient(
            answering=self.answering, quiet=self.quiet, show=self.show, warn_once=self.warn_once,
            ask=self.window_show_message_request_async,
            capabilities=lambda: self.client_capabilities,
            new_progress=lambda title: WorkProgress(self.work_done_progress,
                                                    self.client_capabilities, title),
            notify=lambda method, params: self.protocol.notify(method, params))

    def _watch_folders(self) -> WatchFolders:
        """What the watch uses of the workspace folders, asked each time it is used."""
        return WatchFolders(
            trusted=lambda: self.trusted, settings_for=self.settings_for,
            engine_for=self.engine_for, file_key=self.file_key, snapshot=self.snapshot,
            refresh=self.refresh, worker=self.engine,
            run_arrived=functools.partial(run_arrived, self))

    def _start_io_async(self, stdin: BinaryIO | None = None,
                        stdout: BinaryIO | None = None) -> None:
        """pygls's stdio loop with a reader that bounds what one message may cost
        (:mod:`codequorum.lsp.transport`) before it is decoded."""
        self._stop_event = threading.Event()
        reader = StdinAsyncReader(stdin or sys.stdin.buffer, self.thread_pool)
        self.protocol.set_writer(StdoutWriter(stdout or sys.stdout.buffer))
        try:
            asyncio.run(transport.serve(self._stop_event, reader, self.protocol,
                                        self.report_server_error, self.document_dropped))
        except BrokenPipeError:
            log.error("the connection to the client was lost; the server stops")
        except (KeyboardInterrupt, SystemExit):
            pass
        finally:
            self.shutdown()  # type: ignore[no-untyped-call]

    # ------------------------------------------------------------------ helpers

    def answering(self) -> bool:
        """Whether a request of the client's is being answered (one begun in the last
        second): background work that holds the interpreter waits for it. Any thread."""
        protocol = self.protocol
        return isinstance(protocol, CodequorumProtocol) and protocol.answering()

    def quiet(self, seconds: float) -> bool:
        """Whether the client sent nothing for ``seconds`` and no request of its is being
        answered. Any thread."""
        protocol = self.protocol
        return not isinstance(protocol, CodequorumProtocol) or protocol.quiet(seconds)

    def wait_quiet(self) -> None:
        """Block (a thread other than the event loop's) until the client has been quiet for
        :data:`QUIET` seconds: nothing sent, no request being answered."""
        while not self.quiet(QUIET):
            time.sleep(QUIET_STEP)

    def show(self, kind: types.MessageType, message: str) -> None:
        """``window/showMessage`` (and a log line), from any thread: the one way a message
        reaches the user, so it is made safe here (names, paths and text from a repository
        or a model have their control and invisible characters escaped, no link a name
        holds is live, and a long one is cut; our own lines stay lines, each name was made
        one line where the message was composed)."""
        message = plain_message(message, MAX_MESSAGE_CHARS, keep_newlines=True)
        log.info("%s", message)

        def send() -> None:
            self.window_show_message(types.ShowMessageParams(type=kind, message=message))

        loop = self._loop
        try:
            running = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        if loop is not None and running is not loop:
            loop.call_soon_threadsafe(send)
        else:
            send()

    def report_server_error(self, error: Exception, source: Any) -> None:
        """pygls's report of an error outside a request, through :meth:`show` like every
        other message (its text may quote a document or a name)."""
        if source is FeatureRequestError:
            return
        self.show(types.MessageType.Error, f"codequorum: error in the server: {error}")

    def document_dropped(self, uri: str, size: int) -> None:
        """A document's message was over the transport's bound and dropped unread: the user
        hears it once per document (and the log), else the file would simply show nothing."""
        message = (f"codequorum: {safe_text(uri, 300)} ({size_words(size)}) was not analysed: "
                   f"the editor's messages are read up to {size_words(MAX_MESSAGE_BYTES)}")
        log.warning("%s", message)
        if self._loop is None:
            self.warn_at_start(message)
        else:
            self.warn_once(message)

    def _notify_from_engine(self, level: str, message: str) -> None:
        kind = {
            "error": types.MessageType.Error,
            "warning": types.MessageType.Warning,
        }.get(level, types.MessageType.Info)
        if self._loop is None:
            self._startup_messages.append((kind, message))
        else:
            self.show(kind, message)

    def warn_at_start(self, message: str) -> None:
        """A warning shown once the client has initialized: once, and not at all when each
        of its lines after the first was already in one (a file's refused keys, told by
        the command line and read again for the workspace)."""
        lines = set(message.splitlines()[1:]) or {message}
        if message in self._shown or lines <= self._noted:
            return
        self._noted |= lines
        self._shown.add(message)
        self._startup_messages.append((types.MessageType.Warning, message))

    def warn_once(self, message: str) -> None:
        """A warning the user has not seen yet."""
        if message in self._shown:
            return
        self._shown.add(message)
        self.show(types.MessageType.Warning, message)

    @property
    def trusted(self) -> bool:
        """False once the client said the workspace is not trusted (for this session)."""
        return self.initially_trusted and self.settings.trusted

    def in_background(self, work: Coroutine[Any, Any, Any], what: str) -> None:
        """Run ``work`` after the request that started it is answered (so a client that
        waits for the answer is not held up by a question or a long job); a failure is
        shown to the user (``what`` names the work), once."""
        task = asyncio.ensure_future(self._shown_failure(work, what))
        self.background.add(task)
        task.add_done_callback(self.background.discard)

    async def _shown_failure(self, work: Coroutine[Any, Any, Any], what: str) -> None:
        REQUEST_TOKEN.set(None)  # the request's progress token ended with its answer
        try:
            await asyncio.sleep(AFTER_ANSWER)
        except asyncio.CancelledError:
            work.close()  # never started
            raise
        try:
            await work
        except CommandError as exc:
            if not exc.shown:
                self.show(types.MessageType.Error, f"codequorum: {exc.message}")
        except Exception as exc:  # a bug in one job must not go unseen
            log.exception("%s failed", what)
            self.show(types.MessageType.Error, f"codequorum: {what} failed: {exc}")

    @property
    def shows_lenses(self) -> bool:
        """True when the client draws code lenses: it names ``textDocument.codeLens`` or
        ``workspace.codeLens`` in its capabilities."""
        td, ws = self.client_capabilities.text_document, self.client_capabilities.workspace
        return bool((td and td.code_lens is not None) or (ws and ws.code_lens is not None))

    @property
    def hover_format(self) -> Format:
        """The format the client asks hovers in (``contentFormat``, most wanted first)."""
        td = self.client_capabilities.text_document
        return client_format(td.hover.content_format if td and td.hover else None)

    @property
    def pull_diagnostics(self) -> bool:
        """True when the client pulls diagnostics (then the server does not push)."""
        td = self.client_capabilities.text_document
        return bool(td and td.diagnostic)

    async def settled(self) -> None:
        """Wait (a few seconds at most) until the folders' settings were asked for after
        ``initialized``: a store is opened where the settings say, not at its default."""
        if not self._configured.is_set():
            try:
                await asyncio.wait_for(self._configured.wait(), timeout=10)
            except TimeoutError:
                self._configured.set()

    def engine_for(self, uri: str) -> Engine:
        """The engine of the workspace folder holding a document (the innermost one)."""
        path = _path(uri)
        best: tuple[int, Engine] | None = None
        if path is not None:
            for root, engine in self.folders.items():
                inside = path == root or path.startswith(root.rstrip("/") + "/")
                if inside and (best is None or len(root) > best[0]):
                    best = (len(root), engine)
        return best[1] if best is not None else self.engine

    def settings_for(self, uri: str) -> Settings:
        """The settings of the workspace folder holding a document."""
        return self.engine_for(uri).settings

    def engines(self) -> list[Engine]:
        """Every engine, the first folder's first."""
        return [self.engine, *(e for e in self.folders.values() if e is not self.engine)]

    def add_folder(self, root: str) -> Engine:
        """An engine for a new workspace folder (the first one gets ``engine``)."""
        engine = self.engine if not self.folders else Engine(self._notify_from_engine)
        engine.configure(self.base_settings, root)
        self.folders[root] = engine
        return engine

    def file_key(self, uri: str) -> str:
        """The store's name for a document."""
        return file_key_for(uri, self.engine_for(uri).root)

    def snapshot(self, uri: str) -> Snapshot | None:
        """The current snapshot of an open (or readable) document; None if unreadable."""
        try:
            return self.read_snapshot(uri)
        except RefusedFile:
            return None

    def read_snapshot(self, uri: str) -> Snapshot:
        """The current snapshot of a document: the text the client sent when it is open,
        else the file when it is a bounded regular file inside a workspace folder
        (:mod:`codequorum.lsp.files`); :class:`RefusedFile` says why not."""
        encoding = normalize_encoding(self.workspace.position_encoding)
        doc = self.workspace.text_documents.get(unquote(uri))
        if doc is not None:
            protocol = self.protocol
            lines = (protocol.lines_of(unquote(uri), doc.source)
                     if isinstance(protocol, CodequorumProtocol) else None)
            return self.snapshots.get(uri, doc.source, doc.language_id, encoding, doc.version,
                                      lines)
        path = path_of(uri)
        if path is None:
            raise RefusedFile(f"{uri} is not open")
        text = read_inside(path, self.folders, MAX_DOCUMENT_BYTES).decode("utf-8", "replace")
        return self.snapshots.get(uri, text, None, encoding, None)

    def apply_settings(
        self, raw: Any, base: Settings | None = None, engine: Engine | None = None
    ) -> None:
        """Read settings for one folder's engine (default: the first folder's; warnings
        shown once, defaults for bad values)."""
        settings, warnings = parse_settings(raw, base)
        for w in warnings:
            self.warn_once(f"codequorum: {w}")
        engine = engine or self.engine
        if engine is self.engine:
            self.settings = settings
        engine.configure(settings)

    async def pull_configuration(self) -> None:
        """Ask the client for the ``codequorum`` section (when it can answer): once without a
        scope (the user's), then for every workspace folder, whose own values of the settings
        only the user may choose do not count (:func:`folder_settings`)."""
        ws = self.client_capabilities.workspace
        if not (ws and ws.configuration):
            return
        folders = list(self.folders.items()) or [("", self.engine)]
        items = [types.ConfigurationItem(section="codequorum")] + [
            types.ConfigurationItem(section="codequorum", scope_uri=Path(root).as_uri())
            for root, _ in folders
            if root
        ]
        try:
            result = await asyncio.wait_for(
                self.workspace_configuration_async(types.ConfigurationParams(items=items)),
                timeout=10,
            )
        except Exception as exc:
            log.info("workspace/configuration failed: %s", exc)
            return
        answers = list(result or [])
        user = answers[0] if answers else None
        scoped = answers[1:] if len(items) > 1 else answers[:1]
        for (root, engine), value in zip(folders, scoped, strict=False):
            if value is None or value == {}:
                continue
            if root:
                value, refused = folder_settings(value, user, root)
                for warning in refused:
                    self.warn_once(f"codequorum: {warning}")
            self.apply_settings(value, self.base_settings, engine)

    def refresh(self, uri: str | None = None) -> None:
        """Diagnostics and lenses may have changed: push them again or ask the client to pull."""
        if self.pull_diagnostics:
            ws = self.client_capabilities.workspace
            if ws and ws.diagnostics and ws.diagnostics.refresh_support:
                self.workspace_diagnostic_refresh(None)
        else:
            uris = [uri] if uri else list(self.workspace.text_documents)
            for u in uris:
                self.schedule_publish(u)
        self.refresh_lenses()

    def schedule_publish(self, uri: str, delay: float = 0.0) -> None:
        """Compute and push one document's diagnostics (a newer request replaces an older)."""
        if self.pull_diagnostics:
            return
        old = self.pending.pop(uri, None)
        if old is not None and not old.done():
            old.cancel()
        task = asyncio.ensure_future(self._publish(uri, delay))
        self.pending[uri] = task
        task.add_done_callback(functools.partial(self._publish_done, uri))

    def _publish_done(self, uri: str, task: asyncio.Task[None]) -> None:
        if self.pending.get(uri) is task:
            del self.pending[uri]
        if not task.cancelled() and task.exception() is not None:
            log.error("diagnostics for %s failed: %s", uri, task.exception())

    async def _publish(self, uri: str, delay: float) -> None:
        if delay > 0:
            await asyncio.sleep(delay)
        await self.settled()
        snapshot = self.snapshot(uri)
        if snapshot is None:
            return
        first = await self._first_step(snapshot)
        if first is not None:
            self._push(snapshot, first)
        self._push(snapshot, await self.diagnostics_for(snapshot))

    def _push(self, snapshot: Snapshot, diagnostics: list[types.Diagnostic]) -> None:
        self.text_document_publish_diagnostics(
            types.PublishDiagnosticsParams(
                uri=snapshot.uri, diagnostics=diagnostics, version=snapshot.version
            )
        )

    async def _first_step(self, snapshot: Snapshot) -> list[types.Diagnostic] | None:
        """The diagnostics of the first :data:`FIRST_STEP` functions still to analyse (and
        of those ready), when more than that many are; None when the document is small or
        nothing was found in them (the whole document's come next)."""
        settings = self.settings_for(snapshot.uri)
        if not settings.diagnostics.enable or snapshot.language is None:
            return None
        try:
            items, pending = await self.engine_for(snapshot.uri).document(
                snapshot, self.file_key(snapshot.uri), wait=False)
        except Exception:
            log.exception("analysis of %s failed", snapshot.uri)
            return None
        if len(pending) <= FIRST_STEP:
            return None
        step = pending[:FIRST_STEP]
        await asyncio.wait([f for _, f in step])
        items += [(entry, f.result()) for entry, f in step
                  if not f.cancelled() and f.exception() is None]
        return document_diagnostics(snapshot, items, settings) or None

    async def items_for(self, snapshot: Snapshot) -> Items:
        """(function, analysis) pairs of a document, computed in the background."""
        items, _ = await self.items_now(snapshot, wait=True)
        return items

    async def items_now(self, snapshot: Snapshot, wait: bool = False) -> tuple[Items, set[str]]:
        """The (function, analysis) pairs of a document ready now, and the qualified names
        of those still computing (lenses are refreshed when they are done)."""
        if snapshot.language is None:
            return [], set()
        await self.settled()
        try:
            items, pending = await self.engine_for(snapshot.uri).document(
                snapshot, self.file_key(snapshot.uri), wait=wait
            )
        except Exception:
            log.exception("analysis of %s failed", snapshot.uri)
            return [], set()
        if pending:
            await asyncio.wait([f for _, f in pending], timeout=ANSWER_BUDGET)
            for entry, future in pending:
                if future.done() and not future.cancelled() and future.exception() is None:
                    items.append((entry, future.result()))
            pending = [(e, f) for e, f in pending if not f.done()]
        if pending:
            gathered = asyncio.gather(*(f for _, f in pending), return_exceptions=True)
            gathered.add_done_callback(lambda _: self.refresh_lenses())
        if snapshot.skipped_reason:
            self.warn_once(f"codequorum: {snapshot.skipped_reason}")
        return items, {entry.qualified_name for entry, _ in pending}

    def refresh_lenses(self) -> None:
        """Ask the client to ask for code lenses again (when it can be asked)."""
        ws = self.client_capabilities.workspace
        if ws and ws.code_lens and ws.code_lens.refresh_support:
            self.workspace_code_lens_refresh(None)

    async def diagnostics_for(self, snapshot: Snapshot) -> list[types.Diagnostic]:
        """Rendered diagnostics of a document."""
        settings = self.settings_for(snapshot.uri)
        if not settings.diagnostics.enable:
            return []
        items = await self.items_for(snapshot)
        return document_diagnostics(snapshot, items, settings)

    async def function_at(
        self, snapshot: Snapshot, position: types.Position
    ) -> tuple[FunctionEntry | None, AnalysisKey | None, FunctionAnalysis | None]:
        """The function at ``position``, its cache key (None: no stored versions) and its
        full analysis when it is ready within :data:`ANSWER_BUDGET`; else the analysis goes
        on in the background (a hover or a code action never waits for it). The function
        and its key are found in one step on the engine's thread."""
        await self.settled()
        engine = self.engine_for(snapshot.uri)

        def find() -> tuple[FunctionEntry | None, AnalysisKey | None,
                            FunctionAnalysis | None]:
            entry = snapshot.function_at(position)
            if entry is None:
                return None, None, None
            key = engine.key_sync(snapshot, entry, self.file_key(snapshot.uri))
            return entry, key, None if key is None else engine.cached(key)

        entry, key, hit = await engine.run(find)
        if entry is None or key is None or hit is not None:
            return entry, key, hit
        future = engine.schedule(key)
        await asyncio.wait([future], timeout=ANSWER_BUDGET)
        if future.done() and not future.cancelled() and future.exception() is None:
            return entry, key, future.result()
        return entry, key, None

    async def track_renames(self, uri: str, snapshot: Snapshot) -> None:
        """Move stored versions when the one function that had them was renamed: the
        document as it opened or was last saved against ``snapshot``, both indexed only
        when the text changed and the file has stored versions (opening a long document
        indexes nothing for this)."""
        if snapshot.language is None:
            return
        saved = self._saved.get(uri)
        self._saved[uri] = snapshot
        if saved is None or saved.text == snapshot.text:
            return
        key = self.file_key(uri)
        engine = self.engine_for(uri)
        with_versions = await engine.run(engine.functions_with_versions_sync, key)
        if not with_versions:
            return
        before = [e.qualified_name for e in await engine.run(saved.functions)]
        names = [e.qualified_name for e in await engine.run(snapshot.functions)]
        rename = rename_between(before, names)
        if rename is None:
            return
        old_name, new_name = rename
        owned = [n for n in with_versions if n == old_name or n.startswith(old_name + ".")]
        if owned and new_name not in with_versions:
            moved = await engine.run(engine.rename_sync, key, old_name, new_name)
            log.info("moved %d versions from %s to %s", moved, old_name, new_name)


def rename_between(before: list[str], after: list[str]) -> tuple[str, str] | None:
    """The one rename that turns the names ``before`` into ``after``, if there is one.

    A function renamed: ``f`` -> ``g``. A class (or outer function) renamed: every
    ``A.x`` -> ``B.x``, which is the rename ``A`` -> ``B``.
    """
    gone = sorted(set(before) - set(after))
    new = sorted(set(after) - set(before))
    if not gone or len(gone) != len(new):
        return None
    if len(gone) == 1:
        return gone[0], new[0]
    candidates: set[tuple[str, str]] = set()
    for old_name in gone:
        parts = old_name.split(".")
        for cut in range(1, len(parts)):
            rest = ".".join(parts[cut:])
            prefix = ".".join(parts[:cut])
            for new_name in new:
                if new_name.endswith("." + rest):
                    candidates.add((prefix, new_name[: -len(rest) - 1]))
    for old_prefix, new_prefix in sorted(candidates):
        mapped = sorted(
            new_prefix + n[len(old_prefix) :]
            for n in gone
            if n == old_prefix or n.startswith(old_prefix + ".")
        )
        if len(mapped) == len(gone) and mapped == new:
            return old_prefix, new_prefix
    return None


server = CodequorumServer()


# --------------------------------------------------------------------------- lifecycle


@server.feature(types.INITIALIZE)
def initialize(ls: CodequorumServer, params: types.InitializeParams) -> None:
    """Read the workspace folders (one engine each), the workspace's configuration file
    as defaults, and ``initializationOptions`` over them."""
    roots = [r for r in (_path(f.uri) for f in params.workspace_folders or []) if r]
    if not roots and params.root_uri:
        roots = [r for r in [_path(params.root_uri)] if r]
    elif not roots and params.root_path:
        roots = [params.root_path]
    defaults, file_warnings = file_settings(roots[0] if roots else None)
    settings, warnings = parse_settings(params.initialization_options, defaults)
    warnings = file_warnings + warnings
    ls.base_settings = settings
    ls.settings = settings
    ls.initially_trusted = settings.trusted
    for root in roots:
        ls.add_folder(root)
    if not roots:
        ls.engine.configure(settings)
    for w in warnings:
        ls.warn_at_start(f"codequorum: {w}")


def warm_up_kernels(wait: Callable[[], None] = lambda: None) -> None:
    """Load the compiled metric kernels (structural scores, TSED) ahead of the first
    analysis: numba and both kernels take about a second from the disk cache, compiling
    them on a fresh machine several seconds, and hold the interpreter meanwhile, so
    ``wait`` runs before each step (numba, each kernel): the server passes one that waits
    for the client to be quiet. Never raises: a kernel that fails here is loaded on first
    use."""
    steps: list[tuple[str, Callable[[], object]]] = [
        ("numba", lambda: importlib.import_module("numba"))]
    try:
        from codequorum.metrics import structural, tree_edit
    except Exception:
        log.debug("warming up the kernels failed", exc_info=True)
        return
    steps += [("structural", structural.warm_up), ("TSED", tree_edit.warm_up)]
    for name, warm in steps:
        wait()
        try:
            warm()
        except Exception:
            log.debug("warming up the %s kernel failed", name, exc_info=True)


def _start_warm_up(wait: Callable[[], None] = lambda: None) -> None:
    """``warm_up_kernels(wait)`` on a daemon thread: the server never waits for it."""
    try:
        threading.Thread(target=warm_up_kernels, args=(wait,), name="codequorum-warm-up",
                         daemon=True).start()
    except RuntimeError:  # no thread to spare: the kernels load on first use
        log.debug("could not start the warm-up thread", exc_info=True)


@server.feature(types.INITIALIZED)
async def initialized(ls: CodequorumServer, params: types.InitializedParams) -> None:
    """Warm the kernels up in the background, show start-up warnings, pull the
    configuration, open the store."""
    _start_warm_up(ls.wait_quiet)
    ls._loop = asyncio.get_running_loop()
    for kind, message in ls._startup_messages:
        ls.show(kind, message)
    ls._startup_messages.clear()
    try:
        await ls.pull_configuration()
    finally:
        ls._configured.set()
    for engine in ls.engines():
        await engine.run(engine.store)


@server.feature(types.SHUTDOWN)
def shutdown(ls: CodequorumServer, params: None) -> None:
    """Stop background jobs and close the store."""
    ls.shutdown_requested = True
    ls.watch.shutdown()
    for job in [*ls.dynamic_jobs.values(), *ls.background]:
        job.cancel()
    for engine in ls.engines():
        engine.shutdown()


@server.feature(types.WORKSPACE_DID_CHANGE_CONFIGURATION)
async def did_change_configuration(
    ls: CodequorumServer, params: types.DidChangeConfigurationParams
) -> None:
    """New settings: pulled when the client supports it, else taken from the notification."""
    ws = ls.client_capabilities.workspace
    if ws and ws.configuration:
        await ls.pull_configuration()
    else:
        raw = params.settings
        if isinstance(raw, dict) and isinstance(raw.get("codequorum"), dict):
            raw = raw["codequorum"]
        for engine in ls.engines():
            ls.apply_settings(raw, ls.base_settings, engine)
    ls.refresh()


@server.feature(types.WORKSPACE_DID_CHANGE_WORKSPACE_FOLDERS)
async def did_change_folders(
    ls: CodequorumServer, params: types.DidChangeWorkspaceFoldersParams
) -> None:
    """Folders added get an engine of their own; those removed close theirs."""
    for folder in params.event.removed:
        root = _path(folder.uri)
        engine = ls.folders.pop(root, None) if root else None
        if engine is not None and engine is not ls.engine:
            engine.shutdown()
    for folder in params.event.added:
        root = _path(folder.uri)
        if root and root not in ls.folders:
            ls.add_folder(root)
    await ls.pull_configuration()
    ls.refresh()


# --------------------------------------------------------------------------- documents


@server.feature(types.TEXT_DOCUMENT_DID_OPEN)
async def did_open(ls: CodequorumServer, params: types.DidOpenTextDocumentParams) -> None:
    """Diagnostics for a newly opened document; the watch reads it."""
    uri = params.text_document.uri
    ls.watch.opened(uri, language_of(uri, params.text_document.language_id),
                    params.text_document.text)
    snapshot = ls.snapshot(uri)
    if snapshot is not None and snapshot.language is not None:
        ls._saved[uri] = snapshot
        too_large = snapshot.size_refusal()
        if too_large is not None:
            ls.warn_once(f"codequorum: {too_large}")
    ls.schedule_publish(uri)


@server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
def did_change(ls: CodequorumServer, params: types.DidChangeTextDocumentParams) -> None:
    """Debounced diagnostics while typing, when asked for."""
    settings = ls.settings_for(params.text_document.uri)
    if settings.diagnostics.on_type:
        ls.schedule_publish(params.text_document.uri, settings.diagnostics.debounce_ms / 1000)


@server.feature(types.TEXT_DOCUMENT_DID_SAVE)
async def did_save(ls: CodequorumServer, params: types.DidSaveTextDocumentParams) -> None:
    """Follow renames, then refresh diagnostics (other tools may have added versions)."""
    uri = params.text_document.uri
    ls.engine_for(uri).forget(ls.file_key(uri))
    snapshot = ls.snapshot(uri)
    if snapshot is not None:
        try:
            await ls.track_renames(uri, snapshot)
        except Exception:
            log.exception("rename tracking failed for %s", uri)
    ls.schedule_publish(uri)


@server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
def did_close(ls: CodequorumServer, params: types.DidCloseTextDocumentParams) -> None:
    """Forget the document; clear its pushed diagnostics."""
    uri = params.text_document.uri
    task = ls.pending.pop(uri, None)
    if task is not None:
        task.cancel()
    ls.snapshots.drop(uri)
    if isinstance(ls.protocol, CodequorumProtocol):
        ls.protocol.forget_lines(unquote(uri))
    ls.watch.closed(uri)
    ls._saved.pop(uri, None)
    if not ls.pull_diagnostics:
        ls.text_document_publish_diagnostics(
            types.PublishDiagnosticsParams(uri=uri, diagnostics=[])
        )


@server.feature(EDIT_REASON)
def edit_reason(ls: CodequorumServer, params: Any) -> None:
    """The editor says what a change was (VS Code: an undo or a redo): ``{uri, version,
    reason}``. Anything else is ignored."""
    uri, version, reason = (getattr(params, k, None) for k in ("uri", "version", "reason"))
    if isinstance(uri, str) and isinstance(version, int) and isinstance(reason, str):
        ls.watch.reason(uri, version, reason)


# --------------------------------------------------------------------------- features


@server.feature(
    types.TEXT_DOCUMENT_DIAGNOSTIC,
    types.DiagnosticOptions(
        identifier=SOURCE, inter_file_dependencies=False, workspace_diagnostics=False
    ),
)
async def pull_diagnostics(
    ls: CodequorumServer, params: types.DocumentDiagnosticParams
) -> types.DocumentDiagnosticReport:
    """Pull diagnostics: the same findings as pushed ones, with a result id."""
    snapshot = ls.snapshot(params.text_document.uri)
    settings = ls.settings_for(params.text_document.uri)
    if snapshot is None or not settings.diagnostics.enable:
        return types.RelatedFullDocumentDiagnosticReport(items=[])
    items = await ls.items_for(snapshot)
    rid = result_id(snapshot, items, settings)
    if params.previous_result_id == rid:
        return types.RelatedUnchangedDocumentDiagnosticReport(result_id=rid)
    return types.RelatedFullDocumentDiagnosticReport(
        items=document_diagnostics(snapshot, items, settings), result_id=rid
    )


@server.feature(types.TEXT_DOCUMENT_HOVER)
async def hover(ls: CodequorumServer, params: types.HoverParams) -> types.Hover | None:
    """The stability summary of the function under the cursor, in the format the client
    asks for (markdown, or plain text)."""
    settings = ls.settings_for(params.text_document.uri)
    if not settings.hover.enable:
        return None
    snapshot = ls.snapshot(params.text_document.uri)
    if snapshot is None or snapshot.language is None:
        return None
    entry, key, analysis = await ls.function_at(snapshot, params.position)
    if entry is None or key is None:
        return None
    if analysis is None:
        doc = computing_doc(entry, len(key.stored))
    else:
        note = not_run_note(ls.engine_for(snapshot.uri), settings, ls.dynamic_jobs, ls.trusted,
                            analysis)
        doc = hover_doc(entry, analysis, settings.hover.diff_lines, note)
    return types.Hover(contents=markup_content(doc, ls.hover_format), range=entry.name_range)


@server.feature(types.TEXT_DOCUMENT_CODE_LENS)
async def code_lens(ls: CodequorumServer, params: types.CodeLensParams) -> list[types.CodeLens]:
    """Lenses above functions with versions (and Regenerate above the rest, if asked)."""
    snapshot = ls.snapshot(params.text_document.uri)
    settings = ls.settings_for(params.text_document.uri)
    if snapshot is None or not settings.code_lens.enable:
        return []
    items, computing = await ls.items_now(snapshot)
    if settings.code_lens.show_for_all:
        await ls.engine.run(snapshot.functions)
    return document_lenses(snapshot, items, settings, computing)


@server.feature(
    types.TEXT_DOCUMENT_CODE_ACTION,
    types.CodeActionOptions(
        code_action_kinds=[
            types.CodeActionKind.QuickFix,
            types.CodeActionKind.RefactorRewrite,
            COMMAND_KIND,
        ]
    ),
)
async def code_action(
    ls: CodequorumServer, params: types.CodeActionParams
) -> list[types.CodeAction]:
    """Replace the function at the cursor with another version; and run a command on it
    (all of them in a client without code lenses, else those no lens runs; see
    ``codeAction.commands``)."""
    snapshot = ls.snapshot(params.text_document.uri)
    if snapshot is None or snapshot.language is None:
        return []
    entry, key, analysis = await ls.function_at(snapshot, params.range.start)
    if entry is None:
        return []
    actions = (
        []
        if analysis is None
        else function_actions(snapshot, entry, analysis, params.context.diagnostics)
    )
    settings = ls.settings_for(snapshot.uri)
    mode = settings.code_action.commands
    if mode != "never":
        stored = 0 if key is None else len(key.stored)
        offer = CommandOffer(
            stored=stored,
            dynamic=(runtime_for(snapshot.language) is not None and settings.dynamic.enable
                     and ls.trusted),
            report=shows_documents(ls.client_capabilities),
            skip=lensed_commands(mode, ls.shows_lenses, lens_commands(stored > 0, settings)),
        )
        actions += command_actions(snapshot.uri, entry, offer)
    only = params.context.only
    if only:
        actions = [
            a for a in actions if a.kind and any(str(a.kind).startswith(str(k)) for k in only)
        ]
    return actions


# --------------------------------------------------------------------------- commands


def register_command(name: str, alias: str | None = None) -> None:
    """Register one command (under its older name ``alias`` too, when given): pygls reads
    the argument object into the command's arguments class (the handler's annotation) and
    writes its result class back as JSON. The handler is the function
    :func:`~codequorum.lsp.commands.command` registered for it."""
    args_cls, result_type = contract.COMMANDS[name]
    run = HANDLERS.get(name)
    if run is None:
        raise LookupError(f"no handler for the command {name}")

    async def handler(ls: CodequorumServer, args: Any) -> Any:
        try:
            return await run(ls, args)
        except CommandError as exc:  # a person chose it: say why it cannot run
            if getattr(args, "interactive", False) and not exc.shown:
                ls.show(types.MessageType.Error, f"codequorum: {exc.message}")
            raise

    handler.__annotations__ = {"ls": CodequorumServer, "args": args_cls, "return": result_type}
    handler.__name__ = handler.__qualname__ = run.__name__
    handler.__doc__ = run.__doc__
    server.command(alias or name)(handler)


for _name in contract.COMMANDS:
    register_command(_name)
for _old, _name in contract.ALIASES.items():
    register_command(_name, _old)


def _path(uri: str) -> str | None:
    return path_text(uri)
