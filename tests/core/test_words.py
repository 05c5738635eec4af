"""Counted nouns and shortened lists in messages."""

from __future__ import annotations

from codequorum.core.words import names_listed


def test_a_shortened_list_says_how_many_more() -> None:
    names = [f"f{k}" for k in range(15)]
    assert names_listed(names) == ", ".join(names[:12]) + " and 3 more"
    assert names_listed(names[:12]) == ", ".join(names[:12])
    assert names_listed(["a", "b", "c"], limit=2) == "a, b and 1 more"
    assert names_listed([]) == ""


def test_a_json_value_is_named_by_its_kind() -> None:
    from codequorum.core.words import json_kind

    assert [json_kind(v) for v in (None, True, "a", 1, 2.5, [1], {"a": 1})] == [
        "null", "true or false", "a string", "a number", "a number", "a list", "an object"]
