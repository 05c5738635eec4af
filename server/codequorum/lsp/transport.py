"""The language server's reader: JSON-RPC messages from the client at a bounded cost.

pygls reads a whole body of any ``Content-Length`` and decodes it before a handler sees
it, so one message could hold the server for seconds and hundreds of megabytes. Here a
body over :data:`~codequorum.core.limits.MAX_MESSAGE_BYTES` is read in chunks and
dropped, and a body with too many JSON values or nested too deeply is refused before it
is decoded. A refused message is answered with an Invalid Request error bearing the id at
the head of its bytes (where clients write it; null, JSON-RPC's answer when the id cannot be
read, otherwise) and one log line; the next message is read as usual.
"""

from __future__ import annotations

import json
import logging
import re
import threading
from typing import TYPE_CHECKING, Any

from pygls.exceptions import JsonRpcException

from codequorum.core.limits import (
    json_shape_problem,
    leading_id,
    message_size_problem,
    refusal,
)
from codequorum.core.safe_text import safe_text
from codequorum.lsp.message_scan import DocumentScan

if TYPE_CHECKING:
    from collections.abc import Callable

    from pygls.protocol import JsonRPCProtocol

log = logging.getLogger(__name__)

#: How much of an oversized body is held at once while it is dropped.
DISCARD_CHUNK = 1024 * 1024
_CONTENT_LENGTH = re.compile(rb"Content-Length: *(\d+)\r\n", re.IGNORECASE)


#: How much of an oversized message is kept for its id.
HEAD_BYTES = 64 * 1024


def dropped_document(data: bytes) -> str | None:
    """The URI of the document a message (its bytes) opened or changed, wherever it stands
    in them (None when they are no such message); the URI is a repository's or an editor's
    text, shown only through a sink."""
    scan = DocumentScan()
    scan.feed(data)
    return scan.document()


async def serve(stop: threading.Event, reader: Any, protocol: JsonRPCProtocol,
                report: Callable[[Exception, type[JsonRpcException]], Any],
                dropped: Callable[[str, int], Any] | None = None) -> None:
    """Read, check and hand on messages until the client closes the stream or ``stop``
    is set (pygls's ``run_async`` with the bounds). ``dropped(uri, size)`` hears of a
    document whose message was over the size bound (it was not analysed)."""
    length: int | None = None
    while not stop.is_set():
        header = await reader.readline()
        if not header:
            return
        match = _CONTENT_LENGTH.fullmatch(header)
        if match is not None:
            length = int(match.group(1))
            continue
        if header.strip() or length is None:
            continue
        size, length = length, None
        if not await _take_body(reader, protocol, size, report, dropped):
            return


async def _take_body(reader: Any, protocol: JsonRPCProtocol, size: int,
                     report: Callable[[Exception, type[JsonRpcException]], Any],
                     dropped: Callable[[str, int], Any] | None) -> bool:
    """Read one body of ``size`` bytes and handle or refuse it; False at the stream's end."""
    too_big = message_size_problem(size)
    if too_big is not None:
        scan = DocumentScan()
        head = await _discard(reader, size, scan)
        if head is None:
            return False
        refuse(protocol, too_big, head)
        document = scan.document()
        if document is not None and dropped is not None:
            dropped(document, size)
        return True
    body = await reader.readexactly(size)
    if len(body) < size:
        return False
    problem = json_shape_problem(body)
    if problem is not None:
        refuse(protocol, problem, body[:HEAD_BYTES])
        return True
    try:
        protocol.handle_message(json.loads(body, object_hook=protocol.structure_message))
    except Exception as exc:  # the boundary: one message is lost, the server goes on
        log.exception("a message could not be handled and was dropped")
        report(exc, JsonRpcException)
        answer_undecoded(protocol, body, exc)
    return True


#: JSON-RPC's error for a request whose parameters are not what its method takes.
INVALID_PARAMS = -32602


def answer_undecoded(protocol: JsonRPCProtocol, body: bytes, exc: Exception) -> None:
    """A request whose parameters could not be read as its method's (a hover at line -1)
    still gets its answer, Invalid Params, so the client does not wait for it forever; a
    notification or a message that is no request gets none."""
    try:
        message = json.loads(body)
    except ValueError:
        return
    if not isinstance(message, dict) or "method" not in message or message.get("id") is None:
        return
    method = safe_text(str(message.get("method")), 100)
    problem = safe_text(str(exc).split("\n", 1)[0], 300)
    protocol._send_data({  # pygls sends raw JSON-RPC only through it
        "jsonrpc": "2.0", "id": message["id"], "error": {
            "code": INVALID_PARAMS, "message": f"invalid params for {method}: {problem}"}})


async def _discard(reader: Any, size: int, scan: DocumentScan) -> bytes | None:
    """Read ``size`` bytes a chunk at a time, each read by ``scan`` (the document the message
    names), and drop them but the first :data:`HEAD_BYTES`, which come back; None if the
    stream ends."""
    head: bytes | None = None
    while size > 0:
        chunk = await reader.readexactly(min(size, DISCARD_CHUNK))
        if not chunk:
            return None
        if head is None:
            head = bytes(chunk[:HEAD_BYTES])
        scan.feed(chunk)
        size -= len(chunk)
    return head or b""


def refuse(protocol: JsonRPCProtocol, problem: str, head: bytes) -> None:
    """Answer a message that was not decoded: Invalid Request, with the id at the head of
    its bytes (``id`` null when there is none), one log line."""
    log.warning("a message was refused without being decoded: %s", problem)
    protocol._send_data({  # pygls sends raw JSON-RPC only through it
        "jsonrpc": "2.0", "id": leading_id(head), "error": refusal(problem)})
