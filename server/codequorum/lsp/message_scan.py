"""Which document a JSON-RPC message opened or changed, read from its bytes a chunk at a time.

A message over the transport's bound is dropped unread, but the user is told which document
it carried. Its ``params.textDocument.uri`` may stand anywhere (after a text of 40 MB when a
client sorts its keys), so :class:`DocumentScan` follows the message's structure as chunks
arrive and keeps only ``method`` and that URI: strings are skipped by a regular expression
(C speed, an escape split between two chunks carried over), a container's path is a key per
level, and memory stays bounded (the stack's depth, a key's and the URI's length, the
structural characters read).
"""

from __future__ import annotations

import json
import re

#: The methods whose messages carry a document's text.
DOCUMENT_METHODS = frozenset({"textDocument/didOpen", "textDocument/didChange"})
#: Where the document's URI stands in their params.
URI_PATH = (b"params", b"textDocument", b"uri")
#: Bytes of a key, of ``method`` and of the URI kept (a longer one is not ours to read).
MAX_KEY = 32
MAX_METHOD = 64
MAX_URI = 4096
#: Containers open at once, and structural characters read, before the scan gives up.
MAX_DEPTH = 64
MAX_TOKENS = 200_000

_STRUCTURE = re.compile(rb'[{}\[\]:,"]')
#: The quote that ends a string, at the search's start (after pairs of backslashes) or
#: after a character that is no backslash (and pairs of them): an unescaped quote.
_END_HERE = re.compile(rb'(?:\\\\)*"')
_END_LATER = re.compile(rb'[^\\](?:\\\\)*"')


class DocumentScan:
    """Feed a message's bytes in order (:meth:`feed`); :meth:`document` names the document a
    ``didOpen`` or ``didChange`` carried."""

    def __init__(self, max_tokens: int = MAX_TOKENS) -> None:
        #: Per open container: ``{`` or ``[``, and in an object the key being read.
        self._kinds: list[int] = []
        self._keys: list[bytes | None] = []
        self._expect_key = False
        self._in_string = False
        self._escaped = False  # the next byte of the string is escaped
        self._kept: bytearray | None = None  # the string being kept, when it is one
        self._limit = 0
        self._over = False
        self._is_key = False
        self._tokens = max_tokens
        self.method: str | None = None
        self.uri: str | None = None
        self._uri_seen = False
        self.done = False

    def feed(self, chunk: bytes) -> None:
        """Read the next bytes of the message (nothing once :attr:`done`)."""
        at = 0
        while not self.done and at < len(chunk):
            at = self._in_text(chunk, at) if self._in_string else self._structure(chunk, at)

    def document(self) -> str | None:
        """The URI of the document the message opened or changed ("a document" when its URI
        was not read); None when it is no such message, as far as it was read."""
        if self.method not in DOCUMENT_METHODS:
            return None
        return self.uri if self.uri is not None else "a document"

    def _structure(self, chunk: bytes, at: int) -> int:
        found = _STRUCTURE.search(chunk, at)
        if found is None:
            return len(chunk)
        self._tokens -= 1
        if self._tokens < 0:
            self.done = True
        char = chunk[found.start()]
        if char in b"{[":
            self._open(char)
        elif char in b"}]":
            self._close()
        elif char == ord(":"):
            self._expect_key = False
        elif char == ord(","):
            self._expect_key = bool(self._kinds) and self._kinds[-1] == ord("{")
        else:
            self._start_string()
        return found.end()

    def _open(self, char: int) -> None:
        self._kinds.append(char)
        self._keys.append(None)
        self._expect_key = char == ord("{")
        if len(self._kinds) > MAX_DEPTH:
            self.done = True

    def _close(self) -> None:
        if self._kinds:
            self._kinds.pop()
            self._keys.pop()
        self._expect_key = False
        if not self._kinds:  # the message's end
            self.done = True

    def _start_string(self) -> None:
        self._in_string, self._escaped, self._over = True, False, False
        self._is_key = self._expect_key
        path = tuple(self._keys)
        if self._is_key:
            self._limit = MAX_KEY
        elif path == (b"method",):
            self._limit = MAX_METHOD
        elif path == URI_PATH:
            self._limit = MAX_URI
        else:
            self._kept = None
            return
        self._kept = bytearray()

    def _in_text(self, chunk: bytes, at: int) -> int:
        """Read a string's bytes from ``at``: to its closing quote, or to the chunk's end."""
        start = at + 1 if self._escaped else at
        self._escaped = False
        end: int | None = None
        if start < len(chunk):  # else the escaped byte was the chunk's last
            found = _END_HERE.match(chunk, start) or _END_LATER.search(chunk, start)
            end = None if found is None else found.end() - 1
        if end is None:
            self._keep(chunk[at:])
            run = len(chunk) - len(chunk.rstrip(b"\\"))
            if run < len(chunk) - start:
                self._escaped = run % 2 == 1
            else:  # backslashes all the way from ``start``
                self._escaped = (len(chunk) - start) % 2 == 1
            return len(chunk)
        self._keep(chunk[at:end])
        self._in_string = False
        self._finish()
        return end + 1

    def _keep(self, part: bytes) -> None:
        if self._kept is None or self._over:
            return
        if len(self._kept) + len(part) > self._limit:
            self._over = True
            return
        self._kept += part

    def _finish(self) -> None:
        """A string ended: a key names the value that follows; ``method`` and the URI are
        kept."""
        raw = None if self._kept is None or self._over else bytes(self._kept)
        self._kept = None
        text = _decoded(raw)
        if self._is_key:
            if self._keys:
                self._keys[-1] = None if text is None else text.encode("utf-8", "replace")
            return
        path = tuple(self._keys)
        if path == (b"method",) and self.method is None:
            self.method = text if text is not None else ""
            if self.method not in DOCUMENT_METHODS:
                self.done = True
        elif path == URI_PATH and not self._uri_seen:
            self._uri_seen = True
            self.uri = text
        if self.method is not None and self._uri_seen:
            self.done = True


def _decoded(raw: bytes | None) -> str | None:
    """A JSON string's bytes (its quotes left out) as text; None when it is not one."""
    if raw is None:
        return None
    try:
        value = json.loads(b'"' + raw + b'"')
    except ValueError:
        return None
    return value if isinstance(value, str) else None
