"""The bridge between the editor and the engine: a :class:`~codequorum.session.Session`
driven by the server's settings, with its blocking work on worker threads.

The event loop only awaits; SQLite, parsing, analysis and sandboxed runs happen on the
pool. Documents and their functions come in as :class:`Snapshot` and
:class:`FunctionEntry`; everything else is the protocol-free session.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

from codequorum.lsp.consent import Approvals
from codequorum.lsp.documents import FunctionEntry, Snapshot
from codequorum.lsp.settings import Settings
from codequorum.session import FunctionAnalysis, Notify, Session, SessionConfig
from codequorum.sources.store import SampleStore
from codequorum.workspace import file_key_for

__all__ = ["Engine", "FunctionAnalysis", "file_key_for", "session_config"]

log = logging.getLogger(__name__)

T = TypeVar("T")


def session_config(settings: Settings) -> SessionConfig:
    """The session options the server's settings stand for."""
    a = settings.analysis
    return SessionConfig(
        store=settings.store.path,
        include_current=a.include_current,
        max_depth=a.max_depth,
        tsed=a.tsed,
        dynamic_timeout=settings.dynamic.timeout,
        dynamic_sandbox=settings.dynamic.sandbox,
    )


class Engine(Session):
    """Samples in, analyses out; all blocking work on worker threads."""

    def __init__(self, notify: Notify) -> None:
        super().__init__(notify)
        self.settings = Settings()
        self.approvals = Approvals.default()
        self._made: set[str] = set()
        self._pool = ThreadPoolExecutor(max_workers=2, thread_name_prefix="codequorum")

    def store(self) -> SampleStore | None:
        """The open store; a store this server made is approved for running at once (the
        user fills it), one it found is not (see :mod:`codequorum.lsp.consent`)."""
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
        self.close()

    def configure(self, settings: Settings, root: str | None = None) -> None:
        """New settings (and workspace root); the store is reopened if its path moved."""
        self.settings = settings
        self.reconfigure(session_config(settings), root)

    def analysis_sync(
        self, snapshot: Snapshot, entry: FunctionEntry, file_key: str, full: bool = True
    ) -> FunctionAnalysis | None:
        """The (cached) analysis of one function of a document; None when it has no
        stored versions (see :meth:`Session.function_sync`)."""
        if snapshot.language is None:
            return None
        return self.function_sync(
            file_key, snapshot.language, entry.qualified_name, entry.name, entry.dedented(), full
        )

    def document_sync(
        self, snapshot: Snapshot, file_key: str
    ) -> list[tuple[FunctionEntry, FunctionAnalysis]]:
        """Analyses of every function in the document that has stored versions."""
        names = self.functions_with_samples_sync(file_key)
        if not names:
            return []
        out: list[tuple[FunctionEntry, FunctionAnalysis]] = []
        seen: set[str] = set()
        for entry in snapshot.functions():
            if entry.qualified_name not in names or entry.qualified_name in seen:
                continue
            seen.add(entry.qualified_name)
            try:
                analysis = self.analysis_sync(snapshot, entry, file_key, full=False)
            except Exception:
                log.exception("analysis of %s failed", entry.qualified_name)
                continue
            if analysis is not None:
                out.append((entry, analysis))
        return out

    async def run_dynamic_async(
        self,
        analysis: FunctionAnalysis,
        report_progress: Callable[[str, int | None], None],
        cancel: threading.Event,
    ) -> Any:
        """:meth:`run_dynamic_sync` on a thread of its own (it can take seconds)."""
        return await asyncio.to_thread(self.run_dynamic_sync, analysis, report_progress, cancel)
