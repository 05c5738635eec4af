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
The tests left after an overrun run in a guest for the version's fuel left, a key no other
version takes: it is started alone, with nothing ahead of it and no waiting guest
discarded for it.

A guest runs on a thread of the host (:class:`Warm`) or, where the host cannot feed a
guest's stdin from within (no named pipes: Windows), in a process of its own
(:class:`Remote`, ``host.py --guest``) whose stdin is an ordinary pipe the guest inherits.
"""

from __future__ import annotations

import contextlib
import os
import queue
import struct
import subprocess
import threading
import time
from collections.abc import Callable
from typing import IO, Any

#: Guests waiting per key: bounded by the cores (each is a thread that will run a
#: version) and small, since each holds its interpreter's memory (about 10-20 MB).
WAITING = max(1, min(2, os.cpu_count() or 1))
#: Keys kept waiting at once (a version's guest and its grader's, for one set of limits and
#: the one before it): guests of an older key are discarded.
KEYS = 4


#: A record of ``host.py --guest`` on its stdout: kind, the store's fuel left, the CPU
#: seconds its guest ran, length.
RECORD = struct.Struct("<BqdI")
#: Record kinds: the guest's writes on fd 1 and 2, then exactly one end; ``READY`` once its
#: process has mapped the module and made its instance (its interpreter starts next).
STDOUT, STDERR, ENDED, TRAPPED, FAILED, READY = 1, 2, 3, 4, 5, 6


class Trapped(Exception):
    """A guest in a process of its own stopped by its runtime (fuel, a trap, memory)."""


class Output:
    """A guest's output, held until a version takes the guest (``attach``)."""

    def __init__(self, inbox: Any, view: str | None) -> None:
        self.inbox = inbox
        self.view = view  # its own empty folder granted read-only as the module view
        self.wake = threading.Event()  # ends its sleeps once it is stopped
        self.halt = False
        self.fuel_at_end = 0
        self.error: BaseException | None = None
        self.ended_at = 0.0  # when it ended (monotonic)
        self.ended = threading.Event()
        self.ready = threading.Event()  # about to run its interpreter
        self._lock = threading.Lock()
        self._held: list[tuple[int, bytes]] = []
        self._sinks: tuple[Callable[[bytes], None], Callable[[bytes], None]] | None = None

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
        """Stop the guest: its stdin ends, its sleeps and its run stop."""
        raise NotImplementedError

    def fuel_left(self) -> int:
        """Its store's fuel left now, or when it ended."""
        raise NotImplementedError

    def cpu_used(self) -> float:
        """The CPU seconds its guest ran, once it ended."""
        raise NotImplementedError


class Warm(Output):
    """One guest, started now on a thread of its own, its output held until a version
    takes it (``attach``); ``halt`` stops it at its next epoch check."""

    def __init__(self, start: Callable[[Warm], None], inbox: Any, view: str | None) -> None:
        super().__init__(inbox, view)
        self.ready.set()
        self.stores: list[Any] = []
        self.meter: Any = None  # its CPU clock (``budget.CpuMeter``), set as it starts
        self.thread = threading.Thread(target=self._run, args=(start,), daemon=True)
        self.thread.start()

    def _run(self, start: Callable[[Warm], None]) -> None:
        try:
            start(self)
        except BaseException as exc:  # handed to the version that takes it
            self.error = exc
        finally:
            self._release()
            self.ended_at = time.monotonic()
            self.ended.set()

    def _release(self) -> None:
        """Free the store now (its memory is the guest's), its fuel kept: a store sits in
        reference cycles that the collector would free only late."""
        stores, self.stores = self.stores, []
        for store in stores:
            self.fuel_at_end = int(store.get_fuel())
            store.close()

    def discard(self) -> None:
        """End a guest no version took: its stdin ends, its sleeps and its run stop."""
        self.halt = True
        self.wake.set()
        self.inbox.drop()

    def fuel_left(self) -> int:
        """The store's fuel now (read on the guest's own thread), or when it ended."""
        stores = self.stores
        return int(stores[0].get_fuel()) if stores else self.fuel_at_end

    def cpu_used(self) -> float:
        """The CPU seconds read on its own thread as it ended."""
        return float(self.meter.used) if self.meter is not None else 0.0


class Remote(Output):
    """One guest started now in a process of its own (``argv``: ``host.py --guest``),
    blocked on its stdin, an ordinary pipe it inherits; its writes come back as records
    carrying the store's fuel and the guest's CPU seconds at each. Stopping it ends the
    process (nothing is left in it to reuse); the fuel it burnt since its last write is then
    counted at ``rate`` units a second of wall time, and its CPU time as that wall time (at
    most what the strict child's clock would count)."""

    def __init__(self, argv: list[str], view: str | None, rate: int) -> None:
        self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL, close_fds=True)
        assert self.proc.stdin is not None and self.proc.stdout is not None
        super().__init__(PipeInbox(self.proc.stdin), view)
        self.rate = rate
        self._fuel = 0
        self._cpu = 0.0
        self._cpu_at_end: float | None = None
        self._seen_at = time.monotonic()
        self._stopped_at: float | None = None
        self.thread = threading.Thread(target=self._read, args=(self.proc.stdout,),
                                       daemon=True)
        self.thread.start()

    def _read(self, stream: IO[bytes]) -> None:
        """Deliver the records until the end one (or the process is gone)."""
        try:
            while (head := stream.read(RECORD.size)) and len(head) == RECORD.size:
                kind, fuel, cpu, size = RECORD.unpack(head)
                data = stream.read(size) if size else b""
                self._fuel, self._cpu, self._seen_at = fuel, cpu, time.monotonic()
                if kind in (STDOUT, STDERR):
                    self._write(kind, data)
                    continue
                if kind == READY:
                    self.ready.set()
                    continue
                self.fuel_at_end, self._cpu_at_end = fuel, cpu
                if kind != ENDED:
                    text = data.decode("utf-8", "replace")
                    self.error = Trapped(text) if kind == TRAPPED else RuntimeError(text)
                return
            self.fuel_at_end = self._burnt()
            self.error = Trapped("the guest's process ended without a word")
        finally:
            stream.close()
            self._end()

    def _burnt(self) -> int:
        """The fuel left at a stop without a word: the last seen, less what the time
        since then could have burnt."""
        return max(0, self._fuel - int(self._since_seen() * self.rate))

    def _since_seen(self) -> float:
        """Wall seconds from its last record to its stop (or now)."""
        stopped = self._stopped_at if self._stopped_at is not None else time.monotonic()
        return max(0.0, stopped - self._seen_at)

    def cpu_used(self) -> float:
        """The CPU seconds its end record gave, or at a stop without a word the last
        seen plus the wall time since."""
        if self._cpu_at_end is not None:
            return self._cpu_at_end
        return self._cpu + self._since_seen()

    def _end(self) -> None:
        """Ended: its version goes on at once; its process is then waited for (killed if it
        lingers)."""
        self.inbox.drop()
        self.ready.set()
        self.ended_at = time.monotonic()
        self.ended.set()
        with_timeout_kill(self.proc)

    def discard(self) -> None:
        """Stop the guest now: its process ends."""
        self.halt = True
        if self._stopped_at is None:
            self._stopped_at = time.monotonic()
        self.wake.set()
        self.inbox.drop()
        self.proc.kill()

    def fuel_left(self) -> int:
        """The store's fuel at the guest's last write, or when it ended."""
        return self.fuel_at_end if self.ended.is_set() else self._fuel


def with_timeout_kill(proc: subprocess.Popen[bytes], seconds: float = 2.0) -> int:
    """Wait for ``proc``; kill it if it does not end within ``seconds``."""
    try:
        return proc.wait(seconds)
    except subprocess.TimeoutExpired:
        proc.kill()
        return proc.wait()


class PipeInbox:
    """A guest process's stdin, written from a queue on a thread of its own; ``close``
    ends it after what was put, ``drop`` at once."""

    def __init__(self, stream: IO[bytes]) -> None:
        self.stream = stream
        self.queue: queue.Queue[bytes | None] = queue.Queue()
        self.dropped = threading.Event()
        threading.Thread(target=self._pump, daemon=True).start()

    def put(self, data: bytes) -> None:
        self.queue.put(data)

    def close(self) -> None:
        self.queue.put(None)

    def drop(self) -> None:
        self.dropped.set()
        self.queue.put(None)

    def _pump(self) -> None:
        with contextlib.suppress(OSError):  # OSError: the guest's process is gone
            while (item := self.queue.get()) is not None and not self.dropped.is_set():
                self.stream.write(item)
                self.stream.flush()
        with contextlib.suppress(OSError):
            self.stream.close()


class Pool:
    """Guests waiting by key; ``take`` hands one over and starts its successor."""

    def __init__(self, make: Callable[[tuple[Any, ...]], Output], waiting: int = WAITING) -> None:
        self.make = make
        self.waiting = waiting
        self._lock = threading.Lock()
        self._guests: dict[tuple[Any, ...], list[Output]] = {}

    def take(self, key: tuple[Any, ...], ahead: bool = True) -> Output:
        """A guest for ``key``: a waiting one (unless it ended meanwhile), else a new one;
        the pool then starts guests for ``key`` up to its bound. ``ahead=False`` for a key
        that will not come again (a version's fuel left after an overrun): nothing started
        for it ahead and no other key's waiting guests discarded to make room for it (each
        would cost a guest's start, a process's where guests run in their own, on the cores
        the version's next tests need)."""
        if not ahead:
            return self._take_once(key)
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

    def _take_once(self, key: tuple[Any, ...]) -> Output:
        """A waiting guest for ``key`` if one is alive, else one started now; no successor."""
        with self._lock:
            queue = self._guests.get(key, [])
            while queue:
                candidate = queue.pop(0)
                if not candidate.ended.is_set():
                    return candidate
        return self.make(key)

    def _make_room(self, key: tuple[Any, ...]) -> list[Output]:
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
