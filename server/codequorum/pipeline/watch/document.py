"""One document under the watch: what it had, and the functions each change wrote.

:class:`DocumentWatch` keeps the shapes of the functions a change took away (a cut, a
deleted block) and of those that arrived, so a paste back, an undo or a redo of them is no
arrival; a change is read only when it inserted text over more than one line
(:func:`~codequorum.pipeline.watch.arrivals.worth_parsing`). What the document has is kept
in a :class:`~codequorum.pipeline.watch.index.DocumentIndex`, so a change costs what it
changed, not what the document holds; and a document reads at most :data:`CHARS_PER_SECOND`
characters a second (past that it rests: the changes are read together with the next one the
second allows). The language server keeps one per open document; the typing replay of
``bench/bench_watch_replay.py`` runs the same object.
"""

from __future__ import annotations

import time
from collections import OrderedDict, deque
from collections.abc import Callable, Iterable, Sequence

from codequorum.pipeline.watch.arrivals import (
    MAX_ARRIVALS,
    Arrival,
    removes_lines,
    worth_parsing,
)
from codequorum.pipeline.watch.edits import Edit, Span, changed_span, inserted_regions
from codequorum.pipeline.watch.index import DocumentIndex, Work, pause, window, windows

#: Shapes remembered per document.
KNOWN_KEPT = 512
#: Characters one document may have parsed in any second (whole builds included).
CHARS_PER_SECOND = 2_000_000


class DocumentWatch:
    """The memory of one document and the rule applied to each of its changes."""

    def __init__(self, kept: int = KNOWN_KEPT, clock: Callable[[], float] = time.monotonic,
                 chars_per_second: int = CHARS_PER_SECOND,
                 between: Callable[[], None] = pause) -> None:
        self._known: OrderedDict[str, None] = OrderedDict()
        self._kept = kept
        self._index: DocumentIndex | None = None
        self._clock = clock
        self._per_second = chars_per_second
        self._between = between  # between the pieces of a whole read
        self._spent: deque[tuple[float, int]] = deque()
        #: What reading this document's changes cost, and the changes left to rest.
        self.work = Work()
        self.rested = 0

    def opened(self, language: str, text: str) -> None:
        """Index the document as it opens, so its first change is read as cheaply as the
        others."""
        self._index_for(language).bring_to(text)
        self._count_work()

    def note(self, edits: Sequence[Edit]) -> None:
        """A change not read (it cannot have written a function, or the server holds too
        many already): what it changed is read with the next change that is."""
        if self._index is not None:
            self._index.note(edits)

    def arrivals(self, language: str, befores: Sequence[str], edits: Sequence[Edit],
                 after: str) -> list[Arrival]:
        """The functions one change wrote: ``edits[i]`` applied to ``befores[i]`` gave the
        text the next edit applied to, the last one ``after``."""
        index = self._index_for(language)
        try:
            return self._read(index, befores, edits, after)
        finally:
            self._count_work()

    def _read(self, index: DocumentIndex, befores: Sequence[str], edits: Sequence[Edit],
              after: str) -> list[Arrival]:
        for edit, text in zip(edits, befores, strict=True):
            if removes_lines(edit, text):
                piece = window(text, (edit.start, edit.end), index.language, index.work)
                self.remember(piece.keys(index.work, [(edit.start, edit.end)]))
        span = changed_span(edits)
        if span is None or not worth_parsing(edits) or not self._allowed(index, befores[0], span):
            index.note(edits)
            return []
        index.bring_to(befores[0])
        before, now = windows(befores[0], after, span, index.language, index.work)
        found = now.written(inserted_regions(edits))
        fresh = [a for a in found if a.key not in self._known and not index.has(a)]
        index.replace(before, now, after)
        if len(fresh) > MAX_ARRIVALS:
            return []
        self.remember(a.key for a in fresh)
        return fresh

    def _allowed(self, index: DocumentIndex, before: str, span: Span) -> bool:
        """Whether the second allows reading this change (a guess at its characters: what
        changed since the last one read, and this one's span)."""
        now = self._clock()
        while self._spent and self._spent[0][0] <= now - 1.0:
            self._spent.popleft()
        guess = index.cost(before) + 2 * (max(span[1], span[2]) - span[0])
        if sum(chars for _, chars in self._spent) + guess <= self._per_second:
            return True
        self.rested += 1
        return False

    def _count_work(self) -> None:
        if self._index is None:
            return
        done = self._index.work
        if done.chars:
            self._spent.append((self._clock(), done.chars))
        self.work.add(done)
        self._index.work = Work()

    def _index_for(self, language: str) -> DocumentIndex:
        if self._index is None or self._index.language != language:
            self._index = DocumentIndex(language, self._between)
        return self._index

    def remember(self, keys: Iterable[str]) -> None:
        """Shapes the document had (or that arrived): none of them is an arrival again."""
        for key in keys:
            self._known[key] = None
            self._known.move_to_end(key)
        while len(self._known) > self._kept:
            self._known.popitem(last=False)
