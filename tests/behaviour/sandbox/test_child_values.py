"""How the child shows a version's value: the same canonical text in every process, made
at C speed for containers of plain leaves."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from codequorum.behaviour.sandbox import child

LEAVES = st.one_of(st.integers(), st.floats(allow_nan=False), st.text(max_size=8),
                   st.binary(max_size=4), st.booleans(), st.none(), st.complex_numbers(
                       allow_nan=False, max_magnitude=1e6))
HASHABLE = st.one_of(st.integers(), st.text(max_size=8), st.booleans(), st.none())
VALUES = st.recursive(LEAVES, lambda inner: st.one_of(
    st.lists(inner, max_size=6), st.tuples(inner, inner),
    st.dictionaries(HASHABLE, inner, max_size=4), st.sets(HASHABLE, max_size=6),
    st.frozensets(HASHABLE, max_size=6)), max_leaves=30)


def _element_by_element(value: Any, monkeypatch: pytest.MonkeyPatch) -> str:
    with monkeypatch.context() as patch:
        patch.setattr(child, "_CONTAINERS", frozenset())
        return child.canonical_repr(value)


@settings(max_examples=300, deadline=None)
@given(VALUES)
def test_the_fast_text_is_the_element_by_element_text(value: Any) -> None:
    with pytest.MonkeyPatch.context() as monkeypatch:
        assert child.canonical_repr(value) == _element_by_element(value, monkeypatch)


def test_sets_are_sorted_and_huge_ints_shown_in_full(monkeypatch: pytest.MonkeyPatch) -> None:
    big = 10 ** 5000
    assert child.canonical_repr({3, 1, "a", 2}) == "{'a', 1, 2, 3}"
    assert child.canonical_repr(frozenset({"b", "a"})) == "frozenset({'a', 'b'})"
    assert child.canonical_repr([big, 2]) == f"[{'1' + '0' * 5000}, 2]"
    assert child.canonical_repr({big, 1}) == _element_by_element({big, 1}, monkeypatch)
