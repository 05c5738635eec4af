"""One document under the watch: what it had, and the functions each change wrote.

:class:`DocumentWatch` keeps the shapes of the functions a change took away (a cut, a
deleted block) and of those that arrived, so a paste back, an undo or a redo of them is no
arrival; a change is parsed only when it inserted text over more than one line
(:func:`~codequorum.pipeline.watch.arrivals.worth_parsing`). The language server keeps one per open
document; the typing replay of ``bench/bench_watch_replay.py`` runs the same object.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Iterable, Sequence

from codequorum.core import parsing
from codequorum.pipeline.watch.arrivals import (
    Arrival,
    keys_of,
    new_arrivals,
    removes_lines,
    worth_parsing,
)
from codequorum.pipeline.watch.edits import Edit, inserted_regions

#: Shapes remembered per document.
KNOWN_KEPT = 512


class DocumentWatch:
    """The memory of one document and the rule applied to each of its changes."""

    def __init__(self, kept: int = KNOWN_KEPT) -> None:
        self._known: OrderedDict[str, None] = OrderedDict()
        self._kept = kept

    def arrivals(self, language: str, befores: Sequence[str], edits: Sequence[Edit],
                 after: str,
                 infos: Callable[[], Sequence[parsing.FunctionInfo] | None] | None = None,
                 ) -> list[Arrival]:
        """The functions one change wrote: ``edits[i]`` applied to ``befores[i]`` gave the
        text the next edit applied to, the last one ``after`` (``infos``: the functions of
        ``after``, parsed where the caller keeps them; asked only when a change is worth
        parsing)."""
        for edit, before in zip(edits, befores, strict=True):
            if removes_lines(edit, before):
                self.remember(keys_of(before, language, [(edit.start, edit.end)]))
        if not edits or not worth_parsing(edits):
            return []
        found = new_arrivals(befores[0], after, language, inserted_regions(edits),
                             set(self._known), infos() if infos is not None else None)
        self.remember(a.key for a in found)
        return found

    def remember(self, keys: Iterable[str]) -> None:
        """Shapes the document had (or that arrived): none of them is an arrival again."""
        for key in keys:
            self._known[key] = None
            self._known.move_to_end(key)
        while len(self._known) > self._kept:
            self._known.popitem(last=False)
