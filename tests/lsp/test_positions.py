"""Position-encoding conversion between tree-sitter byte columns and client units."""

from __future__ import annotations

import pytest
from lsprotocol import types

from codequorum.lsp.documents import (
    LOCAL_FROM,
    Snapshot,
    byte_col_to_units,
    normalize_encoding,
    reindent,
    units,
    units_to_byte_col,
)
from codequorum.lsp.lines import LineIndex
from codequorum.pipeline.watch.index import MAX_WINDOW

LINE = 'x = "é😀" + f(y)'  # é: 2 bytes / 1 UTF-16 unit; 😀: 4 bytes / 2 UTF-16 units


def test_units_per_encoding() -> None:
    assert units("é😀", "utf-8") == 6
    assert units("é😀", "utf-16") == 3
    assert units("é😀", "utf-32") == 2


@pytest.mark.parametrize(
    ("encoding", "expected"),
    [("utf-8", 13), ("utf-16", 10), ("utf-32", 9)],
)
def test_byte_column_after_non_ascii(encoding: str, expected: int) -> None:
    byte_col = len(LINE[: LINE.index("+")].encode())  # the '+' sign
    assert byte_col == 13
    assert byte_col_to_units(LINE, byte_col, encoding) == expected  # type: ignore[arg-type]
    assert units_to_byte_col(LINE, expected, encoding) == byte_col  # type: ignore[arg-type]


def test_column_inside_a_surrogate_pair_snaps_to_the_character_start() -> None:
    start_of_emoji = len('x = "é'.encode())
    assert units_to_byte_col(LINE, 7, "utf-16") == start_of_emoji  # between the two halves


def test_columns_past_the_end_are_clamped() -> None:
    assert units_to_byte_col("abc", 99, "utf-16") == 3
    assert units_to_byte_col("é", 99, "utf-32") == 2
    assert units_to_byte_col("é", -4, "utf-8") == 0


def test_negotiated_encoding_names() -> None:
    assert normalize_encoding(types.PositionEncodingKind.Utf8) == "utf-8"
    assert normalize_encoding("utf-32") == "utf-32"
    assert normalize_encoding(None) == "utf-16"


def test_snapshot_round_trip_and_rows_split_on_newline_only() -> None:
    text = "a\x0cb = 1\ndef f():\n    return '😀'\n"
    snap = Snapshot(uri="file:///t.py", text=text, language="python", encoding="utf-16")
    assert snap.lines[0] == "a\x0cb = 1"
    pos = snap.position((2, len("    return '😀".encode())))
    assert pos == types.Position(line=2, character=len("    return '") + 2)
    assert snap.point(pos) == (2, len("    return '😀".encode()))


def test_reindent_for_methods() -> None:
    code = "def m(self):\n    if self.x:\n\n        return 1\n    return 2\n"
    assert reindent(code, "    ") == (
        "def m(self):\n        if self.x:\n\n            return 1\n        return 2"
    )
    assert reindent(code, "") == code.rstrip("\n")


def _long_document() -> str:
    """Over :data:`LOCAL_FROM` characters: functions, a class with methods, a nested
    function, text beyond ASCII, a string with a function-like line at column 0."""
    parts = []
    for i in range(2200):
        parts.append(f"def f_{i}(x):\n    s = 'é😀{i}'\n    return s * x\n\n\n")
        if i % 100 == 7:
            parts.append(f"class Box{i}:\n    def get(self):\n        def inner():\n"
                         f"            return {i}\n        return inner()\n\n\n")
        if i % 100 == 50:
            parts.append('DOC = """\ndef not_a_function():\n    return 1\n"""\n\n\n')
    return "".join(parts)


def test_a_long_document_finds_the_function_at_a_position_from_the_lines_around_it() -> None:
    text = _long_document()
    assert len(text) > LOCAL_FROM
    lines = text.split("\n")
    index = LineIndex.of(text)
    for encoding in ("utf-16", "utf-8"):
        whole = Snapshot("file:///long.py", text, "python", encoding)  # type: ignore[arg-type]
        whole.functions()
        for row in range(0, len(lines), 53):
            for column in (0, 5, len(lines[row])):
                position = types.Position(line=row, character=column)
                local = Snapshot("file:///long.py", text, "python", encoding)  # type: ignore[arg-type]
                kept = Snapshot("file:///long.py", text, "python", encoding,  # type: ignore[arg-type]
                                line_index=index)
                assert local.function_at(position) == whole.function_at(position), (row, column)
                assert kept.function_at(position) == whole.function_at(position), (row, column)
                assert local._functions is None  # it did not index the document
                assert kept._lines is None  # nor split it: its lines were kept


def test_a_line_longer_than_any_window_indexes_its_version_once() -> None:
    text = "".join(f"function f{i}(x){{return x+{i}}}" for i in range(6000)) + "\n"
    assert len(text) > MAX_WINDOW and len(text) > LOCAL_FROM
    snapshot = Snapshot("file:///min.js", text, "javascript", "utf-16")
    position = types.Position(line=0, character=text.index("function f3000") + 10)
    found = snapshot.function_at(position)
    assert found is not None and found.name == "f3000"
    assert snapshot._functions is not None  # indexed once: the next call parses nothing
    assert snapshot.function_at(position) == found
