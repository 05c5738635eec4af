"""A guest's stdin fed by the host as messages arrive, and sleeps the host can end.

Stdlib and ``wasmtime`` only: ``host.py`` loads this file by path. In the long-lived host
a guest's fd 0 is an :class:`Inbox`, a named pipe the host writes as messages arrive (the
run, then a check harness's calls), so a version and the grader beside it talk through the
host, which routes and checks every frame (POSIX only: a guest of the guest server reads
a file that process appends to instead, waiting at its end on a poll the host answers:
``linker``'s ``inbox``). The guest's clocks and
``poll_oneoff`` are answered here: a sleep (clock subscriptions only: ``time.sleep``,
``select`` with a timeout) waits on the instance's stop event rather than in the runtime,
since epoch interruption cannot stop a blocked host call and a version that sleeps past
its test's budget must stop when the host says so; descriptors are files or the host's
pipes, so a poll on one is answered ready at once. Every other call is WASI's own.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import queue
import select
import struct
import threading
import time
from collections.abc import Callable
from typing import Any

WASI = "wasi_snapshot_preview1"
#: ``subscription`` (48 bytes) and ``event`` (32 bytes) of WASI preview 1.
SUBSCRIPTION = struct.Struct("<QB7xIxxxxQQH6x")
EVENT = struct.Struct("<QHB5xQH6x")
CLOCK_TAG = 0
FD_READ_TAG = 1
ABSTIME = 1
ERRNO_SUCCESS = 0
ERRNO_BADF = 8
ERRNO_FAULT = 21
ERRNO_INVAL = 28
#: ``ciovec`` of WASI preview 1: a buffer's address and length.
CIOVEC = struct.Struct("<II")
#: The most bytes of a guest's write handed to its sink at once: a write of any size is
#: copied out of the guest's memory in pieces this big, never whole.
WRITE_CHUNK = 64 * 1024
#: The most buffers one write names that are read (POSIX's usual ``IOV_MAX``).
MAX_IOVECS = 1024
#: WASI's realtime and monotonic clocks, as the host reads them.
CLOCKS = {0: time.time_ns, 1: time.monotonic_ns}
_POLL_SECONDS = 0.05


class Inbox:
    """A guest's fd 0: a named pipe in ``folder`` that the host writes from a queue;
    ``close`` ends it after what was put, ``drop`` at once."""

    def __init__(self, folder: str, first: bytes = b"") -> None:
        self.path = os.path.join(folder, f"inbox-{id(self)}-{time.monotonic_ns()}")
        os.mkfifo(self.path, 0o600)
        self.fd = os.open(self.path, os.O_RDWR)  # the guest's open does not wait for it
        os.set_blocking(self.fd, False)
        self.queue: queue.Queue[bytes | None] = queue.Queue()
        self.dropped = threading.Event()
        self.opened = threading.Event()  # the guest's end is open: closing ours is EOF
        if first:
            self.queue.put(first)
        threading.Thread(target=self._pump, daemon=True).start()

    def put(self, data: bytes) -> None:
        self.queue.put(data)

    def close(self) -> None:
        self.queue.put(None)

    def drop(self) -> None:
        self.dropped.set()
        self.opened.set()
        self.queue.put(None)

    def attach(self, config: Any) -> None:
        """Make the pipe ``config``'s stdin (the guest's end is opened here); refused once
        dropped, since the host's end is closed then and the open would wait for it."""
        if self.dropped.is_set():
            raise OSError("the guest's stdin was ended before the guest started")
        config.stdin_file = self.path
        self.opened.set()
        with contextlib.suppress(OSError):
            os.unlink(self.path)

    def _pump(self) -> None:
        writable = select.poll()  # not select(): a long-lived host's descriptors pass 1024
        writable.register(self.fd, select.POLLOUT)
        try:
            while (item := self.queue.get()) is not None and not self.dropped.is_set():
                view = memoryview(item)
                while view and not self.dropped.is_set():
                    if writable.poll(_POLL_SECONDS * 1000):
                        try:
                            view = view[os.write(self.fd, view):]
                        except BlockingIOError:
                            continue
        except OSError:
            pass
        finally:
            self.opened.wait()  # closed before the guest's end opens, what was put is lost
            os.close(self.fd)  # the guest reads EOF


def linker(wasmtime: Any, engine: Any, store: Any, stop: threading.Event,
           outputs: dict[int, Callable[[bytes], None]],
           inbox: tuple[int, threading.Event] | None = None) -> Any:
    """A linker for one store: WASI, with the clocks and polls answered here and sleeps
    ended by ``stop``, and the writes on fd 1 and 2 handed to ``outputs`` in bounded
    pieces (:func:`_fd_write`). ``inbox``: the descriptor of the folder granted to a guest
    whose input is a file the host appends to, and the event set when more has come (or
    the guest is stopped): a poll of that descriptor alone waits for it."""
    found = wasmtime.Linker(engine)
    found.define_wasi()
    found.allow_shadowing = True
    i32, i64 = wasmtime.ValType.i32(), wasmtime.ValType.i64()

    def clock_time_get(caller: Any, clock: int, _precision: int, out: int) -> int:
        read = CLOCKS.get(clock)
        if read is None:
            return ERRNO_INVAL
        caller["memory"].write(caller, struct.pack("<Q", read()), out)
        return ERRNO_SUCCESS

    def poll_oneoff(caller: Any, subs: int, events: int, count: int, nevents: int) -> int:
        memory = caller["memory"]
        if count <= 0:
            return ERRNO_INVAL
        raw = memory.read(caller, subs, subs + SUBSCRIPTION.size * count)
        parsed = [SUBSCRIPTION.unpack_from(raw, SUBSCRIPTION.size * k) for k in range(count)]
        ready = [(user, tag) for user, tag, *_rest in parsed if tag != CLOCK_TAG]
        if ready and inbox is not None and _polls_only(parsed, inbox[0]):
            ready = _wait_inbox(parsed, inbox[1], stop)
        if not ready:
            seconds, user = min((_remaining(clock, timeout, flags), user)
                                for user, tag, clock, timeout, _precision, flags in parsed
                                if tag == CLOCK_TAG)
            if seconds > 0:
                stop.wait(seconds)
            ready = [(user, CLOCK_TAG)]
        out = b"".join(EVENT.pack(user, ERRNO_SUCCESS, tag, 0, 0) for user, tag in ready)
        memory.write(caller, out, events)
        memory.write(caller, struct.pack("<I", len(ready)), nevents)
        return ERRNO_SUCCESS

    def fd_write(caller: Any, fd: int, iovs: int, count: int, out: int) -> int:
        sink = outputs.get(fd)
        if sink is None:
            return ERRNO_BADF  # as WASI's own: the guest can open no other file for writing
        memory = caller["memory"]
        written = _fd_write(lambda a, b: memory.read(caller, a, b), memory.data_len(caller),
                            iovs, count, sink, stop)
        if written is None:
            return ERRNO_FAULT
        memory.write(caller, struct.pack("<I", written), out)
        return ERRNO_SUCCESS

    found.define(store, WASI, "fd_write", wasmtime.Func(
        store, wasmtime.FuncType([i32, i32, i32, i32], [i32]), fd_write, access_caller=True))
    found.define(store, WASI, "clock_time_get", wasmtime.Func(
        store, wasmtime.FuncType([i32, i64, i32], [i32]), clock_time_get, access_caller=True))
    found.define(store, WASI, "poll_oneoff", wasmtime.Func(
        store, wasmtime.FuncType([i32, i32, i32, i32], [i32]), poll_oneoff,
        access_caller=True))
    return found


def _fd_write(read: Callable[[int, int], bytes | bytearray], size: int, iovs: int, count: int,
              sink: Callable[[bytes], None], stop: threading.Event) -> int | None:
    """Hand the buffers of one ``fd_write`` to ``sink`` in pieces of at most
    ``WRITE_CHUNK`` bytes; the bytes written, or None when a buffer lies outside the
    guest's memory (``size`` bytes). A write blocks until it is all taken, as on a pipe,
    unless the guest is stopped meanwhile (its output limit reached): then it is short."""
    if not 0 <= count <= MAX_IOVECS or iovs + CIOVEC.size * count > size:
        return None if count > 0 else 0
    table = read(iovs, iovs + CIOVEC.size * count)
    written = 0
    for k in range(count):
        start, length = CIOVEC.unpack_from(table, CIOVEC.size * k)
        if start + length > size:
            return None if written == 0 else written
        for offset in range(start, start + length, WRITE_CHUNK):
            if stop.is_set():
                return written
            piece = bytes(read(offset, min(offset + WRITE_CHUNK, start + length)))
            sink(piece)
            written += len(piece)
    return written


def _polls_only(parsed: list[tuple[Any, ...]], fd: int) -> bool:
    """Whether a poll names only ``fd`` for reading (and clocks)."""
    return all(tag == CLOCK_TAG or (tag == FD_READ_TAG and named == fd)
               for _user, tag, named, *_rest in parsed)


def _wait_inbox(parsed: list[tuple[Any, ...]], more: threading.Event,
                stop: threading.Event) -> list[tuple[int, int]]:
    """A poll of the inbox: its events once ``more`` is set (then cleared: what came is
    read next) or at once when the guest is stopped (its next epoch check ends it); none
    when its earliest clock passes first."""
    clocks = [_remaining(clock, timeout, flags)
              for _user, tag, clock, timeout, _precision, flags in parsed if tag == CLOCK_TAG]
    if not stop.is_set() and not more.wait(min(clocks) if clocks else None):
        return []
    more.clear()
    return [(user, tag) for user, tag, *_rest in parsed if tag != CLOCK_TAG]


def _remaining(clock: int, timeout: int, flags: int) -> float:
    """Seconds a clock subscription waits (an absolute one against the host's clock, which
    is the guest's too)."""
    if not flags & ABSTIME:
        return timeout / 1e9
    read = CLOCKS.get(clock, time.monotonic_ns)
    return max(0, timeout - read()) / 1e9


def on_epoch(wasmtime: Any, store: Any, halted: Callable[[], bool]) -> None:
    """Stop ``store``'s guest at an epoch tick only when ``halted()`` says so.

    The engine's epoch is shared by every store of a long-lived host: a tick meant for one
    guest must not stop the others. Each store's deadline is therefore answered here, on
    the guest's own thread: a guest not halted goes on for one more tick, a halted one
    traps (``stopped by the host``); any failure here stops it too.
    """
    ffi = wasmtime._ffi

    def deadline(_context: Any, _data: Any, delta: Any, kind: Any) -> int:
        try:
            if not halted():
                delta[0] = 1
                kind[0] = UPDATE_CONTINUE
                return 0
        except BaseException:  # a callback cannot raise: the guest is stopped
            pass
        error = ffi.wasmtime_error_new(b"stopped by the host")
        return int(ctypes.cast(error, ctypes.c_void_p).value or 0)

    kinds = wasmtime._bindings._wasmtime_store_epoch_deadline_callback.argtypes
    callback = kinds[1](deadline)
    finalizer = kinds[3](lambda _data: None)
    store._codequorum_epoch = (callback, finalizer)  # alive as long as the store
    ffi.wasmtime_store_epoch_deadline_callback(store.ptr(), callback, None, finalizer)


#: ``WASMTIME_UPDATE_DEADLINE_CONTINUE``: the guest goes on to its new deadline.
UPDATE_CONTINUE = 0
