"""A document's lines by their offsets, kept through its edits: the lines pygls splits and
the rows tree-sitter counts, without splitting the text again."""

from __future__ import annotations

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from codequorum.lsp.lines import LineIndex, SplitLines
from codequorum.pipeline.watch.edits import Edit

texts = st.text("ab\n\r\u00e9\U0001f550", max_size=40)
edits = st.tuples(st.integers(0, 40), st.integers(0, 40), st.text("a\n\r\U0001f550\u2028",
                                                                     max_size=6))


def _no_other_breaks(text: str) -> bool:
    """Whether ``str.splitlines`` splits ``text`` at ``"\n"`` (and ``"\r\n"``) only."""
    plain = text.replace("\r\n", "\n")
    return "".join(plain.splitlines()) == plain.replace("\n", "")


@given(texts)
def test_the_lines_are_those_pygls_splits_and_the_rows_those_tree_sitter_counts(
        text: str) -> None:
    index = LineIndex.of(text)
    assert (index is not None) == _no_other_breaks(text)
    if index is None:
        return
    assert list(index) == text.splitlines(keepends=True)
    rows = text.split("\n")
    assert index.rows == len(rows)
    assert [index.row(r) for r in range(len(rows))] == rows and index.row(len(rows)) == ""
    for r in range(len(index) + 2):
        assert index.offset(r) == SplitLines(text.splitlines(keepends=True)).offset(r)
    for at in range(len(text) + 1):
        assert index.row_at(at) == text.count("\n", 0, at)


@given(texts, edits)
def test_an_edit_keeps_the_index_the_edited_text_would_have(
        text: str, edit: tuple[int, int, str]) -> None:
    index = LineIndex.of(text)
    start, end = sorted(min(x, len(text)) for x in edit[:2])
    change = Edit(start, end, edit[2])
    after = change.applied(text)
    if index is None:
        return
    edited = index.edited(change, after)
    fresh = LineIndex.of(after)
    if edited is None:  # it made a line break of another kind
        assert fresh is None
        return
    assert fresh is not None and edited.text is after
    assert np.array_equal(edited.starts, fresh.starts)


def test_a_text_with_another_line_break_has_no_index() -> None:
    assert LineIndex.of("a\rb") is None
    assert LineIndex.of("a\u2028b") is None
    crlf = LineIndex.of("a\r\nb\r\n")
    assert crlf is not None and list(crlf) == ["a\r\n", "b\r\n"] and crlf.row(0) == "a\r"
