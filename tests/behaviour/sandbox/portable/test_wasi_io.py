"""A guest's writes on fd 1 and 2, answered by the host in bounded pieces."""

from __future__ import annotations

import threading

from codequorum.behaviour.sandbox.portable import wasi_io


def _memory(buffers: list[bytes]) -> tuple[bytearray, int, int]:
    """A guest's memory holding ``buffers`` and the ``ciovec`` table naming them."""
    memory = bytearray(64)
    table = []
    for data in buffers:
        table.append((len(memory), len(data)))
        memory += data
    at = len(memory)
    for start, length in table:
        memory += wasi_io.CIOVEC.pack(start, length)
    return memory, at, len(buffers)


def _write(memory: bytearray, iovs: int, count: int, stop: threading.Event | None = None
           ) -> tuple[int | None, list[bytes]]:
    pieces: list[bytes] = []
    written = wasi_io._fd_write(lambda a, b: memory[a:b], len(memory), iovs, count,
                                pieces.append, stop or threading.Event())
    return written, pieces


def test_a_write_of_any_size_reaches_its_sink_in_bounded_pieces() -> None:
    big = bytes(range(256)) * (wasi_io.WRITE_CHUNK // 64)  # four pieces' worth
    memory, iovs, count = _memory([b"head ", big, b""])
    written, pieces = _write(memory, iovs, count)
    assert written == 5 + len(big)
    assert b"".join(pieces) == b"head " + big
    assert max(len(p) for p in pieces) == wasi_io.WRITE_CHUNK
    assert len(pieces) == 1 + 4


def test_a_write_stops_short_once_the_guest_is_stopped() -> None:
    memory, iovs, count = _memory([b"x" * (3 * wasi_io.WRITE_CHUNK)])
    stop = threading.Event()
    pieces: list[bytes] = []

    def sink(piece: bytes) -> None:
        pieces.append(piece)
        stop.set()  # the host stops the guest at its output limit

    written = wasi_io._fd_write(lambda a, b: memory[a:b], len(memory), iovs, count, sink,
                                stop)
    assert written == wasi_io.WRITE_CHUNK
    assert len(pieces) == 1


def test_a_buffer_outside_the_guests_memory_is_a_fault() -> None:
    memory, iovs, _count = _memory([b"ok"])
    memory[iovs:iovs + 8] = wasi_io.CIOVEC.pack(len(memory) - 1, 100)
    assert _write(memory, iovs, 1) == (None, [])
    assert _write(memory, len(memory) - 4, 1) == (None, [])


def test_too_many_buffers_are_refused_and_none_is_an_empty_write() -> None:
    memory, iovs, _count = _memory([b"ok"])
    assert _write(memory, iovs, wasi_io.MAX_IOVECS + 1) == (None, [])
    assert _write(memory, iovs, 0) == (0, [])
