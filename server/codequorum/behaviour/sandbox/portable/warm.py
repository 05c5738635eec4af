"""Guests started ahead: the interpreter and the harness loaded, waiting for their version.

Stdlib and ``wasmtime`` only: ``host.py`` loads this file by path. A guest's start (the
interpreter, then the harness: about 1.5e8 instructions) does not depend on the version,
since ``guest.py`` loads the harness before it reads the ``run`` message on fd 0. So the
host starts guests ahead, each in a fresh store and instance of its own on a thread of its
own, blocked on its empty stdin; a version takes one (its run message is then the first
thing the guest reads) and the pool starts the next one. A guest serves exactly one
version and is discarded with its store: no memory, no state crosses between versions.
Guests are keyed by what is fixed when their store is made (which script, its fuel, its
memory cap, its CPU seconds); a version whose limits no waiting guest has gets one started
on the spot. The tests left after an overrun run in a guest for the version's budget left,
a key no other version takes: it is started alone, with nothing ahead of it and no waiting
guest discarded for it.

A guest runs on a thread of the host (:class:`Warm`) or, where the host cannot feed a
guest's stdin from within (no named pipes: Windows), on a thread of the guest server
(:class:`Served`, ``instance.py --serve``, :class:`GuestServer`), one process for the
guests of a run, whose input is a file that process appends to.
"""

from __future__ import annotations

import contextlib
import os
import struct
import threading
import time
from collections.abc import Callable
from typing import IO, TYPE_CHECKING, Any

if TYPE_CHECKING:
    import subprocess

#: Guests waiting per key: bounded by the cores (each is a thread that will run a
#: version) and small, since each holds its interpreter's memory (about 10-20 MB).
WAITING = max(1, min(2, os.cpu_count() or 1))
#: Keys kept waiting at once (a version's guest and its grader's, for one set of limits and
#: the one before it): guests of an older key are discarded.
KEYS = 4


#: Record kinds: the guest's writes on fd 1 and 2, then exactly one end; ``READY`` once its
#: instance is made (its interpreter starts next).
STDOUT, STDERR, ENDED, TRAPPED, FAILED, READY = 1, 2, 3, 4, 5, 6
#: A record of ``instance.py --serve`` on its stdout: kind, the guest's number, its store's
#: fuel left, its CPU seconds, length.
SERVED = struct.Struct("<BIqdI")
#: A command to ``instance.py --serve`` on its stdin: kind, the guest's number, length.
COMMAND = struct.Struct("<BII")
#: Command kinds: start a guest (its role, fuel, memory cap, CPU seconds and view, joined
#: by NUL), append to its stdin, stop it.
START, PUT, STOP = 1, 2, 3


class Trapped(Exception):
    """A guest of the guest server stopped by its runtime (fuel, a trap, memory)."""


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


def with_timeout_kill(proc: subprocess.Popen[bytes], seconds: float = 2.0) -> int:
    """Wait for ``proc``; kill it if it does not end within ``seconds``."""
    import subprocess

    try:
        return proc.wait(seconds)
    except subprocess.TimeoutExpired:
        proc.kill()
        return proc.wait()


class GuestServer:
    """The runner's side of one guest server (``instance.py --serve``): its process, the
    guests it runs (:class:`Served`) by number, and a thread that hands each its records.
    ``end`` is the frame that ends a guest's stdin (``check_grader.END``)."""

    def __init__(self, argv: list[str], end: bytes) -> None:
        import subprocess  # here: the guest server loads this file for its records alone

        self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL, close_fds=True)
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.stdin = self.proc.stdin
        self.end = end
        self._lock = threading.Lock()
        self._guests: dict[int, Served] = {}
        self._next = 0
        self._gone = False
        self.failure: BaseException = Trapped("the guest server ended without a word")
        threading.Thread(target=self._read, args=(self.proc.stdout,), daemon=True).start()

    def start(self, fields: list[str], view: str | None) -> Served:
        """A new guest with these ``fields`` (role, fuel, memory, CPU seconds, view)."""
        with self._lock:
            self._next += 1
            guest = Served(self, self._next, view)
            self._guests[guest.ident] = guest
            gone = self._gone
        if gone:
            guest.finish(0, 0.0, self.failure)
        else:
            self.send(START, guest.ident, "\0".join(fields).encode("utf-8"))
        return guest

    def send(self, kind: int, ident: int, data: bytes = b"") -> None:
        """One command (lost once the server is gone: its guests have ended then)."""
        with self._lock, contextlib.suppress(OSError, ValueError):
            self.stdin.write(COMMAND.pack(kind, ident, len(data)) + data)
            self.stdin.flush()

    def alive(self) -> bool:
        return not self._gone and self.proc.poll() is None

    def _read(self, stream: IO[bytes]) -> None:
        """Hand each record to its guest until the server's stdout ends; then every guest
        left has ended with it."""
        try:
            while (head := stream.read(SERVED.size)) and len(head) == SERVED.size:
                kind, ident, fuel, cpu, size = SERVED.unpack(head)
                data = stream.read(size) if size else b""
                if ident == 0 and kind == FAILED:  # the server could not start
                    self.failure = RuntimeError(data.decode("utf-8", "replace"))
                guest = self._guests.get(ident)
                if guest is not None and guest.deliver(kind, fuel, cpu, data):
                    with self._lock:
                        self._guests.pop(ident, None)
        finally:
            with self._lock:
                self._gone = True
                left, self._guests = list(self._guests.values()), {}
            for guest in left:
                guest.finish(guest.fuel_left(), guest.cpu_used(), self.failure)
            stream.close()

    def close(self) -> None:
        """End the server: its stdin closes, it stops its guests and leaves."""
        with self._lock, contextlib.suppress(OSError, ValueError):
            self.stdin.close()
        with_timeout_kill(self.proc)


class Served(Output):
    """One guest of a :class:`GuestServer`, on a thread of that process; its stdin a file
    the server appends to what is put (:class:`ServedInbox`), its records handed here."""

    def __init__(self, server: GuestServer, ident: int, view: str | None) -> None:
        super().__init__(ServedInbox(server, ident), view)
        self.server = server
        self.ident = ident
        self._fuel = 0
        self._cpu = 0.0

    def deliver(self, kind: int, fuel: int, cpu: float, data: bytes) -> bool:
        """One record; True once it was its end."""
        self._fuel, self._cpu = fuel, cpu
        if kind in (STDOUT, STDERR):
            self._write(kind, data)
            return False
        if kind == READY:
            self.ready.set()
            return False
        text = data.decode("utf-8", "replace")
        error = None if kind == ENDED else (
            Trapped(text) if kind == TRAPPED else RuntimeError(text))
        self.finish(fuel, cpu, error)
        return True

    def finish(self, fuel: int, cpu: float, error: BaseException | None) -> None:
        """Ended: its version goes on at once."""
        self.fuel_at_end, self._cpu, self.error = fuel, cpu, error
        self.inbox.dropped = True
        self.ready.set()
        self.ended_at = time.monotonic()
        self.ended.set()

    def discard(self) -> None:
        """Stop the guest: the server halts it at its next epoch tick, ends its sleeps
        and its wait for input."""
        self.halt = True
        self.wake.set()
        if not self.ended.is_set():
            self.server.send(STOP, self.ident)

    def fuel_left(self) -> int:
        return self.fuel_at_end if self.ended.is_set() else self._fuel

    def cpu_used(self) -> float:
        return self._cpu


class ServedInbox:
    """A served guest's stdin, sent to its server; ``close`` and ``drop`` both end it with
    the ``end`` frame (a file that grows has no end of its own)."""

    def __init__(self, server: GuestServer, ident: int) -> None:
        self.server = server
        self.ident = ident
        self.dropped = False

    def put(self, data: bytes) -> None:
        if not self.dropped:
            self.server.send(PUT, self.ident, data)

    def close(self) -> None:
        self.put(self.server.end)
        self.dropped = True

    def drop(self) -> None:
        self.close()


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
