"""``outside_quotes``: the characters of a line outside its string literals."""

from __future__ import annotations

from codequorum.core.quoted import outside_quotes


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
