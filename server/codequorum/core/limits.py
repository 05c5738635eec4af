"""How much untrusted text codequorum reads, and how deep: the bounds checked before any
parse, so that no input can crash the process or exhaust its memory.

Versions, prompts, input files, stored versions, editor documents and model answers come
from places nobody reviewed. Every reader checks them against the bounds here *before* the
costly or recursive step (decoding JSON, parsing with tree-sitter or ``ast``, compiling,
building trees), and anything over a bound becomes one clear :class:`InputLimitError`
naming the bound: a set, a function or a command fails, never the process. The figures are
generous for real code (the deepest of 16,400 HumanEval versions nests 54 levels, the
longest is 4 KB) and small enough that one set scores in well under 1 GiB
(``bench/bench_hostile_inputs.py`` measures it).
"""

from __future__ import annotations

import json
import re

import numpy as np

from codequorum.core.errors import UserError

#: One version (a generated function, a stored version, the function in the editor), in
#: UTF-8 bytes. Parsing takes about 100 bytes of memory per byte of code.
MAX_VERSION_BYTES = 1024 * 1024
#: The distinct versions of one set together, in UTF-8 bytes.
MAX_SET_BYTES = 4 * 1024 * 1024
#: How deep a version's syntax tree may nest (named and anonymous tree-sitter nodes, the
#: root at depth 1). Every recursive step after the parse (CPython's compiler, ``ast``
#: walkers, tree-sitter's S-expressions) stays far from its stack's end below this.
MAX_NESTING = 500
#: Wall-clock budget of one tree-sitter parse: error recovery on binary junk can take
#: minutes on a few hundred kilobytes; a parse cut short refuses the text.
PARSE_SECONDS = 10.0
#: One line of a JSON Lines input (a whole sample set), or one entry of a bigcode
#: generations list, in bytes; a longer line is skipped without being held in memory.
MAX_LINE_BYTES = 32 * 1024 * 1024
#: The text of the sets ``score`` holds at once (it reads every set before scoring them),
#: in characters: 33 times the 164 x 100 HumanEval file. Past it the rest of the input is
#: not read (``--scheduler local:N`` streams inputs of any size).
MAX_HELD_CHARS = 256 * 1024 * 1024
#: How deep JSON read from an input may nest (arrays and objects); deeper JSON is refused
#: before it is decoded.
MAX_JSON_DEPTH = 100
#: A document opened in the editor or a file read by ``check``, in UTF-8 bytes: larger
#: ones are not parsed (their functions are not indexed).
MAX_DOCUMENT_BYTES = 2 * 1024 * 1024
#: The versions one editor command (``addSamples``, ``importSamples``) stores at once,
#: together, in UTF-8 bytes.
MAX_CALL_BYTES = 16 * 1024 * 1024
#: The versions of one function read from a version store (copies counted): more than
#: an analysis compares (2,000), so a store over it is refused by the analysis, with the
#: reason, but a store that says a row has a billion copies is not read as that many.
MAX_STORED_VERSIONS = 2_001
#: A docstring line longer than this is not read for examples (the longest in HumanEval's
#: prompts has 259 characters); the readers' regular expressions are quadratic on some
#: long lines.
MAX_EXAMPLE_LINE_CHARS = 2000
#: Versions longer than this (in lines) are not diffed for a hover or ``compare``: difflib
#: takes 0.03 s on two 1,000-line versions and minutes on two of 60,000.
MAX_DIFF_LINES = 1000
#: A model's answer, in characters, before a function is taken out of it.
MAX_ANSWER_CHARS = 2 * 1024 * 1024
#: An endpoint's whole HTTP body, in bytes: room for several answers of
#: :data:`MAX_ANSWER_CHARS` written with JSON's escapes. A longer body is refused as it
#: arrives, never held whole.
MAX_ANSWER_BODY_BYTES = 32 * 1024 * 1024


class InputLimitError(UserError):
    """Text over one of the bounds above; the message names the text and the bound."""


def size_words(n: int) -> str:
    """``612 KB``, ``3.4 MB``, ``120 bytes``: a size as people read it (1 KB = 1024 bytes)."""
    if n < 1024:
        return f"{n:,} bytes"
    if n < 1024 * 1024:
        return f"{n / 1024:,.0f} KB"
    return f"{n / (1024 * 1024):,.1f}".removesuffix(".0") + " MB"


def utf8_size(text: str) -> int:
    """The UTF-8 size of ``text`` in bytes, without encoding it when it is ASCII."""
    if text.isascii():
        return len(text)
    return len(text.encode("utf-8", errors="replace"))


def version_size_problem(code: str) -> str | None:
    """Why one version is too large to read (None when it is not)."""
    size = utf8_size(code)
    if size > MAX_VERSION_BYTES:
        return f"{size_words(size)} of code (at most {size_words(MAX_VERSION_BYTES)})"
    return None


def nesting_problem() -> str:
    """The words for a text nested past :data:`MAX_NESTING`."""
    return f"nested more than {MAX_NESTING:,} levels deep (the limit)"


def check_total(sizes: list[int], what: str = "the versions") -> None:
    """Refuse a set (or a call) whose distinct texts together pass :data:`MAX_SET_BYTES`."""
    total = sum(sizes)
    if total > MAX_SET_BYTES:
        raise InputLimitError(f"{what} hold {size_words(total)} of code together (at most "
                              f"{size_words(MAX_SET_BYTES)} are scored at once)")


def check_call_sizes(codes: list[str]) -> None:
    """Refuse versions handed in at once (an editor command, a store import) when one is
    over :data:`MAX_VERSION_BYTES` or all together pass :data:`MAX_CALL_BYTES`."""
    total = 0
    for k, code in enumerate(codes):
        too_big = version_size_problem(code)
        if too_big is not None:
            raise InputLimitError(f"version {k + 1} is {too_big}")
        total += utf8_size(code)
    if total > MAX_CALL_BYTES:
        raise InputLimitError(f"the versions hold {size_words(total)} of code together (at "
                              f"most {size_words(MAX_CALL_BYTES)} at once)")


# JSON strings (escapes included) are skipped when nesting is measured.
_JSON_STRING = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"', re.DOTALL)
_OPEN = np.frombuffer(b"[{", dtype=np.uint8)
_CLOSE = np.frombuffer(b"]}", dtype=np.uint8)
_BRACKETS = np.frombuffer(b"[]{}", dtype=np.uint8)


def json_nests_deeper(data: bytes | str, limit: int = MAX_JSON_DEPTH) -> bool:
    """Whether the arrays and objects of a JSON text nest more than ``limit`` deep, told
    without decoding it (brackets inside strings do not count). Linear in the text, in
    compiled loops; a text with few brackets costs two counts."""
    raw = data.encode("utf-8", errors="replace") if isinstance(data, str) else data
    if raw.count(b"[") + raw.count(b"{") <= limit:
        return False
    return _nests_deeper(_JSON_STRING.sub(b"", raw), limit)


def _nests_deeper(outside: bytes, limit: int) -> bool:
    """Whether JSON with its strings taken out nests more than ``limit`` deep."""
    if outside.count(b"[") + outside.count(b"{") <= limit:
        return False
    codes = np.frombuffer(outside, dtype=np.uint8)
    step = np.isin(codes, _OPEN).astype(np.int32) - np.isin(codes, _CLOSE).astype(np.int32)
    return int(np.cumsum(step, dtype=np.int64).max(initial=0)) > limit


def json_depth_problem(data: bytes | str) -> str | None:
    """Why a JSON text is nested too deeply to decode (None when it is not)."""
    if json_nests_deeper(data):
        return f"JSON nested more than {MAX_JSON_DEPTH} levels deep"
    return None


#: One string argument of an editor command (a URI, a name, a path), in characters; a
#: field that holds code or a file's text declares its own bound.
MAX_ARGUMENT_CHARS = 64 * 1024
#: The items of one list argument of an editor command (the versions of ``addVersions``):
#: as many as a store keeps of one function.
MAX_ARGUMENT_ITEMS = MAX_STORED_VERSIONS
#: The keys of one object argument of an editor command.
MAX_ARGUMENT_KEYS = 64


#: One JSON-RPC message from the editor or an agent's client, in bytes (its
#: ``Content-Length``). The largest a client sends legitimately is an import of sample
#: files (``importSamples``: at most :data:`MAX_CALL_BYTES` of text) or a document's text
#: (``didOpen``; indexed up to :data:`MAX_DOCUMENT_BYTES`); JSON escapes (a newline, a
#: quote) at most double code's size, so twice the larger bound. A longer message is read
#: and dropped in chunks, never held whole.
MAX_MESSAGE_BYTES = 2 * MAX_CALL_BYTES
#: The values one JSON-RPC message may hold (counted by the commas outside its strings):
#: decoding costs about 300 bytes of memory per value. A command's arguments hold a few
#: thousand (:data:`MAX_ARGUMENT_ITEMS` versions), a ``didChange`` of 30,000 ranged edits
#: about 250,000.
MAX_MESSAGE_VALUES = 250_000


def message_size_problem(size: int, limit: int = MAX_MESSAGE_BYTES) -> str | None:
    """Why a message of ``size`` bytes is not read (None when it may be)."""
    if size > limit:
        return f"a message of {size_words(size)} (at most {size_words(limit)} are read)"
    return None


#: JSON-RPC's code for a message that is not a valid request.
INVALID_REQUEST = -32600
#: JSON-RPC's code for a message that is not JSON.
PARSE_ERROR = -32700


#: A JSON-RPC id at the head of a message: the first key, or the one after ``"jsonrpc"``
#: (where clients write it), a number or a short string.
_LEADING_ID = re.compile(
    rb'\s*\{\s*(?:"jsonrpc"\s*:\s*"2\.0"\s*,\s*)?"id"\s*:\s*'
    rb'(-?\d{1,15}(?=\s*[,}])|"(?:[^"\\]|\\.){0,256}")')


def leading_id(head: bytes) -> int | str | None:
    """The id of a message refused before it was decoded, read from its first bytes when it
    stands at their head (so the client's request is answered, not left waiting); None
    when it does not."""
    found = _LEADING_ID.match(head)
    if found is None:
        return None
    try:
        value = json.loads(found.group(1))
    except ValueError:
        return None
    return value if isinstance(value, int | str) else None


def refusal(problem: str, code: int = INVALID_REQUEST) -> dict[str, int | str]:
    """The JSON-RPC error both servers answer a message refused before it was decoded
    (sent with the id :func:`leading_id` reads, else null)."""
    return {"code": code, "message": f"codequorum refused {problem}"}


def json_shape_problem(raw: bytes) -> str | None:
    """Why a JSON message holds too many values or nests too deeply to decode (None when
    it does not), told from its bytes in compiled loops, a megabyte at a time; text with
    few commas and brackets costs three counts."""
    commas, opens = raw.count(b","), raw.count(b"[") + raw.count(b"{")
    if commas < MAX_MESSAGE_VALUES and opens <= MAX_JSON_DEPTH:
        return None
    # With escaped backslashes and quotes dropped, every quote opens or closes a string.
    text = memoryview(raw.replace(b"\\\\", b"").replace(b'\\"', b""))
    shape = _Shape()
    for start in range(0, len(text), _SCAN_CHUNK):
        shape.scan(np.frombuffer(text[start:start + _SCAN_CHUNK], dtype=np.uint8))
        if shape.values > MAX_MESSAGE_VALUES:
            return (f"a message of more than {MAX_MESSAGE_VALUES:,} JSON values (the "
                    "limit)")
        if shape.deepest > MAX_JSON_DEPTH:
            return f"a message of JSON nested more than {MAX_JSON_DEPTH} levels deep"
    return None


#: How many bytes of a message :func:`json_shape_problem` looks at at once.
_SCAN_CHUNK = 1024 * 1024


class _Shape:
    """The values and depth of a JSON text read so far, and whether it ends in a string."""

    def __init__(self) -> None:
        self.values, self.depth, self.deepest, self.in_string = 1, 0, 0, False

    def scan(self, codes: np.ndarray) -> None:
        """Go on with the next bytes (escaped quotes and backslashes taken out)."""
        in_string = np.bitwise_xor.accumulate(codes == ord('"'))
        if self.in_string:
            in_string = ~in_string
        if len(codes):
            self.in_string = bool(in_string[-1])
        outside = codes[~in_string]
        self.values += int(np.count_nonzero(outside == ord(",")))
        brackets = outside[np.isin(outside, _BRACKETS)]
        steps = np.where(np.isin(brackets, _OPEN), 1, -1)
        run = np.cumsum(steps) + self.depth
        if len(run):
            self.deepest = max(self.deepest, int(run.max()))
            self.depth = int(run[-1])
