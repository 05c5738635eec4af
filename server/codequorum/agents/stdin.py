"""The MCP server's reader: one JSON-RPC message a line, each at a bounded cost.

The SDK's stdio transport reads a whole line of any length and decodes it before anything
checks it, so one line could hold the server for seconds and hundreds of megabytes. Here a
line is read at most :data:`~codequorum.core.limits.MAX_MESSAGE_BYTES` at a time: a longer
one is read on in chunks and dropped, never held whole, and a line with too many JSON
values or nested too deeply is refused before it is decoded (the language server's reader
applies the same bounds, :mod:`codequorum.lsp.transport`). A refused line is answered with
an Invalid Request error whose ``id`` is null and one log line; the next line is read as
usual. The SDK gets only the lines that pass, as :func:`mcp.server.stdio.stdio_server`'s
``stdin``.

While it serves, file descriptor 0 points at the null device (as the SDK's own transport
leaves it), so nothing the server starts can read the client's messages.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Iterator
from contextlib import contextmanager
from typing import BinaryIO

import anyio
import anyio.to_thread
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream

from codequorum.core.limits import MAX_MESSAGE_BYTES, json_shape_problem, message_size_problem

log = logging.getLogger(__name__)

#: How much of an oversized line is held at once while it is dropped.
DISCARD_CHUNK = 1024 * 1024
#: Refusals waiting for their answer (past that the reader waits for the writer).
REFUSALS_WAITING = 16


def read_line(stream: BinaryIO, limit: int = MAX_MESSAGE_BYTES) -> tuple[bytes, str | None]:
    """The next line of ``stream`` (b"" at its end) and why it is refused (None when it may
    be decoded), read a chunk at a time. A line over ``limit`` bytes is read on and dropped
    as it comes, never held past ``limit``: it comes back as b"" with its problem."""
    parts: list[bytes] = []
    size = 0
    while True:
        chunk = stream.readline(DISCARD_CHUNK)
        size += len(chunk)
        ended = not chunk or chunk.endswith(b"\n")
        if size > limit:
            parts.clear()
            if ended:
                return b"", message_size_problem(size, limit)
        else:
            parts.append(chunk)
            if ended:
                line = b"".join(parts)
                return line, json_shape_problem(line)


class BoundedLines:
    """The lines of a binary stream that may be decoded, as the SDK's transport iterates
    its ``stdin`` (``async for line in stdin``); each refused line's problem is sent on
    :attr:`refused` instead."""

    def __init__(self, stream: BinaryIO, limit: int = MAX_MESSAGE_BYTES) -> None:
        self._stream, self._limit = stream, limit
        send, receive = anyio.create_memory_object_stream[str](REFUSALS_WAITING)
        self._send: MemoryObjectSendStream[str] = send
        self.refused: MemoryObjectReceiveStream[str] = receive

    def __aiter__(self) -> BoundedLines:
        return self

    async def __anext__(self) -> str:
        while True:
            line, problem = await anyio.to_thread.run_sync(read_line, self._stream, self._limit)
            if problem is not None:
                log.warning("a message was refused without being decoded: %s", problem)
                await self._send.send(problem)
                continue
            if not line:
                self._send.close()
                raise StopAsyncIteration
            if line.strip():
                return line.decode("utf-8", "replace")


@contextmanager
def claimed_stdin() -> Iterator[BinaryIO]:
    """The client's end of standard input, read from a private duplicate while fd 0
    points at the null device; as it was afterwards. Where a descriptor cannot be
    duplicated, ``sys.stdin``'s buffer is read in place."""
    import sys

    try:
        private = os.dup(0)
    except OSError:
        yield sys.stdin.buffer
        return
    try:
        null = os.open(os.devnull, os.O_RDONLY)
        try:
            os.dup2(null, 0)
        finally:
            os.close(null)
    except OSError:
        os.close(private)
        yield sys.stdin.buffer
        return
    stream = os.fdopen(private, "rb", closefd=False)
    try:
        yield stream
    finally:
        try:
            os.dup2(private, 0)
        except OSError:
            log.debug("standard input could not be given back", exc_info=True)
