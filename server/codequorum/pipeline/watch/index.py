"""One document's functions as the watch keeps them between changes: the shape keys of all
its functions (a multiset), brought up to date by parsing only around what changed.

A change is read in a *window*: whole lines around the span it changed, from the second line
before it that may start a top-level statement (it starts at column 0 with neither a blank
nor a closing bracket) to the second such line after the span. The window is parsed alone,
before and after the change; the keys of the functions it held leave the multiset, those it
holds now enter. A window that does not parse cleanly on either side (a string or a bracket
left open, a boundary that was inside a string) is widened, twice as many such lines each
time, until it parses cleanly or holds :data:`MAX_WINDOW` characters; then it is read as it
parses. The language server reads the function at a position of a long document the same way
(:func:`window`).

The first change worth reading parses the whole document once (a *full build*, in pieces of
whole lines parsed alone, the interpreter left to other threads between pieces); a text that
is not the one the index describes plus the changes noted since is built again.

The index keeps each function's text under a cheap *bucket* that functions of one shape
always share (:func:`bucket`: a Python function's name, which its syntax tree holds; the
text key itself elsewhere, which costs a hash), and keys a Python function (a parse of its
own) only when something asks whether the document has a shape of its name: opening a
document of thousands of functions costs their parse, not thousands of keys. Shape keys are
cached per function text (:data:`~codequorum.pipeline.watch.arrivals.KEYS`), so a function
keyed once is not keyed again. :class:`Work` counts what was done, so the server can say it
(a log line) and a test can hold it.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field

from codequorum.core import parsing
from codequorum.pipeline.watch.arrivals import KEYS, Arrival, function_code, written
from codequorum.pipeline.watch.edits import Edit, Region, Span

#: Characters a window widens to at most while it does not parse cleanly.
MAX_WINDOW = 64_000
#: Characters of each piece a whole document is read in.
BUILD_PIECE = 2_000
#: Lines that may start a statement a window first reaches on each side: two, so that one
#: such line inside a string (a function quoted at column 0) does not start a window.
FIRST_REACH = 2
#: Characters never starting a line that starts a top-level statement.
_NOT_STATEMENT = " \t\r\n\f\v)]}"
#: Seconds a whole read leaves the interpreter to other threads after each piece: a parse
#: holds it throughout, and a thread that answers requests waits for it.
PIECE_PAUSE = 0.002


def pause() -> None:
    """What a whole read does between pieces by default: :data:`PIECE_PAUSE` seconds."""
    time.sleep(PIECE_PAUSE)


def bucket(name: str, code: str, language: str) -> str:
    """What every function of one shape key shares, cheaply: a Python function's name (its
    syntax tree, hence its key, holds it; a text that does not parse is keyed by its text,
    which holds it too), elsewhere the text key itself (a hash of the text)."""
    return f"name:{name}" if language == "python" else KEYS.key(code, language)


@dataclass
class Work:
    """What the index parsed and keyed: whole documents, windows, their characters, and
    shape keys computed (not found in the cache)."""

    full_builds: int = 0
    windows: int = 0
    chars: int = 0
    keyed: int = 0

    def add(self, other: Work) -> None:
        """Count ``other`` in too."""
        self.full_builds += other.full_builds
        self.windows += other.windows
        self.chars += other.chars
        self.keyed += other.keyed


@dataclass
class Piece:
    """Whole lines ``[start, end)`` of a text (characters), parsed alone."""

    start: int
    text: str
    language: str
    infos: list[parsing.FunctionInfo]
    clean: bool
    _data: bytes | None = field(default=None, repr=False)

    @property
    def data(self) -> bytes:
        """The piece in UTF-8."""
        if self._data is None:
            self._data = self.text.encode("utf-8", "replace")
        return self._data

    def keys(self, work: Work, spans: Sequence[Region] | None = None) -> list[str]:
        """The shape keys of its functions (those meeting ``spans``, characters of the
        whole text, when given)."""
        data = self.data
        wanted = [self._bytes(span) for span in spans] if spans is not None else None
        out: list[str] = []
        for info in self.infos:
            if wanted is not None and not any(
                    info.start_byte < b and info.end_byte > a for a, b in wanted):
                continue
            before = KEYS.computed
            out.append(KEYS.key(function_code(data, info), self.language))
            work.keyed += KEYS.computed - before
        return out

    def functions(self) -> list[tuple[str, str]]:
        """(bucket, code) of each of its functions, none keyed."""
        data = self.data
        out: list[tuple[str, str]] = []
        for info in self.infos:
            code = function_code(data, info)
            out.append((bucket(info.name, code, self.language), code))
        return out

    def written(self, regions: Sequence[Region]) -> list[Arrival]:
        """The functions of the piece that ``regions`` (characters of the whole text)
        wrote, placed in the whole text."""
        end = self.start + len(self.text)
        inside = [(max(a, self.start) - self.start, min(b, end) - self.start)
                  for a, b in regions if a < end and b > self.start]
        found = written(self.text, self.language, inside, self.infos)
        return [Arrival(a.qualified_name, a.name, a.code, a.key, a.start + self.start,
                        a.end + self.start) for a in found]

    def _bytes(self, span: Region) -> Region:
        a, b = (min(max(x - self.start, 0), len(self.text)) for x in span)
        if self.text.isascii():
            return a, b
        return (len(self.text[:a].encode("utf-8", "replace")),
                len(self.text[:b].encode("utf-8", "replace")))


def _statement_start(text: str, at: int) -> bool:
    return at == 0 or at >= len(text) or text[at] not in _NOT_STATEMENT


def _back(text: str, at: int, count: int) -> int:
    """The ``count``-th line start before ``at`` that may start a statement (0 when there
    are fewer; the line of ``at`` if none within :data:`MAX_WINDOW`). A line that starts at
    ``at`` does not count: what starts it may be what changed."""
    line = text.rfind("\n", 0, max(at - 1, 0)) + 1
    best, found = line, 0
    while True:
        if _statement_start(text, line):
            best, found = line, found + 1
            if found >= count or line == 0:
                return line
        if at - line > MAX_WINDOW:
            return best
        line = text.rfind("\n", 0, line - 1) + 1


def _forward(text: str, at: int, count: int) -> int:
    """The ``count``-th line start after ``at`` that may start a statement (the end of
    the text when there are fewer; the first line after ``at`` if none within
    :data:`MAX_WINDOW`)."""
    best, found = -1, 0
    newline = text.find("\n", at)
    while newline >= 0:
        line = newline + 1
        best = line if best < 0 else best
        if _statement_start(text, line):
            best, found = line, found + 1
            if found >= count:
                return line
        if line - at > MAX_WINDOW:
            return best
        newline = text.find("\n", line)
    return len(text)


def _parse(text: str, start: int, end: int, language: str, work: Work) -> Piece:
    piece = text[start:end]
    infos, errors = parsing.functions_and_errors(piece, language)
    work.windows += 1
    work.chars += len(piece)
    return Piece(start, piece, language, infos, not errors)


def window(text: str, span: Region, language: str, work: Work) -> Piece:
    """The functions of whole lines of ``text`` around ``span``, widened while they do
    not parse cleanly."""
    reach = FIRST_REACH
    while True:
        start, end = _back(text, span[0], reach), _forward(text, span[1], reach)
        piece = _parse(text, start, end, language, work)
        if piece.clean or end - start >= MAX_WINDOW or (start == 0 and end == len(text)):
            return piece
        reach *= 2


def windows(old: str, new: str, span: Span, language: str, work: Work) -> tuple[Piece, Piece]:
    """The same lines around a change, in the text before it and after it (``span``: what
    it changed), widened while either does not parse cleanly."""
    start, old_end, new_end = span
    reach = FIRST_REACH
    while True:
        a, b = _back(old, start, reach), _forward(old, old_end, reach)
        before = _parse(old, a, b, language, work)
        after = _parse(new, a, b + new_end - old_end, language, work)
        whole = a == 0 and b == len(old)
        if (before.clean and after.clean) or b - a >= MAX_WINDOW or whole:
            return before, after
        reach *= 2


#: Separate places changed since the index last read its text that it keeps apart; past
#: that they are read as one span.
MAX_PENDING = 32


class Pending:
    """Where a text changed since the index last read it: disjoint spans
    ``[start, new_length, old_length]`` of the current text, in order (``start`` in the
    current text, ``old_length`` what the span had before)."""

    def __init__(self) -> None:
        self.spans: list[tuple[int, int, int]] = []

    def add(self, edit: Edit) -> None:
        """One more edit of the current text."""
        if edit.start == edit.end and not edit.text:
            return
        low, high, drift = edit.start, edit.end, 0
        kept: list[tuple[int, int, int]] = []
        for start, new, old in self.spans:
            if start + new < edit.start or start > edit.end:
                kept.append((start + edit.delta, new, old) if start > edit.end
                            else (start, new, old))
            else:  # it meets the edit: one span with it
                low, high, drift = min(low, start), max(high, start + new), drift + new - old
        kept.append((low, high - low + edit.delta, high - low - drift))
        kept.sort()
        if len(kept) > MAX_PENDING:
            first, last = kept[0][0], kept[-1][0] + kept[-1][1]
            moved = sum(new - old for _, new, old in kept)
            kept = [(first, last - first, last - first - moved)]
        self.spans = kept

    def chars(self) -> int:
        """Characters the spans cover, before or after (the larger)."""
        return sum(max(new, old) for _, new, old in self.spans)

    def delta(self) -> int:
        """How much longer the current text is."""
        return sum(new - old for _, new, old in self.spans)


class DocumentIndex:
    """The shape keys of one document's functions, and where it changed since they were
    last brought up to date."""

    def __init__(self, language: str, between: Callable[[], None] = pause) -> None:
        self.language = language
        self._between = between  # between the pieces of a whole read
        #: The text of each function, under its bucket (a multiset: a text may be there twice).
        self._functions: dict[str, Counter[str]] = {}
        self._text: str | None = None
        self._pending = Pending()
        self.work = Work()

    @property
    def keys(self) -> Counter[str]:
        """The shape keys of all its functions (each keyed now if it was not before; what
        the rule reads is :meth:`has`, which keys only a bucket)."""
        out: Counter[str] = Counter()
        for codes in self._functions.values():
            for code, count in codes.items():
                out[KEYS.key(code, self.language)] += count
        return out

    def has(self, arrival: Arrival) -> bool:
        """Whether a function of the document has ``arrival``'s shape (only the functions
        of its bucket are keyed)."""
        codes = self._functions.get(bucket(arrival.name, arrival.code, self.language))
        return codes is not None and any(self._key(code) == arrival.key for code in codes)

    def _key(self, code: str) -> str:
        before = KEYS.computed
        key = KEYS.key(code, self.language)
        self.work.keyed += KEYS.computed - before
        return key

    @property
    def built(self) -> bool:
        """Whether the index has read a text of the document."""
        return self._text is not None

    def note(self, edits: Sequence[Edit]) -> None:
        """Changes not read now: what they changed is read with the next one that is."""
        if self._text is not None:
            for edit in edits:
                self._pending.add(edit)

    def cost(self, text: str) -> int:
        """Characters :meth:`bring_to` would read, about (twice the windows are a guess)."""
        return len(text) if self._text is None else 2 * self._pending.chars()

    def bring_to(self, text: str) -> None:
        """Make the multiset describe ``text``: windows around the places that changed
        since, or the whole text when the index has none or ``text`` is not what the
        changes noted since make of the text it read."""
        old = self._text
        if old is None or len(old) + self._pending.delta() != len(text):
            self._build(text)
            return
        for start, new, was in self._pending.spans:  # left to right: ``old`` follows ``text``
            changed = old[:start] + text[start:start + new] + old[start + was:]
            before, after = windows(old, changed, (start, start + was, start + new),
                                    self.language, self.work)
            self.replace(before, after, changed)
            old = changed
        if old != text:  # not what the changes make of it: read it whole
            self._build(text)
        self._text, self._pending = text, Pending()

    def replace(self, before: Piece, after: Piece, text: str) -> None:
        """``before``'s functions left the text, ``after``'s arrived: the multiset follows,
        and the index describes ``text``."""
        for name, code in before.functions():
            codes = self._functions.get(name)
            if codes is None or codes[code] <= 0:
                continue
            codes[code] -= 1
            if codes[code] == 0:
                del codes[code]
                if not codes:
                    del self._functions[name]
        self._add(after.functions())
        self._text, self._pending = text, Pending()

    def _add(self, functions: Sequence[tuple[str, str]]) -> None:
        for name, code in functions:
            self._functions.setdefault(name, Counter())[code] += 1

    def _build(self, text: str) -> None:
        """Read ``text`` whole, in pieces (:func:`pieces`), so no one parse holds the
        interpreter long; the functions' texts are kept, none keyed."""
        self._functions = {}
        for piece in pieces(text, self.language, Work(), self._between):
            self._add(piece.functions())
        self.work.full_builds += 1
        self.work.chars += len(text)
        self._text, self._pending = text, Pending()


def pieces(text: str, language: str, work: Work,
           between: Callable[[], None] = pause) -> Iterator[Piece]:
    """``text`` as pieces of about :data:`BUILD_PIECE` characters of whole lines, each
    parsed alone and widened while it does not parse cleanly; ``between`` runs between
    pieces (a pause that leaves the interpreter to the thread that answers requests)."""
    start = 0
    while start < len(text):
        reach, end = 1, _forward(text, start + BUILD_PIECE, 1)
        piece = _parse(text, start, end, language, work)
        while not piece.clean and end < len(text) and end - start < MAX_WINDOW:
            reach *= 2
            end = _forward(text, end, reach)
            piece = _parse(text, start, end, language, work)
        yield piece
        start = end
        if start < len(text):
            between()
