"""``outside_quotes`` and the splits built on it: the characters of a line outside its
string literals, its top-level pieces, the named values before prose."""

from __future__ import annotations

from codequorum.core.quoted import outside_quotes, top_level_split, values_before_prose


def _kept(text: str, quotes: str = "'\"`", apostrophes: bool = False) -> str:
    return "".join(ch for _i, ch in outside_quotes(text, quotes, apostrophes))


def test_strings_of_every_quote_are_left_out_with_their_escapes() -> None:
    assert _kept("f(')', \"a, b\", `c`) == 1") == "f(, , ) == 1"
    assert _kept(r"f('it\'s (') + 1") == "f() + 1"
    assert [i for i, _ch in outside_quotes("a'b'c")] == [0, 4]


def test_apostrophes_open_no_string_in_prose_and_only_the_quotes_asked_for_count() -> None:
    assert _kept("it's f(')') here", apostrophes=True) == "it's f() here"
    assert _kept("it's f(1)") == "it"  # a string never closed runs to the end
    assert _kept("f(`(`) 'x'", quotes="'\"") == "f(`(`) "


def test_top_level_split_cuts_only_at_commas_outside_brackets_and_strings() -> None:
    assert top_level_split("[1, 2], 'a, b', f(x, y),  ,{k: 1, j: 2}") == [
        "[1, 2]", "'a, b'", "f(x, y)", "{k: 1, j: 2}"]
    assert top_level_split("`a, b`, c", quotes="'\"") == ["`a", "b`", "c"]
    assert top_level_split("") == []


def test_values_before_prose_keeps_the_named_values_before_the_first_words() -> None:
    assert values_before_prose("N = 150, the sum of digits will be 6") == "N = 150"
    assert values_before_prose("s = 'a, b', n = [1, 2], then n == 2, k = 3") == (
        "s = 'a, b', n = [1, 2]")
    assert values_before_prose("a = 1, b = 2") is None  # every piece names a value
    assert values_before_prose("the list [1, 2], n = 3") is None  # prose first
    assert values_before_prose("x == 1, y") is None  # a comparison names nothing
