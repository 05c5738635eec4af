"""The agents' server reads a line at a bounded cost: a line over the bound is read on
and dropped (never held past it), one too deep or with too many values is refused before
it is decoded, and the next line is read as usual."""

from __future__ import annotations

import io

from codequorum.agents.stdin import DISCARD_CHUNK, HEAD_BYTES, read_line, refused, unreadable


def test_a_line_over_the_bound_is_dropped_and_the_next_one_read() -> None:
    long = b"x" * (3 * DISCARD_CHUNK + 5) + b"\n"
    stream = io.BytesIO(b'{"a": 1}\n' + long + b'{"b": 2}\n')
    assert read_line(stream, limit=DISCARD_CHUNK) == (b'{"a": 1}\n', None)
    line, problem = read_line(stream, limit=DISCARD_CHUNK)
    assert line == long[:HEAD_BYTES]  # its head alone is kept, for its id
    assert problem is not None and "(at most 1 MB are read)" in problem
    assert read_line(stream, limit=DISCARD_CHUNK) == (b'{"b": 2}\n', None)
    assert read_line(stream, limit=DISCARD_CHUNK) == (b"", None)  # the end


def test_a_last_line_over_the_bound_without_its_line_end_is_dropped() -> None:
    stream = io.BytesIO(b"y" * (2 * DISCARD_CHUNK))
    line, problem = read_line(stream, limit=DISCARD_CHUNK)
    assert len(line) == HEAD_BYTES and problem is not None and "2 MB" in problem


def test_a_line_too_deep_is_refused_undecoded() -> None:
    stream = io.BytesIO(b"[" * 500 + b"]" * 500 + b"\n[1]\n")
    _, problem = read_line(stream)
    assert problem is not None and "nested more than 100 levels deep" in problem
    assert read_line(stream) == (b"[1]\n", None)


def test_a_line_that_is_no_message_is_answered_with_its_id_when_it_has_one() -> None:
    assert unreadable(b'{"jsonrpc": "2.0", "id": 1, "method": "tools/list"}\n') is None
    not_json = unreadable(b"\xff\xfe{garbage\n")
    assert not_json is not None and (not_json.id, not_json.error.code) == (None, -32700)
    no_method = unreadable(b'{"jsonrpc": "2.0", "id": 7, "params": {}}\n')
    assert no_method is not None and (no_method.id, no_method.error.code) == (7, -32600)
    listed = unreadable(b"[1, 2, 3]\n")
    assert listed is not None and (listed.id, listed.error.code) == (None, -32600)
    flag = unreadable(b'{"jsonrpc": "1.0", "id": true, "method": "x"}\n')
    assert flag is not None and flag.id is None


def test_a_refused_line_is_answered_with_the_id_at_its_head() -> None:
    assert refused("x", b'{"jsonrpc": "2.0", "id": 12, "method": "tools/list"').id == 12
    assert refused("x", b'{"id": "a-1", "jsonrpc": "2.0"').id == "a-1"
    assert refused("x", b'{"jsonrpc": "2.0", "method": "m", "params": {"id": 3}}').id is None
    assert refused("x", b'{"jsonrpc": "2.0", "id": 99999999999999999999').id is None
