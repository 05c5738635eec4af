"""Edits of one change and the regions they inserted."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from codequorum.pipeline.watch.edits import Edit, changed_span, inserted_regions, shift, touches


def apply(text: str, edits: list[Edit]) -> str:
    for e in edits:
        text = text[: e.start] + e.text + text[e.end :]
    return text


def test_one_insertion_is_its_own_region() -> None:
    assert inserted_regions([Edit(4, 4, "abc")]) == [(4, 7)]


def test_a_deletion_inserts_nothing() -> None:
    assert inserted_regions([Edit(2, 9, "")]) == []


def test_later_edits_move_and_join_earlier_regions() -> None:
    # "0123456789": insert "AB" at 2, then "xy" at 0 (moves it), then "C" right after it
    edits = [Edit(2, 2, "AB"), Edit(0, 0, "xy"), Edit(6, 6, "C")]
    text = apply("0123456789", edits)
    assert text == "xy01ABC23456789"
    assert inserted_regions(edits) == [(0, 2), (4, 7)]
    assert [text[a:b] for a, b in inserted_regions(edits)] == ["xy", "ABC"]


def test_a_later_edit_that_replaces_part_of_a_region_keeps_the_rest() -> None:
    edits = [Edit(0, 0, "abcdef"), Edit(2, 4, "Z")]
    text = apply("123", edits)
    assert text == "abZef123"
    assert [text[a:b] for a, b in inserted_regions(edits)] == ["abZef"]


@given(st.lists(st.tuples(st.integers(0, 40), st.integers(0, 8), st.text("ab\n", max_size=6)),
                max_size=8))
def test_regions_cover_exactly_the_characters_no_edit_left_alone(
        raw: list[tuple[int, int, str]]) -> None:
    """Every character outside the regions comes from the text before; marking the old
    characters shows which."""
    text = "".join(chr(0x100 + i) for i in range(30))
    edits: list[Edit] = []
    current = text
    for start, length, new in raw:
        start = min(start, len(current))
        end = min(start + length, len(current))
        edits.append(Edit(start, end, new))
        current = current[:start] + new + current[end:]
    regions = inserted_regions(edits)
    outside = "".join(ch for i, ch in enumerate(current)
                      if not any(a <= i < b for a, b in regions))
    inside = "".join(current[a:b] for a, b in regions)
    assert all(ord(ch) >= 0x100 for ch in outside)
    assert all(ch in "ab\n" for ch in inside if ord(ch) < 0x100)
    assert sum(ord(ch) < 0x100 for ch in current) == sum(ord(ch) < 0x100 for ch in inside)


def test_touching_is_an_edit_inside_not_beside() -> None:
    region = (10, 20)
    assert touches(region, Edit(15, 15, "x"))
    assert touches(region, Edit(8, 11, ""))
    assert touches(region, Edit(19, 25, "y"))
    assert not touches(region, Edit(10, 10, "x"))  # typing right before it
    assert not touches(region, Edit(20, 20, "\n"))  # a new line after it
    assert not touches(region, Edit(2, 5, "abcdef"))
    assert shift(region, Edit(2, 5, "abcdef")) == (13, 23)
    assert shift(region, Edit(20, 20, "zz")) == region


@given(st.lists(st.tuples(st.integers(0, 30), st.integers(0, 6), st.text("xy\n", max_size=4)),
                min_size=1, max_size=8))
def test_the_changed_span_holds_every_edit(raw: list[tuple[int, int, str]]) -> None:
    before = "abcdefghij\n" * 3
    text, edits = before, []
    for at, length, new in raw:
        start = min(at, len(text))
        edit = Edit(start, min(start + length, len(text)), new)
        edits.append(edit)
        text = apply(text, [edit])
    span = changed_span(edits)
    assert span is not None
    start, old_end, new_end = span
    assert text == before[:start] + text[start:new_end] + before[old_end:]
    assert changed_span([]) is None
