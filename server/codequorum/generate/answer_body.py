"""An endpoint's HTTP answer read within bounds.

What a model's server sends is untrusted: a body of gigabytes, or one that never ends (a
stalled proxy, an event stream left open) must cost neither the memory nor the time of
the process. httpx reads a whole body and its timeouts count between two reads, so one byte
a second keeps it waiting forever; here a body is read a chunk at a time, refused past
:data:`~codequorum.core.limits.MAX_ANSWER_BODY_BYTES` (declared or arrived, after its
content encoding is undone), and the blocking client's read ends at a deadline; a body
nested past :data:`~codequorum.core.limits.MAX_JSON_DEPTH` or of more than
:data:`~codequorum.core.limits.MAX_MESSAGE_VALUES` values is not decoded.
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from typing import Any

import httpx

from codequorum.core.limits import MAX_ANSWER_BODY_BYTES, json_shape_problem, size_words

#: Headers of the answer as sent that no longer describe the body once it is read.
_SENT_FORM = frozenset({"content-encoding", "content-length", "transfer-encoding"})


class BodyTooLarge(Exception):
    """An answer past the bound; its message says so in words."""


def too_large(limit: int = MAX_ANSWER_BODY_BYTES) -> BodyTooLarge:
    """The refusal of a body past ``limit`` bytes."""
    return BodyTooLarge(f"the answer is larger than {size_words(limit)} (not read)")


def _declared_check(response: httpx.Response, limit: int) -> None:
    declared = response.headers.get("content-length", "")
    if declared.strip().isdigit() and int(declared) > limit:
        raise too_large(limit)


def _read(response: httpx.Response, chunks: Iterable[bytes]) -> httpx.Response:
    headers = [(k, v) for k, v in response.headers.items() if k.lower() not in _SENT_FORM]
    return httpx.Response(response.status_code, headers=headers, content=b"".join(chunks),
                          request=response.request)


async def read_body(response: httpx.Response,
                    limit: int = MAX_ANSWER_BODY_BYTES) -> httpx.Response:
    """``response`` (opened with ``stream``) with its body read; :class:`BodyTooLarge`
    past ``limit`` bytes. The caller's deadline (``asyncio.timeout``) bounds the time."""
    _declared_check(response, limit)
    chunks: list[bytes] = []
    size = 0
    async for chunk in response.aiter_bytes():
        size += len(chunk)
        if size > limit:
            raise too_large(limit)
        chunks.append(chunk)
    return _read(response, chunks)


def read_body_by(response: httpx.Response, deadline: float,
                 limit: int = MAX_ANSWER_BODY_BYTES) -> httpx.Response:
    """The blocking form of :func:`read_body`: also ``httpx.ReadTimeout`` once
    ``time.monotonic()`` passes ``deadline`` (checked as each chunk arrives; httpx's own
    read timeout ends a wait for the next one)."""
    _declared_check(response, limit)
    chunks: list[bytes] = []
    size = 0
    for chunk in response.iter_bytes():
        if time.monotonic() > deadline:
            raise httpx.ReadTimeout("the answer did not end in time", request=response.request)
        size += len(chunk)
        if size > limit:
            raise too_large(limit)
        chunks.append(chunk)
    return _read(response, chunks)


def answer_json(response: httpx.Response) -> Any:
    """The body read as JSON; ``ValueError`` when it is not JSON, holds more values than
    a message may or nests too deeply to decode (checked on its bytes first: decoding
    costs about 300 bytes a value, and recurses once per level)."""
    problem = json_shape_problem(response.content)
    if problem is not None:
        raise ValueError(problem)
    return response.json()
