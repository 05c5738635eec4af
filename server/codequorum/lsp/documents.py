"""Documents as the server sees them: lines, position encodings, and their functions.

``parsing`` reports tree-sitter points: 0-based row and *byte* column in UTF-8. The client
speaks in its negotiated position encoding (UTF-16 code units unless it offered another).
:class:`Snapshot` converts both ways and keeps the function index of one version of a
document, so hovers, lenses and actions never re-parse an unchanged text.
"""

from __future__ import annotations

import dataclasses
import hashlib
import textwrap
import threading
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any, Literal

from lsprotocol import types

from codequorum.core import parsing
from codequorum.core.limits import MAX_DOCUMENT_BYTES, InputLimitError, size_words
from codequorum.lsp.lines import LineIndex
from codequorum.pipeline.session import dedent_function, function_indent
from codequorum.pipeline.watch.index import MAX_WINDOW, Work, window

Encoding = Literal["utf-8", "utf-16", "utf-32"]
#: Documents longer than this (characters) answer "the function at a position" from the
#: lines around it until something indexes every function.
LOCAL_FROM = 100_000



def normalize_encoding(kind: Any) -> Encoding:
    """``PositionEncodingKind`` (or its string) as one of our three names; UTF-16 otherwise."""
    value = getattr(kind, "value", kind)
    if value == "utf-8":
        return "utf-8"
    if value == "utf-32":
        return "utf-32"
    return "utf-16"


def _utf8(text: str) -> bytes:
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:
        return text.encode("utf-8", errors="replace")


def units(text: str, encoding: Encoding) -> int:
    """Length of ``text`` in the encoding's code units."""
    if encoding == "utf-32":
        return len(text)
    if encoding == "utf-8":
        return len(_utf8(text))
    # UTF-16: one unit per code point, two for those beyond the BMP
    if text.isascii():
        return len(text)
    return len(text) + sum(1 for ch in text if ord(ch) > 0xFFFF)


def byte_col_to_units(line: str, byte_col: int, encoding: Encoding) -> int:
    """A UTF-8 byte column on ``line`` as a column in ``encoding`` units."""
    if encoding == "utf-8" or line.isascii():
        return byte_col
    prefix = _utf8(line)[:byte_col].decode("utf-8", errors="ignore")
    return units(prefix, encoding)


def units_to_byte_col(line: str, col: int, encoding: Encoding) -> int:
    """A column in ``encoding`` units on ``line`` as a UTF-8 byte column (clamped)."""
    if col <= 0:
        return 0
    if encoding == "utf-8":
        return min(col, len(_utf8(line)))
    if line.isascii():
        return min(col, len(line))
    seen = 0
    for i, ch in enumerate(line):
        step = 2 if (encoding == "utf-16" and ord(ch) > 0xFFFF) else 1
        if seen + step > col:
            return len(_utf8(line[:i]))
        seen += step
    return len(_utf8(line))


@dataclass(frozen=True)
class FunctionEntry:
    """One function of a document, with its ranges already in client units."""

    info: Any  # parsing.FunctionInfo
    qualified_name: str
    name: str
    range: types.Range
    name_range: types.Range
    indent: str

    @property
    def text(self) -> str:
        """The function's source as it stands in the document."""
        return str(self.info.text)

    def dedented(self) -> str:
        """The function's source with its indentation removed (how versions are stored)."""
        return dedent_function(self.text, self.indent)


def reindent(code: str, indent: str) -> str:
    """``code`` (at column 0) laid out to replace a function that starts after ``indent``.

    The first line gets no indentation (the range starts at the function's own column);
    the other non-blank lines get ``indent`` in front.
    """
    code = textwrap.dedent(code).strip("\n")
    lines = code.split("\n")
    out = [lines[0]]
    for line in lines[1:]:
        out.append(indent + line if line.strip() else "")
    return "\n".join(out)


@dataclass
class Snapshot:
    """One version of one document: text, lines, language and (lazily) its functions."""

    uri: str
    text: str
    language: str | None
    encoding: Encoding
    version: int | None = None
    _lines: list[str] | None = None
    _functions: list[FunctionEntry] | None = None
    _hash: str | None = None
    _lock: threading.Lock = field(default_factory=threading.Lock)
    skipped_reason: str | None = None
    #: The text's lines by their offsets, when the server keeps them (a long document's
    #: position is then found without splitting it).
    line_index: LineIndex | None = None

    @property
    def lines(self) -> list[str]:
        """Lines split on ``\\n`` only, as tree-sitter counts rows."""
        if self._lines is None:
            self._lines = self.text.split("\n")
        return self._lines

    @property
    def content_hash(self) -> str:
        """SHA-256 of the text (cache keys, pull-diagnostic result ids)."""
        if self._hash is None:
            self._hash = hashlib.sha256(_utf8(self.text)).hexdigest()
        return self._hash

    def line(self, row: int) -> str:
        """Line ``row`` ("" past the end)."""
        if self.line_index is not None and self._lines is None:
            return self.line_index.row(row)
        lines = self.lines
        return lines[row] if 0 <= row < len(lines) else ""

    def position(self, point: tuple[int, int]) -> types.Position:
        """A tree-sitter point as an LSP position in the client's encoding."""
        row, byte_col = int(point[0]), int(point[1])
        return types.Position(
            line=row, character=byte_col_to_units(self.line(row), byte_col, self.encoding)
        )

    def point(self, position: types.Position) -> tuple[int, int]:
        """An LSP position as a tree-sitter point (row, byte column)."""
        row = max(0, position.line)
        return row, units_to_byte_col(self.line(row), position.character, self.encoding)

    def range(self, start: tuple[int, int], end: tuple[int, int]) -> types.Range:
        """Two tree-sitter points as an LSP range."""
        return types.Range(start=self.position(start), end=self.position(end))

    def functions(self) -> list[FunctionEntry]:
        """The document's functions (parsed once per snapshot; [] for unknown languages)."""
        with self._lock:
            if self._functions is None:
                self._functions = self._index()
            return self._functions

    def size_refusal(self) -> str | None:
        """Why the document is too large to index (None when it is not): said as it opens,
        without indexing it."""
        if len(self.text) > MAX_DOCUMENT_BYTES or len(_utf8(self.text)) > MAX_DOCUMENT_BYTES:
            return (f"{self.uri} is larger than {size_words(MAX_DOCUMENT_BYTES)}; "
                    "codequorum does not index it")
        return None

    def _index(self) -> list[FunctionEntry]:
        if self.language is None:
            return []
        too_large = self.size_refusal()
        if too_large is not None:
            self.skipped_reason = too_large
            return []
        try:
            infos = parsing.functions(self.text, self.language)
        except InputLimitError as exc:
            self.skipped_reason = f"{self.uri}: {exc}; codequorum does not index it"
            return []
        return [self._entry(fi) for fi in infos]

    def _entry(self, fi: parsing.FunctionInfo) -> FunctionEntry:
        row = int(fi.start_point[0])
        return FunctionEntry(
            info=fi,
            qualified_name=str(fi.qualified_name),
            name=str(fi.name),
            range=self.range(fi.start_point, fi.end_point),
            name_range=self.range(fi.name_start_point, fi.name_end_point),
            indent=function_indent(self.line(row), int(fi.start_point[1])),
        )

    def function_at(self, position: types.Position) -> FunctionEntry | None:
        """The innermost function whose range holds ``position``. A long document not
        indexed yet is read only around the position (a hover after each change of a large
        file costs what the lines around it cost)."""
        best: FunctionEntry | None = None
        indexed = self._functions is not None  # read without the lock: never wait for an index
        entries = self.functions() if indexed or not self._local() else self._around(position)
        for entry in entries:
            if _contains(entry.range, position) and (
                best is None or _contains(best.range, entry.range.start)
            ):
                best = entry
        return best

    def _local(self) -> bool:
        """Whether :meth:`function_at` reads only the lines around a position."""
        return (self.language is not None and LOCAL_FROM < len(self.text) <= MAX_DOCUMENT_BYTES
                and len(_utf8(self.text)) <= MAX_DOCUMENT_BYTES)

    def _around(self, position: types.Position) -> list[FunctionEntry]:
        """The functions of whole lines around ``position``, parsed alone (the watch's
        window), placed in the document."""
        assert self.language is not None
        index = self.line_index
        count = index.rows if index is not None else len(self.lines)
        row = min(max(0, position.line), count - 1)
        line = self.line(row)
        if len(line) > MAX_WINDOW:  # a line longer than any window (minified code):
            return self.functions()  # index this version once, not per call
        at = (index.offset(row) if index is not None
              else sum(map(len, self.lines[:row])) + row)  # each line and its line end
        try:
            piece = window(self.text, (at, at + len(line)), self.language, Work())
        except InputLimitError:
            return []
        rows = (index.row_at(piece.start) if index is not None
                else self.text.count("\n", 0, piece.start))
        shift = len(_utf8(self.text[:piece.start]))
        return [self._entry(_placed(info, rows, shift)) for info in piece.infos]

    def function_named(self, qualified_name: str) -> FunctionEntry | None:
        """The function with this qualified name (the first, if it is defined twice)."""
        for entry in self.functions():
            if entry.qualified_name == qualified_name:
                return entry
        return None


def _placed(info: parsing.FunctionInfo, rows: int, shift: int) -> parsing.FunctionInfo:
    """A function parsed in lines that start ``rows`` rows and ``shift`` bytes into a
    document, placed in the document (the lines start at column 0: columns stay)."""

    def moved(point: parsing.Point) -> parsing.Point:
        return (point[0] + rows, point[1])

    return dataclasses.replace(
        info, start_byte=info.start_byte + shift, end_byte=info.end_byte + shift,
        start_point=moved(info.start_point), end_point=moved(info.end_point),
        name_start_point=moved(info.name_start_point), name_end_point=moved(info.name_end_point),
        body_start_point=moved(info.body_start_point))


def _contains(rng: types.Range, pos: types.Position) -> bool:
    start, end = rng.start, rng.end
    after_start = (pos.line, pos.character) >= (start.line, start.character)
    before_end = (pos.line, pos.character) <= (end.line, end.character)
    return after_start and before_end


def language_of(uri: str, language_id: str | None) -> str | None:
    """The codequorum language of a document, from its languageId or its path; None if
    codequorum does not know it."""
    from codequorum.core.errors import UnknownLanguageError

    if language_id:
        try:
            return parsing.normalize_language(language_id)
        except UnknownLanguageError:
            pass
    try:
        return parsing.language_from_path(uri.split("?", 1)[0])
    except UnknownLanguageError:
        return None


class SnapshotCache:
    """The latest snapshot of each open document, rebuilt when the text changes."""

    def __init__(self, limit: int = 64) -> None:
        self._items: OrderedDict[str, Snapshot] = OrderedDict()
        self._limit = limit
        self._lock = threading.Lock()

    def get(
        self,
        uri: str,
        text: str,
        language_id: str | None,
        encoding: Encoding,
        version: int | None = None,
        lines: LineIndex | None = None,
    ) -> Snapshot:
        """The snapshot for this exact text (made if the text changed); ``lines``: the
        text's lines by their offsets, when they are kept."""
        if lines is not None and lines.text is not text:
            lines = None
        with self._lock:
            snap = self._items.get(uri)
            if (
                snap is not None
                and snap.encoding == encoding
                and (snap.text is text or snap.text == text)
            ):
                if snap.version != version:  # same text, newer version (e.g. undo, save)
                    snap.version = version
                if snap.line_index is None and lines is not None and snap.text is text:
                    snap.line_index = lines
                self._items.move_to_end(uri)
                return snap
            snap = Snapshot(
                uri=uri,
                text=text,
                language=language_of(uri, language_id),
                encoding=encoding,
                version=version,
                line_index=lines,
            )
            self._items[uri] = snap
            self._items.move_to_end(uri)
            while len(self._items) > self._limit:
                self._items.popitem(last=False)
            return snap

    def drop(self, uri: str) -> None:
        """Forget a closed document."""
        with self._lock:
            self._items.pop(uri, None)
