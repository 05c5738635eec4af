"""A document's lines by where they start, kept through its edits, so a change or a hover of a
long document costs what the edit costs, not a split of the whole text.

pygls splits a text into lines with ``str.splitlines`` (every Unicode line break) to apply
a change; tree-sitter counts rows by ``"\\n"``. In a text whose only line breaks are
``"\\n"`` and ``"\\r\\n"`` both are the same lines, and :class:`LineIndex` holds where each
starts; an edit updates them around what it changed (:meth:`LineIndex.edited`). A text with
another line break has none (:meth:`LineIndex.of` is None) and is split as before
(:class:`SplitLines`).
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Sequence
from typing import overload

import numpy as np
import numpy.typing as npt

from codequorum.pipeline.watch.edits import Edit

#: Line breaks other than ``"\n"`` and ``"\r\n"`` that ``str.splitlines`` splits at.
_OTHER_BREAKS = re.compile("\r(?!\n)|[\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029]")
#: Texts shorter than this have their line breaks found by ``str.find``.
_SHORT = 512

Starts = npt.NDArray[np.int64]


def _starts_after_breaks(text: str) -> Starts:
    """The offset just after each ``"\\n"`` of ``text``."""
    if len(text) < _SHORT:
        found: list[int] = []
        at = text.find("\n")
        while at >= 0:
            found.append(at + 1)
            at = text.find("\n", at + 1)
        return np.array(found, dtype=np.int64)
    codes = np.frombuffer(text.encode("utf-32-le", "surrogatepass"), dtype=np.uint32)
    return (np.flatnonzero(codes == 10) + 1).astype(np.int64)


class LineIndex(Sequence[str]):
    """Where each line of ``text`` starts. As a sequence it is pygls's lines (each with its
    line end); :meth:`row` is tree-sitter's row (without it)."""

    def __init__(self, text: str, starts: Starts) -> None:
        self.text = text
        self.starts = starts

    @classmethod
    def of(cls, text: str) -> LineIndex | None:
        """The index of ``text``; None when it holds another line break."""
        if _OTHER_BREAKS.search(text) is not None:
            return None
        return cls(text, np.concatenate([np.zeros(1, np.int64), _starts_after_breaks(text)]))

    def edited(self, edit: Edit, text: str) -> LineIndex | None:
        """The index of ``text``, which is ``edit`` applied to this one's text: the lines
        before it kept, those after it moved (None when the edit made another line break)."""
        start, end, new = edit.start, edit.end, edit.text
        # what it wrote, and the character before it (a "\r" it may have parted from its
        # "\n"), each read with the character after it
        written = start + len(new)
        if any(found.start() < written for found in
               _OTHER_BREAKS.finditer(text, max(0, start - 1), written + 1)):
            return None
        kept = self.starts[: int(np.searchsorted(self.starts, start, side="right"))]
        moved = self.starts[int(np.searchsorted(self.starts, end, side="right")):]
        return LineIndex(text, np.concatenate(
            [kept, _starts_after_breaks(new) + start, moved + (len(new) - (end - start))]))

    def __len__(self) -> int:
        """How many lines ``str.splitlines`` makes of the text."""
        count = len(self.starts)
        return count - 1 if not self.text or self.text.endswith("\n") else count

    @overload
    def __getitem__(self, row: int) -> str: ...
    @overload
    def __getitem__(self, row: slice) -> Sequence[str]: ...
    def __getitem__(self, row: int | slice) -> str | Sequence[str]:
        """pygls's line ``row`` (with its line end)."""
        if isinstance(row, slice):
            return [self[i] for i in range(*row.indices(len(self)))]
        count = len(self)
        if row < 0:
            row += count
        if not 0 <= row < count:
            raise IndexError(row)
        return self.text[self.offset(row): self.offset(row + 1)]

    def offset(self, row: int) -> int:
        """Where line ``row`` starts (the text's length past the last)."""
        return int(self.starts[row]) if 0 <= row < len(self.starts) else len(self.text)

    @property
    def rows(self) -> int:
        """How many rows tree-sitter counts (lines split at ``"\\n"``)."""
        return len(self.starts)

    def row(self, row: int) -> str:
        """Row ``row`` as tree-sitter counts it, without its ``"\\n"`` ("" past the end)."""
        if not 0 <= row < len(self.starts):
            return ""
        end = int(self.starts[row + 1]) - 1 if row + 1 < len(self.starts) else len(self.text)
        return self.text[int(self.starts[row]): end]

    def row_at(self, offset: int) -> int:
        """The row holding character ``offset``."""
        return int(np.searchsorted(self.starts, offset, side="right")) - 1


class SplitLines(Sequence[str]):
    """pygls's lines of a text with other line breaks, split whole, with their offsets."""

    def __init__(self, lines: Sequence[str]) -> None:
        self.lines = lines
        self._offsets = [0, *itertools.accumulate(map(len, lines))]

    def __len__(self) -> int:
        return len(self.lines)

    @overload
    def __getitem__(self, row: int) -> str: ...
    @overload
    def __getitem__(self, row: slice) -> Sequence[str]: ...
    def __getitem__(self, row: int | slice) -> str | Sequence[str]:
        return self.lines[row]

    def offset(self, row: int) -> int:
        """Where line ``row`` starts (the text's length past the last)."""
        return self._offsets[min(max(row, 0), len(self.lines))]
