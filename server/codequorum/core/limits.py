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


def json_nests_deeper(data: bytes | str, limit: int = MAX_JSON_DEPTH) -> bool:
    """Whether the arrays and objects of a JSON text nest more than ``limit`` deep, told
    without decoding it (brackets inside strings do not count). Linear in the text, in
    compiled loops; a text with few brackets costs two counts."""
    raw = data.encode("utf-8", errors="replace") if isinstance(data, str) else data
    if raw.count(b"[") + raw.count(b"{") <= limit:
        return False
    outside = _JSON_STRING.sub(b"", raw)
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
