"""The document a message opened or changed, read from its bytes a chunk at a time: its URI
wherever it stands, escapes split between chunks, nothing a text holds taken for it."""

from __future__ import annotations

import json
import time
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from codequorum.lsp import message_scan
from codequorum.lsp.message_scan import DocumentScan
from codequorum.lsp.transport import dropped_document

URI = "file:///work/a%20b/m\u00e9\"x\\y.py"


def scanned(data: bytes, size: int) -> DocumentScan:
    scan = DocumentScan()
    for at in range(0, len(data), size):
        scan.feed(data[at:at + size])
    return scan


def message(method: str, params: dict[str, Any], sort: bool = False) -> bytes:
    return json.dumps({"jsonrpc": "2.0", "method": method, "params": params},
                      sort_keys=sort).encode()


def opened(text: str, uri: str = URI, sort: bool = True) -> bytes:
    return message("textDocument/didOpen", {"textDocument": {
        "uri": uri, "languageId": "python", "version": 1, "text": text}}, sort)


#: A text that quotes what a URI looks like, with escapes of every kind.
TRICKY = ('x = "\\\\"\n"uri": "file:///not/this.py"\n{"params": {"textDocument": '
          '{"uri": "file:///nor/this.py"}}}\n\\"uri\\": ]]}}\n' * 200)


def test_the_uri_after_a_long_text_is_found_in_chunks_of_any_size() -> None:
    data = opened(TRICKY)  # sorted keys: the URI comes after the text
    assert data.index(b'"uri"') > len(data) - 200
    for size in (1, 2, 3, 7, 64, 1024, len(data)):
        assert scanned(data, size).document() == URI, size
    assert dropped_document(data) == URI


def test_a_change_whose_uri_stands_after_its_edits() -> None:
    data = message("textDocument/didChange", {
        "contentChanges": [{"range": {"start": {"line": 0, "character": 0},
                                      "end": {"line": 0, "character": 1}}, "text": TRICKY}] * 3,
        "textDocument": {"version": 2, "uri": URI}})
    assert scanned(data, 5).document() == URI


def test_a_key_or_a_text_that_only_looks_like_the_uri_is_not_taken() -> None:
    data = message("textDocument/didOpen", {
        "textDocument": {"x\"uri": "file:///key.py", "text": '"uri": "file:///text.py"'},
        "uri": "file:///params.py", "other": {"textDocument": {"uri": "file:///deep.py"}}})
    assert dropped_document(data) == "a document"


def test_escaped_keys_and_uris_are_read_as_json_reads_them() -> None:
    data = (b'{"jsonrpc":"2.0","m\\u0065thod":"textDocument\\/didOpen","params":'
            b'{"textDocument":{"text":"\\\\","\\u0075ri":"file:\\/\\/\\/\\u00e9.py"}}}')
    assert json.loads(data)["params"]["textDocument"]["uri"] == "file:///\u00e9.py"
    assert scanned(data, 1).document() == "file:///\u00e9.py"


def test_other_methods_name_no_document() -> None:
    hover = message("textDocument/hover", {"textDocument": {"uri": URI}})
    assert dropped_document(hover) is None
    late = message("textDocument/didSave", {"textDocument": {"uri": URI}}, sort=True)
    assert dropped_document(late) is None
    assert dropped_document(b"\x00\xff not json at all") is None


def test_a_uri_too_long_or_not_read_says_a_document() -> None:
    long = "file:///" + "a" * message_scan.MAX_URI
    assert dropped_document(opened("x", long)) == "a document"
    assert dropped_document(opened("x", URI)[:-40]) == "a document"  # cut before its URI


def test_a_deep_or_busy_message_is_given_up_on_quickly() -> None:
    deep = b'{"method":"textDocument/didOpen","params":' + b"[" * 10_000_000
    began = time.perf_counter()
    assert scanned(deep, 1 << 20).document() == "a document"
    busy = (b'{"method":"textDocument/didOpen","params":{"x":[' + b"[]," * 4_000_000
            + b'[]],"textDocument":{"uri":"file:///late.py"}}}')
    scan = scanned(busy, 1 << 20)
    assert scan.done and scan.document() == "a document"  # its structure read in bounds
    assert time.perf_counter() - began < 60  # a bound on a test's run, not a measure


keys = st.text(st.characters(codec="utf-8"), max_size=8)
values: st.SearchStrategy[Any] = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(keys, inner, max_size=4),
    max_leaves=12)


@settings(max_examples=200, deadline=None)
@given(extra=st.dictionaries(keys, values, max_size=4), inner=st.dictionaries(keys, values,
       max_size=4), uri=st.text(max_size=60), text=st.text(max_size=200),
       sort=st.booleans(), size=st.integers(1, 50))
def test_any_message_names_the_uri_json_reads_in_it(
        extra: dict[str, Any], inner: dict[str, Any], uri: str, text: str, sort: bool,
        size: int) -> None:
    document = {**inner, "uri": uri, "text": text}
    params = {**extra, "textDocument": document}
    data = message("textDocument/didChange", params, sort)
    assert scanned(data, size).document() == json.loads(data)["params"]["textDocument"]["uri"]
