"""The MCP server's reader: one JSON-RPC message a line, each at a bounded cost.

The SDK's stdio transport reads a whole line of any length and decodes it before anything
checks it, so one line could hold the server for seconds and hundreds of megabytes. Here a
line is read at most :data:`~codequorum.core.limits.MAX_MESSAGE_BYTES` at a time: a longer
one is read on in chunks and dropped, never held whole, and a line with too many JSON
values or nested too deeply is refused before it is decoded (the language server's reader
applies the same bounds, :mod:`codequorum.lsp.transport`). A refused line is answered with
an Invalid Request error bearing the id at the head of the line (null when there is
none) and one log line; the next line is read as
usual. A line within the bounds that is not JSON, or not a JSON-RPC message (the SDK drops
those without a word, and a client would wait for its answer forever), is answered too: a
Parse error, or an Invalid Request with the line's id when it has a readable one. The SDK
gets only the lines that pass, as :func:`mcp.server.stdio.stdio_server`'s ``stdin``.

While it serves, file descriptor 0 points at the null device (as the SDK's own transport
leaves it), so nothing the server starts can read the client's messages.
"""

from __future__ import annotations

import json
import logging
import os
from collections.abc import Iterator
from contextlib import contextmanager
from typing import BinaryIO

import anyio
import anyio.to_thread
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream
from mcp_types import ErrorData, JSONRPCError, jsonrpc_message_adapter
from pydantic import ValidationError

from codequorum.core.limits import (
    MAX_MESSAGE_BYTES,
    PARSE_ERROR,
    json_shape_problem,
    leading_id,
    message_size_problem,
    refusal,
)

log = logging.getLogger(__name__)

#: How much of an oversized line is held at once while it is dropped.
DISCARD_CHUNK = 1024 * 1024
#: What is kept of a line dropped for its size: where its id is.
HEAD_BYTES = 1024
#: Refusals waiting for their answer (past that the reader waits for the writer).
REFUSALS_WAITING = 16


def read_line(stream: BinaryIO, limit: int = MAX_MESSAGE_BYTES) -> tuple[bytes, str | None]:
    """The next line of ``stream`` (b"" at its end) and why it is refused (None when it may
    be decoded), read a chunk at a time. A line over ``limit`` bytes is read on and dropped
    as it comes, never held past ``limit``: it comes back as its first :data:`HEAD_BYTES`
    (where its id is) with its problem."""
    parts: list[bytes] = []
    size = 0
    head = b""
    while True:
        chunk = stream.readline(DISCARD_CHUNK)
        head = head or chunk[:HEAD_BYTES]
        size += len(chunk)
        ended = not chunk or chunk.endswith(b"\n")
        if size > limit:
            parts.clear()
            if ended:
                return head, message_size_problem(size, limit)
        else:
            parts.append(chunk)
            if ended:
                line = b"".join(parts)
                return line, json_shape_problem(line)


def unreadable(line: bytes) -> JSONRPCError | None:
    """The error that answers ``line`` (within the bounds) when it is no JSON-RPC message
    the SDK reads; None when it is one."""
    try:
        jsonrpc_message_adapter.validate_json(line, by_name=False)
        return None
    except ValidationError:
        pass
    try:
        message = json.loads(line)
    except (ValueError, RecursionError):
        return _error(None, refusal("a line that is not JSON", PARSE_ERROR))
    found = message.get("id") if isinstance(message, dict) else None
    readable = isinstance(found, str) or (isinstance(found, int) and not isinstance(found, bool))
    return _error(found if readable else None,
                  refusal("a line that is not a JSON-RPC 2.0 message"))


def refused(problem: str, head: bytes) -> JSONRPCError:
    """The answer to a line refused before it was decoded (``head``: its first bytes, for
    its id)."""
    return _error(leading_id(head), refusal(problem))


def _error(msg_id: int | str | None, error: dict[str, int | str]) -> JSONRPCError:
    return JSONRPCError(jsonrpc="2.0", id=msg_id, error=ErrorData.model_validate(error))


class BoundedLines:
    """The lines of a binary stream that may be decoded, as the SDK's transport iterates
    its ``stdin`` (``async for line in stdin``); the answer to each refused line is sent on
    :attr:`refused` instead."""

    def __init__(self, stream: BinaryIO, limit: int = MAX_MESSAGE_BYTES) -> None:
        self._stream, self._limit = stream, limit
        send, receive = anyio.create_memory_object_stream[JSONRPCError](REFUSALS_WAITING)
        self._send: MemoryObjectSendStream[JSONRPCError] = send
        self.refused: MemoryObjectReceiveStream[JSONRPCError] = receive

    def __aiter__(self) -> BoundedLines:
        return self

    async def __anext__(self) -> str:
        while True:
            line, error = await anyio.to_thread.run_sync(self._next)
            if error is not None:
                log.warning("a message was refused: %s", error.error.message)
                await self._send.send(error)
                continue
            if not line:
                self._send.close()
                raise StopAsyncIteration
            return line.decode("utf-8", "replace")

    def _next(self) -> tuple[bytes, JSONRPCError | None]:
        """On a worker thread: the next line that is not blank, or why it is refused."""
        while True:
            line, problem = read_line(self._stream, self._limit)
            if problem is not None:
                return b"", refused(problem, line[:HEAD_BYTES])
            if not line or line.strip():
                return line, None if not line else unreadable(line)


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
