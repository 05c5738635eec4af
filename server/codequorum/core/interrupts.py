"""Ctrl-C held over a stretch of work that must not be cut in half (an output being
written, compiled code being cached), and let through once it ends."""

from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Iterator


@contextlib.contextmanager
def deferred_interrupt() -> Iterator[list[int]]:
    """Hold Ctrl-C over the block; the list it yields records the interrupts that arrived
    meanwhile, for the caller to act on once the block is whole. A second Ctrl-C stops at
    once (a FIFO nobody reads would otherwise hold the run forever). Off the main thread,
    where no signal handler can be set, nothing is held."""
    hits: list[int] = []
    if threading.current_thread() is not threading.main_thread():
        yield hits
        return

    def hold(signum: int, _frame: object) -> None:
        hits.append(signum)
        if len(hits) > 1:
            raise KeyboardInterrupt

    previous = signal.getsignal(signal.SIGINT)
    signal.signal(signal.SIGINT, hold)
    try:
        yield hits
    finally:
        signal.signal(signal.SIGINT, previous)
