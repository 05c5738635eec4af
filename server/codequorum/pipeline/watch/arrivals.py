"""Which functions one change wrote: the rules that tell an insertion from typing.

A function *arrives* in a change when the change inserted nearly all of its body (at least
:data:`COVERED` of the body's non-blank characters, a Python docstring left out: the header
and docstring are often the user's, the code the assistant's) across more than one line, and
the function is new: its shape (:func:`shape_key`) is not one the document had before the change
or had earlier (a cut and paste, an undo, a formatter, a file reloaded with the same code).
Typing never inserts a body at once; a snippet's body is ``pass`` (:func:`trivial_body`); a
rename or a formatter inserts little of any body. A change that writes more than
:data:`MAX_ARRIVALS` functions is a checkout or a generated file, not an assistant's answer.
"""

from __future__ import annotations

import ast
import hashlib
import io
import re
import threading
import tokenize
from collections import OrderedDict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from codequorum.core import parsing, pyast
from codequorum.pipeline.session import dedent_function, function_indent
from codequorum.pipeline.watch.edits import Edit, Region

#: Share of a body's non-blank characters the change must have inserted.
COVERED = 0.7
#: Non-blank characters an inserted text needs before the change is parsed at all.
MIN_INSERTED = 12
#: More functions than this written by one change: not an assistant's answer.
MAX_ARRIVALS = 3
#: Bodies shorter than this (non-blank, without brackets and semicolons) are trivial
#: outside Python.
MIN_BODY = 12
#: Characters of function text whose shape keys are kept (:func:`cached_shape_key`), and
#: the longest function text kept.
KEY_CACHE_CHARS = 8_000_000
KEY_CACHE_LONGEST = 200_000

_BLANKS = b" \t\r\n\f\v"


@dataclass(frozen=True)
class Arrival:
    """A function one change wrote: its names, its code at column 0, its shape key, and
    where it is in the text after the change (character offsets)."""

    qualified_name: str
    name: str
    code: str
    key: str
    start: int
    end: int

    @property
    def lines(self) -> int:
        """How many lines it has."""
        return self.code.rstrip("\n").count("\n") + 1


def worth_parsing(edits: Sequence[Edit]) -> bool:
    """True when some edit inserted text over more than one line with at least
    :data:`MIN_INSERTED` non-blank characters: only then can a function have arrived (the
    cheap test every keystroke gets)."""
    return any("\n" in e.text and _nonblank(e.text) >= MIN_INSERTED for e in edits)


def removes_lines(edit: Edit, before: str) -> bool:
    """True when ``edit`` replaces text of ``before`` (the text just before it) across a
    line end: a cut, a deleted block. The functions it meets are remembered, so pasting
    them back or undoing the deletion is no arrival."""
    return edit.end > edit.start and "\n" in before[edit.start:edit.end]


def shape_key(code: str, language: str) -> str:
    """What stays the same when a function is only reformatted: its syntax tree without
    positions for Python, else its text without blanks."""
    if language == "python":
        try:
            dumped = ast.dump(pyast.parse(code))
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            dumped = None
        if dumped is not None:
            return "ast:" + hashlib.sha256(dumped.encode()).hexdigest()[:32]
    return "text:" + hashlib.sha256("".join(code.split()).encode()).hexdigest()[:32]


class KeyCache:
    """Shape keys by function text, the least recently used dropped past ``chars``
    characters of text: a function keyed once is not keyed again while it stays the same
    (the watch keys the functions of a document on every change it reads). Thread-safe."""

    def __init__(self, chars: int = KEY_CACHE_CHARS, longest: int = KEY_CACHE_LONGEST) -> None:
        self._keys: OrderedDict[tuple[str, str], str] = OrderedDict()
        self._chars, self._limit, self._longest = 0, chars, longest
        self._lock = threading.Lock()
        self.computed = 0

    def key(self, code: str, language: str) -> str:
        """:func:`shape_key` of ``code``, from the cache when it was keyed before."""
        item = (code, language)
        with self._lock:
            found = self._keys.get(item)
            if found is not None:
                self._keys.move_to_end(item)
                return found
        key = shape_key(code, language)
        with self._lock:
            self.computed += 1
            if len(code) <= self._longest and item not in self._keys:
                self._keys[item] = key
                self._chars += len(code)
            while self._chars > self._limit and self._keys:
                (old, _), _ = self._keys.popitem(last=False)
                self._chars -= len(old)
        return key


#: The shape keys the watch has computed, shared by every document.
KEYS = KeyCache()


def function_code(data: bytes, info: parsing.FunctionInfo) -> str:
    """A function's code at column 0 with one trailing newline, as
    :func:`~codequorum.pipeline.session.current_code` gives it, read from the UTF-8 ``data``
    it was parsed from without splitting the whole text (the watch does this for every
    function it reads)."""
    line_start = data.rfind(b"\n", 0, info.start_byte) + 1
    indent = function_indent(data[line_start:info.start_byte].decode("utf-8", "replace"),
                             info.start_byte - line_start)
    return dedent_function(str(info.text), indent).strip("\n") + "\n"


def trivial_body(code: str, language: str) -> bool:
    """True for a body that says nothing to compare: ``pass``, ``...``, a docstring alone,
    ``raise NotImplementedError`` (a snippet, a stub); outside Python, a body of fewer than
    :data:`MIN_BODY` characters besides blanks, brackets and semicolons."""
    if language == "python":
        try:
            tree = pyast.parse(code)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            return False
        fn = next((n for n in tree.body if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)),
                  None)
        if fn is None:
            return False
        return all(_stub_statement(s) for s in fn.body)
    body = code.split("{", 1)[1] if "{" in code else code
    return len(re.sub(r"[\s{}();]", "", body)) < MIN_BODY


def _stub_statement(statement: ast.stmt) -> bool:
    if isinstance(statement, ast.Pass):
        return True
    if isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Constant):
        return statement.value.value is Ellipsis or isinstance(statement.value.value, str)
    if isinstance(statement, ast.Raise) and statement.exc is not None:
        exc = statement.exc.func if isinstance(statement.exc, ast.Call) else statement.exc
        return isinstance(exc, ast.Name) and exc.id == "NotImplementedError"
    return False


def _nonblank(text: str | bytes) -> int:
    data = text.encode("utf-8", "replace") if isinstance(text, str) else text
    return len(data.translate(None, _BLANKS))


def _byte_regions(text: str, regions: Sequence[Region]) -> list[Region]:
    """Character regions of ``text`` as UTF-8 byte regions."""
    if text.isascii():
        return list(regions)
    return [(len(text[:a].encode("utf-8", "replace")), len(text[:b].encode("utf-8", "replace")))
            for a, b in regions]


def _char_offset(data: bytes, byte: int) -> int:
    return len(data[:byte].decode("utf-8", "replace"))


def _covered(data: bytes, start: int, end: int, regions: Sequence[Region]) -> tuple[int, bool]:
    """Non-blank bytes of ``data[start:end]`` inside ``regions``, and whether an inserted
    line end falls inside ``[start, end)``."""
    count, newline = 0, False
    for a, b in regions:
        lo, hi = max(a, start), min(b, end)
        if lo < hi:
            piece = data[lo:hi]
            count += _nonblank(piece)
            newline = newline or b"\n" in piece
    return count, newline


def _docstring(body: bytes) -> Region | None:
    """Where the leading string literal of a Python body is (bytes of ``body``), if it has
    one: the docstring, which the coverage leaves out."""
    text = body.decode("utf-8", "replace")
    lines = text.splitlines(keepends=True)
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line.encode("utf-8", "replace")))
    try:
        for tok in tokenize.generate_tokens(io.StringIO(text).readline):
            if tok.type in (tokenize.NL, tokenize.NEWLINE, tokenize.INDENT, tokenize.COMMENT):
                continue
            if tok.type != tokenize.STRING:
                return None
            (r1, c1), (r2, c2) = tok.start, tok.end
            a = starts[r1 - 1] + len(lines[r1 - 1][:c1].encode("utf-8", "replace"))
            b = starts[r2 - 1] + len(lines[r2 - 1][:c2].encode("utf-8", "replace"))
            return a, b
    except (tokenize.TokenError, IndentationError, SyntaxError):
        return None
    return None


def body_parts(data: bytes, info: parsing.FunctionInfo, language: str) -> list[Region]:
    """The byte spans of a function's body that the coverage counts: all of it, less a
    leading Python docstring."""
    start = info.start_byte + len(info.signature.encode("utf-8", "replace"))
    end = info.end_byte
    doc = _docstring(data[start:end]) if language == "python" else None
    if doc is None:
        return [(start, end)]
    return [(start, start + doc[0]), (start + doc[1], end)]


def written(text: str, language: str, regions: Sequence[Region],
            infos: Sequence[parsing.FunctionInfo] | None = None) -> list[Arrival]:
    """The functions of ``text`` (the document after the change) whose body the inserted
    ``regions`` wrote, outermost only, with a body worth comparing; none are checked
    against what the document had (:func:`new_arrivals` does that)."""
    if not regions:
        return []
    data = text.encode("utf-8", "replace")
    spans = _byte_regions(text, regions)
    found = list(infos) if infos is not None else parsing.functions(text, language)
    out: list[Arrival] = []
    taken_end = -1
    for info in found:
        if info.start_byte < taken_end:
            continue  # inside a function already taken
        total, covered, newline = 0, 0, False
        for a, b in body_parts(data, info, language):
            total += _nonblank(data[a:b])
            inside, line_end = _covered(data, a, b, spans)
            covered, newline = covered + inside, newline or line_end
        if total == 0 or not newline or covered < COVERED * total:
            continue
        code = function_code(data, info)
        if trivial_body(code, language):
            continue
        taken_end = info.end_byte
        out.append(Arrival(info.qualified_name, info.name, code, KEYS.key(code, language),
                           _char_offset(data, info.start_byte), _char_offset(data, info.end_byte)))
    return out


def keys_of(text: str, language: str, spans: Iterable[Region] | None = None) -> set[str]:
    """The shape keys of the functions of ``text`` (only those meeting ``spans``, character
    offsets, when given)."""
    wanted = list(spans) if spans is not None else None
    byte_spans = _byte_regions(text, wanted) if wanted else []
    data = text.encode("utf-8", "replace")
    keys: set[str] = set()
    for info in parsing.functions(text, language):
        if wanted is not None and not any(
                info.start_byte < b and info.end_byte > a for a, b in byte_spans):
            continue
        keys.add(KEYS.key(function_code(data, info), language))
    return keys


def new_arrivals(before: str, after: str, language: str, regions: Sequence[Region],
                 known: set[str], infos: Sequence[parsing.FunctionInfo] | None = None,
                 ) -> list[Arrival]:
    """:func:`written`, less the functions whose shape the document had before the change
    (``before``) or had earlier (``known``); none when more than :data:`MAX_ARRIVALS`
    arrived at once."""
    found = written(after, language, regions, infos)
    if not found:
        return []
    had = keys_of(before, language) | known
    fresh = [a for a in found if a.key not in had]
    return fresh if len(fresh) <= MAX_ARRIVALS else []
