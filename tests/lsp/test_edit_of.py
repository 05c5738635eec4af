"""A content change as an edit of the text before it, in the client's position units."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st
from lsprotocol import types
from pygls.workspace import TextDocument

from codequorum.lsp.lines import LineIndex
from codequorum.lsp.server import edit_of

TEXT = "def f():\n    return '🕐'\n\nx = 1\n"


def _change(l1: int, c1: int, l2: int, c2: int, text: str
            ) -> types.TextDocumentContentChangePartial:
    rng = types.Range(start=types.Position(line=l1, character=c1),
                      end=types.Position(line=l2, character=c2))
    return types.TextDocumentContentChangePartial(range=rng, text=text)


def _doc(text: str) -> TextDocument:
    return TextDocument("file:///w/a.py", text, language_id="python",
                        sync_kind=types.TextDocumentSyncKind.Incremental)


def _positions(text: str) -> st.SearchStrategy[types.Position]:
    """Positions a client may send: a line of ``text`` and a column in it (UTF-16 units, up
    to its end)."""
    lines = text.split("\n")
    return st.integers(0, len(lines) - 1).flatmap(
        lambda row: st.integers(0, len(lines[row].encode("utf-16-le")) // 2).map(
            lambda col: types.Position(line=row, character=col)))


@given(_positions(TEXT), _positions(TEXT), st.text("ab\n🕐", max_size=5))
def test_the_edit_is_what_pygls_applies(a: types.Position, b: types.Position,
                                        new: str) -> None:
    if (b.line, b.character) < (a.line, a.character):
        a, b = b, a
    for p in (a, b):  # a column inside a character of two UTF-16 units is no position
        try:
            TEXT.split("\n")[p.line].encode("utf-16-le")[: 2 * p.character].decode("utf-16-le")
        except UnicodeDecodeError:
            return
    doc = _doc(TEXT)
    change = _change(a.line, a.character, b.line, b.character, new)
    edit = edit_of(doc, change)
    assert edit is not None
    assert edit_of(doc, change, LineIndex.of(TEXT)) == edit  # read from the kept lines
    before = doc.source
    doc.apply_change(change)
    assert edit.applied(before) == doc.source


def test_utf16_columns_after_a_character_beyond_the_bmp() -> None:
    doc = _doc(TEXT)
    # the closing quote after the clock (two UTF-16 units) is column 14 of line 1
    edit = edit_of(doc, _change(1, 14, 1, 15, '"'))
    assert edit is not None and TEXT[edit.start:edit.end] == "'"


def test_a_change_without_a_range_is_the_whole_document() -> None:
    whole = types.TextDocumentContentChangeWholeDocument(text="y = 2\n")
    assert edit_of(_doc(TEXT), whole) is None
