"""Work-done progress for long jobs (regeneration, dynamic analysis), with cancellation.

A job uses the client's ``workDoneToken`` when the request carried one; otherwise, when the
client supports it, a server-created token (``window/workDoneProgress/create``). The
client cancels with ``window/workDoneProgress/cancel``; the job sees it as a set
:attr:`WorkProgress.cancelled` event (and an ``asyncio.Event`` for async work). Every call
is safe from worker threads: notifications are handed to the event loop.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import itertools
import logging
import threading
import uuid
from collections.abc import Callable
from concurrent.futures import Future
from functools import partial
from typing import TYPE_CHECKING, Any

from lsprotocol import types

from codequorum.core.safe_text import title_text

if TYPE_CHECKING:
    from pygls.progress import Progress

log = logging.getLogger(__name__)

#: The ``workDoneToken`` of the request being handled (set by the protocol for commands).
REQUEST_TOKEN: contextvars.ContextVar[types.ProgressToken | None] = contextvars.ContextVar(
    "codequorum_work_done_token", default=None
)

_counter = itertools.count(1)


def _shown(message: str | None) -> str | None:
    """A progress message as the client shows it: plain, one line, no live link or icon."""
    return None if message is None else title_text(message, 500)


class WorkProgress:
    """One job's progress bar on the client's ``bars`` (drawn where ``capabilities`` say the
    client draws them). Use ``async with WorkProgress(bars, capabilities, title) as p:``."""

    def __init__(
        self,
        bars: Progress,
        capabilities: types.ClientCapabilities,
        title: str,
        *,
        cancellable: bool = True,
        token: types.ProgressToken | None = None,
    ) -> None:
        self._bars = bars
        self._capabilities = capabilities
        self.title = title_text(title, 200)  # it may quote a function's name
        self.cancellable = cancellable
        self.token: types.ProgressToken | None = token if token is not None else REQUEST_TOKEN.get()
        self.cancelled = threading.Event()
        self.async_cancelled = asyncio.Event()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._active = False
        self._ended = False

    @property
    def _supported(self) -> bool:
        window = self._capabilities.window
        return bool(window and window.work_done_progress)

    async def begin(self, message: str | None = None) -> None:
        """Create the token if needed and send ``begin``."""
        self._loop = asyncio.get_running_loop()
        if self.token is None:
            if not self._supported:
                return
            token = f"codequorum/{next(_counter)}/{uuid.uuid4().hex[:8]}"
            try:
                await asyncio.wait_for(self._bars.create_async(token), timeout=10)
            except Exception as exc:  # the client refused or never answered
                log.info("work-done progress not created: %s", exc)
                return
            self.token = token
        tokens: dict[Any, Future[Any]] = self._bars.tokens
        future = tokens.setdefault(self.token, Future())
        future.add_done_callback(self._on_token_done)
        self._active = True
        self._bars.begin(
            self.token,
            types.WorkDoneProgressBegin(
                title=self.title, message=_shown(message), cancellable=self.cancellable,
                percentage=0,
            ),
        )

    def _on_token_done(self, future: Future[Any]) -> None:
        if future.cancelled():
            self.cancel()

    def cancel(self) -> None:
        """Mark the job cancelled (thread-safe)."""
        self.cancelled.set()
        loop = self._loop
        if loop is None:
            return
        try:
            if loop.is_running() and _in_loop(loop):
                self.async_cancelled.set()
            else:
                loop.call_soon_threadsafe(self.async_cancelled.set)
        except RuntimeError:  # loop closed
            pass

    def report(self, message: str | None = None, percentage: int | None = None) -> None:
        """Send ``report`` (from any thread)."""
        if not self._active or self._ended or self.token is None:
            return
        value = types.WorkDoneProgressReport(
            message=_shown(message),
            percentage=None if percentage is None else max(0, min(100, int(percentage))),
            cancellable=self.cancellable,
        )
        self._send(lambda: self._bars.report(self.token, value))  # type: ignore[arg-type]

    def end(self, message: str | None = None) -> None:
        """Send ``end`` once and forget the token (from any thread)."""
        if not self._active or self._ended or self.token is None:
            return
        self._ended = True
        token = self.token

        def send() -> None:
            value = types.WorkDoneProgressEnd(message=_shown(message))
            self._bars.end(token, value)
            self._bars.tokens.pop(token, None)

        self._send(send)

    def _send(self, fn: Any) -> None:
        loop = self._loop
        if loop is None or _in_loop(loop):
            fn()
        else:
            with contextlib.suppress(RuntimeError):
                loop.call_soon_threadsafe(fn)

    async def __aenter__(self) -> WorkProgress:
        await self.begin()
        return self

    async def __aexit__(self, exc_type: Any, exc: Any, tb: Any) -> None:
        if exc_type is asyncio.CancelledError:
            self.end("cancelled")
        elif exc_type is not None:
            self.end(f"failed: {exc}")
        else:
            self.end("cancelled" if self.cancelled.is_set() else "done")


#: A new progress bar with its title: what work that may show one is given.
NewProgress = Callable[[str], WorkProgress]


def progress_maker(bars: Progress, capabilities: types.ClientCapabilities) -> NewProgress:
    """New progress bars on the client's ``bars``, as its ``capabilities`` allow."""
    return partial(WorkProgress, bars, capabilities)


def _in_loop(loop: asyncio.AbstractEventLoop) -> bool:
    try:
        return asyncio.get_running_loop() is loop
    except RuntimeError:
        return False
