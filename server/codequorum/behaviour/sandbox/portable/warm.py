"""Guests started ahead: the interpreter and the harness loaded, waiting for their version.

Stdlib and ``wasmtime`` only: ``host.py`` loads this file by path. A guest's start (the
interpreter, then the harness: about 1.5e8 instructions) does not depend on the version,
since ``guest.py`` loads the harness before it reads the ``run`` message on fd 0. So the
host starts guests ahead, each in a fresh store and instance of its own on a thread of its
own, blocked on its empty stdin; a version takes one (its run message is then the first
thing the guest reads) and the pool starts the next one. A guest serves exactly one
version and is discarded with its store: no memory, no state crosses between versions.
Guests are keyed by what is fixed when their store is made (which script, its fuel, its
memory cap); a version whose limits no waiting guest has gets one started on the spot.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from typing import Any

#: Guests waiting per key: bounded by the cores (each is a thread that will run a
#: version) and small, since each holds its interpreter's memory (about 10-20 MB).
WAITING = max(1, min(2, os.cpu_count() or 1))
#: Keys kept waiting at once (a version's guest and its grader's, for one set of limits and
#: the one before it): guests of an older key are discarded.
KEYS = 4


class Warm:
    """One guest, started now on a thread of its own, its output held until a version
    takes it (``attach``); ``halt`` stops it at its next epoch check."""

    def __init__(self, start: Callable[[Warm], None], inbox: Any, view: str | None) -> None:
        self.inbox = inbox
        self.view = view  # its own empty folder granted read-only as the module view
        self.wake = threading.Event()  # ends its sleeps once it is stopped
        self.halt = False
        self.stores: list[Any] = []
        self.fuel_at_end = 0
        self.error: BaseException | None = None
        self.ended = threading.Event()
        self._lock = threading.Lock()
        self._held: list[tuple[int, bytes]] = []
        self._sinks: tuple[Callable[[bytes], None], Callable[[bytes], None]] | None = None
        self.thread = threading.Thread(target=self._run, args=(start,), daemon=True)
        self.thread.start()

    def _run(self, start: Callable[[Warm], None]) -> None:
        try:
            start(self)
        except BaseException as exc:  # handed to the version that takes it
            self.error = exc
        finally:
            self._release()
            self.ended.set()

    def _release(self) -> None:
        """Free the store now (its memory is the guest's), its fuel kept: a store sits in
        reference cycles that the collector would free only late."""
        stores, self.stores = self.stores, []
        for store in stores:
            self.fuel_at_end = int(store.get_fuel())
            store.close()

    def attach(self, stdout: Callable[[bytes], None], stderr: Callable[[bytes], None]) -> None:
        """From now on the guest's output goes to its version (what it held first)."""
        with self._lock:
            self._sinks = (stdout, stderr)
            held, self._held = self._held, []
        for fd, data in held:
            self._sinks[fd - 1](data)

    def stdout(self, data: bytes) -> None:
        self._write(1, data)

    def stderr(self, data: bytes) -> None:
        self._write(2, data)

    def _write(self, fd: int, data: bytes) -> None:
        with self._lock:
            sinks = self._sinks
            if sinks is None:
                self._held.append((fd, bytes(data)))
                return
        sinks[fd - 1](data)

    def discard(self) -> None:
        """End a guest no version took: its stdin ends, its sleeps and its run stop."""
        self.halt = True
        self.wake.set()
        self.inbox.drop()

    def fuel_left(self) -> int:
        """The store's fuel now (read on the guest's own thread), or when it ended."""
        stores = self.stores
        return int(stores[0].get_fuel()) if stores else self.fuel_at_end


class Pool:
    """Guests waiting by key; ``take`` hands one over and starts its successor."""

    def __init__(self, make: Callable[[tuple[Any, ...]], Warm], waiting: int = WAITING) -> None:
        self.make = make
        self.waiting = waiting
        self._lock = threading.Lock()
        self._guests: dict[tuple[Any, ...], list[Warm]] = {}

    def take(self, key: tuple[Any, ...]) -> Warm:
        """A guest for ``key``: a waiting one (unless it ended meanwhile), else a new one;
        the pool then starts guests for ``key`` up to its bound."""
        found = None
        with self._lock:
            stale = self._make_room(key)
            queue = self._guests.setdefault(key, [])
            while queue and found is None:
                candidate = queue.pop(0)
                if not candidate.ended.is_set():
                    found = candidate
            missing = self.waiting - len(queue)
        for old in stale:
            old.discard()
        guest = found if found is not None else self.make(key)
        for _ in range(max(0, missing)):
            fresh = self.make(key)
            with self._lock:
                self._guests.setdefault(key, []).append(fresh)
        return guest

    def _make_room(self, key: tuple[Any, ...]) -> list[Warm]:
        """Room for ``key`` among the kept keys: the oldest key's guests, taken out."""
        if key in self._guests or len(self._guests) < KEYS:
            return []
        oldest = next(iter(self._guests))
        return self._guests.pop(oldest)

    def close(self) -> None:
        """Discard every waiting guest."""
        with self._lock:
            guests = [g for queue in self._guests.values() for g in queue]
            self._guests.clear()
            self.waiting = 0
        for guest in guests:
            guest.discard()
