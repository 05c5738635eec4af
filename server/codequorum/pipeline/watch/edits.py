"""A document change as edits, and what the change inserted.

An :class:`Edit` replaces the text between two offsets (characters, in the text as it was
just before that edit) with new text: one ``contentChanges`` entry of ``didChange``. The
edits of one change apply one after the other, so :func:`inserted_regions` follows every
region through the later edits and answers them in the text after the whole change.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

#: A span ``[start, end)`` of character offsets.
Region = tuple[int, int]


@dataclass(frozen=True)
class Edit:
    """``text`` replaces ``[start, end)`` of the text before this edit."""

    start: int
    end: int
    text: str

    @property
    def delta(self) -> int:
        """How much longer the text is after this edit."""
        return len(self.text) - (self.end - self.start)

    def applied(self, text: str) -> str:
        """``text`` (the text before this edit) with the edit made."""
        return text[:self.start] + self.text + text[self.end:]


def inserted_regions(edits: Sequence[Edit]) -> list[Region]:
    """The regions of the text after ``edits`` that they inserted, merged where they meet,
    in order. A region a later edit replaces part of keeps its rest, joined with the later
    edit's text."""
    regions: list[Region] = []
    for edit in edits:
        low, high = edit.start, edit.start + len(edit.text)
        kept: list[Region] = []
        for a, b in regions:
            if b < edit.start:
                kept.append((a, b))
            elif a > edit.end:
                kept.append((a + edit.delta, b + edit.delta))
            else:  # it meets the replaced span: what is left of it joins the new text
                low = min(low, a)
                if b > edit.end:
                    high = max(high, b + edit.delta)
        if high > low:
            kept.append((low, high))
        regions = sorted(kept)
    return regions


def touches(region: Region, edit: Edit) -> bool:
    """True when ``edit`` changes the inside of ``region`` (offsets of the same text): it
    replaces a part of it, or inserts strictly inside it. Typing right before or right
    after it does not."""
    a, b = region
    if edit.end > edit.start:
        return edit.start < b and edit.end > a
    return a < edit.start < b


def shift(region: Region, edit: Edit) -> Region:
    """``region`` in the text after ``edit``, which does not touch it."""
    a, b = region
    if edit.start >= b:
        return region
    return a + edit.delta, b + edit.delta


#: ``(start, old_end, new_end)``: ``[start, old_end)`` of a text became ``[start, new_end)``.
Span = tuple[int, int, int]


def changed_span(edits: Sequence[Edit], since: Span | None = None) -> Span | None:
    """The one span ``edits`` changed (after the changes of ``since``, if given), so that
    the text after them is ``before[:start] + after[start:new_end] + before[old_end:]``
    (None for no edits and nothing since)."""
    span = since
    for edit in edits:
        if span is None:
            span = (edit.start, edit.end, edit.start + len(edit.text))
            continue
        start, old_end, new_end = span
        grown = max(0, edit.end - new_end)  # how far the edit reaches past the span
        span = (min(start, edit.start), old_end + grown, max(new_end, edit.end) + edit.delta)
    return span
