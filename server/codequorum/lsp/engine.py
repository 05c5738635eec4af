"""The bridge between the editor and the engine: a :class:`~codequorum.pipeline.session.Session`
driven by the server's settings, with its blocking work on worker threads.

The event loop only awaits. Quick work (SQLite reads, parsing, cache look-ups) runs on one
pool and analyses on another, so a hover or a lens never waits behind an analysis: handlers
look up what is ready (:meth:`Engine.lookup`) and start the rest in the background
(:meth:`Engine.schedule`), one computation per key however often it is asked for.
Documents and their functions come in as :class:`Snapshot` and :class:`FunctionEntry`;
everything else is the protocol-free session.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from collections import OrderedDict
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from codequorum.core.file_uris import uri_path
from codequorum.core.model import ModuleContext
from codequorum.ingest.store import VersionStore
from codequorum.ingest.workspace import file_key_for
from codequorum.judge.dynamic_rules import dynamic_verdicts
from codequorum.judge.verdicts import NOT_RUN
from codequorum.lsp.documents import FunctionEntry, Snapshot
from codequorum.lsp.settings import Settings, from_settings
from codequorum.options.approvals import Approvals
from codequorum.pipeline.session import (
    AnalysisKey,
    Document,
    FunctionAnalysis,
    Notify,
    Preparation,
    Session,
    SessionConfig,
)

if TYPE_CHECKING:
    from codequorum.behaviour.input_plan import Proposer

__all__ = [
    "Engine",
    "FunctionAnalysis",
    "Lookup",
    "document_path",
    "file_key_for",
    "ran_nothing",
    "session_config",
]

log = logging.getLogger(__name__)

T = TypeVar("T")

#: One function of a document: its entry, its cache key, and its analysis when ready.
Lookup = tuple[FunctionEntry, AnalysisKey, FunctionAnalysis | None]
#: The functions of a document with their analyses.
Items = list[tuple[FunctionEntry, FunctionAnalysis]]
#: The functions of a document whose analyses are still being computed.
Pending = list[tuple[FunctionEntry, "asyncio.Future[FunctionAnalysis]"]]
#: How many runs that ran nothing an engine remembers.
NOTHING_RAN_KEPT = 256


def document_path(uri: str) -> Path | None:
    """The file of a ``file:`` document (None for an unsaved one)."""
    return uri_path(uri)


def session_config(settings: Settings) -> SessionConfig:
    """The session options the server's settings stand for."""
    return SessionConfig(store=settings.store.path, analysis=from_settings(settings))


def ran_nothing(report: Any) -> bool:
    """True for a dynamic report of a run that ran no version and has nothing to say: it had
    no inputs (a run refused by its module keeps its note, ``not-run-in-module``)."""
    said = [v for v in dynamic_verdicts(report) if v.code != NOT_RUN.code]
    return not getattr(report, "inputs", None) and not said


class Engine(Session):
    """Samples in, analyses out; all blocking work on worker threads."""

    def __init__(self, notify: Notify) -> None:
        self.approvals = Approvals.default()
        super().__init__(notify)
        self.settings = Settings()
        self._made: set[str] = set()
        self._pool = ThreadPoolExecutor(max_workers=2, thread_name_prefix="codequorum")
        self._background = ThreadPoolExecutor(
            max_workers=2, thread_name_prefix="codequorum-analysis"
        )
        self._inflight: dict[AnalysisKey, asyncio.Future[FunctionAnalysis]] = {}
        self._nothing_ran: OrderedDict[str, None] = OrderedDict()

    def store(self) -> VersionStore | None:
        """The open store; a store this server made is approved for running at once (the
        user fills it), one it found is not (see :mod:`codequorum.options.approvals`)."""
        store = super().store()
        if store is not None and store.created and store.store_id not in self._made:
            self._made.add(store.store_id)
            try:
                self.approvals.approve_store(store.path, store.store_id)
            except OSError as exc:
                log.warning("cannot record the new store in %s: %s", self.approvals.path, exc)
        return store

    async def run(self, fn: Callable[..., T], *args: Any) -> T:
        """Run ``fn(*args)`` on the worker pool and await it."""
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._pool, fn, *args)

    def shutdown(self) -> None:
        """Close the store and stop the workers."""
        self._pool.shutdown(wait=False, cancel_futures=True)
        self._background.shutdown(wait=False, cancel_futures=True)
        self.close()

    def configure(self, settings: Settings, root: str | None = None) -> None:
        """New settings (and workspace root); the store is reopened if its path moved."""
        self.settings = settings
        self.reconfigure(session_config(settings), root)

    def key_sync(
        self, snapshot: Snapshot, entry: FunctionEntry, file_key: str, full: bool = True
    ) -> AnalysisKey | None:
        """The cache key of one function's analysis; None when it has no stored versions."""
        if snapshot.language is None:
            return None
        document = Document(snapshot.text, document_path(snapshot.uri),
                            str(getattr(entry.info, "kind", "function")))
        return self.function_key(
            file_key, snapshot.language, entry.qualified_name, entry.name, entry.dedented(), full,
            entry.info.docstring, document,
        )

    def prepare_entry(self, snapshot: Snapshot, entry: FunctionEntry, file_key: str,
                      module: bool = True) -> Preparation | None:
        """:meth:`Session.prepare` for one function of an open document (its unsaved text
        too), under the store key of its URI. Blocking."""
        if snapshot.language is None:
            return None
        return self.prepare(snapshot.text, document_path(snapshot.uri), snapshot.language,
                            entry.info, module=module, file_key=file_key)

    def document_lookup_sync(self, snapshot: Snapshot, file_key: str) -> list[Lookup]:
        """Every function of the document with stored versions, its key and its light
        analysis when ready (computes nothing)."""
        names = self.functions_with_versions_sync(file_key)
        if not names or snapshot.language is None:
            return []
        out: list[Lookup] = []
        seen: set[str] = set()
        for entry in snapshot.functions():
            if entry.qualified_name not in names or entry.qualified_name in seen:
                continue
            seen.add(entry.qualified_name)
            key = self.key_sync(snapshot, entry, file_key, full=False)
            if key is not None:
                out.append((entry, key, self.cached(key)))
        return out

    async def lookup(
        self, snapshot: Snapshot, entry: FunctionEntry, file_key: str, full: bool = True
    ) -> tuple[AnalysisKey | None, FunctionAnalysis | None]:
        """One function's key and its analysis when ready, without computing it."""

        def look() -> tuple[AnalysisKey | None, FunctionAnalysis | None]:
            key = self.key_sync(snapshot, entry, file_key, full)
            return key, (None if key is None else self.cached(key))

        return await self.run(look)

    def schedule(self, key: AnalysisKey) -> asyncio.Future[FunctionAnalysis]:
        """The analysis of ``key`` computing in the background (started unless it is
        already under way). Call from the event loop."""
        future = self._inflight.get(key)
        if future is None:
            loop = asyncio.get_running_loop()
            future = loop.run_in_executor(self._background, self.compute, key)
            self._inflight[key] = future
            future.add_done_callback(lambda f: self._finished(key, f))
        return future

    def _finished(self, key: AnalysisKey, future: asyncio.Future[FunctionAnalysis]) -> None:
        if self._inflight.get(key) is future:
            del self._inflight[key]
        if not future.cancelled() and future.exception() is not None:
            log.error("analysis of %s failed: %s", key.qualified_name, future.exception())

    async def analysis(
        self, snapshot: Snapshot, entry: FunctionEntry, file_key: str, full: bool = True
    ) -> FunctionAnalysis | None:
        """One function's analysis, waiting for it when it has to be computed; None when
        it has no stored versions."""
        key, hit = await self.lookup(snapshot, entry, file_key, full)
        if key is None or hit is not None:
            return hit
        return await asyncio.shield(self.schedule(key))

    async def document(
        self, snapshot: Snapshot, file_key: str, wait: bool = True
    ) -> tuple[Items, Pending]:
        """The light analyses of a document's functions with stored versions, and the
        computations still under way (``wait``: none; they are awaited). An analysis that
        fails is logged and left out."""
        found = await self.run(self.document_lookup_sync, snapshot, file_key)
        ready: Items = []
        pending: Pending = []
        for entry, key, hit in found:
            if hit is not None:
                ready.append((entry, hit))
            else:
                pending.append((entry, self.schedule(key)))
        if not wait or not pending:
            return ready, pending
        results = await asyncio.gather(
            *(asyncio.shield(f) for _, f in pending), return_exceptions=True
        )
        for (entry, _), result in zip(pending, results, strict=True):
            if isinstance(result, FunctionAnalysis):
                ready.append((entry, result))
        order = {e.qualified_name: i for i, (e, _, _) in enumerate(found)}
        ready.sort(key=lambda item: order[item[0].qualified_name])
        return ready, []

    def put_dynamic(self, analysis: FunctionAnalysis, report: Any) -> None:
        """Keep a dynamic report; one whose run ran nothing (:func:`ran_nothing`) too: its
        ``not-run`` verdict says why in the hover and the lens, as ``check`` says it."""
        super().put_dynamic(analysis, report)
        if not ran_nothing(report):
            return
        with self._lock:
            self._nothing_ran[self.dynamic_key(analysis)] = None
            while len(self._nothing_ran) > NOTHING_RAN_KEPT:
                self._nothing_ran.popitem(last=False)

    def ran_nothing_before(self, analysis: FunctionAnalysis) -> bool:
        """True when a run of these versions (and current code) had no input to run."""
        with self._lock:
            return self.dynamic_key(analysis) in self._nothing_ran

    async def run_dynamic_async(
        self,
        analysis: FunctionAnalysis,
        report_progress: Callable[[str, int | None], None],
        cancel: threading.Event,
        input_proposer: Proposer | None = None,
        module: ModuleContext | None = None,
    ) -> Any:
        """:meth:`run_dynamic_sync` on a thread of its own (it can take seconds)."""
        return await asyncio.to_thread(
            self.run_dynamic_sync, analysis, report_progress, cancel, input_proposer, module
        )
