"""Strings made of the separators versions split a text on."""

from __future__ import annotations

from codequorum.behaviour.separated_strings import (
    MAX_SEPARATOR_CHARS,
    separated_strings,
    usable,
)


def test_one_separator_gives_texts_with_it_between_doubled_and_at_the_ends() -> None:
    assert separated_strings([","]) == ["a,b,c", "a,b,a", "a,,b", ",a", "a,"]


def test_an_outer_and_an_inner_separator_give_pairs_repeated_keys_and_empty_values() -> None:
    assert separated_strings(["&", "="]) == ["a=1&b=2", "a=1&a=2", "a=&b", "a=1=2&b=3",
                                             "&a=1&"]
    assert separated_strings([", ", ": ", ";"]) == separated_strings([", ", ": "])


def test_empty_long_repeated_or_unprintable_separators_are_not_used() -> None:
    assert usable(["", "x" * (MAX_SEPARATOR_CHARS + 1), "\n", "=", "=", "\0"]) == ["\n", "="]
    assert separated_strings(["\r\n"])[2:] == ["a\r\n\r\nb", "\r\na", "a\r\n"]
    assert usable(["\x00", "\x1b"]) == []
    assert separated_strings([]) == [] and separated_strings([""]) == []
